package shingle

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteIntersection counts common elements with a nested loop.
func bruteIntersection(a, b []uint64) int {
	c := 0
	for _, x := range a {
		for _, y := range b {
			if x == y {
				c++
			}
		}
	}
	return c
}

func checkJaccard(t *testing.T, a, b []uint64) {
	t.Helper()
	inter := bruteIntersection(a, b)
	want := 0.0
	if u := len(a) + len(b) - inter; u > 0 {
		want = float64(inter) / float64(u)
	}
	if got := Intersection(a, b); got != inter {
		t.Fatalf("Intersection(%d elems, %d elems) = %d, want %d\na=%x\nb=%x", len(a), len(b), got, inter, a, b)
	}
	if got := Intersection(b, a); got != inter {
		t.Fatalf("Intersection(b, a) = %d, want %d", got, inter)
	}
	if got := Jaccard(a, b); got != want {
		t.Fatalf("Jaccard = %v, want %v", got, want)
	}
	if got := Jaccard(b, a); got != want {
		t.Fatalf("Jaccard(b, a) = %v, want %v", got, want)
	}
	// The early-stopping path (the count needed for the threshold).
	for _, th := range []float64{0.25, 0.5, want} {
		if th <= 0 {
			continue
		}
		got, ok := JaccardAtLeast(a, b, th)
		if ok != (want >= th) || (ok && got != want) {
			t.Fatalf("JaccardAtLeast(t=%v) = (%v, %v), Jaccard %v", th, got, ok, want)
		}
	}
}

func TestJaccardBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	sizes := []int{0, 1, 2, 3, 5, 10, 23, 24, 25, 50, 250, 1000, 3000}
	for _, m := range sizes {
		for _, n := range sizes {
			for _, univ := range []uint64{4, 64, 1 << 20, 1<<64 - 1} {
				a := randSetIn(r, m, univ)
				b := randSetIn(r, n, univ)
				checkJaccard(t, a, b)
				// Identical, disjoint, subset, and values at the extremes.
				checkJaccard(t, a, slices.Clone(a))
				checkJaccard(t, a, shiftSet(a, 1<<63))
				if len(b) > 0 {
					checkJaccard(t, b, b[len(b)/3:])
					checkJaccard(t, b[:len(b)/2], b[len(b)/2:])
				}
			}
		}
	}
	checkJaccard(t, []uint64{0, 1<<64 - 1}, []uint64{1<<64 - 1})
	checkJaccard(t, []uint64{0}, []uint64{0})
	if got := Jaccard(nil, nil); got != 0 {
		t.Errorf("Jaccard(nil, nil) = %v, want 0", got)
	}
	if got := Jaccard([]uint64{1, 2}, []uint64{2, 3}); got != 1.0/3 {
		t.Errorf("Jaccard = %v, want 1/3", got)
	}
}

// randSetIn returns a sorted set of up to n values below univ, plus the
// extremes 0 and univ-1 sometimes.
func randSetIn(r *rand.Rand, n int, univ uint64) []uint64 {
	a := make([]uint64, 0, n)
	for range n {
		switch r.IntN(50) {
		case 0:
			a = append(a, 0)
		case 1:
			a = append(a, univ-1)
		default:
			a = append(a, r.Uint64N(univ))
		}
	}
	slices.Sort(a)
	return slices.Compact(a)
}

// shiftSet returns the set {x + d}, sorted; with d = 1<<63 it is disjoint
// from a when a's values lie below 1<<63 (and interleaves otherwise).
func shiftSet(a []uint64, d uint64) []uint64 {
	b := make([]uint64, len(a))
	for i, x := range a {
		b[i] = x + d
	}
	slices.Sort(b)
	return b
}

func TestIntersectionPaths(t *testing.T) {
	// Both paths on the same inputs, at size ratios around gallopRatio.
	r := rand.New(rand.NewPCG(23, 24))
	for range 200 {
		m := 1 + r.IntN(40)
		n := m * (1 + r.IntN(2*gallopRatio))
		univ := uint64(1 + r.IntN(4*n))
		a := randSetIn(r, m, univ)
		b := randSetIn(r, n, univ)
		if len(a) == 0 || len(b) == 0 {
			continue
		}
		want := bruteIntersection(a, b)
		if got := intersectMerge(a, b); got != want {
			t.Fatalf("merge = %d, want %d", got, want)
		}
		if got := intersectGallop(a, b); got != want {
			t.Fatalf("gallop = %d, want %d\na=%v\nb=%v", got, want, a, b)
		}
	}
}
