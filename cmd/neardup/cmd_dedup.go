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
	skipBad                    bool
	mode                       string
	ngram                      int
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
	s.mode = "word" // for options() when registerShingle is not used
}

// registerShingle adds the flags that say how documents become shingles.
func (s *shingleFlags) registerShingle(fs *flag.FlagSet) {
	fs.StringVar(&s.mode, "shingle", "word", "shingle mode: word (n-grams of tokens) or char (k-grams of code points)")
	fs.IntVar(&s.ngram, "ngram", 0, fmt.Sprintf("shingle length (default %d for word, %d for char)", shingle.DefaultWordN, shingle.DefaultCharN))
	fs.BoolVar(&s.bag, "bag", false, "count repeated shingles (multiset Jaccard)")
}

func (s *shingleFlags) options() (corpus.Options, shingle.Options, error) {
	var co corpus.Options
	var so shingle.Options
	f, err := corpus.ParseFormat(s.format)
	if err != nil {
		return co, so, fmt.Errorf("%w: --format: %v", errUsage, err)
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
	m, err := shingle.ParseMode(s.mode)
	if err != nil {
		return co, so, fmt.Errorf("%w: --shingle: %v", errUsage, err)
	}
	if s.ngram < 0 {
		return co, so, fmt.Errorf("%w: --ngram %d: want a positive length", errUsage, s.ngram)
	}
	so = shingle.Options{Mode: m, N: s.ngram, Bag: s.bag}
	return co, so, nil
}

type dedupFlags struct {
	in shingleFlags
	engineFlags

	pairs      string
	clusters   string
	output     string
	stats      string
	report     string
	quiet      bool
	noProgress bool
	cpuProfile string
	memProfile string
}

func runDedup(ctx context.Context, e *env, args []string) error {
	var f dedupFlags
	fs := newFlagSet(e, "dedup", dedupUsage)
	f.in.register(fs)
	f.engineFlags.register(fs)
	fs.StringVar(&f.pairs, "pairs", "", "write verified pairs as TSV: id_a, id_b, jaccard (\"-\": standard output)")
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

// checkOutputs refuses output paths that would overwrite an input or each
// other, before any work is done.
func checkOutputs(inputs []string, f *dedupFlags) error {
	seen := map[string]string{}
	for _, in := range inputs {
		if in != "-" {
			seen[absPath(in)] = "input " + in
		}
	}
	for _, o := range []struct{ flag, path string }{{"--pairs", f.pairs}, {"--clusters", f.clusters}, {"--output", f.output}, {"--stats", f.stats}, {"--report", f.report}} {
		if o.path == "" || o.path == "-" {
			continue
		}
		if prev, ok := seen[absPath(o.path)]; ok {
			return fmt.Errorf("%w: %s %s would overwrite %s", errUsage, o.flag, o.path, prev)
		}
		seen[absPath(o.path)] = o.flag
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
	bytes   atomic.Int64
	spooled []string    // temporary files to remove
	open    []io.Closer // files to close (corpus.NewReader does not close its input)
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
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	src := &source{}
	defer src.cleanup()
	stopProgress := startProgress(e, f.noProgress || f.quiet, b, src)
	err = readAll(ctx, e, src, inputs, co, f.output != "" || reportRereadsStdin(f, inputs), b)
	if err != nil {
		stopProgress()
		return err
	}
	res, err := b.Run(ctx)
	stopProgress()
	if err != nil {
		return err
	}
	tw := time.Now()
	if err := writeOutputs(e, f, src, co, b, res); err != nil {
		return err
	}
	writeTime := time.Since(tw)
	total := time.Since(start)
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
