package allpairs

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
)

// syntheticCorpus returns n sets of about 250 elements: a quarter are
// near-copies of an earlier set (each element kept with probability 0.8,
// plus up to 25 new ones), the rest fresh. Fresh sets are the hashes of
// the shingles (windows of `shingle` words) of a text of 200-300 words
// drawn from a Zipf(1.1) vocabulary of vocab words; vocab 0 means uniform
// random 64-bit hashes instead, almost all unique to one set. shingle 1
// with a large vocab (bag of words) is the adversarial case for prefix
// filtering: frequent words fill the prefixes.
func syntheticCorpus(n, vocab, shingle int) [][]uint64 {
	rng := rand.New(rand.NewPCG(21, 22))
	var z *rand.Zipf
	if vocab > 0 {
		z = rand.NewZipf(rng, 1.1, 1, uint64(vocab-1))
	}
	sets := make([][]uint64, n)
	words := make([]uint64, 0, 300)
	for i := range sets {
		s := make([]uint64, 0, 300)
		fresh := func(l int) {
			if z == nil {
				for range l {
					s = append(s, rng.Uint64())
				}
				return
			}
			words = words[:0]
			for range l + shingle - 1 {
				words = append(words, z.Uint64()+1)
			}
			for k := range l {
				h := uint64(0)
				for _, w := range words[k : k+shingle] {
					h = (h ^ w) * 0x9e3779b97f4a7c15
					h ^= h >> 29
				}
				s = append(s, h)
			}
		}
		if i > 0 && rng.IntN(4) == 0 {
			for _, v := range sets[rng.IntN(i)] {
				if rng.Float64() < 0.8 {
					s = append(s, v)
				}
			}
			fresh(rng.IntN(26))
		} else {
			fresh(200 + rng.IntN(101))
		}
		slices.Sort(s)
		sets[i] = slices.Compact(s)
	}
	return sets
}

// BenchmarkJoin100k is the size the neardup benchmark uses: 100k documents
// of ~250 elements at t=0.5, and at t=0.2, where eval's S-curve starts. Run with -benchtime 1x; skipped with -short.
func BenchmarkJoin100k(b *testing.B) {
	if testing.Short() {
		b.Skip("large")
	}
	for _, c := range []struct {
		vocab, shingle int
		t              float64
	}{{0, 0, 0.5}, {1 << 20, 3, 0.5}, {1 << 20, 2, 0.5}, {1 << 20, 3, 0.2}} {
		sets := syntheticCorpus(100_000, c.vocab, c.shingle)
		elems := 0
		for _, s := range sets {
			elems += len(s)
		}
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("vocab=%d/shingle=%d/t=%v/workers=%d", c.vocab, c.shingle, c.t, workers), func(b *testing.B) {
				b.ReportAllocs()
				var pairs atomic.Int64
				for b.Loop() {
					pairs.Store(0)
					JoinWorkers(sets, c.t, workers, func(int, int, float64) { pairs.Add(1) })
				}
				b.ReportMetric(float64(pairs.Load()), "pairs")
				b.ReportMetric(float64(elems), "elements")
			})
		}
	}
}

// BenchmarkPrepare is the first step of every join: ranking the elements
// of the 100k-set corpus by document frequency and rewriting the sets.
// Run with -benchtime 1x or a few; skipped with -short.
func BenchmarkPrepare(b *testing.B) {
	if testing.Short() {
		b.Skip("large")
	}
	sets := syntheticCorpus(100_000, 1<<20, 3)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("sets=100000/workers=%d", workers), func(b *testing.B) {
			for b.Loop() {
				if prepare(sets, workers) == nil {
					b.Fatal("nothing prepared")
				}
			}
		})
	}
}
