// Reading again: the second pass reads the documents it needs through
// Options.Reread, in input order and in chunks, shingles them on the
// workers and checks each set against the first pass's count and hash.
// It hands on each set to the caller's keep (secondPass copies it into
// the layout's array).

package neardup

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

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
