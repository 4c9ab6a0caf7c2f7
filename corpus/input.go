package corpus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

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
		f = sniff(br)
	}
	r.format = f
	if f == Parquet {
		return r.spoolParquet(br)
	}
	// Drop a UTF-8 byte order mark.
	if b, _ := br.Peek(3); bytes.Equal(b, utf8BOM) {
		br.Discard(3)
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
			return nil, fmt.Errorf("gzip: %w", err)
		}
		r.closers = append(r.closers, zr.Close)
		return bufio.NewReaderSize(zr, lineBufSize), nil
	case bytes.HasPrefix(magic, zstdMagic):
		zr, err := zstd.NewReader(raw, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		r.closers = append(r.closers, func() error { zr.Close(); return nil })
		return bufio.NewReaderSize(zr, lineBufSize), nil
	}
	return raw, nil
}

// sniff decides the format of standard input: JSONL when the first byte that
// is not white space (after any byte order mark) is '{', else Text. A Parquet
// magic number ("PAR1") is recognised too.
func sniff(br *bufio.Reader) Format {
	if b, _ := br.Peek(4); string(b) == "PAR1" {
		return Parquet
	}
	i := 0
	for n := 64; ; n *= 2 {
		if n > br.Size() {
			n = br.Size()
		}
		b, err := br.Peek(n)
		if i == 0 && bytes.HasPrefix(b, utf8BOM) {
			i = 3
		}
		for ; i < len(b); i++ {
			switch b[i] {
			case ' ', '\t', '\r', '\n', '\f', '\v':
				continue
			case '{':
				return JSONL
			}
			return Text
		}
		if err != nil || n == br.Size() {
			return Text
		}
	}
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
		if err != io.EOF {
			// Hand back what was read; report the error on the next call.
			s.err = err
		} else {
			s.err = io.EOF
		}
		if len(b) == 0 {
			return nil, s.n, s.err
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

// trimLF removes a trailing "\n" only.
func trimLF(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
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

// textSrc: one document per line, every line a record.
type textSrc struct {
	r   *Reader
	ls  *lineSrc
	num int
	raw []byte // the line without its '\n'
}

func (t *textSrc) next(rec *Record) error {
	b, n, err := t.ls.next()
	if err != nil {
		return t.r.ioErr(n, err)
	}
	t.num++
	t.raw = trimLF(b)
	*rec = Record{Num: t.num, Line: n, Text: trimEOL(b)}
	return nil
}
