package textdiff

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func BenchmarkDiffNearCopy(b *testing.B) {
	words := strings.Fields(strings.Repeat("we pay well for hard work in a friendly team ", 200))
	a := strings.Join(words, " ")
	words[100], words[700], words[1500] = "X", "Y", "Z"
	c := strings.Join(words[:1900], " ")
	b.SetBytes(int64(len(a)))
	b.ReportAllocs()
	for b.Loop() {
		Diff(a, c, 0)
	}
}

// BenchmarkDiffDifferent diffs two unrelated 50,000-word texts: the cut to
// DefaultMaxWords words and the step budget bound the work (a few
// milliseconds).
func BenchmarkDiffDifferent(b *testing.B) {
	for _, c := range []struct {
		name     string
		maxWords int
	}{{"default", 0}, {"all", 50000}} {
		b.Run(c.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 4))
			x, y := randWords(rng, "x", 50000), randWords(rng, "y", 50000)
			b.SetBytes(int64(len(x) + len(y)))
			b.ReportAllocs()
			for b.Loop() {
				Diff(x, y, c.maxWords)
			}
		})
	}
}
