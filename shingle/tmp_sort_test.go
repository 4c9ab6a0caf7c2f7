package shingle

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func BenchmarkTmpSort(b *testing.B) {
	for _, n := range []int{250, 1500} {
		r := rand.New(rand.NewPCG(1, 2))
		src := make([]uint64, n)
		for i := range src {
			src[i] = r.Uint64()
		}
		a := make([]uint64, n)
		s := mustNew(b, Options{})
		b.Run("old/"+string(rune('0'+n/250)), func(b *testing.B) {
			for b.Loop() {
				copy(a, src)
				s.sort(a, 64)
				dedup(a)
			}
		})
		b.Run("fused/"+string(rune('0'+n/250)), func(b *testing.B) {
			for b.Loop() {
				copy(a, src)
				s.sortDedup(a)
			}
		})
		b.Run("slices/"+string(rune('0'+n/250)), func(b *testing.B) {
			for b.Loop() {
				copy(a, src)
				slices.Sort(a)
				dedup(a)
			}
		})
	}
}

func TestTmpSortDedup(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := mustNew(t, Options{})
	for _, n := range []int{0, 1, 5, 25, 26, 100, 250, 1000, 5000, 70000} {
		for rep := 0; rep < 20; rep++ {
			a := make([]uint64, n)
			for i := range a {
				a[i] = r.Uint64()
				if rep%3 == 1 {
					a[i] = r.Uint64N(uint64(n)/2 + 1) << 50
				}
				if rep%3 == 2 {
					a[i] = r.Uint64N(100)
				}
			}
			want := slices.Compact(slices.Sorted(slices.Values(a)))
			m := s.sortDedup(a)
			if !slices.Equal(a[:m], want) {
				t.Fatal(n, rep)
			}
		}
	}
}
