// Sorting pairs: the workers' verified pairs and the identical copies'
// pairs are distributed by A into ranges straight from their lists and
// each range is sorted by (A, B) with a radix sort (sortedPairs,
// pairSorter). It hands on Result.Pairs; PairLister reuses pairSorter for
// the lines of AllPairs.

package neardup

import (
	"cmp"
	"slices"
	"sync"

	"github.com/neardup/neardup/internal/hugepage"
	"github.com/neardup/neardup/internal/parallel"
)

// sortedPairs moves the verified pairs of found (emptying the lists, block
// by block) and the pairs of identical copies ((rep[d], d) with Jaccard 1
// for every d with rep[d] != d) into one slice sorted by (A, B), and
// returns it with the number of verified pairs. It distributes the pairs
// by A into sortParts ranges straight from the blocks (a counting sort on
// A's range, so no second copy is held) and sorts the ranges on workers
// goroutines: one sort of the whole slice took 19 s of one core at 10M
// documents (145 million pairs) while the other waited.
func sortedPairs(found []blockList[verified], rep []uint32, workers int, drop func([]verified)) ([]Pair, int) {
	const sortParts = 256
	nd := uint64(max(len(rep), 1))
	part := func(a uint32) int { return int(uint64(a) * sortParts / nd) }
	// Each list is counted and placed on a goroutine of its own, the
	// copies (the last list) on this one: placing is the first touch of
	// the slice (4.6 GB at 10M documents, 2 s on one core). A range holds
	// the lists' pairs in the lists' order.
	lists := len(found) + 1
	cnt := make([][sortParts]int, lists)
	nv := 0
	var wg sync.WaitGroup
	for i := range found {
		nv += found[i].n
		wg.Go(func() {
			c := &cnt[i]
			for _, blk := range found[i].blocks {
				for _, x := range blk {
					c[part(x.a)]++
				}
			}
		})
	}
	for d, r := range rep {
		if r != uint32(d) {
			cnt[len(found)][part(r)]++
		}
	}
	wg.Wait()
	// start[k]: range k's first place; next[i][k]: list i's first in it.
	var start [sortParts + 1]int
	next := make([][sortParts]int, lists)
	pos := 0
	for k := range sortParts {
		start[k] = pos
		for i := range lists {
			next[i][k] = pos
			pos += cnt[i][k]
		}
	}
	start[sortParts] = pos
	pairs := hugepage.Make[Pair](pos)
	// Written whole below (the result's 32 bytes a pair: 113 MB at 1M
	// documents, 4.9 GB at 10M), on huge pages; the advice is withdrawn
	// once they are (hugepage.Done).
	for i := range found {
		wg.Go(func() {
			at := &next[i]
			for k, blk := range found[i].blocks {
				for _, x := range blk {
					p := part(x.a)
					pairs[at[p]] = Pair{A: int(x.a), B: int(x.b), Jaccard: x.jaccard}
					at[p]++
				}
				if drop != nil {
					drop(blk)
				}
				found[i].blocks[k] = nil
			}
			found[i] = blockList[verified]{}
		})
	}
	at := &next[len(found)]
	for d, r := range rep {
		if r != uint32(d) {
			p := part(r)
			pairs[at[p]] = Pair{A: int(r), B: d, Jaccard: 1}
			at[p]++
		}
	}
	wg.Wait()
	hugepage.Done(pairs)
	// A scratch per goroutine, kept from range to range.
	sorters := make([]pairSorter, workers)
	parallel.For(sortParts, workers, 1, func(w, lo, hi int) {
		for k := lo; k < hi; k++ {
			sorters[w].sortByAB(pairs[start[k]:start[k+1]])
		}
	})
	return pairs, nv
}

// pairSorter sorts pairs by (A, B) and by B, with scratch kept for the
// next call: a counting sort by A, then each A's pairs by B, their B
// packed with their index and sorted as integers. At 10M documents,
// slices.SortFunc with a comparison of (A, B) took 17 s of CPU for the
// 154 million verified pairs, and 12 s for the lines of AllPairs.
type pairSorter struct {
	counts  []int
	keys    []uint64
	scratch []uint64 // sortHigh's
	tmp     []Pair
}

// sortHigh sorts keys whose low 32 bits ascend among equal high 32 bits
// (an index, or a j taken in order), which makes the order the same as
// slices.Sort's: by a stable LSD radix sort on the high bits (passes of
// 11 bits, skipped where every key has the same digit) when there are
// many, using scratch (grown as needed and returned for the next call).
// At 10M documents slices.Sort of such keys took 20 s of CPU.
func sortHigh(keys, scratch []uint64) []uint64 {
	const (
		bits    = 11
		buckets = 1 << bits
		passes  = (32 + bits - 1) / bits
	)
	if len(keys) < 1024 {
		slices.Sort(keys)
		return scratch
	}
	var counts [passes][buckets]int
	for _, k := range keys {
		for p := range passes {
			counts[p][(k>>(32+p*bits))&(buckets-1)]++
		}
	}
	scratch = slices.Grow(scratch[:0], len(keys))[:len(keys)]
	src, dst := keys, scratch
	for p := range passes {
		c := &counts[p]
		shift := uint(32 + p*bits)
		if c[(src[0]>>shift)&(buckets-1)] == len(src) {
			continue
		}
		sum := 0
		for d := range c {
			c[d], sum = sum, sum+c[d]
		}
		for _, k := range src {
			d := (k >> shift) & (buckets - 1)
			dst[c[d]] = k
			c[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
	return scratch
}

// sortByAB sorts ps by (A, B); no two pairs may have the same (A, B).
func (s *pairSorter) sortByAB(ps []Pair) {
	if len(ps) < 2 {
		return
	}
	lo, hi := ps[0].A, ps[0].A
	for _, p := range ps {
		lo, hi = min(lo, p.A), max(hi, p.A)
	}
	if hi-lo >= 4*len(ps)+1024 {
		// A's too spread for a count each: sort by (A, B) outright.
		slices.SortFunc(ps, func(x, y Pair) int {
			if x.A != y.A {
				return cmp.Compare(x.A, y.A)
			}
			return cmp.Compare(x.B, y.B)
		})
		return
	}
	counts := slices.Grow(s.counts[:0], hi-lo+2)[:hi-lo+2]
	clear(counts)
	for _, p := range ps {
		counts[p.A-lo+1]++
	}
	for a := 1; a < len(counts); a++ {
		counts[a] += counts[a-1]
	}
	tmp := slices.Grow(s.tmp[:0], len(ps))[:len(ps)]
	next := counts[:len(counts)-1]
	for _, p := range ps {
		tmp[next[p.A-lo]] = p
		next[p.A-lo]++
	}
	copy(ps, tmp)
	s.counts, s.tmp = counts, tmp
	// next[a] is now the end of A = lo+a's pairs.
	from := 0
	for _, end := range next {
		if end-from > 1 {
			s.sortByB(ps[from:end])
		}
		from = end
	}
}

// sortByB sorts ps, pairs of one A with distinct B's, by B.
func (s *pairSorter) sortByB(ps []Pair) {
	if len(ps) <= 12 {
		for i := 1; i < len(ps); i++ {
			for j := i; j > 0 && ps[j-1].B > ps[j].B; j-- {
				ps[j-1], ps[j] = ps[j], ps[j-1]
			}
		}
		return
	}
	keys := s.keys[:0]
	for i, p := range ps {
		keys = append(keys, uint64(uint32(p.B))<<32|uint64(i))
	}
	s.scratch = sortHigh(keys, s.scratch)
	tmp := append(s.tmp[:0], ps...)
	for i, k := range keys {
		ps[i] = tmp[uint32(k)]
	}
	s.keys, s.tmp = keys, tmp
}

// mergeRunsMax is the most ascending runs mergeByB merges; with more it
// sorts.
const mergeRunsMax = 8

// mergeByB sorts ps, pairs of one A with distinct B's, by B, as sortByB,
// for lists made of a few ascending runs: PairLister.Range's, a
// document's identical copies and then each group of its partners (at
// 1M documents 72% of the pairs of such lists were in lists of two runs
// and 19% of three). Up to mergeRunsMax runs are merged from the left,
// each merge copying only the runs already merged to tmp; with more it
// calls sortByB.
func (s *pairSorter) mergeByB(ps []Pair) {
	runs := 1
	for i := 1; i < len(ps); i++ {
		if ps[i].B < ps[i-1].B {
			if runs++; runs > mergeRunsMax {
				s.sortByB(ps)
				return
			}
		}
	}
	if runs == 1 {
		return
	}
	mid := 1
	for mid < len(ps) {
		// ps[:mid] is sorted; the next run is ps[mid:end].
		end := mid + 1
		for end < len(ps) && ps[end].B > ps[end-1].B {
			end++
		}
		if ps[mid].B < ps[mid-1].B {
			s.tmp = mergeLeft(ps[:end], mid, s.tmp)
		}
		mid = end
	}
}

// mergeLeft merges the ascending (by B) runs ps[:mid] and ps[mid:] in
// place, with the left run copied to tmp (grown as needed and returned).
// The k-th pair written is at or before the next right pair unread (k =
// i + j - mid <= j), so no right pair is overwritten before it is read.
func mergeLeft(ps []Pair, mid int, tmp []Pair) []Pair {
	left := append(tmp[:0], ps[:mid]...)
	i, j, k := 0, mid, 0
	for i < len(left) && j < len(ps) {
		if ps[j].B < left[i].B {
			ps[k] = ps[j]
			j++
		} else {
			ps[k] = left[i]
			i++
		}
		k++
	}
	copy(ps[k:], left[i:])
	return left
}
