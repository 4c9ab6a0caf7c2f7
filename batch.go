// The batch: the Batch type, its accessors, and Run, which runs the
// stages in order, each in a file of its own that says what it hands on:
// shingling while documents are added (batch_ingest.go), identical sets
// collapsed (batch_collapse.go) beside the duplicate-id check
// (batch_ids.go), signatures (batch_sign.go), LSH and verification
// (batch_candidates.go; with Options.Reread, the second pass in
// batch_twopass.go and batch_reread.go), the pairs sorted
// (batch_pairsort.go), edit similarities, then clusters (result.go).

package neardup

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/neardup/neardup/internal/editdist"
	"github.com/neardup/neardup/internal/hugepage"
	"github.com/neardup/neardup/internal/parallel"
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
		parallel.For(len(pairs), o.Workers, 64, func(_, lo, hi int) {
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

func (b *Batch) setStage(name string, total int64) {
	b.done.Store(0)
	b.total.Store(total)
	b.stage.Store(name)
}
