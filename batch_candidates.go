// Candidates: LSH over the distinct sets' signatures (lsh.Candidates),
// each candidate through the pre-filter (sizes, set bitmaps, signatures)
// and then verified at once, held for verification once LSH is done
// (verifyHeld), or held for the second pass (secondPass); the pairs of
// chained buckets are verified a bucket at a time (verifyChained). It
// hands on the verified pairs, with the identical copies' pairs, sorted
// (sortedPairs), to Run's refinement and clustering.

package neardup

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/neardup/neardup/internal/hugepage"
	"github.com/neardup/neardup/internal/lshhook"
	"github.com/neardup/neardup/internal/parallel"
	"github.com/neardup/neardup/internal/prefetch"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/shingle"
)

// candidates runs LSH over the distinct sets' signatures and verifies each
// candidate as it comes, on the worker that found it. It returns the
// compact pair listing, sorted.
func (b *Batch) candidates(ctx context.Context, v *views, st *Stats) ([]Pair, error) {
	o := b.o
	b.setStage("lsh", int64(o.LSH.Bands))
	found := make([]blockList[verified], o.Workers)
	var pages *pairPages // lends found the second pass's freed sets
	// In two-pass mode the candidates that pass the pre-filter are held
	// (per worker) until the second pass has read their sets.
	// In one pass with exact verification they are held too, and verified
	// once LSH is done with the sets prefetched ahead (verifyHeld): at the
	// time a candidate is found its two sets are rarely in cache.
	var held []blockList[[2]uint32]
	oneHeld := !o.twoPass() && o.Verify == VerifyExact && v.sets != nil
	if o.twoPass() || oneHeld {
		held = make([]blockList[[2]uint32], o.Workers)
	}
	// Buckets over MaxBucket compare their members' signatures in one
	// block (MinAgree: the least agreement verification accepts), so the
	// limit loses no pair. When candidates are held, the pairs those
	// comparisons find are not: they are verified bucket by bucket later
	// (verifyChained), once LSH is done or, in two passes, once the
	// buckets' sets are read again; at 10M documents they were hundreds of
	// millions.
	cand := lsh.Candidates{Params: o.LSH, Slots: o.Slots, Sigs: v.sigs, Workers: o.Workers,
		MaxBucket: max(o.MaxBucket, 0), MinAgree: b.ver.MinAgreement(), BandsDone: &b.done}
	hooks := lshhook.Options{Defer: held != nil}
	// rest is the pre-filter after the sizes and bitmaps (the signatures),
	// then the pair held or verified.
	pass := func(w int, x *Sketch, i, j uint32) {
		if held != nil {
			held[w].add([2]uint32{i, j})
			return
		}
		y := v.filterView(j)
		b.confirm(v, x, &y, i, j, &found[w])
	}
	rest := func(w int, x *Sketch, i, j uint32) {
		y := v.filterView(j)
		if b.ver.Prefilter(x, &y) {
			pass(w, x, i, j)
		}
	}
	if v.bits != nil && len(v.ucount) <= math.MaxInt32 {
		hooks.Row = b.rowFilter(v, pass)
	}
	chained := lshhook.Set(&cand, hooks)
	lst, err := cand.Run(ctx, func(w int, i, j uint32) {
		// The bitmaps first: two cache lines of each document against
		// the eight of its signature, and they pass fewer (on the 1M
		// corpus, of the 31.5 million candidates the length filter
		// passes, 3.8 million; the signatures 12.6 million). The pairs
		// held are the same either way. They are there only under
		// exact, unweighted verification, where the length filter reads
		// the sizes alone: the sketches are built for the pairs that
		// pass (built for every candidate first, they made this
		// callback 2.1-2.3 s of CPU on the 1M corpus, against 1.3-1.6).
		if v.bits != nil {
			if !b.ver.sizesBitmapsOK(int(v.ucount[i]), int(v.ucount[j]), &v.bits[i], &v.bits[j]) {
				return
			}
		}
		x := v.filterView(i)
		rest(w, &x, i, j)
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("candidates: %w", err)
	}
	// The pre-filter was the bitmaps' last use.
	if v.bitArena != nil {
		v.bitArena.release(0, len(v.bits)*bitmapSlots)
	}
	v.bits, v.bitArena = nil, nil
	st.Candidates = lst.Pairs
	st.LargeBuckets = lst.LargeBuckets
	st.LargestBucket = lst.MaxBucketSeen
	st.Buckets = lst.Buckets
	switch {
	case oneHeld:
		st.Candidates += b.verifyOnePass(ctx, v, held, chained, found)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	case held != nil:
		if found, pages, err = b.secondPass(ctx, v, held, chained, st); err != nil {
			return nil, err
		}
	}
	if held != nil && !oneHeld {
		// The second pass leaves gigabytes of dropped sets behind, and
		// sortedPairs allocates 32 bytes a verified pair at once (4.9 GB
		// at 10M documents): hand the garbage back to the system first.
		// Left to the collector, the freed pages were returned after the
		// new ones were touched, and the peak went 1.2 GB over the soft
		// memory limit.
		nf := 0
		for i := range found {
			nf += found[i].n
		}
		returnFreed(int64(nf+len(v.rep)) * int64(unsafe.Sizeof(Pair{})))
	}
	pairs, nv := sortedPairs(found, v.rep, o.Workers, pages.drop)
	pages.close()
	st.Verified = nv
	st.CompactPairs = len(pairs)
	st.Pairs = allPairs(pairs, v.rep, o.Workers)
	return pairs, nil
}

// rowFilter returns the bucket-row callback (lshhook.Options.Row) for candidates with set bitmaps
// (v.bits, fewer than 2^31 distinct sets): pass is called with the
// pairs that pass the whole pre-filter. With bitmaps, a member's
// partners in a bucket are tested together (Verifier.sizesBitmapsRow:
// their sizes and bitmaps, cache misses at 10M documents, are loaded
// ahead), then the rest of the pre-filter runs on those that pass. The
// pairs are those of candidates' pair callback, which the chained
// buckets' chains still take.
func (b *Batch) rowFilter(v *views, pass func(w int, x *Sketch, i, j uint32)) func(w int, i uint32, js []uint32) {
	o := b.o
	type rowScratch struct {
		ok    []bool
		bound []int32
		pass  []uint32
		_     [128 - 72]byte // a worker's own lines (blockList)
	}
	scratch := make([]rowScratch, o.Workers)
	return func(w int, i uint32, js []uint32) {
		sc := &scratch[w]
		sc.ok = slices.Grow(sc.ok[:0], len(js))[:len(js)]
		// Distinct-set numbers are below MaxInt32 (above): the same
		// values as int32.
		ys := unsafe.Slice((*int32)(unsafe.Pointer(&js[0])), len(js))
		sc.bound = b.ver.sizesBitmapsRow(sc.ok, int(v.ucount[i]), &v.bits[i], ys, v.ucount, v.bits, sc.bound)
		x := v.filterView(i)
		sc.pass = sc.pass[:0]
		for k, j := range js {
			if sc.ok[k] {
				sc.pass = append(sc.pass, j)
			}
		}
		// The signatures of those that passed are read next (eight
		// lines each, misses in small buckets): load them a few
		// partners ahead.
		const ahead = 4
		sigOf := func(j uint32) []uint32 { return v.sigs[int(j)*o.Slots : int(j+1)*o.Slots] }
		for _, j := range sc.pass[:min(ahead, len(sc.pass))] {
			prefetch.Uint32s(sigOf(j))
		}
		for k, j := range sc.pass {
			if k+ahead < len(sc.pass) {
				prefetch.Uint32s(sigOf(sc.pass[k+ahead]))
			}
			// The sizes passed sizesBitmapsRow (Prefilter's
			// LengthOK): the rest of Prefilter is the signatures'.
			if b.ver.signaturesOK(x.Signature, sigOf(j)) {
				pass(w, &x, i, j)
			}
		}
	}
}

// verifyOnePass verifies, once LSH is done, the candidates held in one
// pass (each worker's list on a goroutine of its own), then the pairs of
// the chained buckets, adding those that reach the threshold to found.
// It returns the chained buckets' candidate pairs (verifyChained).
func (b *Batch) verifyOnePass(ctx context.Context, v *views, held []blockList[[2]uint32], chained lshhook.Chained, found []blockList[verified]) int64 {
	var wg sync.WaitGroup
	for w := range held {
		wg.Go(func() { b.verifyHeld(ctx, v, &held[w], &found[w]) })
	}
	wg.Wait()
	k := b.o.Slots
	sig := func(u uint32) []uint32 { return v.sigs[int(u)*k : int(u+1)*k] }
	set := func(u uint32) ([]uint64, []float64) {
		var s Sketch
		v.withSet(&s, u)
		return s.Set, s.Weights
	}
	return b.verifyChained(ctx, chained, sig, v.filterView, set, v.uniq, found)
}

// allPairs returns the number of near-duplicate pairs of documents that
// the compact listing pairs (sorted by (A, B)) stands for: each identical
// group of g documents (rep) has g(g-1)/2 pairs among its members, and a
// verified pair between two groups one per combination of their members.
func allPairs(pairs []Pair, rep []uint32, workers int) int {
	n := 0
	group := make([]int, len(rep))
	for _, r := range rep {
		group[r]++
	}
	for _, g := range group {
		n += g * (g - 1) / 2
	}
	// On the workers, B's entries prefetched (misses: 145 million pairs
	// at 10M documents, 1.4 s on one core).
	var all atomic.Int64
	parallel.For(len(pairs), workers, 1<<16, func(_, lo, hi int) {
		const ahead = 16
		n := 0
		for k := lo; k < hi; k++ {
			if k+ahead < hi {
				b := pairs[k+ahead].B
				prefetch.Line(&rep[b])
				prefetch.Line(&group[b])
			}
			if p := pairs[k]; rep[p.B] == uint32(p.B) {
				n += group[p.A] * group[p.B]
			}
		}
		all.Add(int64(n))
	})
	return n + int(all.Load())
}

// verified is a verified pair of documents as the workers collect it: half
// the size of a Pair, which matters when both are held at once (the end
// of candidates: at 10M documents, 145 million pairs).
type verified struct {
	a, b    uint32
	jaccard float64
}

// confirm completes the filter views x and y of distinct sets i and j with
// their sets and adds the pair to found if it is verified.
func (b *Batch) confirm(v *views, x, y *Sketch, i, j uint32, found *blockList[verified]) {
	v.withSet(x, i)
	v.withSet(y, j)
	if jac, ok := b.ver.Confirm(x, y); ok {
		found.add(verified{a: v.uniq[i], b: v.uniq[j], jaccard: jac})
	}
}

// verifyHeld verifies the candidate pairs of l (distinct sets that passed
// the pre-filter), adding those that reach the threshold to found, and
// empties l. The sets of a pair are reached through v.uniq and v.sets, a
// cache miss at each step on a large corpus: each step is prefetched for
// the pairs a few places ahead, so that the loads overlap the
// verification of the pairs before. It stops after the block during which
// ctx is cancelled.
func (b *Batch) verifyHeld(ctx context.Context, v *views, l *blockList[[2]uint32], found *blockList[verified]) {
	const far, mid, near = 12, 6, 2 // pairs ahead: uniq, set header, set
	for k, blk := range l.blocks {
		for x, p := range blk {
			if x+far < len(blk) {
				q := blk[x+far]
				prefetch.Line(&v.uniq[q[0]])
				prefetch.Line(&v.uniq[q[1]])
			}
			if x+mid < len(blk) {
				q := blk[x+mid]
				prefetch.Line(&v.sets[v.uniq[q[0]]])
				prefetch.Line(&v.sets[v.uniq[q[1]]])
			}
			if x+near < len(blk) {
				q := blk[x+near]
				prefetch.Uint64s(v.sets[v.uniq[q[0]]])
				prefetch.Uint64s(v.sets[v.uniq[q[1]]])
			}
			var sa, sb Sketch
			b.confirm(v, &sa, &sb, p[0], p[1], found)
		}
		l.blocks[k] = nil
		if ctx.Err() != nil {
			break
		}
	}
	*l = blockList[[2]uint32]{}
}

// verifyChained verifies the pairs the chained LSH buckets of d add beyond
// their chains (lshhook.Chained.PairsWhere), on every worker, a bucket at a time,
// largest first, with the bucket's sets copied together first: its members
// are few enough for all their sets to stay in cache while its pairs are
// verified. sig(u) is distinct set u's signature, view(u) its sketch as
// Verifier.LengthOK reads it (size, weight sum), and set(u) what Confirm
// reads besides: the set and, under WeightIDF, the weights. It adds the
// pairs that reach the threshold to found (as documents uniq[u]) and
// returns the number of candidate pairs: of the pairs lsh.Candidates.Run
// would have reported, those that pass the length filter and the set
// bitmaps' bound (tested first). It stops after the bucket during which
// ctx is cancelled.
func (b *Batch) verifyChained(ctx context.Context, d lshhook.Chained, sig func(u uint32) []uint32,
	view func(u uint32) Sketch, set func(u uint32) ([]uint64, []float64), uniq []uint32, found []blockList[verified]) int64 {
	if d == nil || d.Len() == 0 {
		return 0
	}
	o := b.o
	// Under exact, unweighted verification each member's set bitmap
	// rejects most of a large bucket's pairs before their sets are read
	// (shingle.MaxIntersection): a large bucket's members share text, and
	// their pairs are mostly below the threshold but not far below.
	bitmaps := b.ver.bitmaps()
	var next, cands atomic.Int64
	var wg sync.WaitGroup
	for w := range o.Workers {
		wg.Go(func() {
			var n int64
			var sk []Sketch
			var buf []uint64
			var bm []shingle.Bitmap
			var sizes, bound []int32
			for ctx.Err() == nil {
				k := int(next.Add(1) - 1)
				if k >= d.Len() {
					break
				}
				ids := d.Members(k)
				sk = sk[:0]
				total := 0
				for _, u := range ids {
					s := view(u)
					s.Set, s.Weights = set(u) // Set replaced by the copy below
					total += len(s.Set)
					sk = append(sk, s)
				}
				// Sized at once (the largest bucket comes first): grown
				// by append, the copies were a seventh of the page
				// faults at 1M.
				buf = hugepage.Grow(buf[:0], total)
				for x := range sk {
					buf = append(buf, sk[x].Set...)
				}
				if bitmaps {
					bm = slices.Grow(bm[:0], len(ids))[:len(ids)]
					clear(bm)
					sizes = sizes[:0]
					for x := range sk {
						sizes = append(sizes, int32(sk[x].Size))
					}
				}
				off := 0
				for x := range sk {
					l := len(sk[x].Set)
					sk[x].Set = buf[off : off+l : off+l]
					off += l
					if bitmaps {
						bm[x].Add(sk[x].Set)
					}
				}
				// The sizes and bitmaps, in cache, are tested before
				// lsh compares the pair's report band and whole
				// signatures: in a large bucket of documents that share
				// text most pairs whose low bytes agree fail them, and
				// those comparisons were most of the buckets' time
				// (since 2026-11-26; candidate_pairs counts the pairs
				// that pass both).
				// A member's pairs are tested together: in the largest
				// buckets (21,187 members at 10M documents) the bitmaps
				// are megabytes, and the later partners' are loaded
				// while the first are tested.
				keep := func(x int, ys []int32, ok []bool) {
					if !bitmaps {
						for i, y := range ys {
							ok[i] = b.ver.LengthOK(&sk[x], &sk[y])
						}
						return
					}
					// Exact, unweighted: the sizes from their own array
					// (4 bytes a member, in cache, where the sketches
					// are 104), the bitmaps' bounds of the row at once.
					bound = b.ver.sizesBitmapsRow(ok, int(sizes[x]), &bm[x], ys, sizes, bm, bound)
				}
				d.PairsWhere(k, sig, keep, func(x, y int) bool {
					n++
					// The signatures agree on MinAgreement slots, and
					// keep passed the rest of Prefilter.
					a, c := &sk[x], &sk[y]
					if jac, ok := b.ver.Confirm(a, c); ok {
						found[w].add(verified{a: uniq[ids[x]], b: uniq[ids[y]], jaccard: jac})
					}
					return true
				})
			}
			hugepage.Done(buf)
			cands.Add(n)
		})
	}
	wg.Wait()
	return cands.Load()
}
