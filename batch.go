package neardup

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/neardup/neardup/idf"
	"github.com/neardup/neardup/internal/editdist"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/shingle"
)

// ErrRan is returned by Add and Run after Run has been called.
var ErrRan = errors.New("neardup: batch already run")

// Chunks of documents go to the shingling workers while Add goes on.
const (
	chunkDocs  = 512
	chunkBytes = 1 << 20
)

// Batch finds the near-duplicate pairs and clusters of a corpus held in
// memory as shingle sets (or, with VerifyEstimate, as signatures).
//
// Add documents in order, then call Run once. Add and Run must be called from
// one goroutine; the work itself is spread over Options.Workers goroutines.
// Progress may be called from any goroutine.
type Batch struct {
	o      Options
	hasher *minhash.Hasher

	ids    []string
	sizes  []int64 // text length in bytes
	chunks []*chunk
	cur    *chunk

	work    chan *chunk
	wg      sync.WaitGroup
	started time.Time
	ran     bool

	stage atomic.Value // string
	done  atomic.Int64
	total atomic.Int64
}

// chunk is a run of consecutive documents and, once a worker has been
// through it, their shingle sets (or signatures) and fingerprints.
type chunk struct {
	start int
	buf   []byte  // texts, back to back
	ends  []int32 // end of each text in buf

	sets    []uint64 // VerifyExact: the sets, back to back
	setEnds []int32  // end of each set in sets
	counts  []int32  // shingles per document
	fps     []uint64 // fingerprint of each set (0 for an empty set)
	sigs    []uint32 // VerifyEstimate: Slots values per document
	toks    []uint64 // RefineEdit: token sequences, back to back
	tokEnds []int32  // end of each token sequence in toks
	invalid int      // documents with invalid UTF-8
}

// NewBatch returns an empty batch, or an error wrapping ErrOptions.
func NewBatch(o Options) (*Batch, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	if _, err := shingle.New(o.Shingle); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrOptions, err)
	}
	h, err := minhash.New(o.Slots, o.Seed)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrOptions, err)
	}
	b := &Batch{o: o, hasher: h, work: make(chan *chunk, 2*o.Workers)}
	b.stage.Store("read")
	for w := 0; w < o.Workers; w++ {
		b.wg.Add(1)
		go b.shingleWorker()
	}
	return b, nil
}

// Options returns the options in force, defaults filled in.
func (b *Batch) Options() Options { return b.o }

// Len returns the number of documents added.
func (b *Batch) Len() int { return len(b.ids) }

// ID returns the id of document i (0-based, in Add order).
func (b *Batch) ID(i int) string { return b.ids[i] }

// Size returns the length in bytes of document i's text.
func (b *Batch) Size(i int) int64 { return b.sizes[i] }

// Progress returns the current stage and, where known, how much of it is done.
func (b *Batch) Progress() (stage string, done, total int64) {
	return b.stage.Load().(string), b.done.Load(), b.total.Load()
}

// Add appends a document. text is copied; the caller may reuse it.
func (b *Batch) Add(id string, text []byte) error {
	if b.ran {
		return ErrRan
	}
	if len(b.ids) >= 1<<32-2 {
		return errors.New("neardup: too many documents (limit 2^32-2)")
	}
	if b.started.IsZero() {
		b.started = time.Now()
	}
	if len(text) > 1<<31-1 {
		return fmt.Errorf("neardup: document %q is larger than 2 GiB", id)
	}
	c := b.cur
	if c == nil || len(c.ends) >= chunkDocs || (len(c.buf) > 0 && len(c.buf)+len(text) > chunkBytes) || len(c.buf)+len(text) > 1<<31-1 {
		b.flush()
		c = &chunk{start: len(b.ids), buf: make([]byte, 0, max(chunkBytes, len(text))), ends: make([]int32, 0, chunkDocs)}
		b.cur = c
	}
	c.buf = append(c.buf, text...)
	c.ends = append(c.ends, int32(len(c.buf)))
	b.ids = append(b.ids, id)
	b.sizes = append(b.sizes, int64(len(text)))
	return nil
}

func (b *Batch) flush() {
	if b.cur != nil {
		b.chunks = append(b.chunks, b.cur)
		b.work <- b.cur
		b.cur = nil
	}
}

// shingleWorker shingles the chunks it receives until the channel closes.
func (b *Batch) shingleWorker() {
	defer b.wg.Done()
	sh, _ := shingle.New(b.o.Shingle) // options checked by NewBatch
	var scratch []uint64
	k := b.o.Slots
	for c := range b.work {
		n := len(c.ends)
		c.counts = make([]int32, n)
		c.fps = make([]uint64, n)
		if b.o.Verify == VerifyEstimate {
			c.sigs = make([]uint32, 0, n*k)
		} else {
			c.setEnds = make([]int32, n)
			c.sets = make([]uint64, 0, len(c.buf)/5+16)
		}
		if b.o.Refine == RefineEdit {
			c.tokEnds = make([]int32, n)
		}
		prev := int32(0)
		for i, end := range c.ends {
			text := c.buf[prev:end]
			prev = end
			if !utf8.Valid(text) {
				c.invalid++
			}
			if b.o.Refine == RefineEdit {
				from := len(c.toks)
				c.toks = sh.AppendTokens(c.toks, text)
				c.toks = c.toks[:from+min(len(c.toks)-from, MaxEditTokens)]
				c.tokEnds[i] = int32(len(c.toks))
			}
			if b.o.Verify == VerifyEstimate {
				scratch = sh.AppendSet(scratch[:0], text)
				c.counts[i] = int32(len(scratch))
				c.fps[i] = fingerprint(scratch)
				c.sigs = b.hasher.AppendSignature(c.sigs, scratch)
			} else {
				from := len(c.sets)
				c.sets = sh.AppendSet(c.sets, text)
				set := c.sets[from:]
				c.counts[i] = int32(len(set))
				c.fps[i] = fingerprint(set)
				c.setEnds[i] = int32(len(c.sets))
			}
		}
		c.buf, c.ends = nil, nil
		b.done.Add(int64(n))
	}
}

// fingerprint hashes a sorted set so that identical sets collide; 0 only for
// the empty set.
func fingerprint(set []uint64) uint64 {
	if len(set) == 0 {
		return 0
	}
	h := uint64(len(set)) * 0x9e3779b97f4a7c15
	for _, x := range set {
		h = bits.RotateLeft64(h^x, 27)*0xbf58476d1ce4e5b9 + 0x94d049bb133111eb
	}
	h ^= h >> 31
	h *= 0xd6e8feb86993a8f3
	h ^= h >> 29
	return h | 1
}

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

// Stats counts what Run did.
type Stats struct {
	Documents   int   // documents added
	Empty       int   // documents without shingles
	InvalidUTF8 int   // documents with invalid UTF-8 (replaced by U+FFFD)
	Shingles    int64 // shingles over all documents
	Distinct    int   // distinct non-empty shingle sets
	Identical   int   // documents whose set equals an earlier document's

	Params       lsh.Params
	Candidates   int64 // candidate pairs among distinct sets
	LargeBuckets int64 // LSH buckets joined as a chain (see Options.MaxBucket)
	Verified     int   // candidates at or above the threshold

	Pairs          int // reported pairs: Verified plus one per identical document
	Clusters       int
	Duplicates     int // documents in clusters other than the representatives (review clusters excepted)
	LargestCluster int
	BelowClusters  int // clusters with a member whose Jaccard with the representative is below the threshold
	Review         int // clusters over Options.MaxCluster, set aside for review
	ReviewDocs     int // documents in those clusters

	ReadShingle time.Duration // from the first Add until every document is shingled
	Collapse    time.Duration // finding identical sets
	Sign        time.Duration // MinHash signatures
	Candidate   time.Duration // LSH and verification
	Refine      time.Duration // edit similarities (RefineEdit)
	Group       time.Duration // clusters
}

// Result is what Run found.
type Result struct {
	Pairs    []Pair    // sorted by (A, B)
	Clusters []Cluster // sorted by ID
	Stats    Stats
	// Dup[i] reports whether document i is in a cluster and is not its
	// representative: the documents a deduplicated corpus drops.
	Dup []bool
}

// Run finds the verified pairs and clusters. It can be called once; it
// returns ctx's error if ctx is cancelled.
//
// Pairs between documents with identical shingle sets are reported as a star:
// each such document is paired (Jaccard 1) with the earliest document of its
// set, and pairs with other documents name only that earliest one. Every
// reported Jaccard is exact under VerifyExact.
func (b *Batch) Run(ctx context.Context) (*Result, error) {
	if b.ran {
		return nil, ErrRan
	}
	b.ran = true
	if b.started.IsZero() {
		b.started = time.Now()
	}
	b.flush()
	close(b.work)
	b.wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := b.o
	n := len(b.ids)
	st := Stats{Documents: n, Params: o.Params}
	st.ReadShingle = time.Since(b.started)

	// Gather per-document views of the chunks.
	t0 := time.Now()
	b.setStage("collapse", int64(n))
	var sets [][]uint64
	if o.Verify == VerifyExact {
		sets = make([][]uint64, n)
	}
	var toks [][]uint64
	if o.Refine == RefineEdit {
		toks = make([][]uint64, n)
	}
	counts := make([]int32, n)
	fps := make([]uint64, n)
	for _, c := range b.chunks {
		prev, prevTok := int32(0), int32(0)
		for i := range c.counts {
			d := c.start + i
			counts[d] = c.counts[i]
			fps[d] = c.fps[i]
			st.Shingles += int64(c.counts[i])
			if sets != nil {
				sets[d] = c.sets[prev:c.setEnds[i]:c.setEnds[i]]
				prev = c.setEnds[i]
			}
			if toks != nil {
				toks[d] = c.toks[prevTok:c.tokEnds[i]:c.tokEnds[i]]
				prevTok = c.tokEnds[i]
			}
		}
		st.InvalidUTF8 += c.invalid
	}

	// Identical sets: rep[d] is the earliest document with d's set; uniq
	// lists the distinct non-empty sets by their earliest document.
	rep := make([]uint32, n)
	uniqOf := make([]int32, n) // distinct-set index of each document, -1 if empty
	var uniq []uint32
	first := make(map[uint64]uint32, n)
	for d := 0; d < n; d++ {
		rep[d] = uint32(d)
		uniqOf[d] = -1
		if counts[d] == 0 {
			st.Empty++
			continue
		}
		if e, ok := first[fps[d]]; ok && counts[e] == counts[d] && (sets == nil || slices.Equal(sets[e], sets[d])) {
			rep[d] = e
			uniqOf[d] = uniqOf[e]
			st.Identical++
			continue
		} else if !ok {
			first[fps[d]] = uint32(d)
		}
		uniqOf[d] = int32(len(uniq))
		uniq = append(uniq, uint32(d))
	}
	first = nil
	st.Distinct = len(uniq)
	st.Collapse = time.Since(t0)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Signatures of the distinct sets, back to back.
	t0 = time.Now()
	k := o.Slots
	sigs := make([]uint32, len(uniq)*k)
	var ws *weights // WeightIDF: the weights of each distinct set
	b.setStage("sign", int64(len(uniq)))
	if o.Verify == VerifyEstimate {
		for _, c := range b.chunks {
			for i := range c.counts {
				d := c.start + i
				if u := uniqOf[d]; u >= 0 && uniq[u] == uint32(d) {
					copy(sigs[int(u)*k:], c.sigs[i*k:(i+1)*k])
				}
			}
			c.sigs = nil
		}
	} else if o.Weight == WeightIDF {
		// Weights from document frequencies over the distinct sets, then
		// weighted signatures: slot agreement estimates weighted Jaccard.
		distinct := make([][]uint64, len(uniq))
		for u, d := range uniq {
			distinct[u] = sets[d]
		}
		tab := idf.Compute(distinct)
		ws = &weights{of: make([][]float64, len(uniq)), sum: make([]float64, len(uniq))}
		parallel(o.Workers, len(uniq), 256, func(lo, hi int) {
			var w []float64
			for u := lo; u < hi; u++ {
				w = tab.AppendWeights(w[:0], distinct[u])
				ws.of[u] = slices.Clone(w)
				for _, x := range w {
					ws.sum[u] += x
				}
				b.hasher.AppendWeightedSignature(sigs[u*k:u*k:(u+1)*k], distinct[u], ws.of[u])
			}
			b.done.Add(int64(hi - lo))
		})
	} else {
		parallel(o.Workers, len(uniq), 256, func(lo, hi int) {
			for u := lo; u < hi; u++ {
				b.hasher.AppendSignature(sigs[u*k:u*k:(u+1)*k], sets[uniq[u]])
			}
			b.done.Add(int64(hi - lo))
		})
	}
	st.Sign = time.Since(t0)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Candidates, verified as they come.
	t0 = time.Now()
	b.setStage("lsh", 0)
	t := o.Threshold
	found := make([][]Pair, o.Workers)
	cand := lsh.Candidates{Params: o.Params, Slots: k, Sigs: sigs, Workers: o.Workers, MaxBucket: o.MaxBucket}
	if o.MaxBucket < 0 {
		cand.MaxBucket = 0
	}
	var canceled atomic.Bool
	minAgree := float64(minAgreement(k, t, prefilterMiss)) / float64(k)
	lst, err := cand.Run(func(w int, i, j uint32) {
		if canceled.Load() {
			return
		}
		a, c := uniq[i], uniq[j]
		est := minhash.Estimate(sigs[int(i)*k:int(i+1)*k], sigs[int(j)*k:int(j+1)*k])
		jac := est
		if ws != nil {
			// Weighted: J_w <= min/max of the total weights.
			wa, wc := ws.sum[i], ws.sum[j]
			if min(wa, wc) < t*max(wa, wc) || est < minAgree {
				return
			}
			if jac = minhash.WeightedJaccard(sets[a], ws.of[i], sets[c], ws.of[j]); jac < t {
				return
			}
		} else if o.Verify == VerifyExact {
			// Length filter: J <= min/max. Signature filter: a pair at
			// exactly t agrees on fewer slots with probability < prefilterMiss.
			na, nc := counts[a], counts[c]
			if float64(min(na, nc)) < t*float64(max(na, nc)) || est < minAgree {
				return
			}
			var ok bool
			if jac, ok = shingle.JaccardAtLeast(sets[a], sets[c], t); !ok {
				return
			}
		}
		if jac >= t {
			found[w] = append(found[w], Pair{A: int(a), B: int(c), Jaccard: jac})
		}
		if len(found[w])&1023 == 0 && ctx.Err() != nil {
			canceled.Store(true)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("neardup: candidates: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st.Candidates = lst.Pairs
	st.LargeBuckets = lst.LargeBuckets
	var pairs []Pair
	for _, f := range found {
		pairs = append(pairs, f...)
	}
	found = nil
	st.Verified = len(pairs)
	for d := 0; d < n; d++ {
		if rep[d] != uint32(d) {
			pairs = append(pairs, Pair{A: int(rep[d]), B: d, Jaccard: 1})
		}
	}
	slices.SortFunc(pairs, func(x, y Pair) int {
		if x.A != y.A {
			return x.A - y.A
		}
		return x.B - y.B
	})
	st.Pairs = len(pairs)
	st.Candidate = time.Since(t0)

	// Edit similarity of the verified pairs only.
	if toks != nil {
		t0 = time.Now()
		b.setStage("refine", int64(len(pairs)))
		parallel(o.Workers, len(pairs), 64, func(lo, hi int) {
			var es editdist.Scratch
			for i := lo; i < hi; i++ {
				pairs[i].Edit = es.Similarity(toks[pairs[i].A], toks[pairs[i].B])
			}
			b.done.Add(int64(hi - lo))
		})
		st.Refine = time.Since(t0)
	}

	// Clusters.
	t0 = time.Now()
	b.setStage("cluster", 0)
	res := &Result{Pairs: pairs}
	b.group(res, &st, &verified{sets: sets, sigs: sigs, k: k, rep: rep, uniqOf: uniqOf, toks: toks, weights: ws})
	st.Group = time.Since(t0)
	b.setStage("done", 0)
	res.Stats = st
	return res, nil
}

func (b *Batch) setStage(name string, total int64) {
	b.done.Store(0)
	b.total.Store(total)
	b.stage.Store(name)
}

// prefilterMiss bounds the chance that the signature filter drops a pair
// whose Jaccard is at least the threshold.
const prefilterMiss = 1e-6

// minAgreement returns the largest m such that a pair of Jaccard t (or more)
// agrees on fewer than m of k independent slots with probability at most
// miss: the binomial lower tail P(Bin(k, t) < m) <= miss.
func minAgreement(k int, t, miss float64) int {
	if t >= 1 {
		return k
	}
	// P(X = x) for X ~ Bin(k, t), accumulated from x = 0 in log space.
	lt, l1t := math.Log(t), math.Log1p(-t)
	cdf := 0.0
	for m := 0; m <= k; m++ {
		lg, _ := math.Lgamma(float64(k + 1))
		la, _ := math.Lgamma(float64(m + 1))
		lb, _ := math.Lgamma(float64(k - m + 1))
		cdf += math.Exp(lg - la - lb + float64(m)*lt + float64(k-m)*l1t)
		if cdf > miss {
			return m
		}
	}
	return k
}

// parallel runs fn over [0, n) in blocks of size block on w goroutines.
func parallel(w, n, block int, fn func(lo, hi int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(int64(block))) - block
				if lo >= n {
					return
				}
				fn(lo, min(lo+block, n))
			}
		}()
	}
	wg.Wait()
}
