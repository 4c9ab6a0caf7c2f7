package neardup

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/neardup/neardup/idf"
	"github.com/neardup/neardup/internal/editdist"
	"github.com/neardup/neardup/internal/hugepage"
	"github.com/neardup/neardup/internal/prefetch"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/shingle"
)

// useSetBitmaps lets tests run exact verification without the sets'
// bitmaps (the pre-filter without its bitmap test), in one pass or two.
var useSetBitmaps = true

// Chunks of documents go to the shingling workers while Add goes on.
const (
	chunkDocs  = 512
	chunkBytes = 1 << 20
)

// maxDocs is the number of documents a Batch can hold: indices are uint32
// and one value is kept free.
const maxDocs = 1<<32 - 2

// Batch finds the near-duplicate pairs and clusters of a corpus held in
// memory as shingle sets (or, with VerifyEstimate, as signatures).
//
// Add documents, then call Run once. A document's place in the batch is its
// Add order (0, 1, ...): Result names documents by it and it is the
// sequence KeepFirst keeps the first of. Add and Run must be called from one
// goroutine; the work itself is spread over Options.Workers goroutines,
// started by the first Add. A Batch that will not be Run must be Closed to
// stop them. Progress may be called from any goroutine.
//
// Every part of the work is a part of the engine that other front ends
// share: a Sketcher shingles and signs, lsh.Candidates applies the home-band
// and bucket rules, a Verifier checks candidates, Clusters groups them.
type Batch struct {
	o   Options
	sk  *Sketcher
	ver *Verifier
	key setKey // keys the set hashes that find identical sets (setKey.setHash, setHashes)

	ids    []string
	sizes  []int64 // text length in bytes
	chunks []*chunk
	cur    *chunk

	arena    *sigArena   // VerifyEstimate and two passes: the per-document signatures, if the system gave one
	bitArena *sigArena   // two passes under exact verification: the per-document set bitmaps (shingle.Bitmap), if the system gave one
	work     chan *chunk // nil until the first chunk is flushed
	free     chan []byte // text buffers of shingled chunks, for new chunks
	bufs     []byte      // where the first new text buffers are cut (textBuffer)
	bufSlab  []byte      // all of bufs, advised for huge pages until Run
	wg       sync.WaitGroup
	started  time.Time
	ran      bool
	closed   bool

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

	sets        []uint64         // VerifyExact: the sets, back to back
	setEnds     []int32          // end of each set in sets
	counts      []int32          // shingles per document
	fps         []uint64         // fingerprint of each set (0 for an empty set)
	fps2        []uint64         // two-pass mode: the second set hash of each set (fps: the first; see setKey.setHashes)
	sigs        []uint32         // VerifyEstimate and the two-pass mode: Slots values per document
	docs        []uint32         // the second pass: the document of each text
	inArena     bool             // sigs are the batch's arena's, at start
	bits        []shingle.Bitmap // the two-pass mode: each set's bitmap
	bitsInArena bool             // bits are the batch's bitmap arena's
	toks        []uint64         // RefineEdit: token sequences, back to back
	tokEnds     []int32          // end of each token sequence in toks
	invalid     int              // documents with invalid UTF-8
}

// NewBatch returns an empty batch, or an error wrapping ErrOptions. It
// starts no goroutine.
func NewBatch(o Options) (*Batch, error) {
	o, err := o.resolve()
	if err != nil {
		return nil, err
	}
	sk, err := newSketcher(o.Params)
	if err != nil {
		return nil, err
	}
	b := &Batch{o: o, sk: sk, ver: newVerifier(o.Params, o.Verify), key: newSetKey()}
	b.stage.Store("read")
	return b, nil
}

// Options returns the options in force, defaults filled in.
func (b *Batch) Options() Options { return b.o }

// Len returns the number of documents added.
func (b *Batch) Len() int { return len(b.ids) }

// ID returns the id of document i (0-based, in Add order).
func (b *Batch) ID(i int) string { return b.ids[i] }

// IDs returns the ids of all documents added, ID(i) at index i. The slice
// is the Batch's own: it must not be modified, and Add may replace it.
// A writer that looks ids up at random (by pair) can prefetch from it.
func (b *Batch) IDs() []string { return b.ids[:len(b.ids):len(b.ids)] }

// Size returns the length in bytes of document i's text.
func (b *Batch) Size(i int) int64 { return b.sizes[i] }

// Progress returns the current stage and, where known, how much of it is
// done out of total (total 0: unknown).
func (b *Batch) Progress() (stage string, done, total int64) {
	return b.stage.Load().(string), b.done.Load(), b.total.Load()
}

// Add appends a document. text is copied; the caller may reuse it. It
// returns ErrRan after Run, ErrClosed after Close, and an error wrapping
// ErrTooLarge for a text over 2 GiB or a document beyond the 2^32-2nd.
func (b *Batch) Add(id string, text []byte) error {
	switch {
	case b.closed:
		return ErrClosed
	case b.ran:
		return ErrRan
	case int64(len(b.ids)) >= maxDocs:
		return fmt.Errorf("%w: more than %d documents", ErrTooLarge, int64(maxDocs))
	case len(text) > 1<<31-1:
		return fmt.Errorf("%w: document %q is larger than 2 GiB", ErrTooLarge, id)
	}
	if b.started.IsZero() {
		b.started = time.Now()
	}
	c := b.cur
	if c == nil || len(c.ends) >= chunkDocs || (len(c.buf) > 0 && len(c.buf)+len(text) > chunkBytes) || len(c.buf)+len(text) > 1<<31-1 {
		b.flush()
		if b.bufSlab == nil && len(b.chunks) == 1 {
			// A batch of more than one chunk: the other buffers there
			// can be in one array, on huge pages while they are first
			// written (a tenth of the page faults at 100k).
			b.bufSlab = hugepage.Make[byte]((cap(b.free) - 1) * chunkBytes)
			b.bufs = b.bufSlab
		}
		c = &chunk{start: len(b.ids), buf: textBuffer(b.free, &b.bufs, len(text)), ends: make([]int32, 0, chunkDocs)}
		b.cur = c
	}
	c.buf = append(c.buf, text...)
	c.ends = append(c.ends, int32(len(c.buf)))
	if len(b.ids) == cap(b.ids) {
		// Double the lists: append grows a large slice by a quarter, so
		// on the way to 10M documents it copied them about 45 times into
		// fresh memory (2.9 s of CPU in a 10M profile). On huge pages
		// while they are filled (Run withdraws the advice).
		n := max(len(b.ids), 1024)
		b.ids = hugepage.Grow(b.ids, n)
		b.sizes = hugepage.Grow(b.sizes, n)
	}
	b.ids = append(b.ids, id)
	b.sizes = append(b.sizes, int64(len(text)))
	return nil
}

// textBuffer returns an empty buffer for a chunk whose first text has n
// bytes: a recycled one from free if there is one large enough, else a new
// one. Reusing the buffers of shingled chunks keeps the text in flight to
// a few megabytes of memory that is already touched, instead of fresh
// memory for every chunk (on a virtual machine, first touching memory can
// cost more than the copy into it). New buffers of chunkBytes are cut
// from *slab while it has room (nil: none).
func textBuffer(free chan []byte, slab *[]byte, n int) []byte {
	select {
	case buf := <-free:
		if cap(buf) >= n {
			return buf[:0]
		}
	default:
	}
	if slab != nil && n <= chunkBytes && len(*slab) >= chunkBytes {
		buf := (*slab)[:0:chunkBytes]
		*slab = (*slab)[chunkBytes:]
		return buf
	}
	return make([]byte, 0, max(chunkBytes, n))
}

// freeList returns the list of text buffers for a pass of workers
// goroutines fed by a channel of 2*workers chunks. It has room for every
// buffer there can be (those queued, one a worker, the one filling): a
// buffer is then never dropped, and at most that many are ever made (with
// room for 2*workers+2, 19 buffers and their fresh pages in a 1M run).
func freeList(workers int) chan []byte {
	return make(chan []byte, 3*workers+2)
}

// recycle offers a chunk's text buffer for reuse; it is dropped if free is
// full.
func recycle(free chan []byte, buf []byte) {
	select {
	case free <- buf[:0]:
	default:
	}
}

// flush hands the current chunk to the workers, starting them first.
func (b *Batch) flush() {
	if b.cur == nil {
		return
	}
	if b.work == nil {
		if useSigArena && (b.o.Verify == VerifyEstimate || b.o.twoPass()) {
			b.arena = newSigArena(b.o.Slots)
			if b.setBitmaps() {
				b.bitArena = newSigArena(bitmapSlots)
			}
		}
		b.work = make(chan *chunk, 2*b.o.Workers)
		b.free = freeList(b.o.Workers)
		for range b.o.Workers {
			b.wg.Go(b.shingleWorker)
		}
	}
	b.chunks = append(b.chunks, b.cur)
	b.work <- b.cur
	b.cur = nil
}

// stopWorkers waits for the chunks handed out so far and stops the workers.
func (b *Batch) stopWorkers() {
	if b.work != nil {
		close(b.work)
		b.wg.Wait()
		b.work = nil
	}
}

// Close stops the batch's goroutines and drops what it holds. A Batch that
// is Run needs no Close (Run stops them), and Close after Run only drops the
// batch's own references: a Result keeps what it needs. Close is idempotent
// and returns nil.
func (b *Batch) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	b.cur = nil
	b.stopWorkers()
	b.chunks = nil
	return nil
}

// shingleWorker shingles the chunks it receives until the channel closes.
func (b *Batch) shingleWorker() {
	sk := b.sk
	sh := sk.shingler() // the worker's own: no pool round trip per document
	var scratch []uint64
	k := b.o.Slots
	twoPass := b.o.twoPass()
	estimate, refine := b.o.Verify == VerifyEstimate || twoPass, b.o.Refine == RefineEdit
	for c := range b.work {
		n := len(c.ends)
		c.counts = make([]int32, n)
		c.fps = make([]uint64, n)
		if twoPass {
			c.fps2 = make([]uint64, n)
			if b.setBitmaps() {
				if c.bits = b.bitArena.bitmaps(c.start, n); c.bits != nil {
					c.bitsInArena = true
				} else {
					c.bits = make([]shingle.Bitmap, n)
				}
			}
		}
		if estimate {
			if c.sigs = b.arena.chunk(c.start, n); c.sigs != nil {
				c.inArena = true
			} else {
				c.sigs = make([]uint32, 0, n*k)
			}
		} else {
			c.setEnds = make([]int32, n)
			c.sets = make([]uint64, 0, len(c.buf)/5+16)
		}
		if refine {
			c.tokEnds = make([]int32, n)
		}
		prev := int32(0)
		for i, end := range c.ends {
			text := c.buf[prev:end]
			prev = end
			if refine {
				from := len(c.toks)
				c.toks = sh.AppendTokens(c.toks, text)
				c.toks = c.toks[:from+min(len(c.toks)-from, MaxEditTokens)]
				c.tokEnds[i] = int32(len(c.toks))
			}
			if estimate {
				if twoPass {
					// No set is kept: the signature, the bitmap and
					// the set hashes take the elements in any order.
					scratch = sh.AppendDistinct(scratch[:0], text)
					c.fps[i], c.fps2[i] = b.key.setHashes(scratch)
				} else {
					scratch = sh.AppendSet(scratch[:0], text)
					c.fps[i] = Fingerprint(scratch)
				}
				c.counts[i] = int32(len(scratch))
				if c.bits != nil {
					// Built on the stack, then stored whole: Add reads
					// each word before it writes it, and a read first
					// touches fresh arena pages with the zero page,
					// then faults again on the write.
					var bm shingle.Bitmap
					bm.Add(scratch)
					c.bits[i] = bm
				}
				c.sigs = sk.AppendSignature(c.sigs, scratch)
			} else {
				from := len(c.sets)
				c.sets = sh.AppendSet(c.sets, text)
				set := c.sets[from:]
				c.counts[i] = int32(len(set))
				// Only to find identical sets (then compared): the
				// set hash, whose sum has no dependency chain, costs
				// half of Fingerprint.
				c.fps[i] = b.key.setHash(set)
				c.setEnds[i] = int32(len(c.sets))
			}
			// The word tokeniser has checked every byte of most texts
			// already.
			valid, known := sh.ValidUTF8()
			if !known {
				valid = utf8.Valid(text)
			}
			if !valid {
				c.invalid++
			}
		}
		recycle(b.free, c.buf)
		c.buf, c.ends = nil, nil
		b.done.Add(int64(n))
	}
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

// Run finds the verified pairs and clusters. It can be called once (then
// ErrRan); it returns ctx's error if ctx is cancelled, and an error wrapping
// ErrDuplicateID under Options.StrictIDs. Every reported Jaccard is exact
// under VerifyExact.
func (b *Batch) Run(ctx context.Context) (*Result, error) {
	switch {
	case b.closed:
		return nil, ErrClosed
	case b.ran:
		return nil, ErrRan
	}
	b.ran = true
	if b.started.IsZero() {
		b.started = time.Now()
	}
	b.flush()
	hugepage.Done(b.ids) // filled (Add)
	hugepage.Done(b.sizes)
	hugepage.Done(b.bufSlab)
	b.bufs, b.bufSlab = nil, nil
	b.stopWorkers()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := b.o
	st := Stats{Documents: len(b.ids), Params: o.LSH}
	st.ReadShingle = time.Since(b.started)
	t0 := time.Now()
	res := &Result{}
	// The duplicate-id check reads the ids, collapse the chunks: one
	// core each (at 10M documents about a second and two).
	idsDone := make(chan struct{})
	go func() {
		defer close(idsDone)
		st.DuplicateIDs, res.DuplicateIDs = b.DuplicateIDs(5)
	}()
	v := b.collapse(&st)
	<-idsDone
	if o.StrictIDs && st.DuplicateIDs > 0 {
		d := res.DuplicateIDs[0]
		return nil, fmt.Errorf("%w: %d documents repeat an earlier id, e.g. %q (documents %v)", ErrDuplicateID, st.DuplicateIDs, d.ID, d.Docs)
	}
	res.v = v
	st.Collapse = time.Since(t0) // the duplicate-id check included
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	t0 = time.Now()
	b.sign(v)
	st.Sign = time.Since(t0)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	t0 = time.Now()
	st.Passes = 1
	pairs, err := b.candidates(ctx, v, &st)
	if err != nil {
		return nil, err
	}
	res.Pairs = pairs
	st.Candidate = time.Since(t0) - st.Second

	if v.toks != nil {
		t0 = time.Now()
		b.setStage("refine", int64(len(pairs)))
		parallel(o.Workers, len(pairs), 64, func(lo, hi int) {
			var es editdist.Scratch
			for i := lo; i < hi; i++ {
				pairs[i].Edit = es.Similarity(v.toks[pairs[i].A], v.toks[pairs[i].B])
			}
			b.done.Add(int64(hi - lo))
		})
		st.Refine = time.Since(t0)
	}

	// The Stats are final now but for the clusters' counts, which group
	// sets field by field: OnPairs's work may be reading the others.
	res.Stats = st
	if o.OnPairs != nil {
		o.OnPairs(res)
	}
	t0 = time.Now()
	b.setStage("cluster", 0)
	b.group(res, &res.Stats)
	res.Stats.Group = time.Since(t0)
	b.setStage("done", 0)
	return res, nil
}

// DuplicateIDs returns how many documents added so far repeat an id of an
// earlier document, and up to max of those ids with the first documents
// that have them, in order of their first document. It may be called before
// Run (to refuse duplicates before the work) and costs a sort of the ids.
func (b *Batch) DuplicateIDs(max int) (count int, examples []DuplicateID) {
	// Sort the ids' hashes; only hashes that repeat need a second look.
	hs := hugepage.Make[uint64](len(b.ids))
	defer hugepage.Done(hs)
	for d, id := range b.ids {
		hs[d] = idHash(id)
	}
	slices.Sort(hs)
	repeated := map[uint64]bool{}
	for i := 1; i < len(hs); i++ {
		if hs[i] == hs[i-1] {
			repeated[hs[i]] = true
		}
	}
	if len(repeated) == 0 {
		return 0, nil
	}
	// Group the documents of those hashes by id, in document order.
	byID := map[string]*DuplicateID{}
	var order []*DuplicateID
	for d, id := range b.ids {
		if !repeated[idHash(id)] {
			continue
		}
		g := byID[id]
		if g == nil {
			g = &DuplicateID{ID: id}
			byID[id] = g
			order = append(order, g)
		}
		g.Count++
		if len(g.Docs) < 5 {
			g.Docs = append(g.Docs, d)
		}
	}
	for _, g := range order {
		if g.Count > 1 {
			count += g.Count - 1
			if len(examples) < max {
				examples = append(examples, *g)
			}
		}
	}
	return count, examples
}

// idHash is a fixed 64-bit hash of an id (FNV-1a).
func idHash(s string) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 0x100000001b3
	}
	return h
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
		parallel(o.Workers, nu, 256, func(lo, hi int) {
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
		parallel(o.Workers, nu, 256, func(lo, hi int) {
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
	var chained *lsh.Deferred
	if held != nil {
		chained = &lsh.Deferred{}
	}
	cand := lsh.Candidates{Params: o.LSH, Slots: o.Slots, Sigs: v.sigs, Workers: o.Workers,
		MaxBucket: max(o.MaxBucket, 0), MinAgree: b.ver.MinAgreement(), Deferred: chained, BandsDone: &b.done}
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
	// With bitmaps, a member's partners in a bucket are tested together
	// (Verifier.sizesBitmapsRow: their sizes and bitmaps, cache misses
	// at 10M documents, are loaded ahead), then the rest of the
	// pre-filter runs on those that pass. The pairs are those of the
	// pair callback below, which the chained buckets' chains still take.
	if v.bits != nil && len(v.ucount) <= math.MaxInt32 {
		type rowScratch struct {
			ok    []bool
			bound []int32
			pass  []uint32
			_     [128 - 72]byte // a worker's own lines (blockList)
		}
		scratch := make([]rowScratch, o.Workers)
		cand.Row = func(w int, i uint32, js []uint32) {
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
		var wg sync.WaitGroup
		for w := range held {
			wg.Go(func() { b.verifyHeld(ctx, v, &held[w], &found[w]) })
		}
		wg.Wait()
		sig := func(u uint32) []uint32 { return v.sigs[int(u)*o.Slots : int(u+1)*o.Slots] }
		set := func(u uint32) ([]uint64, []float64) {
			var s Sketch
			v.withSet(&s, u)
			return s.Set, s.Weights
		}
		st.Candidates += b.verifyChained(ctx, chained, sig, v.filterView, set, v.uniq, found)
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
	// Every pair: each identical group of g documents has g(g-1)/2 pairs
	// among its members, and a verified pair between two groups one per
	// combination of their members.
	group := make([]int, len(v.rep))
	for _, r := range v.rep {
		group[r]++
	}
	for _, g := range group {
		st.Pairs += g * (g - 1) / 2
	}
	// On the workers, B's entries prefetched (misses: 145 million pairs
	// at 10M documents, 1.4 s on one core).
	var all atomic.Int64
	parallel(o.Workers, len(pairs), 1<<16, func(lo, hi int) {
		const ahead = 16
		n := 0
		for k := lo; k < hi; k++ {
			if k+ahead < hi {
				b := pairs[k+ahead].B
				prefetch.Line(&v.rep[b])
				prefetch.Line(&group[b])
			}
			if p := pairs[k]; v.rep[p.B] == uint32(p.B) {
				n += group[p.A] * group[p.B]
			}
		}
		all.Add(int64(n))
	})
	st.Pairs += int(all.Load())
	return pairs, nil
}

// verified is a verified pair of documents as the workers collect it: half
// the size of a Pair, which matters when both are held at once (the end
// of candidates: at 10M documents, 145 million pairs).
type verified struct {
	a, b    uint32
	jaccard float64
}

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
	// A scratch per goroutine, handed from range to range.
	scratch := make(chan *pairSorter, workers)
	for range workers {
		scratch <- &pairSorter{}
	}
	parallel(workers, sortParts, 1, func(lo, hi int) {
		ps := <-scratch
		for k := lo; k < hi; k++ {
			ps.sortByAB(pairs[start[k]:start[k+1]])
		}
		scratch <- ps
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
// their chains (lsh.Deferred.PairsWhere), on every worker, a bucket at a time,
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
func (b *Batch) verifyChained(ctx context.Context, d *lsh.Deferred, sig func(u uint32) []uint32,
	view func(u uint32) Sketch, set func(u uint32) ([]uint64, []float64), uniq []uint32, found []blockList[verified]) int64 {
	if d == nil || d.Len() == 0 {
		return 0
	}
	o := b.o
	minAgree := b.ver.MinAgreement()
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
				d.PairsWhere(o.LSH, minAgree, k, sig, keep, func(x, y int) bool {
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
func (b *Batch) secondPass(ctx context.Context, v *views, held []blockList[[2]uint32], chained *lsh.Deferred, st *Stats) ([]blockList[verified], *pairPages, error) {
	t0 := time.Now()
	st.Passes = 2
	nu := len(v.uniq)
	// The members of chained buckets are verified together at the end
	// (verifyChained): their signatures are kept (row[u] >= 0: rows[row[u]])
	// and their sets read again.
	k := b.o.Slots
	var row []int32
	var rows []uint32
	if chained != nil && chained.Len() > 0 {
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
				copy(rows[int(r)*k:int(r+1)*k], v.sigs[u*k:(u+1)*k])
			}
		}
	}
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
	parallel(len(held), len(held), 1, func(i, _ int) {
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
	parallel(len(held), len(held), 1, func(i, _ int) {
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
	parallel(b.o.Workers, len(l.order), 1<<14, func(lo, hi int) {
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

// newSetStore returns room for n shingle values, in an arena when the
// system reserves one (memory the soft limit accounts for and that goes
// back to the system when the arena is unreachable: it must be kept
// reachable while the values are read), else on the heap.
func newSetStore(n int) ([]uint64, *sigArena) {
	if a := newSigArena(uint64Slots); a != nil && useSigArena {
		if vals := a.uint64s(0, n); vals != nil {
			return vals, a
		}
	}
	return make([]uint64, n), nil
}

// rereadChunkDocs is the most documents in a chunk of the second pass
// (tests make it small, for many chunks).
var rereadChunkDocs = chunkDocs

// reread reads again, through Options.Reread, the earliest document of
// each distinct set u with want(u), in input order and in chunks, shingles
// each chunk on a worker and calls keep(u, set) there with each set (which
// keep must copy: the slice is the worker's scratch). Calls come from
// Options.Workers goroutines at once, for distinct u. A document whose set
// is not the one it had in the first pass fails with ErrChanged, and the
// pass stops.
func (b *Batch) reread(ctx context.Context, v *views, want func(u uint32) bool, keep func(u uint32, set []uint64)) error {
	o := b.o
	work := make(chan *chunk, 2*o.Workers)
	// The first pass's text buffers, already touched (fresh ones were
	// half of this pass's page faults at 100k).
	free := b.free
	if free == nil {
		free = freeList(o.Workers)
	}
	var mu sync.Mutex
	var failed error
	var stop atomic.Bool
	fail := func(err error) {
		mu.Lock()
		if failed == nil {
			failed = err
		}
		mu.Unlock()
		stop.Store(true)
	}
	var wg sync.WaitGroup
	for range o.Workers {
		wg.Go(func() {
			sh := b.sk.shingler()
			var scratch []uint64
			for c := range work {
				prev := int32(0)
				for i, end := range c.ends {
					scratch = sh.AppendSet(scratch[:0], c.buf[prev:end])
					prev = end
					d := c.docs[i]
					if int32(len(scratch)) != v.counts[d] || b.key.setHash(scratch) != v.fps[d] {
						fail(fmt.Errorf("%w: document %d (id %q) has %d shingles, %d when it was added", ErrChanged, d, b.ids[d], len(scratch), v.counts[d]))
						continue
					}
					keep(uint32(v.uniqOf[d]), scratch)
				}
				recycle(free, c.buf)
				c.buf, c.ends = nil, nil
				b.done.Add(int64(len(c.docs)))
			}
		})
	}
	wantDoc := func(d int) bool {
		if d < 0 || d >= len(v.uniqOf) {
			return false
		}
		u := v.uniqOf[d]
		return u >= 0 && v.uniq[u] == uint32(d) && want(uint32(u))
	}
	// Every wanted document must come, in order: skip(u) returns the first
	// wanted set before u that did not come, or -1.
	nextU := 0
	skip := func(u int) int {
		for ; nextU < u; nextU++ {
			if want(uint32(nextU)) {
				return nextU
			}
		}
		return -1
	}
	var cur *chunk
	last := -1
	err := o.Reread.Reread(ctx, wantDoc, func(d int, text []byte) error {
		if stop.Load() {
			return ErrChanged // a worker found a changed document: failed says which
		}
		if !wantDoc(d) || d <= last {
			return fmt.Errorf("%w: Reread gave document %d, which was not asked for or not in order", ErrInvalid, d)
		}
		last = d
		if missing := skip(int(v.uniqOf[d])); missing >= 0 {
			d := v.uniq[missing]
			return fmt.Errorf("%w: document %d (id %q) was not there when the input was read again", ErrChanged, d, b.ids[d])
		}
		nextU++
		if cur == nil || len(cur.ends) >= rereadChunkDocs || (len(cur.buf) > 0 && len(cur.buf)+len(text) > chunkBytes) {
			if cur != nil {
				work <- cur
			}
			cur = &chunk{buf: textBuffer(free, nil, len(text))}
		}
		cur.buf = append(cur.buf, text...)
		cur.ends = append(cur.ends, int32(len(cur.buf)))
		cur.docs = append(cur.docs, uint32(d))
		return nil
	})
	if cur != nil {
		work <- cur
	}
	close(work)
	wg.Wait()
	switch {
	case failed != nil:
		return failed
	case err != nil:
		return fmt.Errorf("second pass: %w", err)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	if missing := skip(len(v.uniq)); missing >= 0 {
		d := v.uniq[missing]
		return fmt.Errorf("%w: document %d (id %q) was not there when the input was read again", ErrChanged, d, b.ids[d])
	}
	return nil
}

// blockList is a list that grows in blocks of blockLen values, so that
// growing it never copies what it holds: a slice grown by append copies
// everything at each doubling and touches about twice the memory, which on
// a machine where fresh memory is slow to touch costs more than the values.
//
// The workers' lists sit side by side in a slice and each is written on
// every add: the padding keeps two lists off one cache line and off its
// pair (the CPU fetches lines two at a time). Unpadded, the two workers'
// adds took the line from each other, 46 ns an add of a verified pair
// (6.7 s of CPU at 10M documents).
type blockList[T any] struct {
	blocks [][]T
	n      int
	// more, when not nil, gives the next block (an empty slice with
	// room), or nil for one of blockLen from the heap.
	more func() []T
	// slab is where the next blocks from the heap are cut: four times the
	// blocks the list has, up to listSlabBytes, on huge pages until its last
	// block is cut (as a block from the heap at a time, the held pairs'
	// blocks were a tenth of the page faults of a 1M run).
	slab, whole []T
	_           [128 - 88]byte
}

const blockLen = 1 << 14

// listSlabBytes is the size of a blockList's slabs (tests make it
// smaller).
var listSlabBytes = 8 << 20

func (l *blockList[T]) add(x T) {
	if len(l.blocks) == 0 || len(l.blocks[len(l.blocks)-1]) == cap(l.blocks[len(l.blocks)-1]) {
		var blk []T
		if l.more != nil {
			blk = l.more()
		}
		if blk == nil {
			if len(l.slab) == 0 {
				// Four times the blocks the list has, up to
				// listSlabBytes: a short list takes one block, as
				// before slabs.
				most := max(1, listSlabBytes/(blockLen*int(unsafe.Sizeof(x))))
				l.slab = hugepage.Make[T](blockLen * min(max(1, 4*len(l.blocks)), most))
				l.whole = l.slab
			}
			blk, l.slab = l.slab[:0:blockLen], l.slab[blockLen:]
			if len(l.slab) == 0 {
				hugepage.Done(l.whole) // the last block on small pages
				l.whole = nil
			}
		}
		l.blocks = append(l.blocks, blk)
	}
	last := &l.blocks[len(l.blocks)-1]
	*last = append(*last, x)
	l.n++
}

func (b *Batch) setStage(name string, total int64) {
	b.done.Store(0)
	b.total.Store(total)
	b.stage.Store(name)
}

// parallel runs fn over [0, n) in blocks of size block on w goroutines.
func parallel(w, n, block int, fn func(lo, hi int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range w {
		wg.Go(func() {
			for {
				lo := int(next.Add(int64(block))) - block
				if lo >= n {
					return
				}
				fn(lo, min(lo+block, n))
			}
		})
	}
	wg.Wait()
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
