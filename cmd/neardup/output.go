package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/internal/atomicfile"
	"github.com/neardup/neardup/internal/dedupout"
	"github.com/neardup/neardup/internal/prefetch"
)

// pending is an output being written: committed only when every output of
// the run has been written without error (commitAll).
type pending struct {
	name    string
	file    *atomicfile.File // nil for standard output
	w       *bufio.Writer
	publish func() (undo func() error, err error) // for directories
	abort   func()
}

// openOutput starts writing path ("-": standard output). Once ctx is
// done, writes fail with its error, so that a writer stops at its next
// flush.
func openOutput(ctx context.Context, e *env, path string) (*pending, error) {
	if path == "-" {
		return &pending{name: "standard output", w: bufio.NewWriterSize(ctxWriter{ctx, e.stdout}, 1<<16)}, nil
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, namePath("create", path, err)
	}
	return &pending{name: path, file: f, w: bufio.NewWriterSize(ctxWriter{ctx, f}, 1<<16)}, nil
}

// ctxWriter fails every write once ctx is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// writeErr names the output of a failed write, unless err names a file
// already (the output's writer reports its own path).
func writeErr(name string, err error) error {
	if _, ok := errors.AsType[*fs.PathError](err); ok {
		return err
	}
	return fmt.Errorf("write %s: %w", name, err)
}

// prepare writes out what is buffered and makes the file durable, ready
// to be published.
func (p *pending) prepare() error {
	if p.publish != nil {
		return nil
	}
	if err := p.w.Flush(); err != nil {
		return writeErr(p.name, err)
	}
	if p.file != nil {
		return p.file.Prepare()
	}
	return nil
}

// publishOut puts a prepared output in place and returns how to take it
// back (nil for standard output, which cannot be).
func (p *pending) publishOut() (undo func() error, done func() error, err error) {
	if p.publish != nil {
		undo, err := p.publish()
		return undo, func() error { return nil }, err
	}
	if p.file == nil {
		return nil, func() error { return nil }, nil
	}
	pub, err := p.file.Publish()
	if err != nil {
		return nil, nil, err
	}
	return pub.Undo, pub.Done, nil
}

// finish commits one output on its own.
func (p *pending) finish(ctx context.Context) error {
	return commitAll(ctx, []*pending{p})
}

func (p *pending) discard() {
	if p.abort != nil {
		p.abort()
	}
	if p.file != nil {
		p.file.Abort()
	}
}

// beforePublish, when not nil, is called before the i-th output is put in
// place (tests stop the run there).
var beforePublish func(i int)

// commitAll puts every output in place, or none: each is made durable,
// then they are renamed over their paths one after the other, each
// predecessor kept aside; if one fails, or ctx is done (a signal) before
// the last is in place, those already in place are taken back and the
// files that were there before are restored. Once every output is in
// place the run is done: a signal after that changes nothing. Standard
// output, written as it goes, cannot be taken back.
func commitAll(ctx context.Context, outs []*pending) (err error) {
	next := 0 // outs[next:] are not in place
	defer func() {
		if err != nil {
			for _, p := range outs[next:] {
				p.discard()
			}
		}
	}()
	for _, p := range outs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := p.prepare(); err != nil {
			return err
		}
	}
	var undos, dones []func() error
	takeBack := func() {
		for i := len(undos) - 1; i >= 0; i-- {
			if undos[i] != nil {
				undos[i]()
			}
		}
	}
	for i, p := range outs {
		if beforePublish != nil {
			beforePublish(i)
		}
		if err := ctx.Err(); err != nil {
			takeBack()
			return err
		}
		undo, done, err := p.publishOut()
		next = i + 1
		if err != nil {
			takeBack()
			return err
		}
		undos, dones = append(undos, undo), append(dones, done)
	}
	if err := ctx.Err(); err != nil {
		takeBack()
		return err
	}
	for _, done := range dones {
		if err := done(); err != nil {
			return err
		}
	}
	return nil
}

// earlyPairs is the pairs file being written while Run builds the
// clusters (Options.OnPairs).
type earlyPairs struct {
	out  *pending // nil if it could not be created (err)
	err  error
	done chan written // the writing's error and seconds
	got  *written     // what done gave, once received
}

// written is what writing an output on a goroutine of its own hands back.
type written struct {
	err     error
	seconds float64
}

// startPairs starts writing the pairs of res to path on a goroutine of its
// own (see writePairs).
func startPairs(ctx context.Context, e *env, path string, compact bool, b *neardup.Batch, res *neardup.Result, pr *progress) *earlyPairs {
	out, err := openOutput(ctx, e, path)
	if err != nil {
		return &earlyPairs{err: err}
	}
	ep := &earlyPairs{out: out, done: make(chan written, 1)}
	go func() {
		t0 := time.Now()
		err := writePairs(out.w, b, res, compact, pr)
		ep.done <- written{err, time.Since(t0).Seconds()}
	}()
	return ep
}

// wait returns the writing's result once it is done, or the error that
// kept it from starting. It may be called again.
func (ep *earlyPairs) wait() written {
	if ep.err != nil {
		return written{err: ep.err}
	}
	if ep.got == nil {
		d := <-ep.done
		ep.got = &d
	}
	return *ep.got
}

// discard waits for the writing and discards the file; nil does nothing.
func (ep *earlyPairs) discard() {
	if ep == nil || ep.out == nil {
		return
	}
	ep.wait()
	ep.out.discard()
}

// writeOutputs writes every requested output to a temporary file, then
// renames them all; on any error none is renamed. early is the pairs file
// if it is being written already (nil otherwise). start is when the run
// began, for the report's timing; pr shows how the writing goes.
func writeOutputs(ctx context.Context, e *env, f *dedupFlags, src *source, co corpus.Options, b *neardup.Batch, res *neardup.Result, early *earlyPairs, start time.Time, pr *progress) (err error) {
	began := time.Now()
	var outs []*pending
	defer func() {
		if err != nil {
			if early != nil && early.out != nil {
				early.wait() // its goroutine is done with the file
			}
			for _, p := range outs {
				p.discard()
			}
		}
	}()
	open := func(path string) (*pending, error) {
		p, err := openOutput(ctx, e, path)
		if err == nil {
			outs = append(outs, p)
		}
		return p, err
	}
	// The time of each output written before --stats, which reports it.
	times := map[string]float64{}
	var pairsOut, clustersOut *pending
	switch {
	case early != nil:
		if early.out == nil {
			return early.err
		}
		pairsOut = early.out
		outs = append(outs, pairsOut)
	case f.pairs != "":
		if pairsOut, err = open(f.pairs); err != nil {
			return err
		}
	}
	if f.clusters != "" {
		if clustersOut, err = open(f.clusters); err != nil {
			return err
		}
	}
	// The clusters are written on a goroutine of their own beside the
	// pairs, whose formatting leaves part of a core idle (at 10M
	// documents the clusters took 1.3-2.4 s after the pairs' 20); both
	// are done before any error is returned.
	var clusters chan written
	if clustersOut != nil {
		clusters = make(chan written, 1)
		if pairsOut == nil {
			pr.set("writing clusters", 0)
		}
		go func() {
			t0 := time.Now()
			err := writeClusters(clustersOut.w, b, res)
			clusters <- written{err, time.Since(t0).Seconds()}
		}()
	}
	if pairsOut != nil {
		var d written
		if early != nil {
			d = early.wait()
		} else {
			t0 := time.Now()
			d.err = writePairs(pairsOut.w, b, res, f.pairsCompact, pr)
			d.seconds = time.Since(t0).Seconds()
		}
		times["write_pairs"] = d.seconds
		if d.err != nil {
			if clusters != nil {
				<-clusters
			}
			return writeErr(pairsOut.name, d.err)
		}
	}
	if clusters != nil {
		d := <-clusters
		if d.err != nil {
			return writeErr(clustersOut.name, d.err)
		}
		times["write_clusters"] = d.seconds
	}
	if f.output != "" {
		pr.set("writing the deduplicated corpus", int64(len(res.Dup)))
		p, err := writeCorpus(ctx, e, f.output, src, co, res, pr)
		if p != nil {
			outs = append(outs, p)
		}
		if err != nil {
			return err
		}
	}
	if f.stats != "" {
		p, err := open(f.stats)
		if err != nil {
			return err
		}
		if err := writeStats(p.w, src, b, res, times, f.memoryLimit.resolve()); err != nil {
			return writeErr(p.name, err)
		}
	}
	if f.report != "" {
		// Last, so that its timing panel covers the other outputs.
		pr.set("writing the report", 0)
		p, err := open(f.report)
		if err != nil {
			return err
		}
		if err := writeReport(p.w, e, src, co, b, res, reportTiming{start: start, write: time.Since(began)}); err != nil {
			return writeErr(p.name, err)
		}
	}
	// commitAll discards what it does not put in place.
	all := outs
	outs = nil
	return commitAll(ctx, all)
}

// writePairs writes id_a, id_b, jaccard, and with --refine edit a fourth
// column, the edit similarity: every pair (Result.AllPairs, produced by
// ranges of documents on every processor: Result.PairLister), or
// with compact the compact listing (Result.Pairs: identical copies as a
// star around the earliest, pairs with other documents for the earliest
// copy only). Each written pair is counted in pr.
func writePairs(w *bufio.Writer, b *neardup.Batch, res *neardup.Result, compact bool, pr *progress) error {
	edit := b.Options().Refine == neardup.RefineEdit
	tail := func(buf []byte, p neardup.Pair, num *dedupout.NumberCache) []byte {
		buf = append(buf, '\t')
		buf = num.Append(buf, p.Jaccard)
		if edit {
			buf = append(buf, '\t')
			buf = strconv.AppendFloat(buf, p.Edit, 'f', 6, 64)
		}
		return append(buf, '\n')
	}
	// The lines are dedupout.AppendEscapedPair's bytes.
	pairs := res.Stats.Pairs
	if compact {
		pairs = len(res.Pairs)
	}
	t := newIDTable(b.IDs(), pairs, runtime.GOMAXPROCS(0))
	const ahead = 16 // pairs
	var format func(buf []byte, ps []neardup.Pair) []byte
	if t.slots != nil {
		format = func(buf []byte, ps []neardup.Pair) []byte {
			var num dedupout.NumberCache // runs of pairs share a Jaccard
			for k, p := range ps {
				if k+ahead < len(ps) {
					t.prefetchSlot(ps[k+ahead].B)
				}
				buf = t.appendSlot(buf, p.A)
				buf = append(buf, '\t')
				buf = t.appendSlot(buf, p.B)
				buf = tail(buf, p, &num)
			}
			return buf
		}
	} else {
		// Both steps of reading B's id (its header, then its bytes)
		// prefetched.
		ids := t.ids
		format = func(buf []byte, ps []neardup.Pair) []byte {
			var num dedupout.NumberCache
			for k, p := range ps {
				if k+ahead < len(ps) {
					prefetch.Line(&ids[ps[k+ahead].B])
				}
				if k+ahead/2 < len(ps) {
					if s := ids[ps[k+ahead/2].B]; len(s) > 0 {
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
	if compact {
		pr.set("writing pairs", int64(len(res.Pairs)))
		ps := res.Pairs
		return writeRanges(w, len(ps), compactStep, func(lo, hi int) iter.Seq[neardup.Pair] { return slices.Values(ps[lo:hi]) },
			format, runtime.GOMAXPROCS(0), pr)
	}
	pr.set("writing pairs", int64(res.Stats.Pairs))
	l := res.PairLister()
	// Parts of about partPairs pairs on average (10M documents and 268
	// million pairs: 16,356 parts of 611 documents).
	nd := int64(l.Documents())
	step := int(min(nd, max(1, nd*partPairs/max(int64(res.Stats.Pairs), 1))))
	return writeRanges(w, int(nd), step, l.Range, format, runtime.GOMAXPROCS(0), pr)
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
			if !dedupout.NeedsEscape(ids[d]) {
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
	return dedupout.EscapeField(t.ids[d])
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
// part. After a write error it stops the workers and returns it.
func writeRanges(w *bufio.Writer, n, step int, seq func(lo, hi int) iter.Seq[neardup.Pair],
	format func([]byte, []neardup.Pair) []byte, workers int, pr *progress) error {
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
			ps := make([]neardup.Pair, 0, pairBatch)
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
				pr.add(int64(c.pairs))
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

// clusterJSON, memberJSON and jnum are dedupout's, shared with the Beam
// pipeline so that both write the same bytes.
type (
	clusterJSON = dedupout.Cluster
	memberJSON  = dedupout.Member
)

func jnum(x float64) json.Number { return dedupout.Number(x) }

func writeClusters(w *bufio.Writer, b *neardup.Batch, res *neardup.Result) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	var line clusterJSON
	for _, c := range res.Clusters {
		line.Cluster = c.ID
		line.Size = len(c.Members)
		line.Representative = b.ID(c.Representative)
		line.Members = line.Members[:0]
		for _, m := range c.Members {
			mj := memberJSON{ID: b.ID(m.Doc), Jaccard: jnum(m.Jaccard)}
			if b.Options().Refine == neardup.RefineEdit {
				e := jnum(m.Edit)
				mj.Edit = &e
			}
			line.Members = append(line.Members, mj)
		}
		line.MinJaccard = jnum(c.MinJaccard())
		line.BelowThreshold = c.Below(b.Options().Threshold)
		line.Review = c.Review
		if err := enc.Encode(&line); err != nil {
			return err
		}
	}
	return nil
}

// writeCorpus writes the inputs without their duplicates.
func writeCorpus(ctx context.Context, e *env, path string, src *source, co corpus.Options, res *neardup.Result, pr *progress) (*pending, error) {
	// dropped[file] lists the record numbers to leave out, ascending.
	dropped := make([][]int32, len(src.inputs))
	for d, dup := range res.Dup {
		if dup {
			f := src.fileOf[d]
			dropped[f] = append(dropped[f], src.numOf[d])
		}
	}
	keep := func(file, num int) bool {
		pr.add(1)
		_, found := slices.BinarySearch(dropped[file], int32(num))
		return !found
	}
	// A directory's files are copied by corpus.FilterDir: once ctx is
	// done, the rest are skipped.
	keepFile := func(num int) bool { return ctx.Err() == nil && keep(0, num) }
	co.Format = src.format
	if src.format == corpus.Dir {
		if len(src.inputs) != 1 {
			return nil, fmt.Errorf("%w: --output with a directory input needs that directory as the only input", errUsage)
		}
		if path == "-" {
			return nil, fmt.Errorf("%w: --output - cannot hold a directory", errUsage)
		}
		if _, err := os.Lstat(path); err == nil {
			return nil, fmt.Errorf("--output %s: already exists (a directory output is never overwritten)", path)
		}
		tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp"+strconv.Itoa(os.Getpid()))
		os.RemoveAll(tmp)
		p := &pending{name: path,
			publish: func() (func() error, error) {
				if err := os.Rename(tmp, path); err != nil {
					os.RemoveAll(tmp)
					return nil, fmt.Errorf("write %s: %w", path, err)
				}
				return func() error { return os.RemoveAll(path) }, nil
			},
			abort: func() { os.RemoveAll(tmp) },
		}
		err := corpus.FilterDir(tmp, src.inputs[0], keepFile)
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			os.RemoveAll(tmp)
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		return p, nil
	}
	p, err := openOutput(ctx, e, path)
	if err != nil {
		return nil, err
	}
	cw, err := corpus.NewCompressWriter(p.w, path)
	if err != nil {
		p.discard()
		return nil, err
	}
	if err := corpus.Filter(cw, src.inputs, co, keep); err != nil {
		p.discard()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if err := cw.Close(); err != nil {
		p.discard()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return p, nil
}

// statsJSON is the --stats document.
type statsJSON struct {
	Inputs         []string              `json:"inputs"`
	Documents      int                   `json:"documents"`
	Empty          int                   `json:"empty_documents"`
	Skipped        int                   `json:"skipped_bad_records"`
	SkippedBinary  int                   `json:"skipped_binary_files"`
	InvalidUTF8    int                   `json:"invalid_utf8_documents"`
	Shingles       int64                 `json:"shingles"`
	Distinct       int                   `json:"distinct_shingle_sets"`
	Identical      int                   `json:"identical_documents"`
	Candidates     int64                 `json:"candidate_pairs"`
	LargeBuckets   int64                 `json:"large_buckets"`
	LargestBucket  int                   `json:"largest_bucket"`
	BucketPairs    int64                 `json:"bucket_pairs"`   // pairs of members of the LSH buckets paired, over the bands (each candidate once a band it shares a bucket in)
	BucketMembers  int64                 `json:"bucket_members"` // members of those buckets, over the bands
	BucketSizes    map[string]bucketJSON `json:"bucket_sizes"`   // those buckets by size class: "2-3", "4-7", ..., powers of two
	Verified       int                   `json:"verified_pairs"`
	Pairs          int                   `json:"reported_pairs"` // every pair, as --pairs lists them
	CompactPairs   int                   `json:"compact_pairs"`  // as --pairs-compact lists them
	DuplicateIDs   int                   `json:"duplicate_ids"`  // documents repeating an earlier document's id
	Clusters       int                   `json:"clusters"`
	Duplicates     int                   `json:"duplicates"`
	LargestCluster int                   `json:"largest_cluster"`
	ClusterSizes   map[string]int        `json:"cluster_sizes"`            // clusters per size class: "2", "3-5", "6-20", "21-100", ">100"
	BelowClusters  int                   `json:"clusters_below_threshold"` // clusters with a member below t with its representative
	Review         int                   `json:"review_clusters"`          // clusters over --max-cluster, not deduplicated
	ReviewDocs     int                   `json:"review_documents"`
	Params         paramsJSON            `json:"params"`
	Passes         int                   `json:"passes"`                       // 2 when the sets were read again for the candidates only (--memory-limit)
	Reread         int                   `json:"reread_documents"`             // documents read again in the second pass
	Held           int64                 `json:"held_pairs"`                   // candidate pairs held for the second pass
	PeakRSS        int64                 `json:"peak_rss_bytes,omitempty"`     // the process's peak resident memory when the stats were written (getrusage; absent where not known)
	MemoryLimit    int64                 `json:"memory_limit_bytes,omitempty"` // --memory-limit in bytes, auto resolved (absent for none)
	Seconds        map[string]float64    `json:"seconds"`
	Bytes          int64                 `json:"text_bytes"`
}

// bucketJSON is one size class of LSH buckets in --stats.
type bucketJSON struct {
	Buckets int64 `json:"buckets"`
	Members int64 `json:"members"`
	Pairs   int64 `json:"pairs"`
}

// bucketClasses returns the --stats view of Stats.Buckets: the non-empty
// size classes by name, and the members and pairs of all of them.
func bucketClasses(s neardup.Stats) (classes map[string]bucketJSON, members, pairs int64) {
	classes = map[string]bucketJSON{}
	for k, c := range s.Buckets {
		if c.Buckets == 0 {
			continue
		}
		classes[fmt.Sprintf("%d-%d", 1<<k, 2<<k-1)] = bucketJSON(c)
		members += c.Members
		pairs += c.Pairs
	}
	return classes, members, pairs
}

type paramsJSON struct {
	Shingle   string  `json:"shingle"`
	Ngram     int     `json:"ngram"`
	Bag       bool    `json:"bag"`
	Slots     int     `json:"num_perm"`
	Seed      uint64  `json:"seed"`
	Threshold float64 `json:"threshold"`
	Recall    float64 `json:"recall"`
	Bands     int     `json:"bands"`
	Rows      int     `json:"rows"`
	PAtT      float64 `json:"p_candidate_at_threshold"`
	Verify    string  `json:"verify"`
	Weight    string  `json:"weight"`
	Refine    string  `json:"refine"`
	Keep      string  `json:"keep"`
	Cluster   string  `json:"cluster"`
	MaxClust  int     `json:"max_cluster"`
	Workers   int     `json:"workers"`
	MaxBucket int     `json:"max_bucket"`
}

func makeStats(src *source, b *neardup.Batch, res *neardup.Result) statsJSON {
	o := b.Options()
	s := res.Stats
	buckets, members, pairs := bucketClasses(s)
	return statsJSON{
		BucketSizes: buckets, BucketMembers: members, BucketPairs: pairs,
		Inputs: src.names, Documents: s.Documents, Empty: s.Empty, Skipped: src.skipped, SkippedBinary: src.binary, InvalidUTF8: s.InvalidUTF8,
		Shingles: s.Shingles, Distinct: s.Distinct, Identical: s.Identical, Candidates: s.Candidates,
		LargeBuckets: s.LargeBuckets, LargestBucket: s.LargestBucket, Verified: s.Verified, Pairs: s.Pairs, CompactPairs: s.CompactPairs,
		DuplicateIDs: s.DuplicateIDs, Clusters: s.Clusters,
		Duplicates: s.Duplicates, LargestCluster: s.LargestCluster, Bytes: src.bytes.Load(),
		ClusterSizes: sizeClasses(res), BelowClusters: s.BelowClusters, Review: s.Review, ReviewDocs: s.ReviewDocs,
		Params: paramsJSON{Shingle: o.Shingle.Mode.String(), Ngram: o.Shingle.N, Bag: o.Shingle.Bag, Slots: o.Slots,
			Seed: o.Seed, Threshold: o.Threshold, Recall: o.Recall, Bands: o.LSH.Bands, Rows: o.LSH.Rows,
			PAtT: o.LSH.Probability(o.Threshold), Verify: o.Verify.String(), Weight: o.Weight.String(), Refine: o.Refine.String(), Keep: o.Keep.String(),
			Cluster: o.Cluster.String(), MaxClust: o.MaxCluster,
			Workers: o.Workers, MaxBucket: o.MaxBucket},
		Seconds: map[string]float64{
			"read_shingle": s.ReadShingle.Seconds(), "collapse": s.Collapse.Seconds(), "sign": s.Sign.Seconds(),
			"lsh_verify": s.Candidate.Seconds(), "cluster": s.Group.Seconds(), "refine": s.Refine.Seconds(),
			"second_pass": s.Second.Seconds(), "second_pass_verify": s.SecondVerify.Seconds(),
		},
		Passes: s.Passes, Reread: s.Reread, Held: s.Held,
	}
}

// writeStats writes the run's summary as JSON, with written (seconds by
// name: the outputs written before it) among its seconds, the memory limit
// in bytes (0: none) and the process's peak memory so far.
func writeStats(w io.Writer, src *source, b *neardup.Batch, res *neardup.Result, written map[string]float64, limit int64) error {
	st := makeStats(src, b, res)
	maps.Copy(st.Seconds, written)
	st.MemoryLimit = limit
	st.PeakRSS, _ = peakRSS()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(st)
}

// printSummary writes the run's summary; why says why it took two passes,
// limit is --memory-limit in bytes (0: none).
func printSummary(w io.Writer, b *neardup.Batch, src *source, res *neardup.Result, why string, limit int64, write, total time.Duration) {
	o := b.Options()
	s := res.Stats
	mode := fmt.Sprintf("%s %d-grams", o.Shingle.Mode, o.Shingle.N)
	if o.Shingle.Bag {
		mode += " (bag)"
	}
	fmt.Fprintf(w, "neardup: %s, %s of text (%d empty, %d skipped as bad, %d with invalid UTF-8)\n",
		plural(s.Documents, "document", "documents"), humanBytes(src.bytes.Load()), s.Empty, src.skipped, s.InvalidUTF8)
	if src.binary > 0 {
		fmt.Fprintf(w, "  binary:     %s of directory inputs left out (--include-binary reads %s)\n", plural(src.binary, "file", "files"), pick(src.binary, "it", "them"))
	}
	if s.DuplicateIDs > 0 {
		var ex []string
		for _, d := range res.DuplicateIDs[:min(3, len(res.DuplicateIDs))] {
			ex = append(ex, describeDuplicate(src, d))
		}
		fmt.Fprintf(w, "  warning:    %s an earlier id (--strict-ids makes this an error), e.g. %s\n",
			plural(s.DuplicateIDs, "document repeats", "documents repeat"), strings.Join(ex, "; "))
	}
	fmt.Fprintf(w, "  shingles:   %d %s; %s, %s identical to an earlier one\n",
		s.Shingles, mode, plural(s.Distinct, "distinct set", "distinct sets"), plural(s.Identical, "document", "documents"))
	fmt.Fprintf(w, "  lsh:        %s, %s x %s, P(candidate | J=%.2f) = %.4f; %s",
		plural(o.Slots, "slot", "slots"), plural(o.LSH.Bands, "band", "bands"), plural(o.LSH.Rows, "row", "rows"), o.Threshold, o.LSH.Probability(o.Threshold), plural(s.Candidates, "candidate pair", "candidate pairs"))
	if s.LargeBuckets > 0 {
		fmt.Fprintf(w, " (%s over --max-bucket %d compared by signature, the largest of %d)", plural(s.LargeBuckets, "bucket", "buckets"), o.MaxBucket, s.LargestBucket)
	}
	fmt.Fprintln(w)
	kind := o.Verify.String()
	if o.Weight == neardup.WeightIDF {
		kind += " idf-weighted"
	}
	fmt.Fprintf(w, "  verified:   %s with %s Jaccard >= %g (%d reported, identical sets included)\n",
		plural(s.Verified, "pair", "pairs"), kind, o.Threshold, s.Pairs)
	fmt.Fprintf(w, "  clusters:   %d, largest %s; %s to drop\n", s.Clusters, plural(s.LargestCluster, "document", "documents"), plural(s.Duplicates, "duplicate", "duplicates"))
	printClusterCheck(w, o, res)
	if o.Refine == neardup.RefineEdit {
		fmt.Fprintf(w, "  refine:     edit similarity of %s and cluster members in %s\n", plural(len(res.Pairs), "pair", "pairs"), dur(s.Refine))
	}
	if s.Passes == 2 {
		fmt.Fprintf(w, "  passes:     2 (%s): %s held after the signature pre-filter, the %s in them read again and the pairs verified in %s\n", why, plural(s.Held, "candidate pair", "candidate pairs"), plural(s.Reread, "document", "documents"), dur(s.Second))
	}
	printMemory(w, o, s.Passes, limit)
	second := ""
	if s.Passes == 2 {
		second = ", second pass " + dur(s.Second)
	}
	fmt.Fprintf(w, "  time:       read+shingle %s, identical %s, sign %s%s, lsh+verify %s, cluster %s, write %s; total %s\n",
		dur(s.ReadShingle), dur(s.Collapse), dur(s.Sign), second, dur(s.Candidate), dur(s.Group), dur(write), dur(total))
}

// printMemory writes the summary's memory line: the process's peak
// resident memory beside --memory-limit (limit bytes, 0: none), and a
// warning with the reason when the peak went over the limit, which is a
// plan and a soft limit for the Go runtime, not a hard cap.
func printMemory(w io.Writer, o neardup.Options, passes int, limit int64) {
	peak, ok := peakRSS()
	if !ok {
		return
	}
	lim := "none"
	if limit > 0 {
		lim = humanBytes(limit)
	}
	fmt.Fprintf(w, "  memory:     peak %s resident (--memory-limit %s)\n", humanBytes(peak), lim)
	if limit <= 0 || peak <= limit {
		return
	}
	var why string
	switch {
	case passes == 2:
		why = "two passes still keep every document's signature and set bitmap, the candidate pairs held and the sets read again, which a lower limit does not reduce"
	case o.Verify == neardup.VerifyEstimate:
		why = "--verify estimate keeps no shingle set but every document's signature, which a lower limit does not reduce"
	case !o.CanTwoPass():
		why = "one pass keeps every shingle set, and --weight idf and --refine edit cannot take two passes"
	default:
		why = fmt.Sprintf("one pass was estimated at %g times the input, under the limit; a lower limit takes two passes", neardup.OnePassPerByte)
	}
	fmt.Fprintf(w, "  warning:    the peak was over --memory-limit: %s\n", why)
}

// sizeBounds are the upper bounds of the cluster size classes of the
// summary and --stats; the last class is open.
var sizeBounds = []struct {
	max  int
	name string
}{{2, "2"}, {5, "3-5"}, {20, "6-20"}, {100, "21-100"}, {math.MaxInt, ">100"}}

// sizeClasses counts the clusters in each size class.
func sizeClasses(res *neardup.Result) map[string]int {
	m := make(map[string]int, len(sizeBounds))
	for _, sb := range sizeBounds {
		m[sb.name] = 0
	}
	for _, c := range res.Clusters {
		for _, sb := range sizeBounds {
			if len(c.Members) <= sb.max {
				m[sb.name]++
				break
			}
		}
	}
	return m
}

// printClusterCheck prints the lines that flag suspicious clusters: the size
// distribution and largest cluster, the clusters with members below the
// threshold, and those set aside by --max-cluster.
func printClusterCheck(w io.Writer, o neardup.Options, res *neardup.Result) {
	s := res.Stats
	if s.Clusters == 0 {
		return
	}
	classes := sizeClasses(res)
	var parts []string
	for _, sb := range sizeBounds {
		parts = append(parts, fmt.Sprintf("%s: %d", sb.name, classes[sb.name]))
	}
	big := &res.Clusters[0]
	for i := range res.Clusters {
		if len(res.Clusters[i].Members) > len(big.Members) {
			big = &res.Clusters[i]
		}
	}
	fmt.Fprintf(w, "  sizes:      %s; largest: cluster %d, %d documents, min Jaccard %.3f with its representative\n",
		strings.Join(parts, ", "), big.ID, len(big.Members), big.MinJaccard())
	fmt.Fprintf(w, "  check:      %s (%s mode) %s below Jaccard %g with %s representative\n",
		plural(s.BelowClusters, "cluster", "clusters"), o.Cluster, pick(s.BelowClusters, "has members", "have members"), o.Threshold, pick(s.BelowClusters, "its", "their"))
	if o.MaxCluster > 0 {
		fmt.Fprintf(w, "  review:     %s over --max-cluster %d (%s) kept whole, not deduplicated\n",
			plural(s.Review, "cluster", "clusters"), o.MaxCluster, plural(s.ReviewDocs, "document", "documents"))
	}
}

func dur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
