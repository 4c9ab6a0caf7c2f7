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

	type item struct {
		id   string
		text []byte
		s    neardup.Sketch
		keys []uint64
	}
	type chunk struct {
		items []item
		done  chan struct{}
	}
	// reader -> workers (sketch a chunk) -> writer, in reading order.
	work := make(chan *chunk, 2*o.Workers)
	order := make(chan *chunk, 2*o.Workers)
	var readErr error
	var st BuildStats
	var read atomic.Int64
	go func() {
		defer close(work)
		defer close(order)
		for ctx.Err() == nil {
			c := &chunk{done: make(chan struct{})}
			for len(c.items) < o.Batch {
				id, text, err := next()
				if err == io.EOF {
					break
				}
				if err != nil {
					readErr = err
					break
				}
				read.Add(1)
				c.items = append(c.items, item{id: id, text: slices.Clone(text)})
			}
			if len(c.items) == 0 {
				return
			}
			select {
			case work <- c:
			case <-ctx.Done():
				return
			}
			select {
			case order <- c:
			case <-ctx.Done():
				return
			}
			if readErr != nil || len(c.items) < o.Batch {
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range o.Workers {
		wg.Go(func() {
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
		})
	}
	defer func() { // on an early return the reader may be blocked sending
		cancel()
		wg.Wait()
	}()

	byFP := map[uint64][]uint64{} // fingerprint -> groups made by the build (committed)
	ids := map[string]struct{}{}  // ids the build added (committed)
	var lastSeq uint64            // the last sequence number the build used
	exclusive := false            // the index held only the build's own documents after its last transaction
	// findIdentical returns the committed group whose set is s.Set, if
	// any: one made by this build (by fingerprint) or one already in the
	// bucket of band 0 (an identical set is in every bucket of the
	// document), looked at only when its size is the same. Groups made by
	// the transaction under way are not readable yet: the writer keeps
	// those itself.
	var bucket, same []uint64
	var sizes []int
	var sets [][]uint64
	findIdentical := func(tx Tx, s *neardup.Sketch, keys []uint64) (uint64, error) {
		bt := bulk(tx)
		var err error
		if bucket, err = bt.Buckets(append(bucket[:0], byFP[s.Fingerprint]...), keys[:1], 0); err != nil {
			return 0, err
		}
		if sizes, err = bt.Sizes(sizes[:0], bucket); err != nil {
			return 0, err
		}
		same = same[:0]
		for i, gid := range bucket {
			if sizes[i] == len(s.Set) {
				same = append(same, gid)
			}
		}
		if sets, err = bt.Sets(sets[:0], same); err != nil {
			return 0, err
		}
		for i, gid := range same {
			if slices.Equal(sets[i], s.Set) {
				return gid, nil
			}
		}
		return 0, nil
	}
	for c := range order {
		select {
		case <-c.done:
		case <-ctx.Done():
			st.Read = read.Load()
			return st, ctx.Err()
		}
		var added, nEmpty, existing, groups int64
		// Groups made in this transaction, by fingerprint, so that copies
		// within it join them.
		fresh := map[uint64][]*item{}
		made := map[*item]uint64{}
		var usedSeq uint64
		var ownTx bool
		err := ix.st.Update(ctx, func(tx Tx) error {
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
			if lastSeq == 0 {
				docs, _, err := tx.Counts()
				if err != nil {
					return err
				}
				own = docs == 0
			} else {
				own = exclusive && first == lastSeq+1
			}
			usedSeq = first
			ownTx = own
			added, nEmpty, existing, groups = 0, 0, 0, 0
			clear(fresh)
			clear(made)
			seen := map[string]bool{}
			nextSeq := func() (uint64, error) {
				if pending {
					pending = false
					return first, nil
				}
				seq, err := tx.NewSeq()
				usedSeq = seq
				return seq, err
			}
			for i := range c.items {
				it := &c.items[i]
				if it.s.Empty() {
					nEmpty++
					continue
				}
				_, mine := ids[it.id]
				exists := seen[it.id] || mine
				if !exists && !own {
					_, err := tx.DocByID(it.id)
					if err != nil && !errors.Is(err, ErrNotFound) {
						return err
					}
					exists = err == nil
				}
				if exists {
					if o.SkipExisting {
						existing++
						continue
					}
					return fmt.Errorf("%w: %q", ErrExists, it.id)
				}
				seen[it.id] = true
				gid, err := findIdentical(tx, &it.s, it.keys)
				if err != nil {
					return err
				}
				if gid == 0 {
					for _, o := range fresh[it.s.Fingerprint] {
						if slices.Equal(o.s.Set, it.s.Set) {
							gid = made[o]
							break
						}
					}
				}
				if gid == 0 {
					if gid, err = tx.NewGroup(Group{Set: it.s.Set, Signature: it.s.Signature, Keys: it.keys}); err != nil {
						return err
					}
					fresh[it.s.Fingerprint] = append(fresh[it.s.Fingerprint], it)
					made[it] = gid
					groups++
				}
				seq, err := nextSeq()
				if err != nil {
					return err
				}
				d := Doc{Seq: seq, ID: it.id, Group: gid, Added: ix.o.Now().UnixNano()}
				if ix.meta.KeepTexts {
					d.Text = it.text
				}
				if err := tx.PutDoc(d); err != nil {
					return err
				}
				added++
			}
			return nil
		})
		if err != nil {
			st.Read = read.Load()
			return st, err
		}
		for _, its := range fresh {
			for _, it := range its {
				byFP[it.s.Fingerprint] = append(byFP[it.s.Fingerprint], made[it])
			}
		}
		lastSeq = usedSeq
		exclusive = ownTx
		for i := range c.items {
			if !c.items[i].s.Empty() {
				ids[c.items[i].id] = struct{}{}
			}
		}
		st.Added += added
		st.Empty += nEmpty
		st.Existing += existing
		st.NewGroups += groups
		if o.Progress != nil {
			o.Progress(read.Load())
		}
	}
	st.Read = read.Load()
	if readErr != nil {
		return st, readErr
	}
	return st, ctx.Err()
}
