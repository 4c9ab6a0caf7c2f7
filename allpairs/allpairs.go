// Package allpairs is an exact set-similarity join: every pair of sets whose
// Jaccard index is at least a threshold, found with prefix and length filters
// instead of comparing all pairs.
//
// STUB: contract only; the implementation replaces the bodies.
package allpairs

// Join calls fn(i, j, jaccard) with i < j for every pair of sets[i], sets[j]
// (sorted, duplicate-free hash slices) with Jaccard >= t (t in (0,1]).
// Empty sets never match. Pairs come in no particular order from one goroutine.
func Join(sets [][]uint64, t float64, fn func(i, j int, jaccard float64)) { panic("unimplemented") }
