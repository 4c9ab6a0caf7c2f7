// Package allpairs is an exact set-similarity join: every pair of sets whose
// Jaccard index is at least a threshold, found with prefix and length filters
// instead of comparing all pairs.
//
// Who uses it from outside: the neardup command's eval, tune and analyze;
// a library user takes it for the exact pairs of a corpus small enough to
// join exactly (a ground truth to measure a sketch's recall against, or
// the answer itself when every pair must be found).
//
// It follows the AllPairs / PPJoin recipe (Bayardo et al. 2007; Xiao et al.
// 2008). Elements are renamed to ranks by ascending document frequency, so
// every set, written as sorted ranks, starts with its rarest elements. Two
// sets can only reach the required overlap if their short prefixes of rare
// elements share an element, so only prefixes are indexed and probed;
// candidates are further cut by the length filter and the positional
// filter, then verified by an exact merge.
//
// The result is exact: the output is identical to comparing all pairs.
// neardup uses it as the ground truth for LSH recall.
package allpairs

import (
	"cmp"
	"github.com/neardup/neardup/internal/rule"
	"math"
	"math/bits"
	"slices"

	"github.com/neardup/neardup/internal/hugepage"
	"github.com/neardup/neardup/internal/parallel"
	"github.com/neardup/neardup/internal/prefetch"
)

// Join calls fn(i, j, jaccard) with i < j for every pair of sets[i], sets[j]
// (sorted, duplicate-free hash slices) with Jaccard >= t (t in (0,1]).
// Empty sets never match. Pairs come in no particular order from one goroutine.
//
// Precisely: with o = |A∩B| and u = |A∪B|, a pair is reported when
// float64(o)/float64(u) >= t, and jaccard is that quotient, so a pair at
// exactly the threshold (0.5 from o=2, u=4) is included. All filters work in
// integer arithmetic with a safety margin and never drop such a pair.
//
// The elements of a set need not in fact be sorted. Duplicates within a set
// are not expected; if present they are ignored (a set is its distinct
// elements). fn is called from the calling goroutine. Join panics if t is
// not in (0, 1] or there are more than math.MaxUint32 elements in total.
// Memory peaks at about 20 bytes per element (the sort that counts element
// frequencies: 16 bytes an occurrence, and 4 for its rank) and is at most
// 12 bytes per element while joining; sets is not modified. From about a
// million elements JoinWorkers shares the ranking among its goroutines too.
//
// Running time depends on the data more than on its size: prefixes hold the
// rarest |x|-ceil(t|x|)+1 elements of each set, so the join is fast when
// most elements are rare, as shingle hashes are (100k sets of ~250
// elements at t=0.5 in seconds), and slow when frequent elements fill the
// prefixes, as in bags of single words at low t, where the candidate lists
// approach all pairs.
func Join(sets [][]uint64, t float64, fn func(i, j int, jaccard float64)) {
	JoinWorkers(sets, t, 1, fn)
}

// JoinWorkers is Join using up to workers goroutines (<= 1 means 1: then
// it behaves exactly as Join). With workers > 1, fn is called concurrently
// from several goroutines and must synchronise any shared state itself; the
// set of pairs reported is the same as Join's.
func JoinWorkers(sets [][]uint64, t float64, workers int, fn func(i, j int, jaccard float64)) {
	if !rule.Threshold(t) {
		panic("allpairs: threshold not in (0, 1]")
	}
	Rank(sets, workers).Join(t, workers, fn)
}

// Ranked is a collection of sets ranked for joining (Rank): the first
// step of every join, which several joins of the same sets at different
// thresholds can share. It is read-only, so safe for concurrent use; it
// does not refer to the sets it was made from.
type Ranked struct {
	p *prepared // nil when no pair can match
}

// Rank ranks the elements of sets by document frequency and rewrites
// each set as its ranks, on up to workers goroutines (<= 1 means 1), for
// Ranked.Join. sets is not modified and may change afterwards. Rank
// panics if there are more than math.MaxUint32 elements in total.
func Rank(sets [][]uint64, workers int) *Ranked {
	return &Ranked{p: prepare(sets, max(workers, 1))}
}

// Join is JoinWorkers on the sets r was ranked from: fn(i, j, jaccard)
// with i < j, indices of those sets, for every pair with Jaccard >= t, from
// up to workers goroutines. It panics if t is not in (0, 1].
func (r *Ranked) Join(t float64, workers int, fn func(i, j int, jaccard float64)) {
	if !rule.Threshold(t) {
		panic("allpairs: threshold not in (0, 1]")
	}
	p := r.p
	if p == nil {
		return
	}
	workers = max(workers, 1)
	j := newJoiner(p, t)
	nx := len(p.order)
	if workers == 1 {
		j.probeRange(newProbeState(nx), 0, nx, fn)
		return
	}
	// The index is complete and read-only, so sets can be probed in any
	// order by any goroutine: x only looks at sets before it in size order.
	states := make([]*probeState, workers) // 4 bytes a set, made by each goroutine
	parallel.For(nx, workers, 64, func(w, lo, hi int) {
		if states[w] == nil {
			states[w] = newProbeState(nx)
		}
		j.probeRange(states[w], lo, hi, fn)
	})
}

// eps is the margin subtracted before rounding a real bound up to an
// integer. Bounds are products of t and sizes below 2^32, accurate to far
// better than 1e-7, and every filter only needs a bound that is never too
// high: a slightly low one just lets a few more candidates through.
const eps = 1e-7

// ceilBound returns ceil(x - eps), at least lo.
func ceilBound(x float64, lo int) int {
	return max(lo, int(math.Ceil(x-eps)))
}

// prepared holds the sets rewritten as ranks, ordered by size.
type prepared struct {
	order  []uint32 // original set index, by ascending size (ties by index)
	size   []int32  // distinct elements of order[k], singletons included
	single []int32  // elements of order[k] found in no other set
	start  []uint32 // order[k]'s shared ranks are ranks[start[k]:start[k+1]]
	ranks  []uint32 // shared (document frequency >= 2) elements as ascending ranks
	nranks int
}

// ent is one element occurrence: its key (the element's value times
// mixMul, a bijection) and its index in the flat array of occurrences.
type ent struct {
	k   uint64
	pos uint32
}

// mixMul spreads the elements over prepare's partitions whatever their
// values (small integers as well as hashes): partitions are taken from the
// top bits of v*mixMul, and multiplying by an odd number is a bijection,
// so equal keys are equal elements.
const mixMul = 0x9e3779b97f4a7c15

// parallelFrom is the number of element occurrences from which prepare
// shares its passes among goroutines; tests lower it to compare the shared
// work with one goroutine's. maxWorkers bounds the goroutines.
var parallelFrom = 1 << 20

const maxWorkers = 16

// prepare ranks the elements and orders the sets. Sets without any element
// shared with another set cannot match and are left out; nil means nothing
// can match.
//
// Document frequencies are counted by sorting the occurrences, not with a
// map: one pass counts them per partition (the top bits of their keys), a
// second scatters them into one array, and each partition, small enough
// for the cache, is sorted on its own; runs of equal keys are the
// elements. Shared elements (two or more occurrences) are ranked by
// ascending (frequency, key). From parallelFrom occurrences the passes
// are shared among up to workers goroutines, the sets in contiguous
// ranges and the partitions in ranges of about equal size; the ranks do
// not depend on how many.
func prepare(sets [][]uint64, workers int) *prepared {
	total := 0
	for _, s := range sets {
		total += len(s)
	}
	if uint64(total) > math.MaxUint32 {
		panic("allpairs: more than math.MaxUint32 elements")
	}
	if len(sets) < 2 || total < 2 {
		return nil
	}
	off := make([]uint32, len(sets)+1)
	for i, s := range sets {
		off[i+1] = off[i] + uint32(len(s))
	}
	if total < parallelFrom {
		workers = 1
	}
	workers = max(1, min(workers, maxWorkers, len(sets)))

	// About 8,192-16,384 occurrences a partition: few enough partitions
	// for the scatter's cursors to stay in the cache, small enough for a
	// partition's sort to run in it.
	pbits := 0
	for pbits < 24 && total>>(pbits+14) > 0 {
		pbits++
	}
	pshift := uint(64 - pbits) // 64 when pbits == 0: x>>64 == 0

	occ, start := scatter(sets, off, workers, pshift, 1<<pbits)
	// Worker w sorts partitions partFrom[w] to partFrom[w+1]-1.
	partFrom := parallel.Split(start, workers)
	hist := sortPartitions(occ, start, partFrom, pshift)
	rankOf, nranks := rank(occ, start, partFrom, hist)
	if nranks == 0 {
		return nil
	}
	shared, single := sharedRanks(rankOf, off, workers)
	return order(rankOf, off, shared, single, int(nranks))
}

// scatter counts the occurrences of sets (set i at off[i] in the flat
// array) by partition (the top bits of their keys, from pshift on) and
// scatters them into one array, partition p at occ[start[p]:start[p+1]].
// Worker w counts and scatters about total/workers occurrences (the sets
// parallel.Split gives it); its occurrences of partition p go after those
// of the workers before it.
func scatter(sets [][]uint64, off []uint32, workers int, pshift uint, nparts int) (occ []ent, start []int) {
	setFrom := parallel.Split(off, workers)
	counts := make([][]uint32, workers)
	parallel.Run(workers, func(w int) {
		c := make([]uint32, nparts)
		for _, s := range sets[setFrom[w]:setFrom[w+1]] {
			for _, v := range s {
				c[(v*mixMul)>>pshift]++
			}
		}
		counts[w] = c
	})
	start = make([]int, nparts+1)
	for p := range nparts {
		start[p+1] = start[p]
		for w := range workers {
			n := int(counts[w][p])
			counts[w][p] = uint32(start[p+1]) // worker w's next position in p
			start[p+1] += n
		}
	}
	// Written at nparts cursors at once: on huge pages, the cursors'
	// pages stay in the TLB.
	occ = hugepage.Make[ent](int(off[len(sets)]))
	parallel.Run(workers, func(w int) {
		next := counts[w]
		for i := setFrom[w]; i < setFrom[w+1]; i++ {
			pos := off[i]
			for _, v := range sets[i] {
				x := v * mixMul
				p := x >> pshift
				occ[next[p]] = ent{x, pos}
				next[p]++
				pos++
			}
		}
	})
	return occ, start
}

// sortPartitions sorts each partition of occ (worker w those from
// partFrom[w] to partFrom[w+1]-1) and counts the shared elements (runs
// of two or more) of worker w's partitions by frequency in hist[w].
func sortPartitions(occ []ent, start, partFrom []int, pshift uint) (hist [][]uint32) {
	workers := len(partFrom) - 1
	hist = make([][]uint32, workers)
	parallel.Run(workers, func(w int) {
		var s partSorter
		var h []uint32
		for p := partFrom[w]; p < partFrom[w+1]; p++ {
			part := occ[start[p]:start[p+1]]
			s.sort(part, pshift)
			for lo := 0; lo < len(part); {
				l := runLen(part[lo:])
				if l >= 2 {
					if l >= len(h) {
						h = append(h, make([]uint32, l+1-len(h))...)
					}
					h[l]++
				}
				lo += l
			}
		}
		hist[w] = h
	})
	return hist
}

// rank numbers the shared elements of the sorted partitions in
// (frequency, key) order and returns, for each occurrence, its element's
// rank+1 (0 for a singleton), with the number of ranks. The runs of
// frequency l come after all those of lower frequencies, and worker w's
// after those of the workers before it, whose partitions hold lower
// keys. It consumes hist and releases occ's huge-page advice.
func rank(occ []ent, start, partFrom []int, hist [][]uint32) (rankOf []uint32, nranks uint32) {
	maxLen := 0
	for _, h := range hist {
		maxLen = max(maxLen, len(h)-1)
	}
	for l := 2; l <= maxLen; l++ {
		for _, h := range hist {
			if l < len(h) {
				h[l], nranks = nranks, nranks+h[l]
			}
		}
	}
	if nranks == 0 {
		return nil, 0
	}
	rankOf = hugepage.Make[uint32](len(occ)) // rank+1 per occurrence, 0 for a singleton
	parallel.Run(len(hist), func(w int) {
		next := hist[w]
		for p := partFrom[w]; p < partFrom[w+1]; p++ {
			part := occ[start[p]:start[p+1]]
			for lo := 0; lo < len(part); {
				l := runLen(part[lo:])
				if l >= 2 {
					next[l]++
					r := next[l] // rank+1
					for _, e := range part[lo : lo+l] {
						rankOf[e.pos] = r
					}
				}
				lo += l
			}
		}
	})
	hugepage.Done(occ)
	hugepage.Done(rankOf)
	return rankOf, nranks
}

// sharedRanks rewrites each set (set i at rankOf[off[i]:off[i+1]]) in
// place as its sorted, distinct shared ranks, and returns how many each
// set has and how many singletons it had.
func sharedRanks(rankOf, off []uint32, workers int) (shared []uint32, single []int32) {
	n := len(off) - 1
	shared = make([]uint32, n)
	single = make([]int32, n)
	parallel.For(n, workers, 256, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			s := rankOf[off[i]:off[i+1]]
			w := 0
			for _, r := range s {
				if r != 0 {
					s[w] = r - 1
					w++
				}
			}
			single[i] = int32(len(s) - w)
			s = s[:w]
			slices.Sort(s)
			s = slices.Compact(s) // duplicates within the set
			shared[i] = uint32(len(s))
		}
	})
	return shared, single
}

// order orders the sets with a shared element by ascending size (ties by
// index) and compacts their shared ranks (from sharedRanks) in that
// order; nil if fewer than two sets have one.
func order(rankOf, off, shared []uint32, single []int32, nranks int) *prepared {
	p := &prepared{nranks: nranks}
	for i := range shared {
		if shared[i] > 0 {
			p.order = append(p.order, uint32(i))
		}
	}
	if len(p.order) < 2 {
		return nil
	}
	sizeOf := func(i uint32) int32 { return single[i] + int32(shared[i]) }
	slices.SortStableFunc(p.order, func(a, b uint32) int { return int(sizeOf(a) - sizeOf(b)) })

	// Compact the shared ranks in size order.
	nx := len(p.order)
	p.size = make([]int32, nx)
	p.single = make([]int32, nx)
	p.start = make([]uint32, nx+1)
	p.ranks = make([]uint32, 0, len(rankOf))
	for k, i := range p.order {
		p.size[k] = sizeOf(i)
		p.single[k] = single[i]
		p.start[k] = uint32(len(p.ranks))
		p.ranks = append(p.ranks, rankOf[off[i]:off[i]+shared[i]]...)
	}
	p.start[nx] = uint32(len(p.ranks))
	p.ranks = slices.Clip(p.ranks)
	return p
}

// posting is one indexed prefix element: the set (by size order) and the
// element's position in that set (singletons come first, so positions of
// shared elements start at the set's singleton count).
type posting struct {
	k   uint32
	pos uint32
}

// joiner holds the complete, read-only index.
type joiner struct {
	p        *prepared
	t        float64
	listOff  []uint32 // postings of rank r: post[listOff[r]:listOff[r+1]], ascending k
	post     []posting
	indexed  []uint32 // the number of shared ranks of set k in its index prefix
	minRatio float64  // t/(1+t)
}

// newJoiner indexes every set's indexing prefix. Because a set y is only
// ever probed by sets x at least as large, the required overlap is at least
// ceil(2t/(1+t)*|y|), so y's prefix of |y| - that + 1 elements suffices.
func newJoiner(p *prepared, t float64) *joiner {
	j := &joiner{p: p, t: t, minRatio: t / (1 + t)}
	nx := len(p.order)
	prefix := func(k int) (ranks []uint32, first int) {
		sz := int(p.size[k])
		pl := sz - ceilBound(2*j.minRatio*float64(sz), 1) + 1
		sh := p.ranks[p.start[k]:p.start[k+1]]
		ns := max(0, min(len(sh), pl-int(p.single[k])))
		return sh[:ns], int(p.single[k])
	}
	j.listOff = make([]uint32, p.nranks+1)
	j.indexed = make([]uint32, nx)
	for k := range nx {
		rs, _ := prefix(k)
		j.indexed[k] = uint32(len(rs))
		for _, r := range rs {
			j.listOff[r+1]++
		}
	}
	for r := range p.nranks {
		j.listOff[r+1] += j.listOff[r]
	}
	j.post = make([]posting, j.listOff[p.nranks])
	fill := slices.Clone(j.listOff[:p.nranks])
	for k := range nx {
		rs, first := prefix(k)
		for idx, r := range rs {
			j.post[fill[r]] = posting{uint32(k), uint32(first + idx)}
			fill[r]++
		}
	}
	return j
}

// probeState is one goroutine's scratch: acc[k] is the running prefix
// overlap with candidate k (0: untouched, -1: pruned by the positional filter).
type probeState struct {
	acc     []int32
	touched []uint32
}

func newProbeState(n int) *probeState {
	return &probeState{acc: make([]int32, n)}
}

// probeRange joins the sets of size order [lo, hi) with all sets before them.
func (j *joiner) probeRange(st *probeState, lo, hi int, fn func(i, j int, jaccard float64)) {
	p := j.p
	for kx := lo; kx < hi; kx++ {
		sx := int(p.size[kx])
		ux := int(p.single[kx])
		xr := p.ranks[p.start[kx]:p.start[kx+1]]
		// Length filter: |y| >= t|x|, and y precedes x in size order.
		minSize := ceilBound(j.t*float64(sx), 1)
		kmin := uint32(sort32(p.size[:kx], int32(minSize)))
		// Probe prefix: |x| - ceil(t|x|) + 1 elements.
		pl := sx - minSize + 1
		np := max(0, min(len(xr), pl-ux))
		for idx, r := range xr[:np] {
			// The lists of the elements ahead: their offsets, then their
			// first postings (cache misses that overlap this element's).
			if idx+2*probeAhead < np {
				prefetch.Line(&j.listOff[xr[idx+2*probeAhead]])
			}
			if idx+probeAhead < np {
				if o := j.listOff[xr[idx+probeAhead]]; int(o) < len(j.post) {
					prefetch.Line(&j.post[o])
				}
			}
			i := ux + idx // position in x
			list := j.post[j.listOff[r]:j.listOff[r+1]]
			// Skip postings of sets too small, stop at x itself.
			b, _ := slices.BinarySearchFunc(list, kmin, func(e posting, k uint32) int { return int(e.k) - int(k) })
			for _, e := range list[b:] {
				if int(e.k) >= kx {
					break
				}
				a := st.acc[e.k]
				if a < 0 {
					continue
				}
				sy := int(p.size[e.k])
				need := j.need(sx, sy)
				// Positional filter: overlap so far, this element, and at
				// most the shorter remainder.
				if int(a)+1+min(sx-i-1, sy-int(e.pos)-1) >= need {
					if a == 0 {
						st.touched = append(st.touched, e.k)
					}
					st.acc[e.k] = a + 1
				} else {
					if a == 0 {
						st.touched = append(st.touched, e.k)
					}
					st.acc[e.k] = -1
				}
			}
		}
		for _, ky := range st.touched {
			if st.acc[ky] > 0 {
				j.verify(kx, int(ky), np, int(st.acc[ky]), fn)
			}
			st.acc[ky] = 0
		}
		st.touched = st.touched[:0]
	}
}

// probeAhead is how many prefix elements ahead probeRange prefetches the
// posting lists.
const probeAhead = 8

// need is the overlap a pair of sizes sx, sy needs: ceil(t/(1+t)*(sx+sy)),
// from o/(sx+sy-o) >= t.
func (j *joiner) need(sx, sy int) int {
	return ceilBound(j.minRatio*float64(sx+sy), 1)
}

// verify finds the overlap of kx and ky from what the probe counted and
// merges the rest, stopping as soon as the required overlap is out of
// reach, and reports the pair if it qualifies. xpre is the length of kx's
// probe prefix in its shared ranks, acc the overlap the probe found between
// it and ky's index prefix (j.indexed[ky] ranks).
//
// With wx and wy the last ranks of the two prefixes and wx <= wy, every
// rank of ky's remainder is above wx, so no rank of kx's prefix meets it:
// the overlap is acc plus that of kx's remainder with ky's ranks above wx.
// Symmetrically when wy < wx. (PPJoin's verification, Xiao et al. 2008.)
func (j *joiner) verify(kx, ky, xpre, acc int, fn func(i, j int, jaccard float64)) {
	p := j.p
	sx, sy := int(p.size[kx]), int(p.size[ky])
	need := j.need(sx, sy)
	x := p.ranks[p.start[kx]:p.start[kx+1]]
	y := p.ranks[p.start[ky]:p.start[ky+1]]
	ypre := int(j.indexed[ky])
	if wx, wy := x[xpre-1], y[ypre-1]; wx <= wy {
		x, y = x[xpre:], y[above(y, wx):]
	} else {
		x, y = x[above(x, wy):], y[ypre:]
	}
	o, a, b := acc, 0, 0
	for a < len(x) && b < len(y) {
		if o+min(len(x)-a, len(y)-b) < need {
			return
		}
		switch {
		case x[a] < y[b]:
			a++
		case x[a] > y[b]:
			b++
		default:
			o++
			a++
			b++
		}
	}
	if o < need {
		return
	}
	jac := float64(o) / float64(sx+sy-o)
	if jac < j.t {
		return
	}
	ix, iy := int(p.order[kx]), int(p.order[ky])
	if ix > iy {
		ix, iy = iy, ix
	}
	fn(ix, iy, jac)
}

// above returns the first index in the ascending s with s[k] > v.
func above(s []uint32, v uint32) int {
	k, _ := slices.BinarySearch(s, v+1)
	return k
}

// sort32 returns the first index in the ascending s with s[k] >= v.
func sort32(s []int32, v int32) int {
	k, _ := slices.BinarySearch(s, v)
	return k
}

// runLen returns the length of the run of equal keys that starts a;
// len(a) > 0.
func runLen(a []ent) int {
	l := 1
	for l < len(a) && a[l].k == a[0].k {
		l++
	}
	return l
}

// partSorter sorts prepare's partitions, keeping its scratch between
// them. The zero value is ready to use.
type partSorter struct {
	scratch []ent
	count   []uint32
}

// insertionMax is the longest sub-bucket partSorter sorts by insertion;
// longer ones (many copies of one element, or keys that are not spread)
// take slices.SortFunc.
const insertionMax = 32

// sort sorts part by key; its keys share their top 64-pshift bits. One
// radix pass on the q bits below them, q about log2(len(part)) (at most
// 16), leaves
// sub-buckets of about one key when keys are spread, which insertion
// sorts finish.
func (s *partSorter) sort(part []ent, pshift uint) {
	n := len(part)
	if n <= insertionMax {
		insertionSort(part)
		return
	}
	q := uint(min(bits.Len(uint(n)), 16))
	shift := pshift - q
	mask := uint64(1)<<q - 1
	s.count = slices.Grow(s.count[:0], 1<<q+1)[:1<<q+1]
	clear(s.count)
	for _, e := range part {
		s.count[e.k>>shift&mask+1]++
	}
	for i := 1; i < len(s.count); i++ {
		s.count[i] += s.count[i-1]
	}
	s.scratch = slices.Grow(s.scratch[:0], n)[:n]
	for _, e := range part {
		c := e.k >> shift & mask
		s.scratch[s.count[c]] = e
		s.count[c]++
	}
	// count[c] is now the end of sub-bucket c.
	from := uint32(0)
	for _, to := range s.count[:1<<q] {
		if sub := s.scratch[from:to]; len(sub) <= insertionMax {
			insertionSort(sub)
		} else {
			slices.SortFunc(sub, func(a, b ent) int { return cmp.Compare(a.k, b.k) })
		}
		from = to
	}
	copy(part, s.scratch)
}

// insertionSort sorts a short a by key.
func insertionSort(a []ent) {
	for i := 1; i < len(a); i++ {
		e := a[i]
		j := i
		for j > 0 && a[j-1].k > e.k {
			a[j] = a[j-1]
			j--
		}
		a[j] = e
	}
}
