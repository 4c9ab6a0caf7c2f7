// Sign: the distinct sets' MinHash signatures, back to back in one array
// (moved to the front of the arena in place when the workers made them),
// their set bitmaps for the pre-filter and, under WeightIDF, their idf
// weights. It hands on the views, signed, to candidates.

package neardup

import (
	"slices"

	"github.com/neardup/neardup/idf"
	"github.com/neardup/neardup/internal/parallel"
	"github.com/neardup/neardup/shingle"
)

// setBitmaps reports whether the shingling workers make each set's
// shingle.Bitmap for the pre-filter: in two passes under exact,
// unweighted verification.
func (b *Batch) setBitmaps() bool {
	return b.o.twoPass() && useSetBitmaps && b.ver.bitmaps()
}

// sign computes the signatures of the distinct sets, back to back, and
// under WeightIDF their weights.
func (b *Batch) sign(v *views) {
	o := b.o
	k := o.Slots
	nu := len(v.uniq)
	b.setStage("sign", int64(nu))
	if b.setBitmaps() {
		// The shingling workers made them, one a document, while each
		// set was in cache: in two passes the pre-filter's bitmap test
		// keeps the pairs it rejects from being held and their sets from
		// being read again. (One pass makes them below, with the
		// signatures.)
		if b.bitArena != nil && !slices.ContainsFunc(b.chunks, func(c *chunk) bool { return !c.bitsInArena }) {
			b.bitArena.compact(v.uniq, len(b.ids))
			v.bits, v.bitArena = b.bitArena.bitmaps(0, nu), b.bitArena
			for _, c := range b.chunks {
				c.bits = nil
			}
		} else {
			v.bits = make([]shingle.Bitmap, nu)
			for _, c := range b.chunks {
				v.eachDistinct(c, func(i int, u int32) { v.bits[u] = c.bits[i] })
				c.bits = nil
			}
		}
	}
	if b.arena != nil && !slices.ContainsFunc(b.chunks, func(c *chunk) bool { return !c.inArena }) {
		// Every signature is in the arena: move the distinct ones to the
		// front, in place.
		v.sigs = b.arena.compact(v.uniq, len(b.ids))
		v.arena = b.arena
		for _, c := range b.chunks {
			c.sigs = nil
		}
		return
	}
	v.sigs = make([]uint32, nu*k)
	switch {
	case o.Verify == VerifyEstimate || o.twoPass():
		for _, c := range b.chunks {
			v.eachDistinct(c, func(i int, u int32) { copy(v.sigs[int(u)*k:], c.sigs[i*k:(i+1)*k]) })
			c.sigs = nil
		}
	case o.Weight == WeightIDF:
		// Weights from document frequencies over the distinct sets, then
		// weighted signatures: slot agreement estimates weighted Jaccard.
		distinct := make([][]uint64, nu)
		for u, d := range v.uniq {
			distinct[u] = v.sets[d]
		}
		tab := idf.Compute(distinct)
		v.weights, v.wsum = make([][]float64, nu), make([]float64, nu)
		parallel.For(nu, o.Workers, 256, func(_, lo, hi int) {
			var s Sketch
			for u := lo; u < hi; u++ {
				s.Set = distinct[u]
				s.Signature = v.sigs[u*k : u*k : (u+1)*k]
				s.Weights = nil
				b.sk.Weigh(&s, tab)
				v.weights[u], v.wsum[u] = s.Weights, s.WeightSum
			}
			b.done.Add(int64(hi - lo))
		})
	default:
		// One pass with exact verification: each distinct set's bitmap
		// beside its signature, while the set is in cache, for the
		// pre-filter (as in two passes: at 1M documents the bitmap test
		// kept 8.8 million of the 12.6 million pairs the signatures
		// pass from an exact intersection, for 128 bytes a set).
		if useSetBitmaps && b.ver.bitmaps() {
			v.bits = make([]shingle.Bitmap, nu)
		}
		parallel.For(nu, o.Workers, 256, func(_, lo, hi int) {
			for u := lo; u < hi; u++ {
				set := v.sets[v.uniq[u]]
				b.sk.AppendSignature(v.sigs[u*k:u*k:(u+1)*k], set)
				if v.bits != nil {
					var bm shingle.Bitmap // on the stack, as in the first pass
					bm.Add(set)
					v.bits[u] = bm
				}
			}
			b.done.Add(int64(hi - lo))
		})
	}
}
