package neardup

import (
	"iter"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/neardup/neardup/internal/editdist"
	"github.com/neardup/neardup/internal/parallel"
	"github.com/neardup/neardup/internal/prefetch"
	"github.com/neardup/neardup/lsh"
)

// Pair is a verified pair of documents (indices in Add order, A < B).
type Pair struct {
	A, B    int
	Jaccard float64
	// Edit is the edit similarity 1 - d/max(m, n) of the two documents'
	// token sequences (d the Levenshtein distance, m and n their lengths;
	// see shingle.Shingler.AppendTokens), on at most MaxEditTokens tokens
	// each. Set only with RefineEdit.
	Edit float64
}

// Member is a document of a cluster and its similarity to the cluster's
// representative.
type Member struct {
	Doc     int
	Jaccard float64
	Edit    float64 // edit similarity with the representative (RefineEdit only; see Pair.Edit)
}

// Cluster is a group of two or more documents connected by verified pairs:
// a connected component, or under ClusterStar a representative and
// documents each verified against it (see Options.Cluster).
type Cluster struct {
	ID             int      // 1-based, in order of the clusters' earliest documents
	Representative int      // chosen by Options.Keep
	Members        []Member // in document order, the representative included
	// Review is set for clusters larger than Options.MaxCluster: they are
	// not deduplicated (Result.Dup is false for all their members).
	Review bool
}

// DuplicateID is an id given to more than one document.
type DuplicateID struct {
	ID    string
	Count int   // documents with the id
	Docs  []int // the first of them (at most 5), ascending
}

// Stats counts what Run did.
type Stats struct {
	Documents    int   // documents added
	Empty        int   // documents without shingles
	InvalidUTF8  int   // documents with invalid UTF-8 (replaced by U+FFFD)
	DuplicateIDs int   // documents whose id an earlier document has
	Shingles     int64 // shingles over all documents
	Distinct     int   // distinct non-empty shingle sets
	Identical    int   // documents whose set equals an earlier document's

	Params        lsh.Params
	Candidates    int64 // candidate pairs among distinct sets (in buckets over MaxBucket, those whose signatures agree enough and that pass the length filter and, under exact unweighted verification, the set bitmaps' bound)
	LargeBuckets  int64 // LSH buckets over MaxBucket, compared by signature (see Options.MaxBucket)
	LargestBucket int   // distinct sets in the largest LSH bucket
	// Buckets tallies LSH's buckets of 2 to MaxBucket distinct sets over
	// every band by size (lsh.Stats.Buckets): their member pairs, each
	// candidate counted in every band it shares a bucket in, are the
	// search's work.
	Buckets  [32]lsh.BucketClass
	Verified int // candidates at or above the threshold

	// Pairs is the number of near-duplicate pairs of documents, every
	// pair of identical copies included: what Result.AllPairs yields.
	Pairs int
	// CompactPairs is len(Result.Pairs): Verified plus one per identical
	// copy.
	CompactPairs   int
	Clusters       int
	Duplicates     int // documents in clusters other than the representatives (review clusters excepted)
	LargestCluster int
	BelowClusters  int // clusters with a member whose Jaccard with the representative is below the threshold
	Review         int // clusters over Options.MaxCluster, set aside for review
	ReviewDocs     int // documents in those clusters

	// Passes is 2 when the batch ran in two passes (Options.Reread), else 1.
	Passes int
	// Reread counts the documents read again in the second pass: one per
	// distinct set in a candidate pair that passed the pre-filter.
	Reread int
	// Held counts the candidate pairs that passed the pre-filter and were
	// held for the second pass.
	Held int64

	ReadShingle time.Duration // from the first Add until every document is shingled
	Collapse    time.Duration // finding identical sets
	Sign        time.Duration // MinHash signatures
	Candidate   time.Duration // LSH and verification (in two passes LSH and the pre-filter only)
	Second      time.Duration // the second pass: reading again and shingling the candidates' documents, and verification
	// SecondVerify is the part of Second after the sets are read:
	// verifying the held pairs and the pairs of the buckets over
	// Options.MaxBucket.
	SecondVerify time.Duration
	Refine       time.Duration // edit similarities (RefineEdit)
	Group        time.Duration // clusters
}

// Result is what Run found. It keeps references to the batch's shingle sets
// (or signatures) for AllPairs and Similarity.
type Result struct {
	// Pairs is the compact listing of the near-duplicate pairs, sorted by
	// (A, B): the verified pairs between documents with distinct shingle
	// sets, each naming the earliest document of its identical group, and
	// each later copy paired (Jaccard 1) with the earliest one. AllPairs
	// expands it to every pair.
	Pairs    []Pair
	Clusters []Cluster // sorted by ID
	Stats    Stats
	// Dup[i] reports whether document i is in a cluster and is not its
	// representative: the documents a deduplicated corpus drops.
	Dup []bool
	// DuplicateIDs lists up to 5 ids given to several documents, in order
	// of their first document (Stats.DuplicateIDs counts them all).
	DuplicateIDs []DuplicateID

	v *views
}

// Canonical returns the earliest document whose shingle set is identical to
// document d's: d itself when there is none (or d is empty).
func (r *Result) Canonical(d int) int { return int(r.v.rep[d]) }

// Similarity returns the similarity of any two documents as the Verifier
// measures it: exact (weighted under WeightIDF) with VerifyExact, the
// signature estimate with VerifyEstimate; 1 for two documents with one
// (non-empty) set. After a two-pass run it is NaN where a set was not kept
// (see Options.Reread).
func (r *Result) Similarity(a, b int) float64 {
	if r.v.rep[a] == r.v.rep[b] && r.v.counts[a] > 0 {
		return 1 // identical sets
	}
	x, y := r.v.sketch(a), r.v.sketch(b)
	if r.v.dropped && !x.Empty() && !y.Empty() || r.v.sets != nil && (x.Set == nil && x.Size > 0 || y.Set == nil && y.Size > 0) {
		return math.NaN()
	}
	return r.v.ver.Similarity(&x, &y)
}

// group turns res.Pairs into res.Clusters and res.Dup with Clusters, and
// fills the cluster counts of st.
func (b *Batch) group(res *Result, st *Stats) {
	v := res.v
	n := len(b.ids)
	docs := make([]ClusterDoc, n)
	for d := range docs {
		docs[d] = ClusterDoc{Seq: uint64(d), Size: b.sizes[d], Same: int(v.rep[d])}
	}
	// The verified pairs between distinct sets (in range: the batch made
	// them) as pairs of groups; copies join through Same. The pairs are
	// sorted by A: only B's lookup is a random one.
	edges := func(yield func(a, b uint32) bool) {
		const ahead = 16 // B's entry is a miss (145 million at 10M documents)
		pairs := res.Pairs
		for k, p := range pairs {
			if k+ahead < len(pairs) {
				prefetch.Line(&v.rep[pairs[k+ahead].B])
			}
			if b := uint32(p.B); v.rep[b] == b {
				if a := v.rep[p.A]; a != b && !yield(a, b) {
					return
				}
			}
		}
	}
	groups := clusters(docs, edges, b.o.Cluster, b.o.Keep)
	docs = nil
	res.Dup = make([]bool, n)
	res.Clusters = make([]Cluster, len(groups))
	// The clusters' members, in one array, each cluster's from at[ci]:
	// filled on every worker, a range of clusters each (at 10M documents
	// the members' Jaccards, a search of the pairs each, took about 1.5 s
	// on one core).
	at := make([]int, len(groups)+1)
	for ci, g := range groups {
		at[ci+1] = at[ci] + len(g.Members)
	}
	backing := make([]Member, at[len(groups)])
	// Each range of clusters counts on its own, added up under mu (as
	// refine, a Scratch a range).
	var mu sync.Mutex
	workers := max(1, min(b.o.Workers, len(groups)/groupChunk))
	parallel.For(len(groups), workers, groupChunk, func(_, lo, hi int) {
		var c clusterCounts
		var es editdist.Scratch
		for ci := lo; ci < hi; ci++ {
			b.groupMembers(res, ci, groups[ci], backing[at[ci]:at[ci+1]:at[ci+1]], &es, &c)
		}
		mu.Lock()
		defer mu.Unlock()
		st.Review += c.review
		st.ReviewDocs += c.reviewDocs
		st.Duplicates += c.dups
		st.BelowClusters += c.below
		st.LargestCluster = max(st.LargestCluster, c.largest)
	})
	st.Clusters = len(groups)
}

// groupChunk is how many clusters group hands a worker at a time (and the
// fewest a worker is started for); tests make it small.
var groupChunk = 256

// clusterCounts is what group counts of a range of clusters.
type clusterCounts struct {
	review, reviewDocs, dups, below, largest int
}

// groupMembers makes cluster ci of res from g, its members in members
// (len(g.Members) of them), marks its dropped documents in res.Dup and
// counts it in c. Clusters are independent: it runs on many goroutines,
// each with its own es and c.
func (b *Batch) groupMembers(res *Result, ci int, g Group, members []Member, es *editdist.Scratch, c *clusterCounts) {
	v := res.v
	r := g.Representative
	rs := v.sketch(r)
	for mi, m := range g.Members {
		members[mi] = Member{Doc: m, Jaccard: 1} // a copy of the representative
		if v.rep[m] != v.rep[r] {
			ms := v.sketch(m)
			if v.dropped {
				// Two passes dropped the sets: under ClusterStar
				// the member's pair with the representative was
				// verified, and has its Jaccard.
				members[mi].Jaccard = pairJaccard(res.Pairs, v.rep[m], v.rep[r])
			} else {
				members[mi].Jaccard = b.ver.Similarity(&ms, &rs)
			}
		}
		if v.toks != nil {
			members[mi].Edit = es.Similarity(v.toks[m], v.toks[r])
		}
	}
	cl := Cluster{ID: ci + 1, Representative: r, Members: members}
	cl.Review = b.o.MaxCluster > 0 && len(members) > b.o.MaxCluster
	if cl.Review {
		c.review++
		c.reviewDocs += len(members)
	} else {
		for _, m := range g.Members {
			if m != r {
				res.Dup[m] = true
			}
		}
		c.dups += len(members) - 1
	}
	if cl.Below(b.o.Threshold) > 0 {
		c.below++
	}
	res.Clusters[ci] = cl
	c.largest = max(c.largest, len(members))
}

// pairJaccard returns the Jaccard of the verified pair of distinct sets
// whose earliest documents are a and b, from pairs (sorted by (A, B)), or
// NaN if there is none.
func pairJaccard(pairs []Pair, a, b uint32) float64 {
	x, y := int(min(a, b)), int(max(a, b))
	i, ok := slices.BinarySearchFunc(pairs, Pair{A: x, B: y}, func(p, q Pair) int {
		if p.A != q.A {
			return p.A - q.A
		}
		return p.B - q.B
	})
	if !ok {
		return math.NaN()
	}
	return pairs[i].Jaccard
}

// AllPairs yields every near-duplicate pair of documents, Stats.Pairs in
// all, sorted by (A, B): the verified pairs between distinct shingle sets
// for every combination of the two sets' identical copies, and every pair of
// copies within an identical group (Jaccard 1). It is Result.Pairs expanded;
// the Jaccard of a pair is its sets', and with RefineEdit each pair's Edit is
// computed for that pair's own token sequences.
//
// The pairs are produced as they are yielded (a group of g copies has
// g(g-1)/2 of them): memory stays proportional to Result.Pairs. AllPairs may
// be ranged over several times; it is not safe for concurrent use with
// other calls that range over it. PairLister splits the same work by
// ranges of documents, for several goroutines.
func (r *Result) AllPairs() iter.Seq[Pair] {
	return func(yield func(Pair) bool) {
		l := r.PairLister()
		for p := range l.Range(0, l.Documents()) {
			if !yield(p) {
				return
			}
		}
	}
}

// PairLister lists the pairs of Result.AllPairs by ranges of their first
// document, so that several goroutines can produce them at once (writing
// a large pairs file, where producing and formatting the pairs is the
// time). It holds indexes of the result's groups and pairs: about 40
// bytes a document and 8 a verified pair whose first document has
// identical copies. The Result must not change while it is used.
type PairLister struct {
	r *Result
	// Two bitsets of a bit per document, small enough to stay in cache
	// where v.rep and the group arrays (40 bytes a document) would cost
	// a cache miss per pair on a large corpus: the copies (documents
	// that are not their group's first, v.rep[d] != d) and the groups
	// of more than one document (by their first).
	copies, multi []uint64
	// members of each identical group c, ascending: mem[off[c]:off[c+1]].
	off []int32
	mem []uint32
	// The verified pairs between groups, found from either side: those
	// of group c as A are r.Pairs[fwd[c]:fwd[c+1]] (sorted by (A, B));
	// as B, the pairs whose indices are bidx[boff[c]:boff[c+1]]. An
	// index per pair rather than a copy of each side: 8 bytes a pair
	// instead of 32. Only pairs whose A has copies are indexed by B:
	// group B's members all come after A, so a lone A pairs with none
	// of them from that side (most pairs, on most corpora).
	fwd, boff, bidx []int
	// scratch holds *rangeScratch for Range's calls: a large listing is
	// thousands of them.
	scratch sync.Pool
}

// rangeScratch is what a call of PairLister.Range reuses.
type rangeScratch struct {
	buf    []Pair
	sorter pairSorter
	es     editdist.Scratch
}

// PairLister builds the indexes that Range reads (a pass over the
// documents and one over Result.Pairs, on every processor).
func (r *Result) PairLister() *PairLister {
	v := r.v
	n := len(v.rep)
	l := &PairLister{r: r, copies: make([]uint64, (n+63)/64), multi: make([]uint64, (n+63)/64)}
	for d, c := range v.rep {
		if int(c) != d {
			l.copies[d/64] |= 1 << (d % 64)
			l.multi[c/64] |= 1 << (c % 64)
		}
	}
	// The pairs in parts, on goroutines of their own (at 10M documents
	// and 153 million pairs, two passes over them took 1.9 s on one
	// core): fwd[c] is the first pair whose A is at least c, set by that
	// pair; each part lists its pairs to index by B, in order.
	pairs := r.Pairs
	l.fwd = make([]int, n+1)
	parts := max(1, min(runtime.GOMAXPROCS(0), len(pairs)/listerPart))
	fromB := make([][]int, parts)
	var wg sync.WaitGroup
	for k := range parts {
		wg.Go(func() {
			lo, hi := k*len(pairs)/parts, (k+1)*len(pairs)/parts
			prev := -1
			if lo > 0 {
				prev = pairs[lo-1].A
			}
			var idx []int
			for i, p := range pairs[lo:hi] {
				for c := prev + 1; c <= p.A; c++ {
					l.fwd[c] = lo + i
				}
				prev = p.A
				if l.fromB(p) {
					idx = append(idx, lo+i)
				}
			}
			fromB[k] = idx
		})
	}
	// The groups' members meanwhile.
	l.off = make([]int32, n+1)
	for _, c := range v.rep {
		l.off[c+1]++
	}
	for d := range n {
		l.off[d+1] += l.off[d]
	}
	l.mem = make([]uint32, n)
	next := slices.Clone(l.off[:n])
	for d, c := range v.rep {
		l.mem[next[c]] = uint32(d)
		next[c]++
	}
	wg.Wait()
	last := -1
	if len(pairs) > 0 {
		last = pairs[len(pairs)-1].A
	}
	for c := last + 1; c <= n; c++ {
		l.fwd[c] = len(pairs)
	}
	// The pairs indexed by B, ascending within each B.
	l.boff = make([]int, n+1)
	nb := 0
	for _, idx := range fromB {
		nb += len(idx)
		for _, i := range idx {
			l.boff[pairs[i].B+1]++
		}
	}
	for d := range n {
		l.boff[d+1] += l.boff[d]
	}
	l.bidx = make([]int, nb)
	fill := slices.Clone(l.boff[:n])
	for _, idx := range fromB {
		for _, i := range idx {
			b := pairs[i].B
			l.bidx[fill[b]] = i
			fill[b]++
		}
	}
	return l
}

// listerPart is the fewest pairs PairLister hands a goroutine; tests make
// it small.
var listerPart = 1 << 16

// Documents returns the number of documents: Range's bounds are in
// [0, Documents()].
func (l *PairLister) Documents() int { return len(l.r.v.rep) }

func hasBit(s []uint64, i int) bool { return s[i/64]&(1<<(i%64)) != 0 }

// between reports whether p, a verified pair, is between two groups.
func (l *PairLister) between(p Pair) bool { return !hasBit(l.copies, p.B) }

// fromB reports whether p is listed from its B's side too.
func (l *PairLister) fromB(p Pair) bool { return l.between(p) && hasBit(l.multi, p.A) }

func (l *PairLister) group(c uint32) []uint32 { return l.mem[l.off[c]:l.off[c+1]] }

// expand appends the pairs of a with group e (Jaccard jac): the members
// of e after a.
func (l *PairLister) expand(buf []Pair, a int, e uint32, jac float64) []Pair {
	if !hasBit(l.multi, int(e)) { // a group of one: e itself
		if int(e) > a {
			buf = append(buf, Pair{A: a, B: int(e), Jaccard: jac})
		}
		return buf
	}
	g := l.group(e)
	// members above a only: skip the rest by binary search.
	at, _ := slices.BinarySearch(g, uint32(a+1))
	for _, d := range g[at:] {
		buf = append(buf, Pair{A: a, B: int(d), Jaccard: jac})
	}
	return buf
}

// Range yields the pairs of AllPairs whose A is in [lo, hi), in AllPairs'
// order. It panics unless 0 <= lo <= hi <= Documents(). Calls may run
// concurrently (each has its own scratch); a call may be ranged over
// several times.
func (l *PairLister) Range(lo, hi int) iter.Seq[Pair] {
	if lo < 0 || lo > hi || hi > l.Documents() {
		panic("neardup: PairLister.Range out of bounds")
	}
	return func(yield func(Pair) bool) {
		r, v := l.r, l.r.v
		sc, _ := l.scratch.Get().(*rangeScratch)
		if sc == nil {
			sc = &rangeScratch{}
		}
		defer l.scratch.Put(sc)
		buf, sorter, es := sc.buf, &sc.sorter, &sc.es
		defer func() { sc.buf = buf[:0] }()
		for a := lo; a < hi; a++ {
			c := v.rep[a]
			buf = buf[:0]
			if hasBit(l.multi, int(c)) {
				for _, d := range l.group(c) {
					if int(d) > a {
						buf = append(buf, Pair{A: a, B: int(d), Jaccard: 1})
					}
				}
			}
			for _, p := range r.Pairs[l.fwd[c]:l.fwd[c+1]] {
				if l.between(p) {
					buf = l.expand(buf, a, uint32(p.B), p.Jaccard)
				}
			}
			for _, i := range l.bidx[l.boff[c]:l.boff[c+1]] {
				buf = l.expand(buf, a, uint32(r.Pairs[i].A), r.Pairs[i].Jaccard)
			}
			sorter.mergeByB(buf) // a few ascending runs
			for i := range buf {
				if v.toks != nil {
					buf[i].Edit = es.Similarity(v.toks[buf[i].A], v.toks[buf[i].B])
				}
				if !yield(buf[i]) {
					return
				}
			}
		}
	}
}
