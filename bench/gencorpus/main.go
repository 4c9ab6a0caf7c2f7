// Command gencorpus writes a synthetic corpus with planted near-duplicates
// (see package internal/gen and bench/README.md).
//
//	go run ./bench/gencorpus -n 100000 -seed 1 -o corpus.jsonl [-truth truth.tsv]
//	go run ./bench/gencorpus -sample -o testdata/sample/ads.jsonl
//
// Formats: jsonl ({"id":...,"text":...} per line), csv and tsv (header
// row id,text), text (one document per line, no id). -sample writes job ads
// instead, with a title field: {"id","title","text"} in JSONL and columns
// id,title,description in CSV/TSV. The format defaults to the output's
// extension. Output goes to a temporary file renamed into place at the end,
// so an interrupted run leaves no partial file.
package main

//go:generate go run . -sample -o ../../testdata/sample/ads.jsonl
//go:generate go run . -sample -n 200 -o ../../testdata/sample/ads.csv

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/neardup/neardup/internal/gen"
)

// Sample defaults: the shipped testdata/sample/ads.jsonl.
const (
	sampleDocs = 1500
	sampleSeed = 1
)

type options struct {
	n      int
	seed   uint64
	out    string
	format string
	truth  string
	sample bool
	quiet  bool
	script string     // "latin" (as generated) or "cyrillic"
	cfg    gen.Config // MeanWords, Vocab, DupRate
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.Is(err, errUsage):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("gencorpus", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.n, "n", 0, "number of documents (default 100000, or 1500 with -sample)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed: same seed, same corpus")
	fs.StringVar(&o.out, "o", "-", "output file; - for standard output")
	fs.StringVar(&o.format, "format", "", "jsonl|csv|tsv|text (default: from the -o extension, else jsonl)")
	fs.StringVar(&o.truth, "truth", "", "also write what was planted in each document to this TSV file")
	fs.BoolVar(&o.sample, "sample", false, "write English-like job ads (the shipped sample) instead of pseudo-word text")
	fs.BoolVar(&o.quiet, "q", false, "do not print a summary")
	fs.StringVar(&o.script, "script", "latin", "latin|cyrillic: write the text's letters a-z (and A-Z) as 26 Cyrillic ones, two bytes each, the same corpus otherwise")
	fs.IntVar(&o.cfg.MeanWords, "words", 0, "mean document length in words (default 250)")
	fs.IntVar(&o.cfg.Vocab, "vocab", 0, "vocabulary size (default 50000)")
	fs.Float64Var(&o.cfg.DupRate, "dup", 0, "fraction of planted copies (default 0.3, ads 0.25; negative: none)")
	fs.Float64Var(&o.cfg.ChainRate, "chains", 0, "fraction of copies that are chain steps, copies of copies (default 0.25; negative: none)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gencorpus [flags]\n\nWrites a synthetic corpus with planted near-duplicates.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gencorpus: unexpected argument %q\n", fs.Arg(0))
		return o, errUsage
	}
	if o.n == 0 {
		o.n = 100000
		if o.sample {
			o.n = sampleDocs
		}
	}
	if o.format == "" {
		o.format = formatOf(o.out)
	}
	if o.script != "latin" && o.script != "cyrillic" {
		fmt.Fprintf(stderr, "gencorpus: unknown script %q (want latin or cyrillic)\n", o.script)
		return o, errUsage
	}
	if _, ok := encoders[o.format]; !ok {
		fmt.Fprintf(stderr, "gencorpus: unknown format %q (want jsonl, csv, tsv or text)\n", o.format)
		return o, errUsage
	}
	return o, nil
}

// formatOf returns the format an output path's extension names, or jsonl.
func formatOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return "csv"
	case ".tsv", ".tab":
		return "tsv"
	case ".txt", ".text":
		return "text"
	}
	return "jsonl"
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	start := time.Now()
	c := o.cfg
	c.Docs, c.Seed = o.n, o.seed
	generate, id := gen.Generate, gen.ID
	if o.sample {
		generate, id = gen.GenerateAds, gen.AdID
	}
	var docs int
	size, err := writeFile(o.out, func(w io.Writer) error {
		enc := encoders[o.format](w, o.sample)
		var tw *truthWriter
		if o.truth != "" {
			tw = newTruthWriter(o.n, id)
		}
		var tr []byte
		err := pipeline(ctx, generate, c, func(d gen.Doc) error {
			if tw != nil {
				tw.add(d)
			}
			if o.script == "cyrillic" {
				tr = gen.AppendCyrillic(tr[:0], d.Title)
				d.Title = string(tr)
				tr = gen.AppendCyrillic(tr[:0], d.Text)
				d.Text = string(tr)
			}
			docs++
			return enc.write(d)
		})
		if err == nil {
			err = enc.flush()
		}
		if err == nil && tw != nil {
			_, err = writeFile(o.truth, func(w io.Writer) error { _, err := w.Write(tw.buf); return err })
		}
		return err
	})
	if err != nil {
		return err
	}
	if !o.quiet {
		d := time.Since(start)
		fmt.Fprintf(stderr, "gencorpus: wrote %d docs, %.1f MB to %s in %.1fs (%.0f docs/s)\n",
			docs, float64(size)/1e6, o.out, d.Seconds(), float64(docs)/d.Seconds())
	}
	return nil
}

// pipeline runs generate(c) in its own goroutine and calls consume for each
// document, in order, in the calling goroutine, so that generating and
// encoding/writing overlap (on two cores, about twice as fast). It stops at
// the first error of either side or when ctx is cancelled.
func pipeline(ctx context.Context, generate func(gen.Config, func(int, gen.Doc) error) error,
	c gen.Config, consume func(gen.Doc) error) error {
	const batchDocs = 256
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []gen.Doc, 8)
	genErr := make(chan error, 1)
	go func() {
		defer close(batches)
		b := make([]gen.Doc, 0, batchDocs)
		err := generate(c, func(_ int, d gen.Doc) error {
			b = append(b, d)
			if len(b) < batchDocs {
				return nil
			}
			select {
			case batches <- b:
			case <-ctx.Done():
				return ctx.Err()
			}
			b = make([]gen.Doc, 0, batchDocs)
			return nil
		})
		if err == nil && len(b) > 0 {
			select {
			case batches <- b:
			case <-ctx.Done():
				err = ctx.Err()
			}
		}
		genErr <- err
	}()
	for b := range batches {
		for _, d := range b {
			if err := consume(d); err != nil {
				cancel()
				for range batches { // let the generator see the cancellation and exit
				}
				return err
			}
		}
	}
	return <-genErr
}
