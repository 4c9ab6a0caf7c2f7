package main

// Reading corpora, shared by every command that reads one: the input
// and shingling flags, where each document came from, sampling.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/internal/sample"
	"github.com/neardup/neardup/shingle"
)

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

// options returns the reading and shingling options of the flags.
func (s *shingleFlags) options() (corpus.Options, shingle.Options, error) {
	var co corpus.Options
	so, err := s.shingleOptions()
	if err != nil {
		return co, so, err
	}
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
	return co, so, nil
}

// shingleOptions returns the shingling options of the flags
// (registerShingle), for commands that read no corpus.
func (s *shingleFlags) shingleOptions() (shingle.Options, error) {
	m, err := shingle.ParseMode(s.mode)
	if err != nil {
		return shingle.Options{}, fmt.Errorf("%w: --shingle %q: want word or char", errUsage, s.mode)
	}
	// An explicit --ngram 0 is an error, not the default length.
	if s.ngram.set && (s.ngram.v < 1 || s.ngram.v > shingle.MaxN) {
		return shingle.Options{}, fmt.Errorf("%w: --ngram %d: want a length from 1 to %d", errUsage, s.ngram.v, shingle.MaxN)
	}
	return shingle.Options{Mode: m, N: s.ngram.v, Bag: s.bag}, nil
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

// sampleTexts reads the inputs and keeps a seeded uniform sample of n
// documents (all of them when n <= 0), returned in input order with their
// ids; read is the number of documents read.
func sampleTexts(ctx context.Context, e *env, src *source, inputs []string, co corpus.Options, n int, seed uint64) (ids []string, texts [][]byte, read int, err error) {
	type kept struct {
		idx  int
		id   string
		text []byte
	}
	var res []kept
	var rs *sample.Reservoir
	if n > 0 {
		rs = sample.New(n, seed)
	}
	err = readDocs(ctx, e, src, inputs, co, false, func(id string, text []byte) error {
		i := read
		read++
		slot := len(res)
		if rs != nil {
			if slot = rs.Next(); slot < 0 {
				return nil
			}
		}
		if slot == len(res) {
			res = append(res, kept{})
		}
		res[slot] = kept{i, id, append(res[slot].text[:0], text...)}
		return nil
	})
	if err != nil {
		return nil, nil, 0, err
	}
	// Input order, so the sample reads like the corpus.
	slices.SortFunc(res, func(a, b kept) int { return a.idx - b.idx })
	ids = make([]string, len(res))
	texts = make([][]byte, len(res))
	for k, r := range res {
		ids[k], texts[k] = r.id, r.text
	}
	return ids, texts, read, nil
}

// shingleAll returns the shingle set of every text.
func shingleAll(so shingle.Options, texts [][]byte) ([][]uint64, error) {
	sh, err := shingle.New(so)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	sets := make([][]uint64, len(texts))
	for i, t := range texts {
		sets[i] = sh.AppendSet(nil, t)
	}
	return sets, nil
}
