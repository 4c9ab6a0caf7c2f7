package main

// Reading corpora, shared by every command that reads one: where each
// document came from, sampling. The input and shingling flags are
// cliflags.Input.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cmd/neardup/internal/sample"
	"github.com/neardup/neardup/cmd/neardup/internal/summary"
	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/internal/hugepage"
	"github.com/neardup/neardup/internal/parallel"
	"github.com/neardup/neardup/shingle"
)

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

// summary returns what the run's summary and --stats say of the inputs.
func (s *source) summary() summary.Input {
	return summary.Input{Names: s.names, Bytes: s.bytes.Load(), Skipped: s.skipped, Binary: s.binary}
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

// rereader reads the documents of src again for a two-pass batch
// (neardup.Options.Reread). src is filled by readDocs before the batch runs.
type rereader struct {
	e   *env
	src *source
	co  corpus.Options
}

func (r *rereader) Reread(ctx context.Context, want func(d int) bool, fn func(d int, text []byte) error) error {
	notes, err := rereadDocs(ctx, r.e, r.src, r.co, want, fn)
	if err == nil && len(notes) > 0 {
		err = errors.New(notes[0])
	}
	return err
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
		n := 0 // records read
		for ; ; n++ {
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
			if len(src.fileOf) == cap(src.fileOf) {
				// Doubled, on huge pages while filled: grown by
				// append, fresh memory for every copy (a tenth of
				// the page faults of a 1M run).
				n := max(len(src.fileOf), 1024)
				src.fileOf = hugepage.Grow(src.fileOf, n)
				src.numOf = hugepage.Grow(src.numOf, n)
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
		warnInput(e, in, n, r, co)
	}
	hugepage.Done(src.fileOf)
	hugepage.Done(src.numOf)
	return nil
}

// warnInput warns about an input that gave no documents (n), and about
// records whose explicit id field was absent, null or empty, which are
// numbered instead.
func warnInput(e *env, name string, n int, r *corpus.Reader, co corpus.Options) {
	if name == "-" {
		name = "standard input"
	}
	if n == 0 {
		var why []string
		if k := r.Skipped(); k > 0 {
			why = append(why, plural(k, "record", "records")+" skipped as bad")
		}
		if k := r.SkippedBinary(); k > 0 {
			why = append(why, plural(k, "binary file", "binary files")+" left out")
		}
		more := ""
		if why != nil {
			more = " (" + strings.Join(why, ", ") + ")"
		}
		e.warnf("%s: no documents%s", name, more)
	}
	if k := r.NoID(); k > 0 {
		e.warnf("%s: %s no %q field (or it is null or empty): %s", name, plural(k, "record has", "records have"),
			co.IDField, pick(k, "its id is its record number", "their ids are their record numbers"))
	}
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

// shingleAll returns the shingle set of every text, shingled on up to
// workers goroutines (<= 0: GOMAXPROCS).
func shingleAll(so shingle.Options, texts [][]byte, workers int) ([][]uint64, error) {
	if _, err := shingle.New(so); err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	sets := make([][]uint64, len(texts))
	parallel.For(len(texts), workers, 256, func(_, lo, hi int) {
		sh, _ := shingle.New(so) // a Shingler a chunk; the options were checked above
		for i := lo; i < hi; i++ {
			sets[i] = sh.AppendSet(nil, texts[i])
		}
	})
	return sets, nil
}

// rereadDocs reads the inputs again (with the reader settings co of the
// first pass) and calls visit with the text of each document d for which
// want(d), in document order; text is valid only during the call. It relies
// on what readDocs recorded in src: the documents of an input are
// consecutive and in record order. It returns visit's first error, ctx's
// error when cancelled, and notes on inputs that could not be read again
// (standard input not kept).
func rereadDocs(ctx context.Context, e *env, src *source, co corpus.Options, want func(doc int) bool, visit func(doc int, text []byte) error) ([]string, error) {
	var notes []string
	for lo := 0; lo < len(src.fileOf); {
		f := src.fileOf[lo]
		hi, wanted := lo, 0
		for ; hi < len(src.fileOf) && src.fileOf[hi] == f; hi++ {
			if want(hi) {
				wanted++
			}
		}
		first := lo
		lo = hi
		if wanted == 0 {
			continue
		}
		path, name := src.inputs[f], src.names[f]
		if path == "-" {
			notes = append(notes, "standard input was not kept, so its texts are not shown")
			continue
		}
		tmp := &source{}
		r, err := openInput(e, tmp, path, name, co)
		if err != nil {
			tmp.cleanup()
			return nil, err
		}
		err = func() error {
			defer tmp.cleanup()
			defer r.Close()
			d := first
			for n := 0; wanted > 0; n++ {
				if n&1023 == 0 && ctx.Err() != nil {
					return ctx.Err()
				}
				// The records before the next wanted one are passed
				// over undecoded where the format allows.
				for d < hi && !want(d) {
					d++
				}
				if d < hi {
					if err := r.SkipTo(int(src.numOf[d])); err != nil && !errors.Is(err, io.EOF) {
						return err
					}
				}
				rec, err := r.Next()
				if errors.Is(err, io.EOF) {
					// d is the wanted record that did not come.
					return fmt.Errorf("%s: ended before record %d (changed since it was read?)", name, src.numOf[min(d, hi-1)])
				}
				if err != nil {
					return err
				}
				for d < hi && int(src.numOf[d]) < rec.Num {
					d++
				}
				if d < hi && int(src.numOf[d]) == rec.Num && want(d) {
					if err := visit(d, rec.Text); err != nil {
						return err
					}
					wanted--
					d++ // so that the next SkipTo aims past it
				}
			}
			return nil
		}()
		if err != nil {
			return nil, err
		}
	}
	return notes, nil
}

// reportRereadsStdin reports whether --report needs standard input spooled
// to a file, to read the texts it shows a second time.
func reportRereadsStdin(f *dedupFlags, inputs []string) bool {
	return f.report != "" && slices.Contains(inputs, "-")
}
