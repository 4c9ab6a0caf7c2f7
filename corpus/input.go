package corpus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

const (
	lineBufSize = 256 << 10 // buffer the line readers read from
)

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	utf8BOM   = []byte{0xef, 0xbb, 0xbf}
)

// open resolves the format, opens the byte stream and builds the source.
func (r *Reader) open(path string, o Options) error {
	f := o.Format
	if f > Dir {
		return fmt.Errorf("invalid format %v", f)
	}
	var in io.Reader
	if path == "-" {
		if f == Dir {
			return errors.New("standard input cannot be read as a directory")
		}
		in = os.Stdin
	} else {
		st, err := os.Stat(path)
		if err != nil {
			return unwrapPath(err)
		}
		if st.IsDir() {
			if f != Auto && f != Dir {
				return fmt.Errorf("is a directory (use --format dir or auto to read one document per file), not %v", f)
			}
			r.format = Dir
			if err := r.noFields("a directory input (one document per file)"); err != nil {
				return err
			}
			return r.openDir(path, o)
		}
		if f == Dir {
			return errors.New("not a directory")
		}
		if f == Auto {
			if f, err = Detect(path); err != nil {
				return err
			}
		}
		file, err := os.Open(path)
		if err != nil {
			return unwrapPath(err)
		}
		r.closers = append(r.closers, file.Close)
		if f == Parquet {
			var magic [4]byte
			n, _ := file.ReadAt(magic[:], 0)
			if !bytes.HasPrefix(magic[:n], gzipMagic) && !bytes.HasPrefix(magic[:n], zstdMagic) {
				r.format = Parquet
				return r.openParquetFile(file, st.Size())
			}
		}
		in = file
	}

	return r.openStream(in, f)
}

// openStream reads a non-directory input from in; f Auto means sniff.
func (r *Reader) openStream(in io.Reader, f Format) error {
	br, err := r.decompress(in)
	if err != nil {
		return err
	}
	if f == Auto {
		if f, err = sniff(br); err != nil {
			return err
		}
		r.sniffed = true
	}
	r.format = f
	if f == Text {
		if err := r.noFields("text input"); err != nil {
			return err
		}
		if !r.opts.IncludeBinary {
			// A read error here is reported by the first Next.
			if b, _ := br.Peek(binarySniffLen); isBinary(b) {
				return binaryError(b)
			}
		}
	}
	if f == Parquet {
		return r.spoolParquet(br)
	}
	// Drop a UTF-8 byte order mark (Filter writes it back).
	if b, _ := br.Peek(3); bytes.Equal(b, utf8BOM) {
		br.Discard(3)
		r.bom = true
	}
	ls := &lineSrc{br: br}
	switch f {
	case Text:
		r.src = &textSrc{r: r, ls: ls}
		return nil
	case JSONL:
		r.src = newJSONLSrc(r, ls, r.opts)
		return nil
	case CSV, TSV:
		return r.openDelimited(ls, r.opts, f == TSV)
	}
	return fmt.Errorf("cannot read %v from a stream", f)
}

// noFields returns an error wrapping ErrNoFields when the options name text
// or id fields, which r's input, of kind what, has none of.
func (r *Reader) noFields(what string) error {
	var named []string
	if len(r.opts.TextFields) > 0 {
		named = append(named, "text field "+quoteList(r.opts.TextFields))
	}
	if r.opts.IDField != "" {
		named = append(named, "id field "+strconv.Quote(r.opts.IDField))
	}
	if named == nil {
		return nil
	}
	how := "; use --format csv|tsv|jsonl|parquet to read records with fields"
	switch {
	case r.format == Dir:
		how = " (its documents are whole files)"
	case r.sniffed:
		what = "the content was taken for plain text (it is not JSONL or Parquet, nor CSV or TSV with a header and the same number of fields in its first records), which"
	}
	return fmt.Errorf("%w: %s has no fields, but %s was named%s", ErrNoFields, what, strings.Join(named, " and "), how)
}

// binaryError is the error for a text input whose content starts with b,
// which isBinary.
func binaryError(b []byte) error {
	hint := ""
	if bytes.HasPrefix(b, []byte{0xff, 0xfe}) || bytes.HasPrefix(b, []byte{0xfe, 0xff}) {
		hint = " (UTF-16 text? convert it to UTF-8)"
	}
	return fmt.Errorf("%w (a NUL byte in its first 8 KiB) is not read as text%s; --include-binary reads it anyway", ErrBinary, hint)
}

// unwrapPath drops the *fs.PathError around err: the *Error names the file.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// decompress wraps in in a gzip or zstd reader when its first bytes are a
// gzip or zstd magic number, and returns a buffered reader of the content.
func (r *Reader) decompress(in io.Reader) (*bufio.Reader, error) {
	raw := bufio.NewReaderSize(in, lineBufSize)
	magic, err := raw.Peek(4)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, err
	}
	switch {
	case bytes.HasPrefix(magic, gzipMagic):
		zr, err := gzip.NewReader(raw)
		if err != nil {
			return nil, decompressError("gzip", err)
		}
		r.closers = append(r.closers, zr.Close)
		return bufio.NewReaderSize(&namedErrs{zr, "gzip"}, lineBufSize), nil
	case bytes.HasPrefix(magic, zstdMagic):
		zr, err := zstd.NewReader(raw, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, decompressError("zstd", err)
		}
		r.closers = append(r.closers, func() error { zr.Close(); return nil })
		return bufio.NewReaderSize(&namedErrs{zr, "zstd"}, lineBufSize), nil
	}
	return raw, nil
}

// namedErrs passes on the reads of a decompressor, its errors named by
// decompressError.
type namedErrs struct {
	r    io.Reader
	name string // "gzip" or "zstd"
}

func (n *namedErrs) Read(p []byte) (int, error) {
	k, err := n.r.Read(p)
	if err != nil && err != io.EOF {
		err = decompressError(n.name, err)
	}
	return k, err
}

// decompressError says what err, from a name ("gzip", "zstd")
// decompressor, means: a stream that ends early is "truncated gzip stream
// (unexpected EOF)", wrapping io.ErrUnexpectedEOF; other errors are
// prefixed with the name unless they already are.
func decompressError(name string, err error) error {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF:
		// io.EOF: the header itself is missing (gzip.NewReader).
		return fmt.Errorf("truncated %s stream (%w)", name, io.ErrUnexpectedEOF)
	case strings.HasPrefix(err.Error(), name+":"):
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// sniffRecords is how many data records sniffDelimited checks at most.
const sniffRecords = 16

// sniff decides the format of standard input (and of NewReader input whose
// name says nothing) from the first bytes br holds, up to its buffer size,
// without consuming them:
//   - Parquet for the magic number "PAR1";
//   - JSONL when the first byte that is not white space (after any byte
//     order mark) is '{';
//   - TSV or CSV when the content has a header and consistent records as
//     sniffDelimited tells, for one delimiter only; when both fit, it
//     refuses to guess (ErrUnknownFormat);
//   - else Text.
func sniff(br *bufio.Reader) (Format, error) {
	if b, _ := br.Peek(4); string(b) == "PAR1" {
		return Parquet, nil
	}
	// JSONL is known from its first byte that is not a space: decide on
	// what has arrived, so that a stream fed a document at a time (a pipe
	// from a queue) is not held until a whole buffer is read.
	for n := 1; n <= br.Size(); n = br.Buffered() + 1 {
		b, err := br.Peek(n)
		b = bytes.TrimPrefix(b, utf8BOM)
		if i := bytes.IndexFunc(b, func(r rune) bool { return !isSpace(r) }); i >= 0 {
			if b[i] == '{' {
				return JSONL, nil
			}
			break
		}
		if err != nil {
			break
		}
	}
	b, err := br.Peek(br.Size())
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return Auto, err
	}
	complete := err == io.EOF
	b = bytes.TrimPrefix(b, utf8BOM)
	if i := bytes.IndexFunc(b, func(r rune) bool { return !isSpace(r) }); i >= 0 && b[i] == '{' {
		return JSONL, nil
	}
	_, tsv := sniffDelimited(b, complete, true)
	_, csv := sniffDelimited(b, complete, false)
	switch {
	case tsv && csv:
		return Auto, fmt.Errorf("%w: the content reads as TSV and as CSV (its first lines have tabs and commas); use --format tsv or --format csv", ErrUnknownFormat)
	case tsv:
		return TSV, nil
	case csv:
		return CSV, nil
	}
	return Text, nil
}

func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\r', '\n', '\f', '\v':
		return true
	}
	return false
}

// sniffDelimited reports whether b, the start of an input after any byte
// order mark (all of it when complete), reads as TSV (tsv) or CSV with the
// real reader: the first line that is not blank has the delimiter, the
// header has at least two fields, and at least one and up to sniffRecords
// data records follow, each well formed with the header's number of
// fields. When b is not complete, the input is cut after its last line end,
// and a record that may have been cut (an odd number of quotes from its
// start to the end of b) or whose reading looked at the end of b ends the
// check instead of failing it. n is the number of records checked.
func sniffDelimited(b []byte, complete, tsv bool) (n int, ok bool) {
	delim := byte(',')
	if tsv {
		delim = '\t'
	}
	if !complete {
		i := bytes.LastIndexByte(b, '\n')
		if i < 0 {
			return 0, false
		}
		b = b[:i+1]
	}
	// The header line has the delimiter.
	rest := b
	for {
		i := bytes.IndexByte(rest, '\n')
		line := rest
		if i >= 0 {
			line = rest[:i+1]
		}
		if len(trimEOL(line)) > 0 {
			if bytes.IndexByte(line, delim) < 0 {
				return 0, false
			}
			break
		}
		if i < 0 {
			return 0, false
		}
		rest = rest[i+1:]
	}
	// starts[k] is the offset of line k+1.
	starts := []int{0}
	for i, c := range b {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	r := &Reader{name: stdinName}
	ls := &lineSrc{br: bufio.NewReader(bytes.NewReader(b))}
	d, err := newDelimSrc(r, ls, tsv)
	if err != nil || d.header == nil || len(d.header) < 2 || (!complete && d.headerAhead) {
		return 0, false
	}
	for n < sniffRecords {
		line, err := d.read()
		if err == io.EOF {
			break
		}
		if !complete && (err != nil || d.ahead) {
			if err == nil {
				break // read up to the end of b: may differ with more input
			}
			if line > 0 && line <= len(starts) && bytes.Count(b[starts[line-1]:], quote)%2 == 1 {
				break // a quoted field open at the end of b: cut
			}
		}
		if err != nil {
			return n, false
		}
		n++
	}
	return n, n > 0
}

// spoolParquet copies the (decompressed) stream to a temporary file, removed
// on Close, because Parquet needs random access.
func (r *Reader) spoolParquet(in io.Reader) error {
	tmp, err := os.CreateTemp("", "neardup-corpus-*.parquet")
	if err != nil {
		return err
	}
	name := tmp.Name()
	r.closers = append(r.closers, func() error { return os.Remove(name) }, tmp.Close)
	n, err := io.Copy(tmp, in)
	if err != nil {
		return err
	}
	return r.openParquetFile(tmp, n)
}

// lineSrc returns physical lines (each with its '\n', the last one possibly
// without) of any length, numbered from 1, and lets a parser push lines back.
type lineSrc struct {
	br       *bufio.Reader
	long     []byte // a line longer than br's buffer
	n        int    // lines read from br
	pend     []byte // pushed-back input, read before br
	pendLine int    // number of pend's first line
	err      error  // sticky read error
}

// next returns the next line and its number. The line aliases internal
// buffers and is valid until the next call. It returns io.EOF at the end.
func (s *lineSrc) next() ([]byte, int, error) {
	if len(s.pend) > 0 {
		i := bytes.IndexByte(s.pend, '\n') + 1
		if i == 0 {
			i = len(s.pend)
		}
		b := s.pend[:i]
		s.pend = s.pend[i:]
		s.pendLine++
		return b, s.pendLine - 1, nil
	}
	if s.err != nil {
		if s.err != io.EOF {
			return nil, s.n + 1, s.err
		}
		return nil, s.n, s.err
	}
	b, err := s.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		// Fast path failed: the line is longer than the buffer.
		s.long = append(s.long[:0], b...)
		for err == bufio.ErrBufferFull {
			b, err = s.br.ReadSlice('\n')
			s.long = append(s.long, b...)
		}
		b = s.long
	}
	if err != nil {
		s.err = err
		if err != io.EOF {
			// The line is cut by the error (a truncated compressed
			// stream, an I/O error): report the error, at the line
			// it cuts, rather than hand back a part of the line.
			return nil, s.n + 1, err
		}
		if len(b) == 0 {
			return nil, s.n, io.EOF
		}
	}
	s.n++
	return b, s.n, nil
}

// unread pushes b, which starts at line first, back in front of the input.
func (s *lineSrc) unread(b []byte, first int) {
	if len(b) == 0 {
		return
	}
	p := make([]byte, 0, len(b)+len(s.pend))
	p = append(append(p, b...), s.pend...)
	s.pend = p
	s.pendLine = first
}

// trimEOL removes a trailing "\n" and then a trailing "\r".
func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

func isBlank(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n', '\f', '\v':
		default:
			return false
		}
	}
	return true
}

// rawSpan holds the input bytes of the current record, for Filter, which
// copies them. Blank lines that are not records (JSONL, CSV, TSV) belong to
// the record after them; those after the last record are the tail.
type rawSpan struct {
	pre  []byte // blank lines read before the current record (a copy)
	body []byte // the record's own lines, line endings included; aliases the line source until the next read
	buf  []byte // pre+body
	end  []byte // blank lines after the last record, set at io.EOF
}

// raw returns the bytes of the current record: the blank lines before it,
// its lines and their line endings (the last line of the input may have
// none). It is valid until the next read.
func (s *rawSpan) raw() []byte {
	if len(s.pre) == 0 {
		return s.body
	}
	s.buf = append(append(s.buf[:0], s.pre...), s.body...)
	return s.buf
}

// tail returns the blank lines after the last record, once the source
// returned io.EOF.
func (s *rawSpan) tail() []byte { return s.end }

// rawSource is a source whose records Filter copies byte for byte.
type rawSource interface {
	raw() []byte
	tail() []byte
}

// textSrc: one document per line, every line a record.
type textSrc struct {
	r   *Reader
	ls  *lineSrc
	num int
	rawSpan
}

func (t *textSrc) next(rec *Record) error {
	b, n, err := t.ls.next()
	if err != nil {
		return t.r.ioErr(n, err)
	}
	t.num++
	t.body = b
	*rec = Record{Num: t.num, Line: n, Text: trimEOL(b)}
	return nil
}

// skipTo reads past the lines before record num.
func (t *textSrc) skipTo(num int) error {
	for t.num+1 < num {
		if _, n, err := t.ls.next(); err != nil {
			return t.r.ioErr(n, err)
		}
		t.num++
	}
	return nil
}
