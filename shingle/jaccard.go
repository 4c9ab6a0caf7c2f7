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
	return intersectMerge(a, b)
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
