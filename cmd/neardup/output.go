package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cmd/neardup/internal/corpusout"
	"github.com/neardup/neardup/cmd/neardup/internal/human"
	"github.com/neardup/neardup/cmd/neardup/internal/report"
	"github.com/neardup/neardup/cmd/neardup/internal/summary"
	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/internal/atomicfile"
	"github.com/neardup/neardup/internal/dedupout"
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
	o := &outputRun{ctx: ctx, e: e, f: f, src: src, co: co, b: b, res: res, pr: pr, times: map[string]float64{}}
	defer func() {
		if err != nil {
			if early != nil && early.out != nil {
				early.wait() // its goroutine is done with the file
			}
			for _, p := range o.outs {
				p.discard()
			}
		}
	}()
	if err := o.pairsAndClusters(early); err != nil {
		return err
	}
	if f.output != "" {
		pr.set("writing the deduplicated corpus", int64(len(res.Dup)))
		p, err := writeCorpus(ctx, e, f.output, src, co, res, pr)
		if p != nil {
			o.outs = append(o.outs, p)
		}
		if err != nil {
			return err
		}
	}
	if f.stats != "" {
		p, err := o.open(f.stats)
		if err != nil {
			return err
		}
		if err := writeStats(p.w, src, b, res, o.times, f.memoryLimit.resolve()); err != nil {
			return writeErr(p.name, err)
		}
	}
	if f.report != "" {
		// Last, so that its timing panel covers the other outputs.
		if err := o.report(start, began); err != nil {
			return err
		}
	}
	// commitAll discards what it does not put in place.
	all := o.outs
	o.outs = nil
	return commitAll(ctx, all)
}

// outputRun is writeOutputs' state: what it writes from, the outputs
// opened so far (discarded after an error) and the time of each output
// written before --stats, which reports it.
type outputRun struct {
	ctx   context.Context
	e     *env
	f     *dedupFlags
	src   *source
	co    corpus.Options
	b     *neardup.Batch
	res   *neardup.Result
	pr    *progress
	outs  []*pending
	times map[string]float64
}

// open opens the output at path and keeps it among o.outs.
func (o *outputRun) open(path string) (*pending, error) {
	p, err := openOutput(o.ctx, o.e, path)
	if err == nil {
		o.outs = append(o.outs, p)
	}
	return p, err
}

// pairsAndClusters writes --pairs (or waits for early, which writes it)
// and --clusters. The clusters are written on a goroutine of their own
// beside the pairs, whose formatting leaves part of a core idle (at 10M
// documents the clusters took 1.3-2.4 s after the pairs' 20); both are
// done before any error is returned.
func (o *outputRun) pairsAndClusters(early *earlyPairs) (err error) {
	var pairsOut, clustersOut *pending
	switch {
	case early != nil:
		if early.out == nil {
			return early.err
		}
		pairsOut = early.out
		o.outs = append(o.outs, pairsOut)
	case o.f.pairs != "":
		if pairsOut, err = o.open(o.f.pairs); err != nil {
			return err
		}
	}
	if o.f.clusters != "" {
		if clustersOut, err = o.open(o.f.clusters); err != nil {
			return err
		}
	}
	var clusters chan written
	if clustersOut != nil {
		clusters = make(chan written, 1)
		if pairsOut == nil {
			o.pr.set("writing clusters", 0)
		}
		go func() {
			t0 := time.Now()
			err := writeClusters(clustersOut.w, o.b, o.res)
			clusters <- written{err, time.Since(t0).Seconds()}
		}()
	}
	if pairsOut != nil {
		var d written
		if early != nil {
			d = early.wait()
		} else {
			t0 := time.Now()
			d.err = writePairs(pairsOut.w, o.b, o.res, o.f.pairsCompact, o.pr)
			d.seconds = time.Since(t0).Seconds()
		}
		o.times["write_pairs"] = d.seconds
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
		o.times["write_clusters"] = d.seconds
	}
	return nil
}

// report writes --report, given the run's start and the start of writing
// the outputs.
func (o *outputRun) report(start, began time.Time) error {
	o.pr.set("writing the report", 0)
	p, err := o.open(o.f.report)
	if err != nil {
		return err
	}
	r := report.Run{Inputs: o.src.names, Bytes: o.src.bytes.Load(), Skipped: o.src.skipped, Start: start, Write: time.Since(began),
		Reread: func(ctx context.Context, want func(int) bool, visit func(int, []byte) error) ([]string, error) {
			return rereadDocs(ctx, o.e, o.src, o.co, want, visit)
		}}
	if err := report.Write(p.w, o.b, o.res, r); err != nil {
		return writeErr(p.name, err)
	}
	return nil
}

// writePairs writes id_a, id_b, jaccard, and with --refine edit a fourth
// column, the edit similarity: every pair (Result.AllPairs, produced by
// ranges of documents: Result.PairLister), or with compact the compact
// listing (Result.Pairs: identical copies as a star around the earliest,
// pairs with other documents for the earliest copy only). Each written
// pair is counted in pr.
func writePairs(w *bufio.Writer, b *neardup.Batch, res *neardup.Result, compact bool, pr *progress) error {
	o := dedupout.PairsOptions{Edit: b.Options().Refine == neardup.RefineEdit, Progress: pr.add}
	if compact {
		pr.set("writing pairs", int64(len(res.Pairs)))
		return dedupout.WritePairs(w, b.IDs(), res.Pairs, o)
	}
	pr.set("writing pairs", int64(res.Stats.Pairs))
	l := res.PairLister()
	return dedupout.WritePairRanges(w, b.IDs(), l.Documents(), res.Stats.Pairs, l.Range, o)
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

// writeCorpus writes the inputs without their duplicates
// (corpusout.WriteCorpus, corpusout.WriteCorpusDir), each record counted in
// pr.
func writeCorpus(ctx context.Context, e *env, path string, src *source, co corpus.Options, res *neardup.Result, pr *progress) (*pending, error) {
	dropped := corpusout.NewDropped(len(src.inputs), res.Dup, src.fileOf, src.numOf)
	keep := func(file, num int) bool {
		pr.add(1)
		return !dropped.Has(file, num)
	}
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
		// Once ctx is done, the rest of the files are skipped.
		tmp, err := corpusout.WriteCorpusDir(path, src.inputs[0], func(num int) bool { return ctx.Err() == nil && keep(0, num) })
		if err == nil {
			if err = ctx.Err(); err != nil {
				os.RemoveAll(tmp)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		return &pending{name: path,
			publish: func() (func() error, error) {
				if err := os.Rename(tmp, path); err != nil {
					os.RemoveAll(tmp)
					return nil, fmt.Errorf("write %s: %w", path, err)
				}
				return func() error { return os.RemoveAll(path) }, nil
			},
			abort: func() { os.RemoveAll(tmp) },
		}, nil
	}
	p, err := openOutput(ctx, e, path)
	if err != nil {
		return nil, err
	}
	if err := corpusout.WriteCorpus(p.w, path, src.inputs, co, keep); err != nil {
		p.discard()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return p, nil
}

// writeStats writes the --stats document, with written (seconds by name:
// the outputs written before it) among its seconds, the memory limit in
// bytes (0: none) and the process's peak memory so far.
func writeStats(w io.Writer, src *source, b *neardup.Batch, res *neardup.Result, written map[string]float64, limit int64) error {
	st := summary.MakeStats(src.summary(), b.Options(), res)
	maps.Copy(st.Seconds, written)
	st.MemoryLimit = limit
	st.PeakRSS, _ = peakRSS()
	return summary.WriteStats(w, &st)
}

// printSummary writes the run's summary; why says why it took two passes,
// limit is --memory-limit in bytes (0: none).
func printSummary(w io.Writer, b *neardup.Batch, src *source, res *neardup.Result, why string, limit int64, write, total time.Duration) {
	o := b.Options()
	r := summary.Run{Input: src.summary(), TwoPass: why, Limit: limit, Write: write, Total: total,
		Describe: func(d neardup.DuplicateID) string { return describeDuplicate(src, d) }}
	r.Peak, r.PeakKnown = peakRSS()
	if r.PeakKnown && limit > 0 && r.Peak > limit {
		r.OverLimit = overLimitReason(o, res.Stats.Passes)
	}
	summary.Print(w, o, res, r)
}

// overLimitReason says why a run's peak memory went over --memory-limit,
// which is a plan and a soft limit for the Go runtime, not a hard cap.
func overLimitReason(o neardup.Options, passes int) string {
	switch {
	case passes == 2:
		return "two passes still keep every document's signature and set bitmap, the candidate pairs held and the sets read again, which a lower limit does not reduce"
	case o.Verify == neardup.VerifyEstimate:
		return "--verify estimate keeps no shingle set but every document's signature, which a lower limit does not reduce"
	case !o.CanTwoPass():
		return "one pass keeps every shingle set, and --weight idf and --refine edit cannot take two passes"
	}
	return fmt.Sprintf("one pass was estimated at %g times the input, under the limit; a lower limit takes two passes", neardup.OnePassPerByte)
}

// dur and humanBytes are human.Duration and human.Bytes, as the report
// shows them.
func dur(d time.Duration) string { return human.Duration(d) }

func humanBytes(n int64) string { return human.Bytes(n) }
