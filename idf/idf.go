// Package idf computes inverse document frequency weights of shingle hashes
// over a corpus of shingle sets, for the weighted Jaccard index of
// minhash.AppendWeightedSignature and minhash.WeightedJaccard.
//
// Who uses it from outside: a batch run with neardup.WeightIDF computes
// its table itself; a library user takes it for the weights of a corpus of
// their own sets, to sketch them with neardup.Sketcher.Weigh or
// minhash.Hasher's weighted signature.
//
// # Definition
//
// For a corpus of N sets and a hash s contained in df(s) of them, the weight
// is the smoothed idf
//
//	w(s) = ln((N+1) / (df(s)+1)) + 1
//
// which is >= 1 for every s in the corpus (df <= N) and ln(N+1)+1, the
// largest value, for a hash in no set. Each hash has one weight, the same in
// every document, as the weighted MinHash requires. Boilerplate shared by
// many documents weighs about 1; a shingle of one document weighs
// ln((N+1)/2)+1.
//
// The logarithm is fdlibm's algorithm with every product explicitly
// rounded (no FMA fusion), so weights are the same bit for bit on every
// platform and equal math.Log's on amd64.
//
// # Memory
//
// A Table keeps one uint64 per distinct hash (the low bits of the hash
// above the bucket bits, with the index of its df value packed below) plus
// a bucket index of 2^b+1 uint32 with 2^b the power of two above the number
// of distinct hashes: 12 to 16 bytes per distinct hash in all, plus
// 8 bytes per distinct df value. Compute needs in addition, while it runs, 12
// bytes per hash occurrence (the sum of the set sizes).
package idf

import (
	"math/bits"
	"runtime"
	"slices"

	"github.com/neardup/neardup/internal/detmath"
	"github.com/neardup/neardup/internal/hugepage"
	"github.com/neardup/neardup/internal/parallel"
	"github.com/neardup/neardup/internal/prefetch"
)

// Table maps shingle hashes to idf weights. It is read-only after Compute
// and safe for concurrent use.
type Table struct {
	n int // documents

	// entries holds, per distinct hash h in increasing order, the value
	// h<<b | rank, where rank indexes weights. Hashes with the same top b
	// bits (a bucket) are contiguous; bucket i is entries[index[i]:index[i+1]].
	entries []uint64
	index   []uint32
	b       uint      // bucket bits, 1..32; also the rank width
	shift   uint      // 64-b
	rmask   uint64    // 1<<b - 1
	weights []float64 // weight per distinct df value, by increasing df
	absent  float64   // weight of a hash in no set (df = 0)
}

// Compute returns the table of sets, the corpus: sets[i] is the set of
// shingle hashes of document i. A set may be in any order and hold
// duplicates (a hash counts once per document); sorted duplicate-free sets,
// as made by package shingle, take the fast path without copying. The
// result depends only on the sets' contents, not on their order.
//
// Document frequencies are counted by sorting, not with a map: one pass
// counts hashes per top-bits partition, a second scatters them into one
// buffer (8 bytes per occurrence), and each partition, small enough for the
// cache, is sorted and run-length counted. From about a million hash
// occurrences the passes are shared among up to GOMAXPROCS goroutines; the
// result does not depend on how many.
//
// Compute panics if there are 2^32 or more distinct hashes.
func Compute(sets [][]uint64) *Table {
	// Sets that are not strictly increasing are replaced by sorted,
	// compacted copies; there are none in the usual case.
	var fixed map[int][]uint64
	set := func(i int) []uint64 {
		if s, ok := fixed[i]; ok {
			return s
		}
		return sets[i]
	}
	total := 0
	for i, s := range sets {
		if !strictlyIncreasing(s) {
			if fixed == nil {
				fixed = make(map[int][]uint64)
			}
			c := slices.Clone(s)
			slices.Sort(c)
			fixed[i] = slices.Compact(c)
		}
		total += len(set(i))
	}

	// Partition by the top pbits bits, aiming at ~512 hashes per
	// partition: a partition's sort then runs in L1/L2.
	pbits := 0
	for pbits < 24 && total>>(pbits+9) > 0 {
		pbits++
	}
	pshift := uint(64 - pbits) // 64 when pbits == 0: x>>64 == 0
	nparts := 1 << pbits

	// Large corpora are shared out among workers: the sets in contiguous
	// ranges to count and scatter (each worker's hashes of partition p go
	// after those of the workers before it, so buf is what one worker
	// would make), then the partitions in ranges of about equal size to
	// sort and compact. The table is the same with any number of workers.
	workers := 1
	if total >= parallelFrom {
		workers = max(1, min(runtime.GOMAXPROCS(0), maxWorkers, len(sets)))
	}
	counts := make([][]int, workers) // counts[w][p]: worker w's hashes in partition p
	parallel.Run(workers, func(w int) {
		c := make([]int, nparts)
		lo, hi := w*len(sets)/workers, (w+1)*len(sets)/workers
		for i := lo; i < hi; i++ {
			for _, x := range set(i) {
				c[x>>pshift]++
			}
		}
		counts[w] = c
	})
	start := make([]int, nparts+1)
	for p := range nparts {
		start[p+1] = start[p]
		for w := range workers {
			n := counts[w][p]
			counts[w][p] = start[p+1] // now worker w's next position in partition p
			start[p+1] += n
		}
	}
	// Written at nparts cursors at once: on huge pages, the cursors'
	// pages stay in the TLB.
	buf := hugepage.Make[uint64](total)
	defer hugepage.Done(buf)
	parallel.Run(workers, func(w int) {
		next := counts[w]
		lo, hi := w*len(sets)/workers, (w+1)*len(sets)/workers
		for i := lo; i < hi; i++ {
			for _, x := range set(i) {
				p := x >> pshift
				buf[next[p]] = x
				next[p]++
			}
		}
	})
	counts = nil

	// Sort each partition and compact it to its distinct hashes, with
	// their counts in df: worker w takes partitions from[w] to from[w+1]
	// and moves their distinct hashes down to the start of its range of
	// buf, their counts to the same places in df (dist[w] of them), then
	// the ranges are joined.
	from := parallel.Split(start, workers)
	dist := make([]int, workers)
	df := make([]uint32, total) // an exact bound: growing by append cost 25% of the time
	parallel.Run(workers, func(w int) {
		dist[w] = compactParts(buf, df, start, from[w], from[w+1], pshift)
	})
	distinct := dist[0]
	for w := 1; w < workers; w++ {
		at := start[from[w]]
		copy(df[distinct:], df[at:at+dist[w]])
		distinct += copy(buf[distinct:], buf[at:at+dist[w]])
	}
	start = nil
	if uint64(distinct) >= 1<<32 {
		panic("idf: 2^32 or more distinct hashes")
	}
	return build(len(sets), buf[:distinct], df[:distinct], workers)
}

// parallelFrom is the number of hash occurrences from which Compute shares
// its work among goroutines, and maxWorkers their most; tests lower
// parallelFrom to compare the shared work with one worker's.
var parallelFrom = 1 << 20

const maxWorkers = 16

// compactParts sorts partitions lo to hi-1 of buf (partition p is
// buf[start[p]:start[p+1]], its hashes sharing their top 64-pshift bits)
// and writes their distinct hashes, in increasing order, from
// buf[start[lo]] on, behind the reads, and their counts to the same
// places in df. It returns the number of distinct hashes. A partition is
// sorted by one more radix pass on the q bits below the partition bits
// into scratch (the hashes are uniform, so the sub-buckets hold about one
// hash each) and an insertion sort of each sub-bucket; this is 3-4 times
// faster than slices.Sort of the partition.
func compactParts(buf []uint64, df []uint32, start []int, lo, hi int, pshift uint) int {
	out := start[lo]
	var scratch []uint64
	var count []int
	for p := lo; p < hi; p++ {
		part := buf[start[p]:start[p+1]]
		q := uint(bits.Len(uint(len(part))))
		shift2 := pshift - q
		mask := uint64(1)<<q - 1
		count = slices.Grow(count[:0], 1<<q+1)[:1<<q+1]
		clear(count)
		for _, x := range part {
			count[x>>shift2&mask+1]++
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		scratch = slices.Grow(scratch[:0], len(part))[:len(part)]
		for _, x := range part {
			c := x >> shift2 & mask
			scratch[count[c]] = x
			count[c]++
		}
		// count[c] is now the end of sub-bucket c.
		from := 0
		for _, to := range count[:1<<q] {
			sub := scratch[from:to]
			insertionSort(sub)
			for i := 0; i < len(sub); {
				j := i + 1
				for j < len(sub) && sub[j] == sub[i] {
					j++
				}
				buf[out] = sub[i] // out <= start[p]: behind the reads
				df[out] = uint32(j - i)
				out++
				i = j
			}
			from = to
		}
	}
	return out - start[lo]
}

// build makes the table of n documents from the sorted distinct hashes keys
// and their document frequencies, sharing the work among workers
// goroutines.
func build(n int, keys []uint64, df []uint32, workers int) *Table {
	t := &Table{n: n}
	// Distinct df values, increasing; a hash stores the rank of its df.
	// Values below 1<<16 are found and ranked with a table, the rare larger
	// ones (at most total/2^16 hashes) by sorting and searching.
	var maxDF uint32
	for _, d := range df {
		maxDF = max(maxDF, d)
	}
	small := make([]uint32, min(int(maxDF)+1, 1<<16)) // df seen, then its rank
	var big []uint32
	for _, d := range df {
		if int(d) < len(small) {
			small[d] = 1
		} else {
			big = append(big, d)
		}
	}
	slices.Sort(big)
	big = slices.Compact(big)
	var vals []uint32
	for d, seen := range small {
		if seen != 0 {
			small[d] = uint32(len(vals))
			vals = append(vals, uint32(d))
		}
	}
	vals = append(vals, big...)
	t.weights = make([]float64, len(vals))
	for i, d := range vals {
		t.weights[i] = weight(n, int(d))
	}
	t.absent = weight(n, 0)

	// b: at least the bits of the rank and 2^b > len(keys), so a bucket
	// holds about one hash, and at most 32 (the index is uint32).
	b := uint(max(bits.Len(uint(len(keys))), bits.Len(uint(len(vals))), 1))
	t.b, t.shift, t.rmask = b, 64-b, 1<<b-1
	// Read at random by every lookup (hundreds of megabytes for a
	// corpus of millions of shingles): on huge pages, a TLB miss per
	// lookup fewer; written whole just below.
	t.entries = hugepage.Make[uint64](len(keys))
	t.index = hugepage.Make[uint32](1<<b + 1)
	defer hugepage.Done(t.index)
	defer hugepage.Done(t.entries)
	// keys is sorted, so bucket i starts at the first key whose bucket is
	// i or more: index[i] is that key's position (len(keys) past the last
	// bucket used). Worker w fills the entries of its range of keys and
	// the index of the buckets that start in it.
	parallel.Run(workers, func(w int) {
		lo, hi := w*len(keys)/workers, (w+1)*len(keys)/workers
		next := 0 // the first bucket whose start is not written yet
		if lo > 0 {
			next = int(keys[lo-1]>>t.shift) + 1
		}
		for i := lo; i < hi; i++ {
			h := keys[i]
			var r int
			if d := df[i]; int(d) < len(small) {
				r = int(small[d])
			} else {
				r, _ = slices.BinarySearch(vals, d)
			}
			t.entries[i] = h<<b | uint64(r)
			for bk := int(h >> t.shift); next <= bk; next++ {
				t.index[next] = uint32(i)
			}
		}
		if w == workers-1 {
			for ; next < len(t.index); next++ {
				t.index[next] = uint32(len(keys))
			}
		}
	})
	return t
}

// weight returns ln((n+1)/(df+1)) + 1.
func weight(n, df int) float64 {
	return detmath.Log(float64(n+1)/float64(df+1)) + 1
}

// insertionSort sorts s, a sub-bucket of a few elements.
func insertionSort(s []uint64) {
	for i := 1; i < len(s); i++ {
		x := s[i]
		j := i
		for ; j > 0 && s[j-1] > x; j-- {
			s[j] = s[j-1]
		}
		s[j] = x
	}
}

func strictlyIncreasing(s []uint64) bool {
	for i := 1; i < len(s); i++ {
		if s[i] <= s[i-1] {
			return false
		}
	}
	return true
}

// N returns the number of documents the table was computed from.
func (t *Table) N() int { return t.n }

// Len returns the number of distinct hashes in the corpus.
func (t *Table) Len() int { return len(t.entries) }

// Weight returns the idf weight of h: ln((N+1)/(df(h)+1)) + 1, where df(h)
// is the number of sets of the corpus containing h (0 for a hash in none).
// It looks at one bucket of about one entry: typically two cache misses on
// a large table. It does not allocate.
func (t *Table) Weight(h uint64) float64 {
	i := h >> t.shift
	lo, hi := t.index[i], t.index[i+1]
	key := h << t.b
	for _, e := range t.entries[lo:hi] {
		if e&^t.rmask == key {
			return t.weights[e&t.rmask]
		}
	}
	return t.absent
}

// AppendWeights appends Weight(h) for each h of set to dst, in order, and
// returns the result: the weights parallel to set that
// minhash.AppendWeightedSignature and minhash.WeightedJaccard take. It
// allocates nothing when dst has room.
//
// The lookups of a set are independent, so their cache misses are
// overlapped: the bucket index of the hash lookAhead places ahead and the
// bucket of the one lookAhead/2 ahead (whose index is then in cache) are
// prefetched before each lookup.
func (t *Table) AppendWeights(dst []float64, set []uint64) []float64 {
	n := len(dst)
	dst = slices.Grow(dst, len(set))[:n+len(set)]
	out := dst[n:]
	if len(set) < lookAhead || len(t.entries) == 0 {
		for i, h := range set {
			out[i] = t.Weight(h)
		}
		return dst
	}
	const half = lookAhead / 2
	for _, h := range set[:lookAhead] {
		prefetch.Line(&t.index[h>>t.shift])
	}
	last := uint32(len(t.entries) - 1)
	for i, h := range set {
		if i+lookAhead < len(set) {
			prefetch.Line(&t.index[set[i+lookAhead]>>t.shift])
		}
		if i+half < len(set) {
			prefetch.Line(&t.entries[min(t.index[set[i+half]>>t.shift], last)])
		}
		out[i] = t.Weight(h)
	}
	return dst
}

// lookAhead is how many hashes ahead AppendWeights prefetches a bucket's
// index entry (and its bucket half as many).
const lookAhead = 16
