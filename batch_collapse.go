// Collapse: the per-document arrays are gathered from the shingled chunks
// into views, and documents whose sets are identical are mapped to the
// earliest of them (rep), so that only distinct sets (uniq) go further.
// It hands on the views to sign, which adds the distinct sets'
// signatures.

package neardup

import (
	"slices"

	"github.com/neardup/neardup/internal/hugepage"
	"github.com/neardup/neardup/shingle"
)

// views is what the stages after shingling consult about the documents.
type views struct {
	ver     *Verifier
	k       int
	sets    [][]uint64 // shingle set of each document (nil under VerifyEstimate)
	dropped bool       // a two-pass run under ClusterStar kept no set (sets is nil)
	counts  []int32    // shingles per document
	fps     []uint64
	fps2    []uint64 // two-pass mode, until collapse: the second fingerprints
	rep     []uint32 // earliest document with the same set
	uniqOf  []int32  // distinct-set index of each document, -1 if empty
	uniq    []uint32 // the earliest document of each distinct set
	ucount  []int32  // shingles per distinct set
	sigs    []uint32 // signatures of the distinct sets, k values each
	// bits holds the bitmap of each distinct set (Verifier.bitmaps) until
	// LSH is done, else nil.
	bits     []shingle.Bitmap
	bitArena *sigArena  // holds bits when it is not nil
	arena    *sigArena  // holds sigs when it is not nil: kept reachable with them
	setArena *sigArena  // holds the sets of a two-pass run under ClusterComponents, if not nil
	toks     [][]uint64 // RefineEdit: token sequence of each document, else nil
	// weights (WeightIDF) holds the idf weights of each distinct set, and
	// wsum their sums.
	weights [][]float64
	wsum    []float64
}

// sketch returns a Sketch of document d that aliases the views.
func (v *views) sketch(d int) Sketch {
	s := Sketch{Size: int(v.counts[d]), Fingerprint: v.fps[d]}
	if v.sets != nil {
		s.Set = v.sets[d]
	}
	if u := v.uniqOf[d]; u >= 0 {
		if v.sigs != nil {
			s.Signature = v.sigs[int(u)*v.k : int(u+1)*v.k]
		}
		if v.weights != nil {
			s.Weights, s.WeightSum = v.weights[u], v.wsum[u]
		}
	}
	return s
}

// filterView returns the Sketch of distinct set u as Verifier.Prefilter
// reads it: size, signature and weight sum, not the set. It runs for every
// candidate, most of which the filter rejects: loading the set's header
// for them too cost a cache miss per side (3% of a 1M-document run).
func (v *views) filterView(u uint32) Sketch {
	s := Sketch{Size: int(v.ucount[u])}
	if v.sigs != nil {
		s.Signature = v.sigs[int(u)*v.k : int(u+1)*v.k]
	}
	if v.wsum != nil {
		s.WeightSum = v.wsum[u]
	}
	return s
}

// withSet completes a filterView for Verifier.Confirm.
func (v *views) withSet(s *Sketch, u uint32) {
	if v.sets != nil {
		s.Set = v.sets[v.uniq[u]]
	}
	if v.weights != nil {
		s.Weights = v.weights[u]
	}
}

// collapse gathers the per-document views of the chunks and finds the
// documents with identical sets.
func (b *Batch) collapse(st *Stats) *views {
	n := len(b.ids)
	b.setStage("collapse", int64(n))
	// The per-document arrays are written whole below, on this goroutine
	// while the other workers wait: on huge pages (see the arenas).
	v := &views{ver: b.ver, k: b.o.Slots, counts: hugepage.Make[int32](n), fps: hugepage.Make[uint64](n)}
	twoPass := b.o.twoPass()
	if b.o.Verify == VerifyExact && !twoPass {
		v.sets = make([][]uint64, n) // in two passes, the second pass decides
	}
	if twoPass {
		v.fps2 = hugepage.Make[uint64](n)
	}
	if b.o.Refine == RefineEdit {
		v.toks = make([][]uint64, n)
	}
	for _, c := range b.chunks {
		prev, prevTok := int32(0), int32(0)
		for i := range c.counts {
			d := c.start + i
			v.counts[d] = c.counts[i]
			v.fps[d] = c.fps[i]
			st.Shingles += int64(c.counts[i])
			if twoPass {
				v.fps2[d] = c.fps2[i]
			} else if v.sets != nil {
				v.sets[d] = c.sets[prev:c.setEnds[i]:c.setEnds[i]]
				prev = c.setEnds[i]
			}
			if v.toks != nil {
				v.toks[d] = c.toks[prevTok:c.tokEnds[i]:c.tokEnds[i]]
				prevTok = c.tokEnds[i]
			}
		}
		st.InvalidUTF8 += c.invalid
	}

	// rep[d] is the earliest document with d's set; uniq lists the
	// distinct non-empty sets by their earliest document.
	hugepage.Done(v.counts)
	hugepage.Done(v.fps)
	hugepage.Done(v.fps2)
	v.rep = hugepage.Make[uint32](n)
	v.uniqOf = hugepage.Make[int32](n)
	// uniq and ucount at their largest size at once: grown by append,
	// fresh memory for every copy (about a quarter of the page faults
	// of identical sets at 1M).
	v.uniq = hugepage.Make[uint32](n)[:0]
	v.ucount = hugepage.Make[int32](n)[:0]
	// Each set is compared with the first document of its fingerprint
	// (another set behind an equal fingerprint is a distinct set; it is
	// not recorded).
	first := newFirstTable(n) // on huge pages: written at random, fewer faults and TLB misses
	const ahead = 16
	for d := range n {
		if d+ahead < n {
			first.prefetch(v.fps[d+ahead])
		}
		v.rep[d] = uint32(d)
		v.uniqOf[d] = -1
		if v.counts[d] == 0 {
			st.Empty++
			continue
		}
		if e, ok := first.firstOrAdd(v.fps[d], uint32(d)); ok && v.counts[e] == v.counts[d] && v.same(e, uint32(d)) {
			v.rep[d] = e
			v.uniqOf[d] = v.uniqOf[e]
			st.Identical++
			continue
		}
		v.uniqOf[d] = int32(len(v.uniq))
		v.uniq = append(v.uniq, uint32(d))
		v.ucount = append(v.ucount, v.counts[d])
	}
	hugepage.Done(v.rep)
	hugepage.Done(v.uniq)
	hugepage.Done(v.uniqOf)
	hugepage.Done(v.ucount)
	hugepage.Done(first.slots)
	st.Distinct = len(v.uniq)
	v.fps2 = nil
	return v
}

// same reports whether documents e and d, with equal sizes and
// fingerprints, have the same set: by comparing the sets, or in two-pass
// mode the second set hashes (see setKey.setHashes). Under VerifyEstimate,
// which keeps neither, the fingerprint decides.
func (v *views) same(e, d uint32) bool {
	switch {
	case v.fps2 != nil:
		return v.fps2[e] == v.fps2[d]
	case v.sets != nil:
		return slices.Equal(v.sets[e], v.sets[d])
	}
	return true
}

// eachDistinct calls fn(i, u) for each document c.start+i of chunk c that
// is the earliest of its distinct set u.
func (v *views) eachDistinct(c *chunk, fn func(i int, u int32)) {
	for i := range c.counts {
		d := c.start + i
		if u := v.uniqOf[d]; u >= 0 && v.uniq[u] == uint32(d) {
			fn(i, u)
		}
	}
}
