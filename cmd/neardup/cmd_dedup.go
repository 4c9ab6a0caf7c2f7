package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/shingle"
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

// shingleFlags are the flags that say how documents become shingle sets,
// shared by every command that reads a corpus.
type shingleFlags struct {
	format, textField, idField string
	skipBad, includeBinary     bool
	mode                       string
	ngram                      optInt
	bag                        bool
}

// register adds the input flags and the shingling flags.
func (s *shingleFlags) register(fs *flag.FlagSet) {
	s.registerInput(fs)
	s.registerShingle(fs)
}

// registerInput adds the flags that say how to read a corpus.
func (s *shingleFlags) registerInput(fs *flag.FlagSet) {
	fs.StringVar(&s.format, "format", "auto", "input format: auto|text|jsonl|csv|tsv|parquet|dir (auto: by extension)")
	fs.StringVar(&s.textField, "text-field", "", "comma-separated fields/columns joined by a space to make the text (default \"text\")")
	fs.StringVar(&s.idField, "id-field", "", "field/column holding the document id (default \"id\" when present, else the record number)")
	fs.BoolVar(&s.skipBad, "skip-bad", false, "skip malformed records (counted in the summary) instead of failing")
	fs.BoolVar(&s.includeBinary, "include-binary", false, "read binary files of directory inputs too (default: skipped and counted, as a NUL byte in the first 8 KiB shows)")
	s.mode = "word" // for options() when registerShingle is not used
}

// registerShingle adds the flags that say how documents become shingles.
func (s *shingleFlags) registerShingle(fs *flag.FlagSet) {
	fs.StringVar(&s.mode, "shingle", "word", "shingle mode: word (n-grams of tokens) or char (k-grams of code points)")
	fs.Var(&s.ngram, "ngram", fmt.Sprintf("shingle length, 1 to %d (default %d for word, %d for char)", shingle.MaxN, shingle.DefaultWordN, shingle.DefaultCharN))
	fs.BoolVar(&s.bag, "bag", false, "count repeated shingles (multiset Jaccard)")
}

func (s *shingleFlags) options() (corpus.Options, shingle.Options, error) {
	var co corpus.Options
	var so shingle.Options
	f, err := corpus.ParseFormat(s.format)
	if err != nil {
		return co, so, fmt.Errorf("%w: --format %q: want auto, text, jsonl, csv, tsv, parquet or dir", errUsage, s.format)
	}
	co.Format = f
	if s.textField != "" {
		for _, t := range strings.Split(s.textField, ",") {
			if t = strings.TrimSpace(t); t != "" {
				co.TextFields = append(co.TextFields, t)
			}
		}
	}
	co.IDField = s.idField
	co.SkipBad = s.skipBad
	co.IncludeBinary = s.includeBinary
	m, err := shingle.ParseMode(s.mode)
	if err != nil {
		return co, so, fmt.Errorf("%w: --shingle %q: want word or char", errUsage, s.mode)
	}
	// An explicit --ngram 0 is an error, not the default length.
	if s.ngram.set && (s.ngram.v < 1 || s.ngram.v > shingle.MaxN) {
		return co, so, fmt.Errorf("%w: --ngram %d: want a length from 1 to %d", errUsage, s.ngram.v, shingle.MaxN)
	}
	so = shingle.Options{Mode: m, N: s.ngram.v, Bag: s.bag}
	return co, so, nil
}

type dedupFlags struct {
	in shingleFlags
	engineFlags

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
}

func runDedup(ctx context.Context, e *env, args []string) error {
	var f dedupFlags
	fs := newFlagSet(e, "dedup", dedupUsage)
	f.in.register(fs)
	f.engineFlags.register(fs)
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
	inputs, err := parseArgs(fs, args, 1, "no input given")
	if err != nil {
		return err
	}
	co, so, err := f.in.options()
	if err != nil {
		return err
	}
	o, err := f.engineFlags.options(so)
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
	if format, err := corpus.ParseFormat(f.in.format); err == nil && (format == corpus.Auto || format == corpus.Dir) && f.output != "" {
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
		if o.path == "" || o.path == "-" {
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
	format, err := corpus.ParseFormat(f.in.format)
	if err != nil {
		return nil // reported by shingleFlags.options
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
		msg = strings.TrimPrefix(msg, corpus.ErrFormatMismatch.Error()+": ")
		return fmt.Errorf("%w: --output %s: %s", errUsage, f.output, msg)
	}
	return nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// source is where each document came from.
type source struct {
	inputs  []string // as given ("-" replaced by a spool file when needed)
	names   []string // as given, for ids and messages
	format  corpus.Format
	fileOf  []int32 // input index of each document
	numOf   []int32 // record number of each document in its input
	skipped int
	binary  int // binary files of directory inputs left out
	bytes   atomic.Int64
	spooled []string    // temporary files to remove
	open    []io.Closer // files to close (corpus.NewReader does not close its input)
}

// where names document d for people: "ads.csv record 12".
func (s *source) where(d int) string {
	return fmt.Sprintf("%s record %d", s.names[s.fileOf[d]], s.numOf[d])
}

// describeDuplicate names a repeated id and where it occurs.
func describeDuplicate(src *source, d neardup.DuplicateID) string {
	var at []string
	for _, doc := range d.Docs {
		at = append(at, src.where(doc))
	}
	more := ""
	if d.Count > len(d.Docs) {
		more = fmt.Sprintf(" and %d more", d.Count-len(d.Docs))
	}
	return fmt.Sprintf("%q in %s%s", d.ID, strings.Join(at, ", "), more)
}

func (s *source) cleanup() {
	for _, c := range s.open {
		c.Close()
	}
	for _, p := range s.spooled {
		os.Remove(p)
	}
}

func dedup(ctx context.Context, e *env, f *dedupFlags, inputs []string, co corpus.Options, o neardup.Options) error {
	start := time.Now()
	b, err := neardup.NewBatch(o)
	if err != nil {
		return fmt.Errorf("%w: %s", errUsage, errText(err))
	}
	defer b.Close()
	src := &source{}
	defer src.cleanup()
	pr := &progress{src: src}
	pr.watch(b)
	stopProgress := startProgress(e, f.noProgress || f.quiet, pr)
	defer stopProgress()
	err = readAll(ctx, e, src, inputs, co, f.output != "" || reportRereadsStdin(f, inputs), b)
	if err != nil {
		return err
	}
	if f.strictIDs {
		if n, ex := b.DuplicateIDs(1); n > 0 {
			return fmt.Errorf("--strict-ids: %d documents repeat an earlier id, e.g. %s", n, describeDuplicate(src, ex[0]))
		}
	}
	res, err := b.Run(ctx)
	if err != nil {
		return err
	}
	tw := time.Now()
	if err := writeOutputs(e, f, src, co, b, res, start, pr); err != nil {
		return err
	}
	writeTime := time.Since(tw)
	total := time.Since(start)
	stopProgress()
	if !f.quiet {
		printSummary(e.stderr, b, src, res, writeTime, total)
	}
	return nil
}

// readAll adds every record of every input to b.
func readAll(ctx context.Context, e *env, src *source, inputs []string, co corpus.Options, needReread bool, b *neardup.Batch) error {
	return readDocs(ctx, e, src, inputs, co, needReread, b.Add)
}

// readDocs calls add with the id and text of every record of every input,
// in order, recording in src where each came from. Ids are the id field, or
// the 1-based record number, prefixed "FILE:" when there are several
// inputs. text is only valid during the call. needReread spools standard
// input to a file so that it can be read again (by --output).
func readDocs(ctx context.Context, e *env, src *source, inputs []string, co corpus.Options, needReread bool, add func(id string, text []byte) error) error {
	src.names = inputs
	src.inputs = make([]string, len(inputs))
	multi := len(inputs) > 1
	for i, in := range inputs {
		path := in
		if in == "-" && needReread {
			// --output reads the input twice; keep standard input in a file.
			p, err := spool(e.stdin)
			if err != nil {
				return err
			}
			src.spooled = append(src.spooled, p)
			path = p
		}
		src.inputs[i] = path
		r, err := openInput(e, src, path, in, co)
		if err != nil {
			return err
		}
		if i == 0 {
			src.format = r.Format()
		} else if g := r.Format(); g != src.format && needReread {
			r.Close()
			return fmt.Errorf("%w: --output needs inputs of one format: %s is %s, %s is %s", errUsage, inputs[0], src.format, in, g)
		}
		prefix := ""
		if multi {
			prefix = in + ":"
		}
		var buf []byte
		for n := 0; ; n++ {
			if n&1023 == 0 && ctx.Err() != nil {
				r.Close()
				return ctx.Err()
			}
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				r.Close()
				return err
			}
			id := rec.ID
			if id == "" {
				buf = strconv.AppendInt(buf[:0], int64(rec.Num), 10)
				id = string(buf)
			}
			if prefix != "" {
				id = prefix + id
			}
			if err := add(id, rec.Text); err != nil {
				r.Close()
				return err
			}
			src.fileOf = append(src.fileOf, int32(i))
			src.numOf = append(src.numOf, int32(rec.Num))
			src.bytes.Add(int64(len(rec.Text)))
		}
		src.skipped += r.Skipped()
		src.binary += r.SkippedBinary()
		if err := r.Close(); err != nil {
			return fmt.Errorf("%s: %w", in, err)
		}
	}
	return nil
}

// openInput opens one input. Standard input, or its spooled copy (path !=
// name), is sniffed by content when the format is auto.
func openInput(e *env, src *source, path, name string, o corpus.Options) (*corpus.Reader, error) {
	if name != "-" {
		return corpus.Open(path, o)
	}
	if path == "-" {
		return corpus.NewReader(e.stdin, "-", o)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("spooled standard input: %w", err)
	}
	src.open = append(src.open, f)
	return corpus.NewReader(f, "-", o)
}

// spool copies r to a temporary file and returns its path.
func spool(r io.Reader) (string, error) {
	f, err := os.CreateTemp("", "neardup-stdin-*")
	if err != nil {
		return "", fmt.Errorf("spool standard input: %w", err)
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", fmt.Errorf("spool standard input: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("spool standard input: %w", err)
	}
	return f.Name(), nil
}
