package shingle

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDistinct checks distinct against a map: each value of the input once,
// in the order of its first occurrence (unless it fell back to the sort),
// on sizes around the table and sort limits and on value sets made to
// collide in the table, and that the table is left empty for the next call.
func TestDistinct(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	s := mustNew(t, Options{})
	gens := map[string]func() uint64{
		"uniform": r.Uint64,
		"dups":    func() uint64 { return uint64(r.IntN(50)) * 0x0123456789abcdef },
		"zeros":   func() uint64 { return uint64(r.IntN(3)) << 62 }, // 0 marks an empty slot
		// Every value in one home slot: the probe limit must send it to
		// the sort rather than go quadratic (and still be right).
		"sametop": func() uint64 { return 0xabcd<<48 | r.Uint64()>>16 },
		"runs":    func() uint64 { return 0x8000<<48 | r.Uint64N(1<<20) },
	}
	sizes := []int{0, 1, 2, insertionMax, insertionMax + 1, 100, 259, 1000, distinctMax, distinctMax + 1}
	for name, gen := range gens {
		for _, n := range sizes {
			for range 3 {
				a := make([]uint64, n)
				for i := range a {
					a[i] = gen()
				}
				seen := map[uint64]bool{}
				var firsts []uint64
				for _, x := range a {
					if !seen[x] {
						seen[x] = true
						firsts = append(firsts, x)
					}
				}
				got := a[:s.distinct(a)]
				sorted := slices.Sorted(slices.Values(firsts))
				if !slices.Equal(got, firsts) && !slices.Equal(got, sorted) {
					t.Fatalf("%s %d: %d values, want the %d distinct ones in first or sorted order", name, n, len(got), len(firsts))
				}
				if name == "uniform" && n > insertionMax && n <= distinctMax && !slices.Equal(got, firsts) {
					t.Fatalf("uniform %d: not in first-occurrence order", n)
				}
				if slices.ContainsFunc(s.table, func(x uint64) bool { return x != 0 }) {
					t.Fatalf("%s %d: the table is not left empty", name, n)
				}
			}
		}
	}
}

// TestAppendDistinct checks AppendDistinct against AppendSet on the modes
// and options, with an existing prefix in dst left alone.
func TestAppendDistinct(t *testing.T) {
	texts := []string{"", "a", "a a a a a", "the cat sat on the mat the cat sat on the mat again and again and again",
		"possibilitÃ  di\xffparcheggio ＬＩＮＵＸ", "日本語のテキスト 日本語のテキスト"}
	r := rand.New(rand.NewPCG(11, 12))
	words := []string{"alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"}
	for range 20 {
		var b []byte
		for range r.IntN(800) {
			b = append(b, words[r.IntN(len(words))]...)
			b = append(b, ' ')
		}
		texts = append(texts, string(b))
	}
	for _, o := range []Options{{}, {N: 1}, {N: 5}, {Mode: Char}, {Mode: Char, N: 2}, {Bag: true}, {NFKC: true}} {
		s := mustNew(t, o)
		for _, text := range texts {
			want := s.AppendSet(nil, []byte(text))
			got := s.AppendDistinct([]uint64{7, 8}, []byte(text))
			if got[0] != 7 || got[1] != 8 {
				t.Fatalf("%+v: the prefix changed", o)
			}
			if g := slices.Sorted(slices.Values(got[2:])); !slices.Equal(g, want) {
				t.Fatalf("%+v %.40q: %d elements, want %d (AppendSet)", o, text, len(g), len(want))
			}
		}
	}
}
