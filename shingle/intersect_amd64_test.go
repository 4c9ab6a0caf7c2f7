//go:build amd64 && !purego

package shingle

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestIntersectHalves checks the two-merge path of the VP2INTERSECT
// kernel against bruteIntersection: sets of 32 to 700 elements whose
// common elements and splits are uneven (b's elements mostly below or
// above a's middle one, so that one merge ends long before the other, or
// b's split too close to an end for two merges), with need just below,
// at and just above the true count (the early stops of the kernel and of
// each merge's rest), and Intersection. Skipped without the kernel.
func TestIntersectHalves(t *testing.T) {
	if !slices.Contains(kernels, kernelVP2) {
		t.Skip("no VP2INTERSECT on this CPU or in this build")
	}
	saved := kernel
	defer func() { kernel = saved }()
	kernel = kernelVP2
	rng := rand.New(rand.NewPCG(7, 8))
	halves := 0
	for it := 0; it < 20000; it++ {
		na, nb := 32+rng.IntN(670), 32+rng.IntN(670)
		// b's values below a's middle with probability skew.
		skew := []float64{0.5, 0.5, 0.1, 0.9, 0.02, 0.98}[rng.IntN(6)]
		shared := rng.Float64()
		a := make([]uint64, 0, na)
		for range na {
			a = append(a, rng.Uint64())
		}
		slices.Sort(a)
		a = slices.Compact(a)
		mid := a[len(a)/2]
		b := make([]uint64, 0, nb)
		for range nb {
			switch {
			case rng.Float64() < shared:
				b = append(b, a[rng.IntN(len(a))])
			case rng.Float64() < skew:
				b = append(b, rng.Uint64N(mid))
			default:
				b = append(b, mid+rng.Uint64N(^uint64(0)-mid))
			}
		}
		slices.Sort(b)
		b = slices.Compact(b)
		if hb, _ := slices.BinarySearch(b, mid); hb >= halvesMin && len(b)-hb >= halvesMin {
			halves++
		}
		want := bruteIntersection(a, b)
		if got := Intersection(a, b); got != want {
			t.Fatalf("|a|=%d |b|=%d: Intersection = %d, want %d", len(a), len(b), got, want)
		}
		for _, need := range []int{0, want - 1, want, want + 1, rng.IntN(len(a) + 1)} {
			for _, swap := range []bool{false, true} {
				x, y := a, b
				if swap {
					x, y = b, a
				}
				got, ok := intersectFastAtLeast(x, y, need)
				if ok != (want >= need) || (ok && got != want) {
					t.Fatalf("|a|=%d |b|=%d (swapped %v), need %d: (%d, %v), count %d", len(x), len(y), swap, need, got, ok, want)
				}
			}
		}
	}
	if halves < 10000 {
		t.Fatalf("only %d of 20000 pairs took the two merges", halves)
	}
}
