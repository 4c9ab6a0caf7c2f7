package corpus

import (
	"bufio"
	"bytes"
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
// Dir inputs are not supported here (use FilterDir).
//
// fileIndex is the 0-based index in inputs and recordNum is the Record.Num a
// Reader opened with o gives, so records are selected exactly as read
// (including o.SkipBad, whose skipped records are never written).
//
// Text, JSONL, CSV and TSV records are copied byte for byte as they were
// read (after decompression): quoting, line endings (CRLF stays CRLF) and
// invalid UTF-8 are kept, so keeping every record of one file reproduces it
// exactly and a subset is exactly those records' bytes. The rules that make
// this precise:
//   - CSV and TSV: the output has one header, the header line of the first
//     input that has one, copied as read; a later input's header must have
//     the same fields (compared after parsing, so quoting may differ) or
//     Filter fails. An input with no header (empty, or blank lines only)
//     contributes nothing.
//   - A record's bytes are its lines, from its first line to the line end
//     that closes it (a quoted field may span lines), preceded by the blank
//     lines before it (JSONL, CSV and TSV, where blank lines are not
//     records); blank lines after a file's last record are written when
//     that record (or, for a file with no records, its header) is.
//   - The last record of an input may lack a line end. When anything
//     follows it in the output (a later input's records), a line end is
//     inserted: the output's first line ending (CRLF when the first line
//     written ends in CRLF, else LF; only LF after a record ending in CR).
//     At the very end of the output it stays without one.
//   - UTF-8 byte order mark: Readers drop one at the start of an input. The
//     output starts with one when the input its first bytes come from had
//     one, or when the first record written itself starts with one (which a
//     reader would otherwise drop). Other inputs' marks are not written.
//   - TSV caveat: a record with a field that starts with a stray quote is
//     read literally when no well-quoted reading fits, which the reader may
//     decide only after looking at the lines that follow it. Copied as is,
//     such a record can be read differently when other lines follow it in
//     the output (when records after it were dropped or skipped): the
//     quoted reading may now fit and join it with the next record. An
//     output that keeps every record of a file is the file itself and
//     reads the same.
//
// Parquet rows are re-encoded with the first input's schema (a differing
// schema is an error): values are kept, but not the file's bytes (page and
// row group layout, compression, metadata). Filter does not compress: wrap
// w with NewCompressWriter for that.
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
		}
		last, err := out.start(r)
		if err != nil {
			r.Close()
			if _, ok := err.(*Error); !ok {
				err = fmt.Errorf("corpus: write: %w", err)
			}
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
			last = keep(i, rec.Num)
			if last {
				if err := out.write(r); err != nil {
					r.Close()
					return fmt.Errorf("corpus: write: %w", err)
				}
			}
		}
		if err := out.end(r, last); err != nil {
			r.Close()
			return fmt.Errorf("corpus: write: %w", err)
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

// filterWriter writes the records of the inputs, one input after another.
type filterWriter interface {
	// start begins input r: it checks that r is compatible with the first
	// input and writes what comes before r's records (a header). wrote
	// reports that r's own header was written.
	start(r *Reader) (wrote bool, err error)
	write(r *Reader) error // the current record of r
	// end finishes r after its last record; last reports that the last
	// record (or, with none, the header) of r was written.
	end(r *Reader, last bool) error
	close() error
}

func newFilterWriter(w io.Writer, r *Reader) (filterWriter, error) {
	switch r.format {
	case Text, JSONL, CSV, TSV:
		return &rawWriter{bw: bufio.NewWriterSize(w, 64<<10), format: r.format, first: r.name}, nil
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

// rawWriter copies the bytes of text, JSONL, CSV and TSV records.
type rawWriter struct {
	bw      *bufio.Writer
	format  Format
	first   string   // name of the first input
	header  []string // CSV/TSV: the fields of the header written; nil before
	hname   string   // the input whose header was written
	started bool     // something was written
	eol     []byte   // line end to insert; nil until a chunk ends in '\n'
	open    bool     // the last chunk written did not end in '\n'
	lastCR  bool     // the last chunk written ended in '\r'
}

func (w *rawWriter) start(r *Reader) (bool, error) {
	if err := sameFormat(w.format, w.first, r); err != nil {
		return false, err
	}
	d, ok := r.src.(*delimSrc)
	if !ok || d.header == nil {
		return false, nil
	}
	if w.header != nil {
		if !slices.Equal(d.header, w.header) {
			return false, &Error{File: r.name, Err: fmt.Errorf("header %s differs from the header of %s (%s)", quoteList(d.header), w.hname, quoteList(w.header))}
		}
		return false, nil
	}
	w.header, w.hname = d.header, r.name
	return true, w.chunk(r, d.headerRaw)
}

func (w *rawWriter) write(r *Reader) error {
	return w.chunk(r, r.src.(rawSource).raw())
}

func (w *rawWriter) end(r *Reader, last bool) error {
	if !last {
		return nil
	}
	return w.chunk(r, r.src.(rawSource).tail())
}

// chunk writes b, bytes of r, after the byte order mark the output starts
// with and the line end the previous chunk lacked.
func (w *rawWriter) chunk(r *Reader, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if !w.started {
		w.started = true
		if r.bom || bytes.HasPrefix(b, utf8BOM) {
			// Readers drop one mark at the start: keep the input's, or
			// the record's own.
			w.bw.Write(utf8BOM)
		}
	}
	if w.open {
		switch {
		case w.lastCR:
			w.bw.WriteByte('\n')
		case w.eol != nil:
			w.bw.Write(w.eol)
		default:
			w.bw.WriteByte('\n')
		}
	}
	_, err := w.bw.Write(b)
	n := len(b)
	w.open = b[n-1] != '\n'
	w.lastCR = b[n-1] == '\r'
	if w.eol == nil && !w.open {
		w.eol = crlf[1:]
		if n > 1 && b[n-2] == '\r' {
			w.eol = crlf
		}
	}
	return err
}

var crlf = []byte("\r\n")

func (w *rawWriter) close() error { return w.bw.Flush() }

type parquetWriter struct {
	pw     *parquet.GenericWriter[any]
	schema *parquet.Schema
	first  string
}

func newParquetWriter(w io.Writer, r *Reader) (*parquetWriter, error) {
	s := r.src.(*parquetSrc).file.Schema()
	return &parquetWriter{pw: parquet.NewGenericWriter[any](w, s), schema: s, first: r.name}, nil
}

func (p *parquetWriter) start(r *Reader) (bool, error) {
	if err := sameFormat(Parquet, p.first, r); err != nil {
		return false, err
	}
	if s := r.src.(*parquetSrc).file.Schema(); !parquet.EqualNodes(s, p.schema) {
		return false, &Error{File: r.name, Err: fmt.Errorf("parquet schema differs from the schema of %s:\n%v\nwant:\n%v", p.first, s, p.schema)}
	}
	return false, nil
}

func (p *parquetWriter) end(*Reader, bool) error { return nil }

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
// walk, hidden files skipped). Binary files, which a Reader skips unless
// Options.IncludeBinary, have numbers too and are copied when keep says so:
// a caller that keeps every number it did not find to be a duplicate passes
// them through unchanged. Files are copied byte for byte with their
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
