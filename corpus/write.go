package corpus

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
)

// Filter writes to w, in the format of inputs (all of one format), the records
// of inputs for which keep(fileIndex, recordNum) is true, in input order.
// CSV/TSV: one header row; Parquet: the schema of the first file. Dir inputs
// are not supported here (use FilterDir).
//
// fileIndex is the 0-based index in inputs and recordNum is the Record.Num a
// Reader opened with o gives, so records are selected exactly as read
// (including o.SkipBad, whose skipped records are never written). Text and
// JSONL lines are copied byte for byte (each ended by "\n"); CSV and TSV rows
// are re-encoded with encoding/csv (Comma '\t' for TSV), and an input whose
// header differs from the first input's is an error; Parquet rows are written
// with the first input's schema, and a differing schema is an error. Filter
// does not compress: wrap w with NewCompressWriter for that.
func Filter(w io.Writer, inputs []string, o Options, keep func(file, num int) bool) error {
	return filter(w, len(inputs), func(i int) (*Reader, error) { return Open(inputs[i], o) }, keep)
}

// filter is Filter over n inputs opened by open.
func filter(w io.Writer, n int, open func(i int) (*Reader, error), keep func(file, num int) bool) error {
	var out filterWriter
	for i := range n {
		r, err := open(i)
		if err != nil {
			return err
		}
		if out == nil {
			if out, err = newFilterWriter(w, r); err != nil {
				r.Close()
				return err
			}
		} else if err := out.check(r); err != nil {
			r.Close()
			return err
		}
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				r.Close()
				return err
			}
			if keep(i, rec.Num) {
				if err := out.write(r); err != nil {
					r.Close()
					return fmt.Errorf("corpus: write: %w", err)
				}
			}
		}
		if err := r.Close(); err != nil {
			return err
		}
	}
	if out == nil {
		return nil
	}
	if err := out.close(); err != nil {
		return fmt.Errorf("corpus: write: %w", err)
	}
	return nil
}

// filterWriter writes the current record of a Reader.
type filterWriter interface {
	check(r *Reader) error // r is compatible with the first input
	write(r *Reader) error
	close() error
}

func newFilterWriter(w io.Writer, r *Reader) (filterWriter, error) {
	switch r.format {
	case Text, JSONL:
		return &lineWriter{bw: bufio.NewWriterSize(w, 64<<10), format: r.format, first: r.name}, nil
	case CSV, TSV:
		return newDelimWriter(w, r)
	case Parquet:
		return newParquetWriter(w, r)
	}
	return nil, &Error{File: r.name, Err: fmt.Errorf("cannot filter %v input (use FilterDir for directories)", r.format)}
}

func sameFormat(first Format, firstName string, r *Reader) error {
	if r.format != first {
		return &Error{File: r.name, Err: fmt.Errorf("format %v differs from %v of %s", r.format, first, firstName)}
	}
	return nil
}

type lineWriter struct {
	bw     *bufio.Writer
	format Format
	first  string
	wrote  bool
}

func (l *lineWriter) check(r *Reader) error { return sameFormat(l.format, l.first, r) }

func (l *lineWriter) write(r *Reader) error {
	var raw []byte
	switch s := r.src.(type) {
	case *textSrc:
		raw = s.raw
	case *jsonlSrc:
		raw = s.raw
	}
	if !l.wrote && bytes.HasPrefix(raw, utf8BOM) {
		// Readers drop one byte order mark at the start: keep the line's.
		l.bw.Write(utf8BOM)
	}
	l.wrote = true
	l.bw.Write(raw)
	return l.bw.WriteByte('\n')
}

func (l *lineWriter) close() error { return l.bw.Flush() }

type delimWriter struct {
	bw     *bufio.Writer
	cw     *csv.Writer
	format Format
	first  string
	header []string
	wrote  bool
}

func newDelimWriter(w io.Writer, r *Reader) (*delimWriter, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	// csv.NewWriter reuses bw, so rows written to bw directly stay in order.
	d := &delimWriter{bw: bw, cw: csv.NewWriter(bw), format: r.format, first: r.name}
	if r.format == TSV {
		d.cw.Comma = '\t'
	}
	if s := r.src.(*delimSrc); s.header != nil {
		d.header = s.header
		if err := d.row(s.header); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func (d *delimWriter) check(r *Reader) error {
	if err := sameFormat(d.format, d.first, r); err != nil {
		return err
	}
	h := r.src.(*delimSrc).header
	if h == nil { // empty input: nothing to write
		return nil
	}
	if d.header == nil { // the first inputs were empty
		d.header = h
		return d.row(h)
	}
	if !slices.Equal(h, d.header) {
		return &Error{File: r.name, Err: fmt.Errorf("header %s differs from the header of %s (%s)", quoteList(h), d.first, quoteList(d.header))}
	}
	return nil
}

func (d *delimWriter) write(r *Reader) error { return d.row(r.src.(*delimSrc).strings()) }

// row writes one row. encoding/csv writes a row of one empty field as an
// empty line, which readers skip, so that row is written as `""`.
func (d *delimWriter) row(fields []string) error {
	if !d.wrote && len(fields) > 0 && strings.HasPrefix(fields[0], "\ufeff") {
		// Readers drop one byte order mark at the start: keep the field's.
		d.bw.Write(utf8BOM)
	}
	d.wrote = true
	if len(fields) == 1 && fields[0] == "" {
		_, err := d.bw.WriteString("\"\"\n")
		return err
	}
	return d.cw.Write(fields)
}

func (d *delimWriter) close() error {
	d.cw.Flush()
	return d.cw.Error()
}

type parquetWriter struct {
	pw     *parquet.Writer
	schema *parquet.Schema
	first  string
}

func newParquetWriter(w io.Writer, r *Reader) (*parquetWriter, error) {
	s := r.src.(*parquetSrc).file.Schema()
	return &parquetWriter{pw: parquet.NewWriter(w, s), schema: s, first: r.name}, nil
}

func (p *parquetWriter) check(r *Reader) error {
	if err := sameFormat(Parquet, p.first, r); err != nil {
		return err
	}
	if s := r.src.(*parquetSrc).file.Schema(); !parquet.EqualNodes(s, p.schema) {
		return &Error{File: r.name, Err: fmt.Errorf("parquet schema differs from the schema of %s:\n%v\nwant:\n%v", p.first, s, p.schema)}
	}
	return nil
}

func (p *parquetWriter) write(r *Reader) error {
	row := r.src.(*parquetSrc).row
	_, err := p.pw.WriteRows([]parquet.Row{row})
	return err
}

func (p *parquetWriter) close() error { return p.pw.Close() }

// FilterDir copies the files of directory src whose record number satisfies
// keep into dst (which must not exist), keeping relative paths.
//
// Record numbers are those a Reader of src gives (the 1-based position in the
// walk, hidden files skipped). Files are copied byte for byte with their
// permission bits.
func FilterDir(dst, src string, keep func(num int) bool) error {
	if _, err := os.Lstat(dst); err == nil {
		return &Error{File: dst, Err: errors.New("already exists")}
	} else if !errors.Is(err, os.ErrNotExist) {
		return &Error{File: dst, Err: err}
	}
	st, err := os.Stat(src)
	if err != nil {
		return &Error{File: src, Err: err}
	}
	if !st.IsDir() {
		return &Error{File: src, Err: errors.New("not a directory")}
	}
	files, err := walkDir(src)
	if err != nil {
		return &Error{File: src, Err: err}
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return &Error{File: dst, Err: err}
	}
	for i, rel := range files {
		if !keep(i + 1) {
			continue
		}
		from := filepath.Join(src, filepath.FromSlash(rel))
		to := filepath.Join(dst, filepath.FromSlash(rel))
		if err := copyFile(to, from); err != nil {
			return &Error{File: from, Record: i + 1, Err: err}
		}
	}
	return nil
}

func copyFile(to, from string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// NewCompressWriter wraps w in gzip or zstd compression when name ends in .gz
// or .zst, and returns a no-op closer otherwise. Close flushes but does not close w.
func NewCompressWriter(w io.Writer, name string) (io.WriteCloser, error) {
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(lower, ".gz"):
		return gzip.NewWriter(w), nil
	case strings.HasSuffix(lower, ".zst"):
		zw, err := zstd.NewWriter(w)
		if err != nil {
			return nil, fmt.Errorf("corpus: zstd: %w", err)
		}
		return zw, nil
	}
	return nopCloser{w}, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
