// Package lshhook carries what package lsh lends the batch (package
// neardup) beyond lsh's public API: a bucket-row callback and chained
// buckets left for later, hooks made for the batch's verification that a
// library user does not need. Package lsh sets Set when it is
// initialised; a package that imports lsh can then call it. It imports
// nothing of the module, so that lsh can import it.
package lshhook

// Options are the batch's settings of an *lsh.Candidates beyond its
// exported fields.
type Options struct {
	// Row, if not nil, is called instead of Run's fn with the pairs a
	// member of a bucket of at most MaxBucket members is reported in, all
	// at once: Row(worker, i, js) stands for fn(worker, i, j) for each j
	// of js, in order (ascending). A caller can then start loading what it
	// reads about the later partners while it tests the first (in a large
	// bucket the partners' data are cache misses). js is reused after
	// Row returns. The pairs of chained buckets still go to fn.
	Row func(worker int, i uint32, js []uint32)
	// Defer, when set (and the Candidates' MinAgree > 0), has Run leave
	// the chained buckets for later: Run reports their chains but not the
	// pairs lsh.AgreeingPairs adds, which the caller pairs later through
	// the Chained that Set returns (for instance once it holds the
	// members' sets, to verify each bucket's pairs together rather than
	// hold them).
	Defer bool
}

// Chained is what a candidate search left for later under Options.Defer:
// its chained buckets. It is filled by the search's Run and must not be
// used before Run returns; its methods may then be called concurrently.
type Chained interface {
	// Len returns the number of chained buckets.
	Len() int
	// Members returns the members of chained bucket k (0 <= k < Len,
	// largest first), in ascending id order. The slice must not be
	// modified.
	Members(k int) []uint32
	// PairsWhere calls fn(x, y), x < y, for the pairs of chained bucket k
	// that Run would have reported besides its chain (as positions in
	// Members(k)) and that keep accepts. sig(i) is document i's whole
	// signature, as Run read it. keep, if not nil, is asked about a
	// member x's pairs with ys together (ascending, all after x), before
	// their report bands and full comparisons: it sets every ok[i] to
	// whether pair (x, ys[i]) goes on, answering from each pair alone.
	// It stops early when fn returns false, and allocates a copy of the
	// bucket's signatures.
	PairsWhere(k int, sig func(i uint32) []uint32, keep func(x int, ys []int32, ok []bool), fn func(x, y int) bool)
}

// Set applies o to c, which must be an *lsh.Candidates not being Run, and
// returns, under o.Defer, the Chained its next Run fills (else nil).
// Package lsh sets it.
var Set func(c any, o Options) Chained
