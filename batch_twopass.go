// The second pass (Options.Reread): the held candidate pairs are laid out
// so that sets paired together sit together (layOut), their sets are
// read again into one array (reread), the chained buckets' pairs are
// verified, then the held pairs a block of the layout at a time
// (verifyLaidOut), the sets' memory lent to the verified pairs' lists as
// blocks are done (pairPages). It hands on the verified pairs, in lists,
// to sortedPairs.

package neardup

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/neardup/neardup/internal/hugepage"
	"github.com/neardup/neardup/internal/lshhook"
	"github.com/neardup/neardup/internal/parallel"
	"github.com/neardup/neardup/internal/prefetch"
)

// secondPass reads again the documents of the held candidate pairs (one
// per distinct set, in input order), then verifies the pairs. The sets
// are copied into one array in an order that puts sets paired with each
// other side by side (layOut), and the pairs are verified a block of that
// order at a time: the block's sets stay in cache while their pairs are
// verified, and their partners, mostly near them, are read in address
// order. (Verified in input order as each document was read, the earlier
// set of nearly every pair was a cache miss somewhere in gigabytes of
// sets: at 10M documents the pass took 134 s instead of 102. Verifying
// the blocks while reading went on, each once its sets were read, saved
// no time on two cores: most blocks name a set read near the end, and the
// verification of the others slowed the reading as much.) It returns the
// verified pairs, in lists in no particular order.
func (b *Batch) secondPass(ctx context.Context, v *views, held []blockList[[2]uint32], chained lshhook.Chained, st *Stats) ([]blockList[verified], *pairPages, error) {
	t0 := time.Now()
	st.Passes = 2
	nu := len(v.uniq)
	// The members of chained buckets are verified together at the end
	// (verifyChained): their signatures are kept (row[u] >= 0: rows[row[u]])
	// and their sets read again.
	k := b.o.Slots
	row, rows := chainedRows(chained, nu, k, v.sigs)
	// LSH and the pre-filter were the signatures' last use. Their pages,
	// touched already, take the sets below (at 10M documents the
	// signatures are 5.1 GB, the sets 6.7 GB): given back and faulted in
	// again, each page cost a fault and a clearing (about 1.6 µs a 4 KiB
	// page on this project's machine).
	sa, nsig := v.arena, len(v.sigs)
	v.sigs, v.arena = nil, nil
	for i := range held {
		st.Held += int64(held[i].n)
	}
	lay := layOut(held, row, v.ucount)
	// The held pairs, now regrouped, are garbage: give them back before
	// the sets take their memory.
	returnFreed(8 * int64(lay.off[len(lay.order)]))
	st.Reread = len(lay.order)
	b.setStage("reread", int64(st.Reread))
	nvals := lay.off[len(lay.order)]
	var vals []uint64
	var arena *sigArena
	if sa != nil && useSigArena {
		vals = sa.reuse(nvals)
	}
	if vals != nil {
		// The signatures' pages past the sets are given back.
		arena = sa
		arena.release(uint64Slots*nvals, nsig)
	} else {
		if sa != nil {
			sa.release(0, nsig)
		}
		vals, arena = newSetStore(nvals)
	}
	if arena != nil {
		defer runtime.KeepAlive(arena)
	}
	// The set of distinct set u, once read (reread checked it is the one
	// of the first pass, ucount values).
	setOf := func(u uint32) []uint64 {
		p := lay.pos[u]
		return vals[lay.off[p]:lay.off[p+1]:lay.off[p+1]]
	}
	err := b.reread(ctx, v, func(u uint32) bool { return lay.pos[u] != noPos }, func(u uint32, set []uint64) {
		copy(setOf(u), set)
	})
	found := make([]blockList[verified], b.o.Workers)
	var pages *pairPages
	t1 := time.Now()
	if err == nil && row != nil {
		// First, while every set is there: the blocks below release
		// theirs as they go.
		b.setStage("verify", 0)
		sig := func(u uint32) []uint32 { return rows[int(row[u])*k : int(row[u]+1)*k] }
		view := func(u uint32) Sketch { return Sketch{Size: int(v.ucount[u])} }
		set := func(u uint32) ([]uint64, []float64) { return setOf(u), nil }
		st.Candidates += b.verifyChained(ctx, chained, sig, view, set, v.uniq, found)
		err = ctx.Err()
	}
	if err == nil {
		b.setStage("verify", st.Held)
		// Under star clustering no set is needed after its last pair:
		// give the sets' memory back as the blocks are done, while the
		// verified pairs grow (at 10M documents, 6.7 GB of sets and 2.5
		// GB of verified pairs).
		// The verified pairs' lists take the pages of the sets already
		// verified rather than fresh memory (at 10M documents 2.5 GB,
		// 600,000 page faults).
		var release func(from, to int)
		if b.o.Cluster == ClusterStar && arena != nil {
			pages = &pairPages{arena: arena, vals: vals}
			release = pages.free
			for w := range found {
				found[w].more = pages.block
			}
		}
		err = b.verifyLaidOut(ctx, v, &lay, vals, release, found)
		if pages != nil {
			pages.close()
		}
	}
	st.SecondVerify = time.Since(t1)
	st.Second = time.Since(t0)
	if err != nil {
		return nil, nil, err
	}
	if b.o.Cluster == ClusterStar {
		v.dropped = true // the sets' memory goes with the arena
	} else {
		// Keep the sets read again, for every document that has one
		// (and the arena holding them, reachable from the views).
		v.sets = make([][]uint64, len(v.uniqOf))
		for d, u := range v.uniqOf {
			if u >= 0 && lay.pos[u] != noPos {
				v.sets[d] = setOf(uint32(u))
			}
		}
		v.setArena = arena
	}
	return found, pages, nil
}

// chainedRows copies the signatures (k values each, distinct set u at
// sigs[u*k:]) of the members of chained's buckets, which the second pass
// verifies at the end (verifyChained): member u's is rows[row[u]*k:], and
// row[u] is -1 for a distinct set in no chained bucket. Both are nil when
// there is no chained bucket.
func chainedRows(chained lshhook.Chained, nu, k int, sigs []uint32) (row []int32, rows []uint32) {
	if chained == nil || chained.Len() == 0 {
		return nil, nil
	}
	row = make([]int32, nu)
	for u := range row {
		row[u] = -1
	}
	nr := int32(0)
	for c := range chained.Len() {
		for _, u := range chained.Members(c) {
			if row[u] < 0 {
				row[u] = nr
				nr++
			}
		}
	}
	// Sized at once (grown by append, the copies were 1 s at 10M).
	rows = make([]uint32, int(nr)*k)
	for u, r := range row {
		if r >= 0 {
			copy(rows[int(r)*k:int(r+1)*k], sigs[u*k:(u+1)*k])
		}
	}
	return row, rows
}

// releaseSets gives back the memory of vals[from:to], held by arena
// (tests overwrite the values instead, so that a set read after its
// release changes the results).
var releaseSets = func(arena *sigArena, vals []uint64, from, to int) {
	arena.release(uint64Slots*from, uint64Slots*to)
}

// noPos marks a distinct set that is not read again.
const noPos = math.MaxUint32

// layout is where the second pass puts the sets it reads again, and the
// held pairs by block of that order.
type layout struct {
	order []uint32 // the distinct sets read again, in layout order
	pos   []uint32 // by distinct set: its place in order, or noPos
	off   []int    // set order[p] is vals[off[p]:off[p+1]]
	// blocks[k] holds the held pairs whose earlier place (in order) is
	// in block k (places [k*layoutBlock, (k+1)*layoutBlock)), each
	// packed as later<<32 | earlier: an allocation a block, so that each
	// can go once it is verified.
	blocks [][]uint64
}

// layoutBlock is the number of consecutive sets whose pairs are verified
// together: 256 sets of about 250 shingles are 0.5 MB, which stay in a
// 1 MB second-level cache while their partners stream past. (A variable:
// tests make it small, for many blocks.)
var layoutBlock uint32 = 256

// layOut orders the sets of held pairs (and of chained buckets: row[u] >=
// 0) so that sets paired together sit together, and regroups the held
// pairs by block of that order, emptying held. Each set's group is the
// root of its tree of earliest partners (a set's parent is the earliest
// set it is paired with, if that is earlier than itself): a group of
// near-duplicates, all paired with their earliest member, is one group.
// Groups are placed in order of their root, a group's sets in ascending
// order. The pairs are counted and placed by block with a goroutine for
// each of held's lists (one a worker: 242 million held pairs at 10M
// documents, three passes over them that took 3.6 s on one core); the
// layout is the one a single goroutine makes, a block's pairs in the
// order of the lists. (Finding the groups on every list at once too, with
// an atomic minimum, made that pass slower than one goroutine's.)
func layOut(held []blockList[[2]uint32], row []int32, counts []int32) layout {
	nu := len(counts)
	parent := make([]uint32, nu)
	for u := range parent {
		parent[u] = noPos
		if row != nil && row[u] >= 0 {
			parent[u] = uint32(u)
		}
	}
	for i := range held {
		for _, blk := range held[i].blocks {
			for _, p := range blk {
				lo, hi := min(p[0], p[1]), max(p[0], p[1])
				parent[lo] = min(parent[lo], lo)
				parent[hi] = min(parent[hi], lo)
			}
		}
	}
	// Roots: parent[u] <= u, so in ascending order a parent's root is known
	// before its children's. The group sizes are counted on the way.
	size := make([]uint32, nu)
	m := 0
	for u, p := range parent {
		if p != noPos {
			r := parent[p]
			parent[u] = r
			size[r]++
			m++
		}
	}
	// Places: groups in order of their root, by a running sum of sizes.
	next := size // reused: next[r] is the next free place of r's group
	sum := uint32(0)
	for r, s := range size {
		next[r] = sum
		sum += s
	}
	l := layout{order: make([]uint32, m), pos: parent, off: make([]int, m+1)}
	for u, r := range parent {
		if r != noPos {
			q := next[r]
			next[r]++
			l.order[q] = uint32(u)
			l.pos[u] = q // parent[u] is no longer needed: pos takes its place
		}
	}
	next = nil
	for q, u := range l.order {
		l.off[q+1] = l.off[q] + int(counts[u])
	}
	// The held pairs by block of their earlier place: each list counts
	// its pairs by block, then places them from its own start in each
	// block (after the earlier lists'), dropping each block of held as
	// it is done.
	nb := (m + int(layoutBlock) - 1) / int(layoutBlock)
	at := make([][]int, len(held)) // at[i][k]: list i's next place in block k
	parallel.For(len(held), len(held), 1, func(_, i, _ int) {
		count := make([]int, nb)
		for _, blk := range held[i].blocks {
			for _, p := range blk {
				count[min(l.pos[p[0]], l.pos[p[1]])/layoutBlock]++
			}
		}
		at[i] = count
	})
	l.blocks = make([][]uint64, nb)
	lens := make([]int, nb)
	for k := range nb {
		n := 0
		for i := range at {
			c := at[i][k]
			at[i][k] = n
			n += c
		}
		lens[k] = n
	}
	// The blocks' arrays are cut from slabs of at least layoutSlabPairs
	// pairs, each on huge pages while it is filled at random (as an array
	// a block, a seventh of the 1M run's page faults); a slab is freed
	// once the verification has dropped all its blocks.
	var slabs [][]uint64
	for k := 0; k < nb; {
		first, total := k, 0
		for ; k < nb && (k == first || total < layoutSlabPairs); k++ {
			total += lens[k]
		}
		slab := hugepage.Make[uint64](total)
		slabs = append(slabs, slab)
		for j := first; j < k; j++ {
			l.blocks[j], slab = slab[:lens[j]:lens[j]], slab[lens[j]:]
		}
	}
	defer func() {
		for _, slab := range slabs {
			hugepage.Done(slab)
		}
	}()
	parallel.For(len(held), len(held), 1, func(_, i, _ int) {
		next := at[i]
		for k, blk := range held[i].blocks {
			for _, p := range blk {
				a, c := l.pos[p[0]], l.pos[p[1]]
				a, c = min(a, c), max(a, c)
				b := a / layoutBlock
				l.blocks[b][next[b]] = uint64(c)<<32 | uint64(a)
				next[b]++
			}
			held[i].blocks[k] = nil
		}
		held[i] = blockList[[2]uint32]{}
	})
	return l
}

// verifyLaidOut verifies the held pairs of l, a block at a time on every
// worker, adding those that reach the threshold to found[w], and drops
// each block's pairs once verified. Within a block the pairs are sorted by
// their later set, so that each later set is read once, in address order,
// while the block's own sets stay in cache. A set is named only by the
// pairs of its own block and of earlier ones, so once blocks 0..k are all
// verified, release (if not nil) is called with the range of vals that
// their sets hold, which nothing reads again; the calls come one at a
// time, in order. It stops after the block during which ctx is cancelled.
func (b *Batch) verifyLaidOut(ctx context.Context, v *views, l *layout, vals []uint64, release func(from, to int), found []blockList[verified]) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	set := func(q uint32) []uint64 { return vals[l.off[q]:l.off[q+1]:l.off[q+1]] }
	// docOf[q] is the earliest document of the set at place q: a pair
	// that passes names its documents, and v.uniq read through l.order
	// at the later place (at random) cost a miss a pair, 9.6 s of CPU at
	// 10M documents; in layout order, the later places of a block's
	// pairs ascend. (uniq ascends: the smaller place's document is the
	// smaller set's.)
	docOf := make([]uint32, len(l.order))
	parallel.For(len(l.order), b.o.Workers, 1<<14, func(_, lo, hi int) {
		for q := lo; q < hi; q++ {
			docOf[q] = v.uniq[l.order[q]]
		}
	})
	nb := len(l.blocks)
	// Blocks 0..nDone-1 are verified; doneB marks those beyond.
	var mu sync.Mutex
	doneB := make([]bool, nb)
	nDone := 0
	blockDone := func(k int) {
		mu.Lock()
		defer mu.Unlock()
		doneB[k] = true
		n := nDone
		for n < nb && doneB[n] {
			n++
		}
		if n > nDone && release != nil {
			release(l.off[nDone*int(layoutBlock)], l.off[min(n*int(layoutBlock), len(l.order))])
		}
		nDone = n
	}
	for w := range b.o.Workers {
		wg.Go(func() {
			var scratch []uint64
			for ctx.Err() == nil {
				k := int(next.Add(1) - 1)
				if k >= nb {
					break
				}
				ps := l.blocks[k]
				scratch = sortHigh(ps, scratch)
				for x, p := range ps {
					// The later sets stream past: start loading the one
					// four pairs on, if it is another.
					if x+4 < len(ps) && ps[x+4]>>32 != p>>32 {
						prefetch.Uint64s(set(uint32(ps[x+4] >> 32)))
						prefetch.Line(&docOf[ps[x+4]>>32])
					}
					a, c := uint32(p), uint32(p>>32)
					xs, ys := set(a), set(c)
					sa := Sketch{Size: len(xs), Set: xs}
					sc := Sketch{Size: len(ys), Set: ys}
					if jac, ok := b.ver.Confirm(&sa, &sc); ok {
						da, dc := docOf[a], docOf[c]
						found[w].add(verified{a: min(da, dc), b: max(da, dc), jaccard: jac})
					}
				}
				l.blocks[k] = nil
				blockDone(k)
				b.done.Add(int64(len(ps)))
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// pairPages lends the verified pairs' lists the memory of the second
// pass's sets once their blocks are verified (free), instead of giving it
// back to the system while the lists take fresh pages: both grow and
// shrink together, the sets from the front of the layout as its blocks are
// done. The lists' blocks (block) are carved from the freed range; drop
// gives a block's pages back once its pairs are sorted out, and close
// what was never lent. The arena stays mapped while pairPages is
// reachable: the lists' blocks must not be read once it is not. Its
// methods are safe for concurrent use; a nil *pairPages lends nothing.
type pairPages struct {
	arena  *sigArena
	vals   []uint64
	mu     sync.Mutex
	lo, hi int // vals[lo:hi] is freed and not lent
	closed bool
}

// layoutSlabPairs is the least size of the slabs layOut cuts its blocks'
// arrays from (tests make it smaller).
var layoutSlabPairs = 1 << 20

// pairPagesBlock is the pairs of a block lent (blockLen; tests make it
// small).
var pairPagesBlock = blockLen

// free adds vals[from:to], whose sets are no longer needed, to the range
// to lend. Ranges come in order, each from where the last ended; one that
// does not gives back the range before it.
func (p *pairPages) free(from, to int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		releaseSets(p.arena, p.vals, from, to)
		return
	}
	if from != p.hi {
		releaseSets(p.arena, p.vals, p.lo, p.hi)
		p.lo = from
	}
	p.hi = to
}

// block returns an empty block of room for pairPagesBlock pairs in the
// freed range, or nil if it holds too little.
func (p *pairPages) block() []verified {
	n := pairPagesBlock * int(unsafe.Sizeof(verified{})/8)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.hi-p.lo < n {
		return nil
	}
	s := p.vals[p.lo : p.lo+n]
	p.lo += n
	return unsafe.Slice((*verified)(unsafe.Pointer(&s[0])), pairPagesBlock)[:0]
}

// close gives back the range not lent; blocks are no longer lent.
func (p *pairPages) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		releaseSets(p.arena, p.vals, p.lo, p.hi)
		p.closed = true
	}
}

// drop gives back the pages of blk if it is a block p lent (else, a
// block of the heap, it does nothing).
func (p *pairPages) drop(blk []verified) {
	if p == nil || cap(blk) == 0 {
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(p.vals)))
	at := uintptr(unsafe.Pointer(unsafe.SliceData(blk)))
	if at < base || at >= base+uintptr(len(p.vals))*8 {
		return
	}
	from := int(at-base) / 8
	releaseSets(p.arena, p.vals, from, from+cap(blk)*int(unsafe.Sizeof(verified{})/8))
}
