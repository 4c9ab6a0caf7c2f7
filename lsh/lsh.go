// Package lsh implements banding over MinHash signatures: the S-curve, the
// choice of bands and rows, band keys and candidate generation.
//
// STUB: contract only; the implementation replaces the bodies.
package lsh

import "errors"

// ErrNoParams is returned by Choose when no (bands, rows) within the slots reaches the recall.
var ErrNoParams = errors.New("lsh: no bands and rows reach the requested recall")

// Params are b bands of r rows each.
type Params struct {
	Bands, Rows int
}

// Probability returns the chance 1-(1-s^r)^b that a pair of Jaccard s agrees on at least one band.
func (p Params) Probability(s float64) float64 { panic("unimplemented") }

// Choose returns, among the (b, r) with b*r <= slots whose Probability(t) >= recall,
// the one with the fewest expected false candidates (documented objective).
func Choose(slots int, t, recall float64) (Params, error) { panic("unimplemented") }

// Candidates describes a candidate search over n signatures of slots values each.
type Candidates struct {
	Params    Params
	Slots     int      // values per signature
	Sigs      []uint32 // n*Slots values, signature i at Sigs[i*Slots:(i+1)*Slots]
	Workers   int      // goroutines; <= 0 means 1
	MaxBucket int      // buckets larger than this are joined as a chain (m-1 pairs), not all pairs; <= 0: no limit
}

// Stats counts what a search did.
type Stats struct {
	Pairs         int64 // distinct candidate pairs emitted
	LargeBuckets  int64 // buckets over MaxBucket
	MaxBucketSeen int   // largest bucket
}

// Run calls fn(worker, i, j) with i < j once for every distinct candidate pair:
// a pair that agrees on several bands is reported once. Calls come from Workers
// goroutines concurrently; worker in [0, Workers) identifies the caller so fn
// can use per-worker state without locks.
func (c *Candidates) Run(fn func(worker int, i, j uint32)) (Stats, error) { panic("unimplemented") }
