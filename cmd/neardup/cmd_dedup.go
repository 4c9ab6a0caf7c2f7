package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cliflags"
	"github.com/neardup/neardup/corpus"
)

const dedupUsage = `Usage: neardup dedup [flags] INPUT...

Finds near-duplicate documents in the inputs and writes what was asked for.
An INPUT is a file (text: one document per line; JSONL; CSV or TSV with a
header row; Parquet; any of them .gz or .zst compressed), "-" for standard
input, or a directory (one document per file, id = relative path).

Examples:
  neardup dedup --clusters clusters.jsonl ads.jsonl
  neardup dedup --text-field "Title,Short Description" --pairs pairs.tsv ads.tsv
  neardup dedup --threshold 0.8 --output unique.csv.gz --keep longest ads.csv

Flags:
`

type dedupFlags struct {
	in cliflags.Input
	cliflags.Engine

	pairs        string
	pairsCompact bool
	clusters     string
	output       string
	stats        string
	report       string
	quiet        bool
	noProgress   bool
	cpuProfile   string
	memProfile   string
	memoryLimit  memoryLimit
	twoPass      string // why the run takes two passes, "" for one
}

func runDedup(ctx context.Context, e *env, args []string) error {
	var f dedupFlags
	fs := newFlagSet(e, "dedup", dedupUsage)
	f.in.Register(fs)
	f.Engine.Register(fs)
	fs.StringVar(&f.pairs, "pairs", "", "write every near-duplicate pair as TSV: id_a, id_b, jaccard (\"-\": standard output)")
	fs.BoolVar(&f.pairsCompact, "pairs-compact", false, "--pairs lists identical copies as a star around the earliest copy, and pairs with other documents for the earliest copy only")
	fs.StringVar(&f.clusters, "clusters", "", "write clusters of two or more documents as JSONL (\"-\": standard output)")
	fs.StringVar(&f.output, "output", "", "write the corpus without duplicates, in the input's format (.gz/.zst compress)")
	fs.StringVar(&f.stats, "stats", "", "write a JSON summary (\"-\": standard output)")
	fs.StringVar(&f.report, "report", "", "write a self-contained HTML report: summary, charts, largest and most suspicious clusters side by side")
	fs.BoolVar(&f.quiet, "quiet", false, "no summary on standard error")
	fs.BoolVar(&f.noProgress, "no-progress", false, "no progress bar even on a terminal")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile (for go tool pprof)")
	fs.StringVar(&f.memProfile, "memprofile", "", "write a heap profile at the end of the run")
	f.memoryLimit = -1
	fs.Var(&f.memoryLimit, "memory-limit", "when one pass would need more memory than this (about 2.5x the input), take two: keep signatures, then read again only the candidates' documents (auto: 60% of the machine's memory, and two passes over plain files of more than about 100 MB; none: always one pass; or a size such as 8GiB)")
	inputs, err := parseArgs(fs, args, 1, "no input given")
	if err != nil {
		return err
	}
	co, so, err := f.in.Options()
	if err != nil {
		return err
	}
	o, err := f.Engine.Options(so)
	if err != nil {
		return err
	}
	if err := checkOutputs(inputs, &f); err != nil {
		return err
	}
	stop, err := startProfiles(f.cpuProfile, f.memProfile)
	if err != nil {
		return err
	}
	err = dedup(ctx, e, &f, inputs, co, o)
	if perr := stop(); err == nil {
		err = perr
	}
	return err
}

// checkOutputs refuses, before any work is done, output paths that would
// overwrite an input or each other, more than one output to standard
// output, and paths that cannot be written (see checkWritable). Errors name
// the flag and the path as the user gave them.
func checkOutputs(inputs []string, f *dedupFlags) error {
	outs := []struct{ flag, path string }{{"--pairs", f.pairs}, {"--clusters", f.clusters}, {"--output", f.output}, {"--stats", f.stats}, {"--report", f.report}}
	var toStdout []string
	for _, o := range outs {
		if o.path == "-" {
			toStdout = append(toStdout, o.flag+" -")
		}
	}
	if len(toStdout) > 1 {
		return fmt.Errorf("%w: %s: only one output can go to standard output", errUsage, strings.Join(toStdout, " and "))
	}
	// --output of a directory input is a directory, created by the run.
	dirOut := false
	if format, err := corpus.ParseFormat(f.in.Format()); err == nil && (format == corpus.Auto || format == corpus.Dir) && f.output != "" {
		for _, in := range inputs {
			if fi, err := os.Stat(in); in != "-" && err == nil && fi.IsDir() {
				dirOut = true
			}
		}
	}
	if f.output != "" && f.output != "-" && !dirOut {
		if err := checkOutputFormat(f, inputs); err != nil {
			return err
		}
	}
	switch {
	case dirOut && len(inputs) > 1:
		return fmt.Errorf("%w: --output with a directory input needs that directory as the only input", errUsage)
	case dirOut && f.output == "-":
		return fmt.Errorf("%w: --output - cannot hold a directory", errUsage)
	}
	seen := map[string]string{}
	for _, in := range inputs {
		if in != "-" {
			seen[absPath(in)] = "input " + in
		}
	}
	outs = append(outs, struct{ flag, path string }{"--cpuprofile", f.cpuProfile}, struct{ flag, path string }{"--memprofile", f.memProfile})
	for _, o := range outs {
		// Any number of outputs may be discarded to the null device.
		if o.path == "" || o.path == "-" || o.path == os.DevNull {
			continue
		}
		if prev, ok := seen[absPath(o.path)]; ok {
			return fmt.Errorf("%w: %s %s would overwrite %s", errUsage, o.flag, o.path, prev)
		}
		seen[absPath(o.path)] = o.flag
	}
	for _, o := range outs {
		if o.path == "" || o.path == "-" {
			continue
		}
		if err := checkWritable(o.flag, o.path, dirOut && o.flag == "--output"); err != nil {
			return err
		}
	}
	return nil
}

// checkOutputFormat refuses an --output whose name says another format
// than the input's (the output is always written in the input's format).
// Standard input's format is only known once read: it is not checked.
func checkOutputFormat(f *dedupFlags, inputs []string) error {
	format, err := corpus.ParseFormat(f.in.Format())
	if err != nil {
		return nil // reported by cliflags.Input.Options
	}
	if format == corpus.Auto {
		if inputs[0] == "-" {
			return nil
		}
		if format, err = corpus.Detect(inputs[0]); err != nil {
			return nil // reported when the input is opened
		}
	}
	if err := corpus.CheckOutputName(f.output, format); err != nil {
		msg := strings.TrimPrefix(err.Error(), f.output+": ")
		msg = strings.TrimPrefix(msg, strings.TrimPrefix(corpus.ErrFormatMismatch.Error(), "corpus: ")+": ")
		return fmt.Errorf("%w: --output %s: %s", errUsage, f.output, msg)
	}
	return nil
}

func dedup(ctx context.Context, e *env, f *dedupFlags, inputs []string, co corpus.Options, o neardup.Options) error {
	start := time.Now()
	src := &source{}
	defer src.cleanup()
	if f.twoPass = planPasses(o, f.memoryLimit, inputs, co.Format); f.twoPass != "" {
		o.Reread = &rereader{e: e, src: src, co: co}
	}
	defer setGoMemoryLimit(f.memoryLimit)()
	// The pairs file is written as soon as the pairs are final, while
	// Run builds the clusters.
	var b *neardup.Batch
	var early *earlyPairs
	pr := &progress{src: src}
	if f.pairs != "" {
		o.OnPairs = func(res *neardup.Result) { early = startPairs(ctx, e, f.pairs, f.pairsCompact, b, res, pr) }
	}
	b, err := neardup.NewBatch(o)
	if err != nil {
		return fmt.Errorf("%w: %s", errUsage, cliflags.ErrText(err))
	}
	defer b.Close()
	pr.watch(b)
	stopProgress := startProgress(e, f.noProgress || f.quiet, pr)
	defer stopProgress()
	err = readAll(ctx, e, src, inputs, co, f.output != "" || reportRereadsStdin(f, inputs) || o.Reread != nil, b)
	if err != nil {
		return err
	}
	if f.StrictIDs {
		if n, ex := b.DuplicateIDs(1); n > 0 {
			return fmt.Errorf("--strict-ids: %s an earlier id, e.g. %s", plural(n, "document repeats", "documents repeat"), describeDuplicate(src, ex[0]))
		}
	}
	res, err := b.Run(ctx)
	if err != nil {
		early.discard()
		return err
	}
	tw := time.Now()
	if err := writeOutputs(ctx, e, f, src, co, b, res, early, start, pr); err != nil {
		return err
	}
	writeTime := time.Since(tw)
	total := time.Since(start)
	stopProgress()
	if !f.quiet {
		printSummary(e.stderr, b, src, res, f.twoPass, f.memoryLimit.resolve(), writeTime, total)
	}
	return nil
}
