package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup"
)

// BuildOptions configure Build.
type BuildOptions struct {
	// Workers sketch documents in parallel; 0 means runtime.GOMAXPROCS(0).
	Workers int
	// Batch is the number of documents written per transaction; 0 means
	// 1024.
	Batch int
	// SkipExisting leaves out documents whose id the index already has
	// (counted); otherwise such an id is an error wrapping ErrExists.
	SkipExisting bool
	// Progress, if not nil, is called after each transaction with the
	// documents read so far.
	Progress func(read int64)
}

// BuildStats count what Build did.
type BuildStats struct {
	Read      int64 // documents read
	Added     int64 // documents added
	Empty     int64 // documents without shingles, not added
	Existing  int64 // ids already in the index, skipped (SkipExisting)
	NewGroups int64 // distinct shingle sets added
}

// Build bulk-loads documents: next returns one document at a time, and
// io.EOF after the last. Unlike Add, Build does not look for
// near-duplicates: every document with shingles is added (documents with
// identical sets share one group, found among the documents of the build
// and those already indexed). Sketching runs on Workers goroutines while
// the documents are written in transactions of Batch documents; when Build
// returns without error, all of them are durable. After an error, the
// transactions already committed stay.
func (ix *Index) Build(ctx context.Context, next func() (id string, text []byte, err error), o BuildOptions) (BuildStats, error) {
	if ix.closed.Load() {
		return BuildStats{}, ErrClosed
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Batch <= 0 {
		o.Batch = 1024
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// reader -> workers (sketch a chunk) -> writer, in reading order.
	r := &buildReader{next: next, batch: o.Batch, work: make(chan *buildChunk, 2*o.Workers), order: make(chan *buildChunk, 2*o.Workers)}
	go r.run(ctx)
	var wg sync.WaitGroup
	for range o.Workers {
		wg.Go(func() { ix.sketchChunks(r.work) })
	}
	defer func() { // on an early return the reader may be blocked sending
		cancel()
		wg.Wait()
	}()

	var st BuildStats
	w := &buildWriter{ix: ix, o: o, byFP: map[uint64][]uint64{}, ids: map[string]struct{}{}}
	for c := range r.order {
		select {
		case <-c.done:
		case <-ctx.Done():
			st.Read = r.read.Load()
			return st, ctx.Err()
		}
		if err := w.write(ctx, c, &st); err != nil {
			st.Read = r.read.Load()
			return st, err
		}
		if o.Progress != nil {
			o.Progress(r.read.Load())
		}
	}
	st.Read = r.read.Load()
	if r.err != nil {
		return st, r.err
	}
	return st, ctx.Err()
}

// buildItem is a document of a build: read, then sketched.
type buildItem struct {
	id   string
	text []byte
	s    neardup.Sketch
	keys []uint64
}

// buildChunk is the documents of one transaction; done is closed once a
// worker has sketched them.
type buildChunk struct {
	items []buildItem
	done  chan struct{}
}

// buildReader reads a build's documents into chunks of batch, each sent
// to the sketching workers (work) and to the writer (order), in reading
// order. err is the error next returned, if any other than io.EOF: it is
// read after order is closed.
type buildReader struct {
	next        func() (id string, text []byte, err error)
	batch       int
	work, order chan *buildChunk
	read        atomic.Int64 // documents read
	err         error
}

// run reads until next returns io.EOF or an error, or ctx is done, then
// closes work and order.
func (r *buildReader) run(ctx context.Context) {
	defer close(r.work)
	defer close(r.order)
	for ctx.Err() == nil {
		c := &buildChunk{done: make(chan struct{})}
		for len(c.items) < r.batch {
			id, text, err := r.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				r.err = err
				break
			}
			r.read.Add(1)
			c.items = append(c.items, buildItem{id: id, text: slices.Clone(text)})
		}
		if len(c.items) == 0 {
			return
		}
		select {
		case r.work <- c:
		case <-ctx.Done():
			return
		}
		select {
		case r.order <- c:
		case <-ctx.Done():
			return
		}
		if r.err != nil || len(c.items) < r.batch {
			return
		}
	}
}

// sketchChunks sketches the documents of the chunks it receives, and
// their band keys, until work is closed.
func (ix *Index) sketchChunks(work <-chan *buildChunk) {
	for c := range work {
		for i := range c.items {
			it := &c.items[i]
			ix.sk.Sketch(&it.s, it.text, nil)
			if !it.s.Empty() {
				it.keys = ix.sk.AppendBandKeys(nil, it.s.Signature)
			}
		}
		close(c.done)
	}
}

// buildWriter writes a build's chunks, one transaction each, and keeps
// what the build committed: its groups by fingerprint, its ids, and
// whether the index held only its documents after its last transaction.
type buildWriter struct {
	ix        *Index
	o         BuildOptions
	byFP      map[uint64][]uint64 // fingerprint -> groups made by the build (committed)
	ids       map[string]struct{} // ids the build added (committed)
	lastSeq   uint64              // the last sequence number the build used
	exclusive bool                // the index held only the build's own documents after its last transaction

	// findIdentical's scratch
	bucket, same []uint64
	sizes        []int
	sets         [][]uint64
}

// buildTx is what one transaction of a build did; Update may run it more
// than once, each time from the start.
type buildTx struct {
	added, empty, existing, groups int64
	// fresh holds the groups made in this transaction, by fingerprint, so
	// that copies within it join them.
	fresh   map[uint64][]*buildItem
	made    map[*buildItem]uint64
	usedSeq uint64
	own     bool
}

// findIdentical returns the committed group whose set is s.Set, if
// any: one made by this build (by fingerprint) or one already in the
// bucket of band 0 (an identical set is in every bucket of the
// document), looked at only when its size is the same. Groups made by
// the transaction under way are not readable yet: the writer keeps
// those itself.
func (w *buildWriter) findIdentical(tx Tx, s *neardup.Sketch, keys []uint64) (uint64, error) {
	bt := bulk(tx)
	var err error
	if w.bucket, err = bt.Buckets(append(w.bucket[:0], w.byFP[s.Fingerprint]...), keys[:1], 0); err != nil {
		return 0, err
	}
	if w.sizes, err = bt.Sizes(w.sizes[:0], w.bucket); err != nil {
		return 0, err
	}
	w.same = w.same[:0]
	for i, gid := range w.bucket {
		if w.sizes[i] == len(s.Set) {
			w.same = append(w.same, gid)
		}
	}
	if w.sets, err = bt.Sets(w.sets[:0], w.same); err != nil {
		return 0, err
	}
	for i, gid := range w.same {
		if slices.Equal(w.sets[i], s.Set) {
			return gid, nil
		}
	}
	return 0, nil
}

// write adds chunk c's documents in one transaction and, once it is
// committed, records what it made and adds its counts to st.
func (w *buildWriter) write(ctx context.Context, c *buildChunk, st *BuildStats) error {
	t := buildTx{fresh: map[uint64][]*buildItem{}, made: map[*buildItem]uint64{}}
	err := w.ix.st.Update(ctx, func(tx Tx) error { return w.put(tx, c, &t) })
	if err != nil {
		return err
	}
	for _, its := range t.fresh {
		for _, it := range its {
			w.byFP[it.s.Fingerprint] = append(w.byFP[it.s.Fingerprint], t.made[it])
		}
	}
	w.lastSeq = t.usedSeq
	w.exclusive = t.own
	for i := range c.items {
		if !c.items[i].s.Empty() {
			w.ids[c.items[i].id] = struct{}{}
		}
	}
	st.Added += t.added
	st.Empty += t.empty
	st.Existing += t.existing
	st.NewGroups += t.groups
	return nil
}

// put is the transaction of write: it puts c's documents with shingles,
// each in the group of an identical set (committed, or made in this
// transaction) or a new one, and starts t afresh.
func (w *buildWriter) put(tx Tx, c *buildChunk, t *buildTx) error {
	// Sequence numbers only grow: if this transaction's first one
	// follows the last the build used (or the index was empty at
	// its first transaction), nobody else inserted meanwhile, and
	// the only ids to avoid are the build's own. Otherwise every
	// id is looked up in the store.
	first, err := tx.NewSeq()
	if err != nil {
		return err
	}
	pending := true // first not yet used
	own := false
	if w.lastSeq == 0 {
		docs, _, err := tx.Counts()
		if err != nil {
			return err
		}
		own = docs == 0
	} else {
		own = w.exclusive && first == w.lastSeq+1
	}
	t.usedSeq = first
	t.own = own
	t.added, t.empty, t.existing, t.groups = 0, 0, 0, 0
	clear(t.fresh)
	clear(t.made)
	seen := map[string]bool{}
	nextSeq := func() (uint64, error) {
		if pending {
			pending = false
			return first, nil
		}
		seq, err := tx.NewSeq()
		t.usedSeq = seq
		return seq, err
	}
	for i := range c.items {
		it := &c.items[i]
		if it.s.Empty() {
			t.empty++
			continue
		}
		_, mine := w.ids[it.id]
		exists := seen[it.id] || mine
		if !exists && !own {
			_, err := tx.DocByID(it.id)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			exists = err == nil
		}
		if exists {
			if w.o.SkipExisting {
				t.existing++
				continue
			}
			return fmt.Errorf("%w: %q", ErrExists, it.id)
		}
		seen[it.id] = true
		gid, err := w.findIdentical(tx, &it.s, it.keys)
		if err != nil {
			return err
		}
		if gid == 0 {
			for _, o := range t.fresh[it.s.Fingerprint] {
				if slices.Equal(o.s.Set, it.s.Set) {
					gid = t.made[o]
					break
				}
			}
		}
		if gid == 0 {
			if gid, err = tx.NewGroup(Group{Set: it.s.Set, Signature: it.s.Signature, Keys: it.keys}); err != nil {
				return err
			}
			t.fresh[it.s.Fingerprint] = append(t.fresh[it.s.Fingerprint], it)
			t.made[it] = gid
			t.groups++
		}
		seq, err := nextSeq()
		if err != nil {
			return err
		}
		d := Doc{Seq: seq, ID: it.id, Group: gid, Added: w.ix.o.Now().UnixNano()}
		if w.ix.meta.KeepTexts {
			d.Text = it.text
		}
		if err := tx.PutDoc(d); err != nil {
			return err
		}
		t.added++
	}
	return nil
}
