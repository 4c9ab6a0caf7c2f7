// Package sample chooses seeded uniform random samples from streams of
// unknown length.
package sample

import "math/rand/v2"

// Reservoir chooses k items uniformly at random from a stream read once, in
// order, without knowing its length (Vitter's algorithm R). The caller keeps
// the items in k slots; Reservoir only says which slot each item goes to.
// Only integer arithmetic on a PCG generator is used, so the same seed and
// stream give the same sample on every machine.
//
// A Reservoir is not safe for concurrent use.
type Reservoir struct {
	k    int
	seen int
	rng  *rand.Rand
}

// New returns a Reservoir for a sample of k items (k >= 0) drawn with seed.
func New(k int, seed uint64) *Reservoir {
	return &Reservoir{k: max(k, 0), rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
}

// Next is called once for each item of the stream, in order. It returns the
// slot, in [0, k), that the item must be stored in (replacing what was
// there), or -1 when the item is not in the sample. The first k items go to
// slots 0, 1, ..., k-1 in order. It does not allocate.
func (r *Reservoir) Next() int {
	n := r.seen
	r.seen++
	if n < r.k {
		return n
	}
	if j := r.rng.Uint64N(uint64(n) + 1); j < uint64(r.k) {
		return int(j)
	}
	return -1
}

// Seen returns the number of items offered so far.
func (r *Reservoir) Seen() int { return r.seen }

// Len returns the number of items in the sample: min(k, Seen()).
func (r *Reservoir) Len() int { return min(r.k, r.seen) }
