// The pairs writer: it turns a listing of pairs of document numbers into
// the lines of the pairs TSV (AppendEscapedPair's bytes, and with the edit
// column its fourth field), producing and formatting the pairs on every
// processor while the calling goroutine writes them in order. It hands on
// bytes only: the caller owns the writer and its flushing.

package dedupout

import (
	"io"
	"iter"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/neardup/neardup/internal/prefetch"
)

// Pair is a line of the pairs TSV before formatting: documents A and B
// (indexes into the ids), their Jaccard, and the edit similarity that the
// edit column holds.
type Pair struct {
	A, B    int
	Jaccard float64
	Edit    float64
}

// PairLike is a type of the same fields as Pair, such as the engine's own
// pair type: the writers take it as it is, with no copy of the listing.
type PairLike interface {
	~struct {
		A, B    int
		Jaccard float64
		Edit    float64
	}
}

// PairsOptions is what the pairs writers need besides the pairs.
type PairsOptions struct {
	// Edit adds the fourth column, each pair's Edit with 6 decimals.
	Edit bool
	// Workers is the number of goroutines that produce and format the
	// lines; 0 means runtime.GOMAXPROCS(0).
	Workers int
	// Progress, when not nil, is called on the calling goroutine with
	// the number of pairs of each buffer of lines written.
	Progress func(pairs int64)
}

func (o PairsOptions) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// WritePairs writes to w a line for each pair of ps, in order: ids[A] and
// ids[B] escaped (EscapeField), the Jaccard and, with o.Edit, the edit
// similarity, tab-separated, each line ended by '\n'. The bytes are those
// of AppendPair's lines. It reads ps and ids on o.Workers goroutines and
// must not be called while they change; it allocates a table of the ids
// (up to 24 bytes and a bit each) and a few buffers of about 2 MB per
// worker, whatever the number of pairs. It returns the first error of w,
// after which it has stopped every worker.
func WritePairs[P PairLike](w io.Writer, ids []string, ps []P, o PairsOptions) error {
	format := pairsFormat[P](newIDTable(ids, len(ps), o.workers()), o.Edit)
	return writeRanges(w, len(ps), compactStep, func(lo, hi int) iter.Seq[P] { return slices.Values(ps[lo:hi]) },
		format, o.workers(), o.Progress)
}

// WritePairRanges is WritePairs for a listing produced by ranges of
// documents: the pairs that seq(lo, hi) yields, for consecutive ranges
// [lo, hi) that cover [0, n), in that order, pairs being their total
// number (an estimate serves: it sizes the ranges). seq is called on
// several goroutines at once, on ranges that do not overlap.
func WritePairRanges[P PairLike](w io.Writer, ids []string, n, pairs int, seq func(lo, hi int) iter.Seq[P], o PairsOptions) error {
	format := pairsFormat[P](newIDTable(ids, pairs, o.workers()), o.Edit)
	// Parts of about partPairs pairs on average (10M documents and 268
	// million pairs: 16,356 parts of 611 documents).
	nd := int64(n)
	step := int(min(nd, max(1, nd*partPairs/max(int64(pairs), 1))))
	return writeRanges(w, n, step, seq, format, o.workers(), o.Progress)
}

// pairsFormat returns the function that appends the lines of a batch of
// pairs, ids read from t.
func pairsFormat[P PairLike](t *idTable, edit bool) func(buf []byte, ps []P) []byte {
	tail := func(buf []byte, p Pair, num *NumberCache) []byte {
		buf = append(buf, '\t')
		buf = num.Append(buf, p.Jaccard)
		if edit {
			buf = append(buf, '\t')
			buf = strconv.AppendFloat(buf, p.Edit, 'f', 6, 64)
		}
		return append(buf, '\n')
	}
	const ahead = 16 // pairs
	if t.slots != nil {
		return func(buf []byte, ps []P) []byte {
			var num NumberCache // runs of pairs share a Jaccard
			for k, q := range ps {
				p := Pair(q)
				if k+ahead < len(ps) {
					t.prefetchSlot(Pair(ps[k+ahead]).B)
				}
				buf = t.appendSlot(buf, p.A)
				buf = append(buf, '\t')
				buf = t.appendSlot(buf, p.B)
				buf = tail(buf, p, &num)
			}
			return buf
		}
	}
	// Both steps of reading B's id (its header, then its bytes)
	// prefetched.
	ids := t.ids
	return func(buf []byte, ps []P) []byte {
		var num NumberCache
		for k, q := range ps {
			p := Pair(q)
			if k+ahead < len(ps) {
				prefetch.Line(&ids[Pair(ps[k+ahead]).B])
			}
			if k+ahead/2 < len(ps) {
				if s := ids[Pair(ps[k+ahead/2]).B]; len(s) > 0 {
					prefetch.Line(unsafe.StringData(s))
				}
			}
			buf = t.appendString(buf, p.A)
			buf = append(buf, '\t')
			buf = t.appendString(buf, p.B)
			buf = tail(buf, p, &num)
		}
		return buf
	}
}

// slotBytes is the size of an id's slot in an idTable: a length byte and
// up to 23 bytes of escaped id.
const slotBytes = 24

// idTable holds what the pairs file needs of the ids. Which ids need
// escaping is found once (checking both ids of every line cost more than
// a third of the formatting of 258 million lines). When most ids fit and
// the listing has at least a pair a document, each id that fits is also
// copied, escaped, into a slot of its own, so that writing a line reads
// one slot, which can be prefetched, where a string is two dependent
// loads, its header and then its bytes. The pairs are sorted by A, so
// B's ids are read at random: on 10M documents, waiting on those two
// loads was a third of the formatting (14.7 s of CPU in a --cpuprofile
// run). A longer id's slot is marked longSlot and the id read from ids.
type idTable struct {
	ids   []string
	plain []uint64 // bit d set: ids[d] needs no escaping
	slots []byte   // nil when they would not pay (see newIDTable)
}

const longSlot = 0xff

// newIDTable builds the idTable of ids for a listing of pairs lines, on
// workers goroutines. Slots are made when no more than a quarter of the
// ids are too long for one (URLs, for instance: the slot would be a
// third load for most lines) and there are at least as many pairs as
// ids (fewer pairs do not repay filling 24 bytes a document).
func newIDTable(ids []string, pairs, workers int) *idTable {
	t := &idTable{ids: ids, plain: make([]uint64, (len(ids)+63)/64)}
	// Ranges of whole words of plain, one a goroutine.
	per := (len(ids) + workers - 1) / max(workers, 1)
	per = max((per+63)&^63, 64)
	each := func(fn func(lo, hi int)) {
		var wg sync.WaitGroup
		for lo := 0; lo < len(ids); lo += per {
			wg.Go(func() { fn(lo, min(lo+per, len(ids))) })
		}
		wg.Wait()
	}
	var long atomic.Int64
	each(func(lo, hi int) {
		n := 0
		for d := lo; d < hi; d++ {
			if !NeedsEscape(ids[d]) {
				t.plain[d/64] |= 1 << (d % 64)
			}
			if len(t.id(d)) >= slotBytes {
				n++
			}
		}
		long.Add(int64(n))
	})
	if long.Load() > int64(len(ids)/4) || pairs < len(ids) {
		return t
	}
	t.slots = make([]byte, len(ids)*slotBytes)
	each(func(lo, hi int) {
		for d := lo; d < hi; d++ {
			slot := t.slots[d*slotBytes : (d+1)*slotBytes]
			if id := t.id(d); len(id) < slotBytes {
				slot[0] = byte(len(id))
				copy(slot[1:], id)
			} else {
				slot[0] = longSlot
			}
		}
	})
	return t
}

// id returns document d's id escaped.
func (t *idTable) id(d int) string {
	if t.plain[d/64]&(1<<(d%64)) != 0 {
		return t.ids[d]
	}
	return EscapeField(t.ids[d])
}

// appendString appends document d's escaped id to dst.
func (t *idTable) appendString(dst []byte, d int) []byte { return append(dst, t.id(d)...) }

// prefetchSlot starts loading document d's slot (both lines when it
// crosses one). t.slots must not be nil.
func (t *idTable) prefetchSlot(d int) {
	prefetch.Line(&t.slots[d*slotBytes])
	prefetch.Line(&t.slots[d*slotBytes+slotBytes-1])
}

// appendSlot is appendString from document d's slot. t.slots must not be
// nil.
func (t *idTable) appendSlot(dst []byte, d int) []byte {
	slot := t.slots[d*slotBytes : (d+1)*slotBytes]
	if n := slot[0]; n != longSlot {
		return append(dst, slot[1:1+n]...)
	}
	return t.appendString(dst, d)
}

const (
	// pairBatch is the number of pairs format is given at once.
	pairBatch = 1 << 12
	// partPairs is the average number of pairs in a part of the full
	// listing that writeRanges produces (about 0.7 MB of lines), and
	// compactStep the number of pairs in a part of the compact listing:
	// small enough that a part's lines fit the buffers of its channel, so
	// that a worker is not held behind a part still being written.
	partPairs   = 1 << 14
	compactStep = 1 << 14
	// partFlush is the size at which a part's formatted bytes go to the
	// writer, whatever the part's number of pairs (one part may hold far
	// more than its share: a group of g identical copies has g(g-1)/2
	// pairs, most of them with its first members).
	partFlush = 1 << 20
)

// writeRanges writes to w, in order, the pairs that seq yields for the
// parts [0, step), [step, 2*step), ... of [0, n), produced and formatted by
// format on workers goroutines, a part at a time, while the calling
// goroutine writes (producing and formatting the pairs is most of the
// time of writing a large pairs file). A part's bytes go to the writer in
// buffers of about partFlush bytes through a channel of its own, so memory
// stays at a few buffers per worker whatever the number of pairs in a
// part. After a write error it stops the workers and returns it. progress,
// when not nil, is called on the calling goroutine with the number of
// pairs of each buffer written.
func writeRanges[P any](w io.Writer, n, step int, seq func(lo, hi int) iter.Seq[P],
	format func([]byte, []P) []byte, workers int, progress func(pairs int64)) error {
	type chunk struct {
		out   []byte
		pairs int
	}
	type part struct {
		lo, hi int
		out    chan chunk // closed when the part is done
	}
	workers = max(workers, 1)
	jobs := make(chan part)
	queue := make(chan part, 8*workers) // in order, for the writer
	// The buffers: a part starts with one from free (nil: not made yet),
	// so at most cap(free) of them are in the parts' hands, besides those
	// a part of more than partFlush bytes adds (made if free has none). A
	// worker takes its buffer before its part, so the part the writer
	// waits for is never held up for one; a buffer goes back to free
	// unless free is full, so free is never empty while every buffer is
	// in the writer's hands.
	free := make(chan []byte, 8*workers+2)
	for range cap(free) - workers {
		free <- nil
	}
	stopped := make(chan struct{}) // closed after a write error
	isStopped := func() bool {
		select {
		case <-stopped:
			return true
		default:
			return false
		}
	}
	// Buffers have room for a flush and a batch of lines over it.
	made := func(buf []byte) []byte {
		if buf == nil {
			buf = make([]byte, 0, 2*partFlush)
		}
		return buf
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			ps := make([]P, 0, pairBatch)
			for {
				buf := <-free
				j, ok := <-jobs
				if !ok {
					return
				}
				buf = made(buf)
				npairs := 0
				flush := func() {
					buf = format(buf, ps)
					npairs += len(ps)
					ps = ps[:0]
					if len(buf) >= partFlush {
						j.out <- chunk{buf, npairs}
						npairs = 0
						select {
						case buf = <-free:
						default:
							buf = nil
						}
						buf = made(buf)
					}
				}
				for p := range seq(j.lo, j.hi) {
					ps = append(ps, p)
					if len(ps) == pairBatch {
						flush()
						if isStopped() {
							break
						}
					}
				}
				flush()
				if npairs > 0 {
					j.out <- chunk{buf, npairs}
				} else {
					select {
					case free <- buf[:0]:
					default: // full: dropped, as the writer does
					}
				}
				close(j.out)
			}
		})
	}
	// The parts go to the workers and, in the same order, to the writer.
	go func() {
		defer close(queue)
		defer close(jobs)
		for lo := 0; lo < n && !isStopped(); lo += step {
			p := part{lo: lo, hi: min(lo+step, n), out: make(chan chunk, 2)}
			queue <- p
			jobs <- p
		}
	}()
	var err error
	for p := range queue {
		for c := range p.out { // drained after an error too: its worker ends
			if err == nil {
				if _, err = w.Write(c.out); err != nil {
					close(stopped)
				}
				if progress != nil {
					progress(int64(c.pairs))
				}
			}
			select {
			case free <- c.out[:0]:
			default:
			}
		}
	}
	wg.Wait()
	return err
}
