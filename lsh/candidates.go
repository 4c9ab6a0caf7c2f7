package lsh

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup/internal/hugepage"
	"github.com/neardup/neardup/internal/prefetch"
)

// Candidates describes a candidate search over n signatures of slots values each.
type Candidates struct {
	Params    Params
	Slots     int      // values per signature
	Sigs      []uint32 // n*Slots values, signature i at Sigs[i*Slots:(i+1)*Slots]
	Workers   int      // goroutines; <= 0 means 1
	MaxBucket int      // buckets larger than this are joined as a chain (m-1 pairs) and by MinAgree, not all pairs; <= 0: no limit
	// MinAgree, when > 0, adds to a chained bucket's chain every pair of
	// its members whose signatures agree on at least MinAgree of the
	// Slots values (see Run). A caller that rejects every pair agreeing
	// on fewer (neardup.Verifier.MinAgreement) then loses nothing to
	// MaxBucket.
	MinAgree int
	// BandsDone, if not nil, is incremented as each band is finished, for
	// progress reports (Params.Bands in all).
	BandsDone *atomic.Int64

	// The batch's hooks (set through internal/lshhook, see hook.go): row
	// is lshhook.Options.Row; deferred, if not nil (and MinAgree > 0),
	// receives the chained buckets (lshhook.Options.Defer).
	row      func(worker int, i uint32, js []uint32)
	deferred *deferred
}

// Stats counts what a search did.
type Stats struct {
	Pairs         int64 // distinct candidate pairs emitted
	LargeBuckets  int64 // buckets over MaxBucket
	MaxBucketSeen int   // largest bucket
	// Buckets tallies the buckets of 2 to MaxBucket members over every
	// band by size, Buckets[k] those of 2^k to 2^(k+1)-1 members: the work
	// of the search, whose member pairs (each distinct pair found in every
	// band it shares a bucket in) the home-band rule reduces to Pairs.
	Buckets [32]BucketClass
}

// BucketClass counts buckets of one size class: how many, their members
// and the pairs of their members.
type BucketClass struct {
	Buckets, Members, Pairs int64
}

// add adds the counts of c to s.
func (s *Stats) add(c Stats) {
	s.Pairs += c.Pairs
	s.LargeBuckets += c.LargeBuckets
	s.MaxBucketSeen = max(s.MaxBucketSeen, c.MaxBucketSeen)
	for k, b := range c.Buckets {
		s.Buckets[k].Buckets += b.Buckets
		s.Buckets[k].Members += b.Members
		s.Buckets[k].Pairs += b.Pairs
	}
}

// Run calls fn(worker, i, j) with i < j once for every distinct candidate pair:
// a pair that agrees on several bands is reported once. Calls come from Workers
// goroutines concurrently; worker in [0, Workers) identifies the caller so fn
// can use per-worker state without locks.
//
// # What is reported
//
// A bucket is a maximal group of documents whose r slots of one band are
// all equal (compared value by value, or, for bands of at most 3 rows, by
// a key that names the values exactly, so band-key collisions never merge
// buckets). Every pair of documents sharing a bucket is a candidate. Each
// candidate pair is reported in its home band only: the first band on which
// the two agree. Run checks that by comparing the two documents' bucket
// numbers in the earlier bands (or, beyond 2^31 documents, their slots),
// so no set of already-reported pairs is kept and memory does not grow
// with the number of pairs.
//
// Large buckets: when MaxBucket > 0 and a bucket has m > MaxBucket members,
// only the chain of its members in ascending id order is considered (m-1
// pairs: each member with the next) and, when MinAgree > 0, every other
// pair of its members whose whole signatures agree on at least MinAgree of
// the Slots values (found by comparing compact copies of the members'
// signatures in one block, a few nanoseconds a pair, instead of handling
// every pair); Stats.LargeBuckets counts it.
// Such a bucket is chained, and the home-band rule then skips it: a pair
// that shares a bucket of at most MaxBucket members in some band is
// reported in the first such band, wherever its home band is, and a pair
// that shares only chained buckets is reported in its home band if the two
// are neighbours in that bucket's chain (Params.ReportBand; with no chained
// bucket that is the home band). So a pair is lost to the limit only when
// every bucket it shares is chained and it is a neighbour in none of them.
// Nothing is lost for clustering: every bucket of every band is still
// connected by reported pairs (a small bucket reports all its pairs; two
// neighbours in a chain share a small bucket, which reports them, or are
// reported in their home band's chain, or share an earlier chained bucket,
// connected by induction over bands), so the connected components of the
// reported pairs are exactly those of the unlimited search. Pairs that share
// only chained buckets beyond their chains are reported only if they agree
// on MinAgree slots; with MinAgree 0, callers that need them must raise
// MaxBucket. So a caller that rejects every pair agreeing on fewer than
// MinAgree slots anyway (neardup's signature pre-filter) gets, after its
// filter, the pairs of the unlimited search, whatever MaxBucket is.
//
// # Cost
//
// Bands are shared out among min(Workers, Bands) goroutines. For each band a
// worker computes a 64-bit key of every document (not BandKey: one that
// costs less and need not be stable), sorts the (key, id) records with an
// LSD radix sort, numbers the buckets (runs of equal keys, split where
// their values differ) and scans them. Time is O(n*Bands*Rows) plus the
// pairs examined in buckets (each costing up to one comparison of home
// band bucket numbers); memory is 32 bytes per document per worker (two
// record arrays, allocated once and reused for every band), 4*Bands bytes
// per document for the bucket numbers when Bands >= 2 (at most the size
// of the signatures' own band slots; from 2^31 documents a pair's earlier
// bands are compared on their slots instead), and, when
// there are more than MaxBucket documents, one chained-bucket bitset of
// (Bands+63)/64 words per document plus 4 bytes per chained-bucket member;
// nothing per pair. With MinAgree, a chained bucket of m members costs
// m(m-1)/2 comparisons of (Slots+7)/8 words, and the worker pairing it
// holds a copy of its members' signatures (4*Slots+8*((Slots+7)/8) bytes
// a member). A worker sorts its band, numbers its buckets, marks the
// members of its chained buckets, and pairs the band's buckets once every
// earlier band has been numbered and marked; the chained buckets wait
// until every band has, then the workers share them out, largest first. Sigs is only read and must not change
// during Run.
//
// The rules are exported so that a search over buckets held elsewhere
// reports the same pairs: Params.ReportBand, BucketPairs, AgreeingPairs,
// Chained.
//
// fn may be nil to only count pairs. Run returns an error wrapping
// ErrInvalid, before any call to fn, when Params do not fit in Slots,
// len(Sigs) is not a multiple of Slots, or there are more than
// math.MaxUint32 signatures. When ctx is cancelled, Run stops within a
// few thousand pairs (or one band's sort, or the signature comparisons of
// one chained bucket) and returns ctx's error with the Stats so far.
func (c *Candidates) Run(ctx context.Context, fn func(worker int, i, j uint32)) (Stats, error) {
	p := c.Params
	if p.Bands < 1 || p.Rows < 1 {
		return Stats{}, fmt.Errorf("%w: Run: %d bands of %d rows", ErrInvalid, p.Bands, p.Rows)
	}
	if c.Slots < 1 || p.Bands > c.Slots/p.Rows {
		return Stats{}, fmt.Errorf("%w: Run: %d bands of %d rows do not fit in %d slots", ErrInvalid, p.Bands, p.Rows, c.Slots)
	}
	if len(c.Sigs)%c.Slots != 0 {
		return Stats{}, fmt.Errorf("%w: Run: %d values is not a multiple of %d slots", ErrInvalid, len(c.Sigs), c.Slots)
	}
	n := len(c.Sigs) / c.Slots
	if uint64(n) > math.MaxUint32 {
		return Stats{}, fmt.Errorf("%w: Run: %d signatures, ids are uint32", ErrInvalid, n)
	}
	if n < 2 {
		return Stats{}, nil
	}
	workers := min(max(c.Workers, 1), p.Bands)

	// sh is what the workers share: the chained-bucket bitsets (nil when
	// no bucket can be chained) and, per band, a channel closed once its
	// chained members are marked.
	sh := &shared{words: (p.Bands + 63) / 64, ready: make([]chan struct{}, p.Bands), allIn: make(chan struct{}), scans: make([]bandScan, p.Bands)}
	sh.left.Store(int32(workers))
	if bb, ok := p.newBandBits(c.Slots); ok && len(bb.starts) <= 2 {
		sh.bb = &bb
	}
	if p.Bands >= 2 && n < 1<<31 {
		sh.comp = bucketNumbers(n, p.Bands, workers)
	}
	// Keys of at most three 32-bit slots name the slots exactly with the
	// third beside them (sortKey), unless tests narrow the keys.
	exact := p.Rows <= 3 && keyMask == ^uint64(0)
	if c.MaxBucket > 0 && n > c.MaxBucket {
		sh.large = make([]uint64, n*sh.words)
		sh.some = make([]uint64, (n+63)/64)
	}
	for b := range sh.ready {
		sh.ready[b] = make(chan struct{})
	}
	var next atomic.Int64
	var stop atomic.Bool
	stats := make([]Stats, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			bw := bandWorker{c: c, sh: sh, w: w, fn: fn, n: n, ctx: ctx, stop: &stop, exact: exact}
			bw.ents = make([]entry, n)
			bw.tmp = make([]entry, n)
			// Rewritten by every band; on huge pages while the first
			// bands touch them (an eighth of a 1M run's page faults
			// on small pages).
			hugepage.Advise(bw.ents)
			hugepage.Advise(bw.tmp)
			defer hugepage.Done(bw.tmp)
			defer hugepage.Done(bw.ents)
			for !stop.Load() {
				band := int(next.Add(1) - 1)
				if band >= p.Bands {
					break
				}
				if ctx.Err() != nil {
					stop.Store(true)
					close(sh.ready[band])
					break
				}
				bw.band(band)
				if c.BandsDone != nil {
					c.BandsDone.Add(1)
				}
			}
			// No band left to take: help scan those still being
			// scanned. (Every band is taken, so no worker sorts another
			// into the arrays being scanned.)
			for band := range p.Bands {
				if stop.Load() || !bw.waitMarked(band+1) {
					break
				}
				bw.scan(band)
			}
			// Bands grabbed after a stop are never marked: the waits below
			// end on ctx instead.
			if sh.large != nil {
				sh.addChained(&bw)
				if bw.waitMarked(p.Bands) && bw.waitChained() {
					bw.chains()
				}
			}
			stats[w] = bw.stats
		})
	}
	wg.Wait()
	if d := c.deferred; d != nil {
		*d = deferred{p: p, minAgree: c.MinAgree}
		if c.MinAgree > 0 && sh.large != nil {
			d.buckets, d.large, d.words = sh.chained, sh.large, sh.words
		}
	}

	var s Stats
	for _, ws := range stats {
		s.add(ws)
	}
	if stop.Load() {
		return s, ctx.Err()
	}
	return s, nil
}

// entry is one document's record for one band.
type entry struct {
	key uint64
	id  uint32
	// third is the band's third slot (0 with fewer rows) until the band is
	// sorted; then bandWorker.number sets it to the position in the sorted
	// band of the first record of the document's bucket, so that a bucket
	// is a run of equal thirds.
	third uint32
}

// keyMask is ANDed into the band keys Run groups by. Tests narrow it to
// force key collisions through the verification path; it is all ones
// otherwise.
var keyMask = ^uint64(0)

// bucketNumbers returns shared.comp for n documents and nb bands, each
// document's row filled with a value of its own that no bucket number
// takes (1<<31 | document, for n < 1<<31): the number a document keeps in
// the bands where it shares no bucket. The rows are shared out among
// workers goroutines, with 64 more values after the last (the AVX-512 pair
// kernel reads whole vectors of a row).
func bucketNumbers(n, nb, workers int) []uint32 {
	comp := hugepage.Make[uint32](n*nb + 64) // starts on a huge page boundary
	// Written whole just below (134 MB at 1M documents), on huge pages;
	// then the range of the heap goes back to the default page size.
	defer hugepage.Done(comp)
	per := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += per {
		hi := min(lo+per, n)
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				row := comp[i*nb : (i+1)*nb]
				for b := range row {
					row[b] = 1<<31 | uint32(i)
				}
			}
		})
	}
	wg.Wait()
	return comp
}

// shared is the state every bandWorker of one Run sees.
type shared struct {
	// large holds the chained-bucket bitsets (see Params.ReportBand),
	// words uint64s per document, bit band%64 of word band/64; nil when no
	// bucket can be chained. Bits are set with atomic ORs while other
	// bands are being paired, and read with atomic loads.
	large []uint64
	words int
	// some has bit i%64 of word i/64 set when document i is in a chained
	// bucket (of a band marked so far): its bitset in large is read only
	// then. At 10M documents large is 80 MB, some 1.25 MB, and most
	// documents are in no chained bucket, so most lookups stay in cache.
	some []uint64
	// ready[band] is closed once band's buckets are numbered in comp and
	// its chained members marked in large.
	ready []chan struct{}
	// bb finds the report band from equality bits (bandBits.agreesBefore);
	// nil when the parameters do not fit in two words of bits.
	bb *bandBits
	// comp holds every document's bucket number in every band, Bands
	// values a document: once band b is sorted, the position in the sorted
	// band of the first member of each bucket of more than one member
	// (bandWorker.number), written before ready[b] is closed; a document in
	// no such bucket keeps its own value (bucketNumbers). Two documents
	// agree on a band exactly when their numbers for it are equal, which
	// the pair test reads in two or three cache lines instead of the
	// slots of both signatures (bandWorker.bucketComp). nil when Bands is
	// under 2 or there are 1<<31 documents or more.
	comp []uint32

	// The chained buckets of every worker, largest first, shared out once
	// every worker has added its own (allIn closed); next is the next to
	// take, left the workers yet to add theirs.
	mu      sync.Mutex
	chained []chainBucket
	allIn   chan struct{}
	left    atomic.Int32
	next    atomic.Int64

	// scans[band] is band's sorted records, stored before ready[band] is
	// closed, and the start of the next chunk of them to scan for
	// buckets: the band's worker and any worker left without a band take
	// chunks in turn (bandWorker.scan), so the last bands do not keep one
	// core busy while the other waits.
	scans []bandScan
}

// bandScan is a band's share of shared.scans, a line of its own.
type bandScan struct {
	sorted []entry
	next   atomic.Int64
	_      [128 - 32]byte
}

// scanChunk is the number of sorted records a worker takes at a time to
// scan for buckets (a variable: tests make it small, for many chunks).
var scanChunk = 1 << 14

// addChained adds bw's chained buckets to the shared list; the last worker
// to add sorts the list and closes allIn.
func (sh *shared) addChained(bw *bandWorker) {
	sh.mu.Lock()
	sh.chained = append(sh.chained, bw.cbk...)
	sh.mu.Unlock()
	bw.cbk = nil
	if sh.left.Add(-1) == 0 {
		slices.SortStableFunc(sh.chained, func(a, b chainBucket) int { return len(b.ids) - len(a.ids) })
		close(sh.allIn)
	}
}

// chainBucket is a chained bucket, kept until every band is marked: its
// members in ascending id order.
type chainBucket struct {
	ids  []uint32
	band int
}

// deferred is what Run leaves for later when Candidates.deferred is set
// (lshhook.Chained): the chained buckets and the chained-bucket bitsets
// ReportBand reads, with the Params and MinAgree of the Run.
type deferred struct {
	p        Params
	minAgree int
	buckets  []chainBucket // largest first
	large    []uint64
	words    int
}

// Len returns the number of chained buckets.
func (d *deferred) Len() int { return len(d.buckets) }

// Members returns the members of chained bucket k (0 <= k < Len, largest
// first), in ascending id order. The slice must not be modified.
func (d *deferred) Members(k int) []uint32 { return d.buckets[k].ids }

// Pairs calls fn(x, y), x < y, for the pairs of chained bucket k that Run
// would have reported besides its chain: the pairs
// AgreeingPairs gives that Params.ReportBand keeps in the bucket's band,
// as positions in Members(k) (documents Members(k)[x] < Members(k)[y]).
// sig(i) is document i's whole signature, as Run read it. It stops early
// when fn returns false. Pairs allocates a copy of the bucket's signatures
// and may be called for different buckets concurrently.
func (d *deferred) Pairs(k int, sig func(i uint32) []uint32, fn func(x, y int) bool) {
	d.PairsWhere(k, sig, nil, fn)
}

// PairsWhere is Pairs for the pairs keep accepts: keep, if not nil, is
// asked about the pairs that pass the comparison of the signatures' low
// bytes, a member's together (keepRow), before their report bands and
// full comparisons, which it spares the pairs it rejects. It must answer
// from each pair alone (the pairs fn is given are then exactly Pairs'
// pairs that keep accepts): for instance a caller's cheap test of the two
// sets' sizes or bitmaps, which in a large bucket of documents that share
// text rejects most pairs.
func (d *deferred) PairsWhere(k int, sig func(i uint32) []uint32, keep func(x int, ys []int32, ok []bool), fn func(x, y int) bool) {
	p, minAgree := d.p, d.minAgree
	b := d.buckets[k]
	if len(b.ids) < 3 || minAgree <= 0 {
		return
	}
	// Sized at once: grown by appends, the copy of a bucket of 20,000
	// members (10 MB) was copied again at each doubling.
	sigs := appendSigs(make([]uint32, 0, len(b.ids)*len(sig(b.ids[0]))), b.ids, sig)
	large := func(i uint32) []uint64 { return d.large[int(i)*d.words : int(i+1)*d.words] }
	p.agreeingKept(b.ids, b.band, minAgree, sigs, large, keep, fn)
}

// appendSigs appends the signatures of ids, sig(i) each, to dst.
func appendSigs(dst []uint32, ids []uint32, sig func(i uint32) []uint32) []uint32 {
	for _, id := range ids {
		dst = append(dst, sig(id)...)
	}
	return dst
}

// agreeingKept calls fn(x, y) for the pairs AgreeingPairs gives for the
// chained bucket ids of band that Params.ReportBand keeps in that band.
// sigs holds the members' signatures one after the other, all of the same
// length, and large(i) is document i's chained-bucket bitset.
//
// When p allows (bandBits), a pair is kept when the two agree on no band
// before band and on no band whose bucket is not chained (the members
// agree on band itself): the bands whose low bytes all agree (the bits
// the block comparison leaves) are compared first, and only the pairs
// that agree on none of those bands are compared in full for MinAgree.
// In a large bucket most of the pairs that pass the block comparison are
// reported in another band, and this reads one or two cache lines of
// their second signature instead of all of it. keep, if not nil, is asked
// first (see deferred.PairsWhere).
func (p Params) agreeingKept(ids []uint32, band, minAgree int, sigs []uint32, large func(i uint32) []uint64, keep keepRow, fn func(x, y int) bool) {
	slots := len(sigs) / len(ids)
	at := func(x int) []uint32 { return sigs[x*slots : (x+1)*slots] }
	bb, fast := p.newBandBits(slots)
	if !fast {
		agreeingPairs(len(ids), minAgree, at, keep, nil, func(x, y int) bool {
			return p.ReportBand(at(x), at(y), large(ids[x])) != band || fn(x, y)
		})
		return
	}
	forbid := make([]uint64, len(bb.starts))
	fx := -1 // the member forbid is for
	drop := func(x, y int, low []uint64) bool {
		if x != fx {
			bb.forbid(forbid, band, large(ids[x]))
			fx = x
		}
		return bb.anyAgrees(low, forbid, at(x), at(y))
	}
	agreeingPairs(len(ids), minAgree, at, keep, drop, fn)
}

// bandWorker holds one goroutine's state; its arrays are reused for every band.
type bandWorker struct {
	c      *Candidates
	sh     *shared
	w      int
	fn     func(worker int, i, j uint32)
	n      int
	ents   []entry
	tmp    []entry
	cbk    []chainBucket // chained buckets found, until addChained
	gather []uint32      // agreeing(): a chained bucket's signatures
	masks  []uint64      // bucketComp(): equality bits of band values
	acc    []uint64      // bucketComp(): those bits over more than 64 bands
	large  []uint64      // bucketComp(): a member's chained-bucket bitset
	js     []uint32      // a member's reported partners, for Candidates.row
	seen   []uint64      // sortShared(): keepShared's table
	stats  Stats
	ctx    context.Context
	stop   *atomic.Bool // set when ctx is done: every worker stops
	tick   int          // pairs emitted since the last look at ctx
	exact  bool         // keys and thirds name a band's slots (see Run)
}

// waitMarked waits until bands 0..upto-1 are numbered and marked, and
// reports false if the search was stopped first.
func (bw *bandWorker) waitMarked(upto int) bool {
	for _, ch := range bw.sh.ready[:upto] {
		select {
		case <-ch:
		case <-bw.ctx.Done():
			bw.stop.Store(true)
			return false
		}
	}
	return !bw.stop.Load()
}

func (bw *bandWorker) band(band int) {
	c := bw.c
	r, slots := c.Params.Rows, c.Slots
	off := band * r
	ents := bw.ents
	mask := keyMask
	// The band's slots are a line a signature, a stride the hardware
	// prefetcher loses at every page: the lines keyAhead signatures on are
	// asked for keyStep at a time. On the 1M benchmark corpus (three
	// alternating --cpuprofile runs, 2026-11-26): bandKey 0.39-0.50 s of
	// CPU without, 0.11-0.15 with and 0.14-0.17 in the prefetches; the
	// LSH stage 1.96-2.01 s against 2.07-2.14.
	const keyAhead, keyStep = 16, 8
	for i := range ents {
		if i%keyStep == 0 {
			if at := (i + keyAhead) * slots; at < len(c.Sigs) {
				prefetch.Uint32sEvery(c.Sigs[at+off:], slots, keyStep)
			}
		}
		s := c.Sigs[i*slots+off : i*slots+off+r]
		e := entry{key: sortKey(s) & mask, id: uint32(i)}
		if r == 3 {
			e.third = s[2]
		}
		ents[i] = e
	}
	// Only records whose key another record may share are sorted; the
	// others are buckets of one, which report nothing. The sort is stable
	// and the records were filled (and kept) in id order, so runs of
	// equal keys come out in ascending id order.
	sorted := sortShared(ents, bw.tmp, &bw.seen)
	bw.number(sorted, band)
	if bw.sh.large != nil {
		bw.mark(sorted, band)
	}
	bw.sh.scans[band].sorted = sorted
	close(bw.sh.ready[band])
	if (bw.sh.large != nil || bw.sh.comp != nil) && !bw.waitMarked(band) {
		return
	}
	if len(ents) > 0 {
		bw.stats.MaxBucketSeen = max(bw.stats.MaxBucketSeen, 1)
	}
	bw.scan(band)
}

// sharedMin is the number of records from which band sorts only those
// whose key may be shared (sortShared); below it, all of them. From
// sharedOnce records sortShared filters the parts of sortTopMSD rather
// than all records at once. (Variables: tests lower them.)
var sharedMin, sharedOnce = 1 << 16, 1 << 21

// keepShared moves to the front of ents, in their order, the records whose
// key may be another record's too, and returns them: every record whose
// key is shared, and a few whose key is not (about one in eight: those
// whose key's top bits, below the first skip, are another key's). A table
// of two bits for each value of those bits (at least eight values a
// record: seen once, seen again), in *seen (grown as needed), is filled in
// one pass and read in a second. Keys narrowed by keyMask share their top
// bits: then nothing is left out, which is slower, never wrong.
func keepShared(ents []entry, skip uint, seen *[]uint64) []entry {
	lg := max(bits.Len(uint(len(ents)))+3, 6) // a word of each at least
	shift := 64 - skip - uint(lg)
	mask := uint64(1)<<lg - 1
	// seen and again of value h are bits h%64 of words 2(h/64) and
	// 2(h/64)+1: one cache line for both.
	words := 2 << lg / 64
	if cap(*seen) < words {
		*seen = make([]uint64, words)
	}
	t := (*seen)[:words]
	clear(t)
	for _, e := range ents {
		h := e.key >> shift & mask
		w, bit := 2*(h/64), uint64(1)<<(h%64)
		t[w+1] |= t[w] & bit
		t[w] |= bit
	}
	m := 0
	for _, e := range ents {
		h := e.key >> shift & mask
		if t[2*(h/64)+1]&(1<<(h%64)) != 0 {
			ents[m] = e
			m++
		}
	}
	return ents[:m]
}

// sortShared is radixSort of the records of a whose key may be shared
// (keepShared; all of them below sharedMin records), in a, tmp (same
// length) as scratch and seen as keepShared's table: the buckets of one
// member, most of a band, are not sorted or numbered. On the 1M benchmark
// corpus about a fifth of a band's records are in buckets of more than
// one, so the sort sees about a third of them. Up to sharedOnce records
// one table filters them all before the sort (at most 4 MB); from there
// on the records are first distributed by their top bits (sortTopMSD)
// and each part is filtered on its own, with a table that stays in cache.
// BenchmarkSort/band* (2026-11-27, AMD EPYC, a fifth of the records in
// buckets of 2 to 9, three runs each; the times include a copy of the
// records): 1M records 11.1-11.2 ms with one table, 11.4-11.5 with a
// table a part, 13.6-13.7 sorting every record; 10M 359-369 ms with one
// table (32 MB), 115-116 with a table a part, 123-137 every record.
func sortShared(a, tmp []entry, seen *[]uint64) []entry {
	switch {
	case len(a) < sharedMin:
	case len(a) < sharedOnce:
		a = keepShared(a, 0, seen)
	default:
		return sortRuns(sortTopMSD(a, tmp[:len(a)], seen), a)
	}
	return radixSort(a, tmp)
}

// scan takes chunks of band's sorted records (shared.scans) until none is
// left and pairs the buckets that start in each (a record starts its
// bucket when its third, the bucket's number, is its own position). The
// caller has waited for bands 0..band-1 to be marked, and band's records
// are stored.
func (bw *bandWorker) scan(band int) {
	sc := &bw.sh.scans[band]
	sorted := sc.sorted
	for !bw.stop.Load() {
		lo := int(sc.next.Add(int64(scanChunk))) - scanChunk
		if lo >= len(sorted) {
			return
		}
		end := min(lo+scanChunk, len(sorted))
		for lo < end && sorted[lo].third != uint32(lo) {
			lo++ // the end of a bucket that started in an earlier chunk
		}
		for lo < end && !bw.stop.Load() {
			hi := lo + 1
			for hi < len(sorted) && sorted[hi].third == sorted[lo].third {
				hi++
			}
			if hi-lo > 1 {
				bw.bucket(sorted[lo:hi], band)
			}
			lo = hi
		}
	}
}

// number splits the runs of equal keys of a sorted band into its buckets
// (documents whose slots of the band are equal), each in ascending id
// order, sets every record's third to the position of its bucket's first
// record, and writes that number to the band's value in comp of the
// members of buckets of more than one member. Only a key collision (or a
// narrowed keyMask) makes a run more than one bucket: with exact keys the
// thirds tell the buckets apart, otherwise the slots, read from the
// signatures.
func (bw *bandWorker) number(sorted []entry, band int) {
	c := bw.c
	r, slots := c.Params.Rows, c.Slots
	off := band * r
	slotsOf := func(id uint32) []uint32 {
		i := int(id) * slots
		return c.Sigs[i+off : i+off+r]
	}
	// sameBucket reports whether two records of a run of equal keys are
	// in one bucket.
	sameBucket := func(x, y entry) bool {
		if bw.exact {
			return x.third == y.third
		}
		return slices.Equal(slotsOf(x.id), slotsOf(y.id))
	}
	comp, nb := bw.sh.comp, c.Params.Bands
	for lo := 0; lo < len(sorted); {
		hi := lo + 1
		for hi < len(sorted) && sorted[hi].key == sorted[lo].key {
			hi++
		}
		if hi-lo == 1 {
			sorted[lo].third = uint32(lo)
			lo = hi
			continue
		}
		run := sorted[lo:hi]
		same := true
		for _, e := range run[1:] {
			if !sameBucket(e, run[0]) {
				same = false
				break
			}
		}
		if same {
			for k := range run {
				run[k].third = uint32(lo)
			}
		} else {
			// Sort by slots (or thirds), then id, and number each
			// bucket from its first record.
			slices.SortFunc(run, func(a, b entry) int {
				if bw.exact {
					if a.third != b.third {
						return cmp.Compare(a.third, b.third)
					}
				} else if d := slices.Compare(slotsOf(a.id), slotsOf(b.id)); d != 0 {
					return d
				}
				return cmp.Compare(a.id, b.id)
			})
			start, prev := 0, run[0] // prev: the record before, as sorted
			for k, e := range run {
				if k > 0 && !sameBucket(prev, e) {
					start = k
				}
				prev = e
				run[k].third = uint32(lo + start)
			}
		}
		if comp != nil {
			for k, e := range run {
				// A bucket of one member inside a split run keeps the
				// document's own value.
				if k > 0 && run[k-1].third == e.third || k+1 < len(run) && run[k+1].third == e.third {
					comp[int(e.id)*nb+band] = e.third
				}
			}
		}
		lo = hi
	}
}

// mark sets band's bit in the chained-bucket bitsets of the members of its
// chained buckets (runs of equal thirds once number has run).
func (bw *bandWorker) mark(sorted []entry, band int) {
	maxBucket := bw.c.MaxBucket
	word, bit := band/64, uint64(1)<<(band%64)
	for lo := 0; lo < len(sorted); {
		hi := lo + 1
		for hi < len(sorted) && sorted[hi].third == sorted[lo].third {
			hi++
		}
		if Chained(hi-lo, maxBucket) {
			for _, e := range sorted[lo:hi] {
				atomic.OrUint64(&bw.sh.large[int(e.id)*bw.sh.words+word], bit)
				atomic.OrUint64(&bw.sh.some[e.id/64], 1<<(e.id%64))
			}
		}
		lo = hi
	}
}

// largeOf returns document i's chained-bucket bitset. Bits of bands not yet
// marked may be missing; callers read only the bits of marked bands.
func (bw *bandWorker) largeOf(dst []uint64, i uint32) []uint64 {
	if atomic.LoadUint64(&bw.sh.some[i/64])&(1<<(i%64)) == 0 {
		return dst // in no chained bucket (of a marked band)
	}
	w := bw.sh.words
	for k := range w {
		dst = append(dst, atomic.LoadUint64(&bw.sh.large[int(i)*w+k]))
	}
	return dst
}

// waitChained waits until every worker has added its chained buckets, and
// reports false if the search was stopped first.
func (bw *bandWorker) waitChained() bool {
	select {
	case <-bw.sh.allIn:
		return !bw.stop.Load()
	case <-bw.ctx.Done():
		bw.stop.Store(true)
		return false
	}
}

// chains reports the pairs of chained buckets kept by Params.ReportBand,
// once every band is marked: the chain, and with MinAgree the other pairs
// that agree on MinAgree slots. The workers take the buckets of all of
// them in turn, largest first.
func (bw *bandWorker) chains() {
	sh := bw.sh
	for !bw.stop.Load() {
		k := int(sh.next.Add(1) - 1)
		if k >= len(sh.chained) {
			break
		}
		cb := sh.chained[k]
		for x := 0; x+1 < len(cb.ids); x++ {
			bw.chained(cb.ids[x], cb.ids[x+1], cb.band)
		}
		if bw.c.MinAgree > 0 && len(cb.ids) > 2 && bw.c.deferred == nil {
			bw.agreeing(cb.ids, cb.band)
		}
	}
	bw.gather = nil
}

// chained reports i < j of a chained bucket in band if Params.ReportBand
// gives that band.
func (bw *bandWorker) chained(i, j uint32, band int) {
	c := bw.c
	slots := c.Slots
	var buf [4]uint64
	large := bw.largeOf(buf[:0], i)
	if c.Params.ReportBand(c.Sigs[int(i)*slots:int(i+1)*slots], c.Sigs[int(j)*slots:int(j+1)*slots], large) == band {
		bw.report(i, j)
	}
}

// agreeing reports the pairs of a chained bucket (members ids, ascending)
// that AgreeingPairs gives, if Params.ReportBand gives band. The members'
// signatures are copied together first: the pairs that pass read them
// again, and the copy keeps those reads in cache.
func (bw *bandWorker) agreeing(ids []uint32, band int) {
	c := bw.c
	slots := c.Slots
	bw.gather = appendSigs(bw.gather[:0], ids, func(i uint32) []uint32 { return c.Sigs[int(i)*slots : int(i+1)*slots] })
	var buf [4]uint64
	large := func(i uint32) []uint64 { return bw.largeOf(buf[:0], i) }
	k := 0
	c.Params.agreeingKept(ids, band, c.MinAgree, bw.gather, large, nil, func(x, y int) bool {
		bw.report(ids[x], ids[y])
		if k++; k&1023 == 0 {
			return !bw.stop.Load()
		}
		return true
	})
}

// packLow packs the low byte of each value of sig into dst, 8 to a word
// (slot k in byte k%8 of word k/8); the bytes of a last partial word past
// len(sig) are 0 in every signature.
func packLow(dst []uint64, sig []uint32) {
	clear(dst)
	for k, v := range sig {
		dst[k/8] |= uint64(uint8(v)) << (8 * (k % 8))
	}
}

// bucket reports the pairs of one true bucket whose members are in
// ascending id order, by BucketPairs' rule, a member's at a time
// (reportRow): those of i < j unless an earlier band whose bucket is not
// chained reports them (Params.ReportBand; every earlier band is marked by
// now). A chained bucket's pairs wait in bw.chain. The loops are
// BucketPairs' own, written out: a call through a closure per pair cost
// ~2% of a 100k-document run, and TestRulesOutsideBatch holds the two to
// the same pairs.
func (bw *bandWorker) bucket(b []entry, band int) {
	m := len(b)
	bw.stats.MaxBucketSeen = max(bw.stats.MaxBucketSeen, m)
	if Chained(m, bw.c.MaxBucket) {
		bw.stats.LargeBuckets++
		ids := make([]uint32, m)
		for k, e := range b {
			ids[k] = e.id
		}
		bw.cbk = append(bw.cbk, chainBucket{ids: ids, band: band})
		return
	}
	cl := &bw.stats.Buckets[bits.Len(uint(m))-1]
	cl.Buckets++
	cl.Members += int64(m)
	cl.Pairs += int64(m) * int64(m-1) / 2
	if band > 0 && bw.sh.comp != nil {
		bw.bucketComp(b, band)
		return
	}
	for x := 0; x+1 < m && !bw.stop.Load(); x++ {
		i := b[x].id
		bw.js = bw.js[:0]
		for _, e := range b[x+1:] {
			if band == 0 || !bw.earlier(i, e.id, band) {
				bw.js = append(bw.js, e.id)
			}
		}
		bw.reportRow(i, bw.js)
	}
}

// bucketComp is bucket's loop for band > 0 with the bucket numbers of
// shared.comp: for each member, the equality bits of its numbers for the
// earlier bands against every later member's (equalRows, up to 64 bands a
// call); a pair with an equal number for a band whose bucket is not chained
// agrees on that band and was reported there. It reports the pairs
// bucket's loop does.
func (bw *bandWorker) bucketComp(b []entry, band int) {
	sh := bw.sh
	nb := bw.c.Params.Bands
	// The members' rows are read by every pair: start loading them all
	// (up to three lines each, for the first 64 bands) before the first
	// row waits.
	pre := min(band, 64)
	for _, e := range b[:min(len(b), 64)] {
		row := sh.comp[int(e.id)*nb:][:pre]
		prefetch.Line(&row[0])
		prefetch.Line(&row[pre/2])
		prefetch.Line(&row[pre-1])
	}
	for x := 0; x+1 < len(b) && !bw.stop.Load(); x++ {
		i := b[x].id
		rest := b[x+1:]
		bw.masks = slices.Grow(bw.masks[:0], len(rest))[:len(rest)]
		var large []uint64
		if sh.large != nil {
			bw.large = bw.largeOf(bw.large[:0], i)
			large = bw.large
		}
		row := sh.comp[int(i)*nb : int(i)*nb+band]
		allowed := ^uint64(0)
		if band <= 64 {
			equalRows(bw.masks, row, sh.comp, nb, rest)
			allowed >>= 64 - band
			if len(large) > 0 {
				allowed &^= large[0]
			}
		} else {
			// More than 64 earlier bands: 64 at a time, the bits of
			// each group's allowed bands or-ed into acc.
			bw.acc = slices.Grow(bw.acc[:0], len(rest))[:len(rest)]
			clear(bw.acc)
			for lo := 0; lo < band; lo += 64 {
				hi := min(lo+64, band)
				equalRows(bw.masks, row[lo:hi], sh.comp[lo:], nb, rest)
				in := ^uint64(0) >> (64 - (hi - lo))
				if w := lo / 64; w < len(large) {
					in &^= large[w]
				}
				for k, mk := range bw.masks {
					bw.acc[k] |= mk & in
				}
			}
			bw.masks, bw.acc = bw.acc, bw.masks
		}
		bw.js = bw.js[:0]
		for k, mk := range bw.masks {
			if mk&allowed == 0 {
				bw.js = append(bw.js, rest[k].id)
			}
		}
		bw.reportRow(i, bw.js)
	}
}

// earlier reports whether i and j agree on a band before band whose
// bucket is not chained. Every earlier band is marked by now; bits of later
// bands, still being set, are not read.
func (bw *bandWorker) earlier(i, j uint32, band int) bool {
	c := bw.c
	slots, r := c.Slots, c.Params.Rows
	var buf [4]uint64
	var large []uint64
	if bw.sh.large != nil {
		large = bw.largeOf(buf[:0], i)
	}
	a, b := c.Sigs[int(i)*slots:int(i+1)*slots], c.Sigs[int(j)*slots:int(j+1)*slots]
	n := band * r
	var eq [2]uint64
	if bw.sh.bb != nil && equalPrefix(&eq, a, b, n) {
		return bw.sh.bb.agreesBefore(&eq, band, large)
	}
	small, _ := c.Params.bands(a[:n], b[:n], large)
	return small >= 0
}

// report calls fn for i < j and counts the pair.
func (bw *bandWorker) report(i, j uint32) {
	bw.stats.Pairs++
	if bw.fn != nil {
		bw.fn(bw.w, i, j)
	}
	if bw.tick++; bw.tick >= 4096 {
		bw.tick = 0
		if bw.ctx.Err() != nil {
			bw.stop.Store(true)
		}
	}
}

// reportRow reports i with each of its partners js (ascending, all
// after i) as report does: to row at once if it is set, else to fn a pair
// at a time.
func (bw *bandWorker) reportRow(i uint32, js []uint32) {
	if len(js) == 0 {
		return
	}
	bw.stats.Pairs += int64(len(js))
	switch {
	case bw.c.row != nil:
		bw.c.row(bw.w, i, js)
	case bw.fn != nil:
		for _, j := range js {
			bw.fn(bw.w, i, j)
		}
	}
	if bw.tick += len(js); bw.tick >= 4096 {
		bw.tick = 0
		if bw.ctx.Err() != nil {
			bw.stop.Store(true)
		}
	}
}

// BandKey returns the 64-bit key of band `band` of sig: a hash of the Rows
// values sig[band*Rows:(band+1)*Rows] and of the band index, so equal
// values in different bands give unrelated keys. It panics if sig is
// shorter than (band+1)*Rows. The function is fixed (tests pin golden
// values), so keys may be stored, for instance by an on-disk index; equal
// keys do not prove equal values, Run compares the values too.
func (p Params) BandKey(sig []uint32, band int) uint64 {
	return bandKey(sig[band*p.Rows:(band+1)*p.Rows], band)
}

// Constants from wyhash (public domain).
const (
	k0 = 0xa0761d6478bd642f
	k1 = 0xe7037ed1a0b428db
	k2 = 0x8ebc6af09c88c6e3
	k3 = 0x589965cc75374cc3
)

// mum is the wyhash mixer: the 128-bit product folded to 64 bits.
func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// bandKey hashes the slot values of one band, two at a time, seeded with
// the band index and finished with the length.
func bandKey(vals []uint32, band int) uint64 {
	h := mum(uint64(band)^k0, k1)
	k := 0
	for ; k+1 < len(vals); k += 2 {
		h = mum(h^k2^(uint64(vals[k])|uint64(vals[k+1])<<32), k3^0x9e3779b97f4a7c15)
	}
	if k < len(vals) {
		h = mum(h^k2^uint64(vals[k]), k3^0x9e3779b97f4a7c15)
	}
	return mum(h^k1, k0^uint64(len(vals)))
}

// sortKey is the key Run sorts a band's records by: unlike BandKey it
// need not be stable across versions or bands (each band is sorted on its
// own, and the slots of equal keys are compared), only spread over the top
// bits, where the radix sort starts, and rarely equal for different
// values. Minimum hash values are small (the least of a set's hashes), so
// each pair of values is multiplied by an odd constant, which carries
// every bit of the pair into the top bits, and the products are XORed: two
// independent multiplications for a band of 3 rows where BandKey chains
// four. For one pair of values the key is one to one. On one core
// (BenchmarkBandKeys, AMD EPYC, Go 1.26, 2026-11-27, two sets of three
// runs) 35 keys of 3 slots took 44-53 ns against 100-106 for BandKey's.
func sortKey(vals []uint32) uint64 {
	var h uint64
	k := 0
	for ; k+1 < len(vals); k += 2 {
		h ^= (uint64(vals[k]) | uint64(vals[k+1])<<32) * sortMul[k/2%len(sortMul)]
	}
	if k < len(vals) {
		h ^= (uint64(vals[k]) | 1<<32) * sortOdd
	}
	return h
}

// sortMul and sortOdd are odd 64-bit constants (from wyhash and the
// golden ratio).
var sortMul = [4]uint64{k0 | 1, k1 | 1, k2 | 1, k3 | 1}

const sortOdd = 0x9e3779b97f4a7c15

// radixBits is the digit width of radixSort. Measured with BenchmarkSort
// (AMD EPYC, Go 1.26): 11 bits (6 passes over 2048 buckets) took 2.8 ms for
// 100k records and 56 ms for 1M, 8 bits (8 passes) 4.6 and 74 ms, 16 bits
// (4 passes, 65536 buckets) 8.1 and 208 ms; slices.SortFunc 32 and 261 ms.
// Sorting on the top 33 bits first (3 passes, then the rare runs that agree
// on them) took 12.7% less at 1M records than the 6 passes (benchstat, 8
// alternating runs of each build on 2026-11-26; -11.9% geomean with 100k).
// From msdMin records on, one pass on the top 8 bits first, then each part
// in cache (sortTopMSD): -40% at 1M records (20.1 against 33.6 ms,
// benchstat over six runs of each build, 2026-11-26), no change at 100k,
// where radixSort keeps the passes above (with msdMin lowered, 1.68 ms
// against 1.34: zeroing each part's counts costs more than the passes).
const radixBits = 11

// radixSort sorts a by key with a stable LSD radix sort, using tmp (same
// length) as scratch, and returns the slice holding the result (a or
// tmp). Passes whose digit is the same for every record are skipped.
//
// It sorts on the top radixTop bits only (3 passes instead of 6, or from
// msdMin records on sortTopMSD's), then sorts each run of records whose
// top bits agree on the rest of the key:
// band keys are hashes, so such runs are rare (about n²/2^34 pairs of
// records) and mostly records with equal keys, which need nothing. Keys
// that are not spread over the top bits (tests narrow them with keyMask)
// make long runs, which are radix sorted on the low bits in turn.
func radixSort(a, tmp []entry) []entry {
	if len(a) < 2 {
		return a
	}
	var s []entry
	if len(a) >= msdMin {
		s = sortTopMSD(a, tmp[:len(a)], nil)
	} else {
		s = radixPasses(a, tmp[:len(a)], 64-radixTop, 64)
	}
	other := tmp[:len(a)]
	if &s[0] == &other[0] {
		other = a
	}
	return sortRuns(s, other)
}

// sortRuns sorts each run of records of s whose keys agree on their top
// radixTop bits (s is sorted on those) on the rest of the key, with
// other (at least as long, not overlapping s) as scratch, and returns s.
func sortRuns(s, other []entry) []entry {
	for lo := 0; lo < len(s); {
		top := s[lo].key >> (64 - radixTop)
		hi, same := lo+1, true
		for hi < len(s) && s[hi].key>>(64-radixTop) == top {
			same = same && s[hi].key == s[lo].key
			hi++
		}
		if !same {
			sortLow(s[lo:hi], other[lo:hi])
		}
		lo = hi
	}
	return s
}

// radixTop is the number of top key bits radixSort's first passes sort on.
const radixTop = 3 * radixBits

// msdBits is the digit of sortTopMSD's one pass over the whole input, and
// msdMin the number of records from which radixSort takes it.
const (
	msdBits = 8
	msdMin  = 1 << 17
)

// sortTopMSD sorts a stably on the top radixTop bits of the keys into tmp
// (same length) and returns tmp, a used as scratch. One pass distributes
// the records into tmp by their top msdBits bits; then each part, small
// enough to stay in cache, is sorted on the rest of the radixTop bits by
// LSD passes of 9 bits. On large inputs every pass of radixPasses
// scattered records over 2048 places in memory far apart, a cache and
// TLB miss each; here only the first pass does, over 256. With seen not
// nil, only each part's records whose key may be shared are kept
// (keepShared, with seen as its table), and the sorted records are
// tmp[:m], the m kept, in key order as well.
func sortTopMSD(a, tmp []entry, seen *[]uint64) []entry {
	const buckets = 1 << msdBits
	var count [buckets + 1]int
	for _, e := range a {
		count[e.key>>(64-msdBits)+1]++
	}
	for d := 1; d <= buckets; d++ {
		count[d] += count[d-1]
	}
	start := count // start[d]: the first place of part d; count moves on
	for _, e := range a {
		d := e.key >> (64 - msdBits)
		tmp[count[d]] = e
		count[d]++
	}
	const (
		bits   = 9
		digits = 1 << bits
		rest   = radixTop - msdBits
		passes = (rest + bits - 1) / bits
	)
	out := 0 // with seen: the records kept so far, tmp[:out]
	for d := range buckets {
		part, other := tmp[start[d]:start[d+1]], a[start[d]:start[d+1]]
		if seen != nil {
			// A record kept alone in its part shares its key with no
			// other (equal keys fall in one part): it is left out too.
			part = keepShared(part, msdBits, seen)
			other = other[:len(part)]
		}
		if len(part) < 2 {
			continue
		}
		var counts [passes][digits]int
		for _, e := range part {
			k := e.key >> (64 - radixTop)
			for p := range passes {
				counts[p][(k>>(p*bits))&(digits-1)]++
			}
		}
		src, dst := part, other
		for p := range passes {
			if scatter(src, dst, counts[p][:], uint(64-radixTop+p*bits)) {
				src, dst = dst, src
			}
		}
		switch {
		case seen != nil:
			// Left of part, or part itself: no later part is touched.
			out += copy(tmp[out:], src)
		case &src[0] != &part[0]:
			copy(part, src)
		}
	}
	if seen != nil {
		return tmp[:out]
	}
	return tmp
}

// sortLow sorts run, whose keys agree on their top radixTop bits, stably
// on the rest, using tmp (same length) as scratch; run holds the result.
func sortLow(run, tmp []entry) {
	if len(run) <= 16 {
		for i := 1; i < len(run); i++ { // insertion sort: stable
			x := run[i]
			j := i
			for ; j > 0 && run[j-1].key > x.key; j-- {
				run[j] = run[j-1]
			}
			run[j] = x
		}
		return
	}
	if r := radixPasses(run, tmp, 0, 64-radixTop); &r[0] != &run[0] {
		copy(run, r)
	}
}

// radixPasses sorts a stably on key bits from..to-1 with LSD passes of
// radixBits (the last may reach past to-1), using tmp (same length) as
// scratch, and returns the slice holding the result (a or tmp). A pass
// whose digit is the same for every record is skipped.
func radixPasses(a, tmp []entry, from, to int) []entry {
	const buckets = 1 << radixBits
	passes := (to - from + radixBits - 1) / radixBits
	var counts [(64 + radixBits - 1) / radixBits][buckets]int
	for _, e := range a {
		k := e.key >> from
		for p := range passes {
			counts[p][(k>>(p*radixBits))&(buckets-1)]++
		}
	}
	src, dst := a, tmp
	for p := range passes {
		if scatter(src, dst, counts[p][:], uint(from+p*radixBits)) {
			src, dst = dst, src
		}
	}
	return src
}

// scatter distributes the records of src (not empty) to dst, stably, by
// their digit (key>>shift)&(len(c)-1), c holding each digit's count (a
// power of two of them) and left as offsets. It reports false, moving
// nothing, when every record has the same digit.
func scatter(src, dst []entry, c []int, shift uint) bool {
	mask := uint64(len(c) - 1)
	if c[(src[0].key>>shift)&mask] == len(src) {
		return false
	}
	sum := 0
	for d := range c {
		c[d], sum = sum, sum+c[d]
	}
	for _, e := range src {
		d := (e.key >> shift) & mask
		dst[c[d]] = e
		c[d]++
	}
	return true
}
