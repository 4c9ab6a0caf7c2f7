// The first stage of a batch, while documents are added: Add copies each
// text into a chunk, flush hands full chunks to the shingling workers,
// and each worker (shingleWorker) turns a chunk's texts into shingle sets
// (or, in two passes and under VerifyEstimate, signatures), set hashes,
// counts and, where needed, set bitmaps and token sequences. It hands on
// the chunks, shingled, to collapse; the text buffers go back to the free
// list for the next chunks (and for the second pass's reading).

package neardup

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/neardup/neardup/internal/hugepage"
	"github.com/neardup/neardup/shingle"
)

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
