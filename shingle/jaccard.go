package shingle

import "math/bits"

// gallopRatio is the size ratio above which Intersection searches the
// larger set for each element of the smaller instead of merging.
const gallopRatio = 24

// Intersection returns |a ∩ b| of two sorted, duplicate-free slices.
// It does not allocate and does not modify a or b. If a slice is not
// sorted and duplicate-free the result is unspecified (but Intersection
// does not panic). It runs in O(len(a)+len(b)) time, or
// O(m log(n/m)) when the smaller size m is much below the larger n.
func Intersection(a, b []uint64) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) == 0 || a[len(a)-1] < b[0] || b[len(b)-1] < a[0] {
		return 0
	}
	if len(b)/len(a) >= gallopRatio {
		return intersectGallop(a, b)
	}
	return intersectFast(a, b)
}

// intersectMerge is a branch-free merge: the outcome of each comparison is
// data-dependent and unpredictable, so branches would mispredict half the
// time.
func intersectMerge(a, b []uint64) int {
	i, j, c := 0, 0, 0
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		_, xLess := bits.Sub64(x, y, 0) // 1 if x < y
		_, yLess := bits.Sub64(y, x, 0) // 1 if y < x
		i += int(1 - yLess)
		j += int(1 - xLess)
		c += int(1 ^ (xLess | yLess))
	}
	return c
}

// intersectGallop looks up each element of the small a in the large b by
// exponential then binary search, starting from the previous match.
func intersectGallop(a, b []uint64) int {
	c, lo := 0, 0
	for _, x := range a {
		// Find the first index in b[lo:] whose value is >= x.
		step := 1
		hi := lo
		for hi < len(b) && b[hi] < x {
			lo = hi + 1
			hi += step
			step <<= 1
		}
		hi = min(hi, len(b))
		// b[lo-1] < x (or lo is where we started) and b[hi] >= x (or hi == len(b)).
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if b[m] < x {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo == len(b) {
			break
		}
		if b[lo] == x {
			c++
			lo++
		}
	}
	return c
}

// Jaccard returns |a ∩ b| / |a ∪ b| of two sorted, duplicate-free slices; 0 when both are empty.
// It shares the contract of Intersection: no allocation, a and b unchanged.
func Jaccard(a, b []uint64) float64 {
	inter := Intersection(a, b)
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// MinOverlap returns the smallest intersection size o for which two sets of
// sizes na and nb have Jaccard o/(na+nb-o) >= t, computed with the same
// float64 division as Jaccard so the two agree exactly. It returns
// min(na, nb)+1 when no overlap reaches t.
func MinOverlap(na, nb int, t float64) int {
	lim := min(na, nb)
	// o >= t(na+nb)/(1+t); start just below and step up.
	o := max(int(t*float64(na+nb)/(1+t))-2, 0)
	for o <= lim && float64(o)/float64(na+nb-o) < t {
		o++
	}
	if o == 0 && na+nb == 0 {
		return 1 // two empty sets have Jaccard 0
	}
	return o
}

// JaccardAtLeast returns Jaccard(a, b) and true when it is at least t, and
// false as soon as the merge shows that it cannot be: a verification that
// gives up early on pairs far below t. The value, when returned, is exactly
// Jaccard(a, b). It does not allocate.
func JaccardAtLeast(a, b []uint64, t float64) (float64, bool) {
	return JaccardWithOverlap(a, b, MinOverlap(len(a), len(b), t))
}

// JaccardWithOverlap is JaccardAtLeast with the threshold given as the
// least intersection that reaches it, need = MinOverlap(len(a), len(b), t),
// for a caller that verifies many pairs and keeps those sizes in a table
// (MinOverlap's loop of divisions was 1% of a 10M-document run): it
// returns Jaccard(a, b) and true when |a ∩ b| >= need, giving up as
// JaccardAtLeast does (two empty sets: 0, and true only for need <= 0).
// It does not allocate.
func JaccardWithOverlap(a, b []uint64, need int) (float64, bool) {
	if len(a) > len(b) {
		a, b = b, a
	}
	if need > len(a) {
		return 0, false
	}
	var c int
	switch {
	case len(b)/max(len(a), 1) >= gallopRatio:
		c = intersectGallop(a, b)
	default:
		var ok bool
		c, ok = intersectFastAtLeast(a, b, need)
		if !ok {
			return 0, false
		}
	}
	if c < need {
		return 0, false
	}
	if len(b) == 0 { // two empty sets (need <= 0): Jaccard's 0
		return 0, true
	}
	return float64(c) / float64(len(a)+len(b)-c), true
}

// intersectMergeAtLeast is intersectMerge that stops, reporting false, once
// fewer than need common elements remain possible. It checks every 32 steps,
// keeping the inner loop branch-free.
func intersectMergeAtLeast(a, b []uint64, need int) (int, bool) {
	i, j, c := 0, 0, 0
	for i < len(a) && j < len(b) {
		if c+min(len(a)-i, len(b)-j) < need {
			return c, false
		}
		stop := min(32, len(a)-i, len(b)-j) // each step advances i or j by at least one
		for s := 0; s < stop; s++ {
			x, y := a[i], b[j]
			_, xLess := bits.Sub64(x, y, 0)
			_, yLess := bits.Sub64(y, x, 0)
			i += int(1 - yLess)
			j += int(1 - xLess)
			c += int(1 ^ (xLess | yLess))
		}
	}
	return c, c >= need
}
