package main

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/neardup/neardup/internal/gen"
)

// encoder writes documents in one format.
type encoder interface {
	write(d gen.Doc) error
	flush() error
}

// encoders makes an encoder per format; titled says to write the ad title
// column too.
var encoders = map[string]func(w io.Writer, titled bool) encoder{
	"jsonl": func(w io.Writer, titled bool) encoder { return &jsonlEncoder{w: w, titled: titled} },
	"csv":   newCSVEncoder,
	"tsv":   func(w io.Writer, titled bool) encoder { return &tsvEncoder{w: w, titled: titled} },
	"text":  func(w io.Writer, _ bool) encoder { return &textEncoder{w: w} },
}

// batch is the size at which the line encoders hand their buffer to the
// writer.
const batch = 1 << 20

type jsonlEncoder struct {
	w      io.Writer
	titled bool
	buf    []byte
}

func (e *jsonlEncoder) write(d gen.Doc) error {
	b := append(e.buf, `{"id":`...)
	b = appendJSONString(b, d.ID)
	if e.titled {
		b = append(b, `,"title":`...)
		b = appendJSONString(b, d.Title)
	}
	b = append(b, `,"text":`...)
	b = appendJSONString(b, d.Text)
	e.buf = append(b, "}\n"...)
	if len(e.buf) >= batch {
		return e.flush()
	}
	return nil
}

func (e *jsonlEncoder) flush() error {
	_, err := e.w.Write(e.buf)
	e.buf = e.buf[:0]
	return err
}

// appendJSONString appends s as a JSON string, escaping like encoding/json
// except that <, > and & are left alone: control characters, quote and
// backslash are escaped, invalid UTF-8 becomes U+FFFD and U+2028/U+2029 are
// escaped so that the line is also valid JavaScript.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf { // fast path: ASCII
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

type csvEncoder struct {
	w      *csv.Writer
	titled bool
	header bool
	rec    []string
}

func newCSVEncoder(w io.Writer, titled bool) encoder {
	return &csvEncoder{w: csv.NewWriter(w), titled: titled}
}

func (e *csvEncoder) write(d gen.Doc) error {
	if !e.header {
		e.header = true
		if e.titled {
			e.rec = []string{"id", "title", "description"}
		} else {
			e.rec = []string{"id", "text"}
		}
		if err := e.w.Write(e.rec); err != nil {
			return err
		}
	}
	if e.titled {
		e.rec[0], e.rec[1], e.rec[2] = d.ID, d.Title, d.Text
	} else {
		e.rec[0], e.rec[1] = d.ID, d.Text
	}
	return e.w.Write(e.rec)
}

func (e *csvEncoder) flush() error {
	e.w.Flush()
	return e.w.Error()
}

// tsvEncoder writes tab-separated values without quoting; the generators
// never put tabs or line breaks in a field, and write fails if one does.
type tsvEncoder struct {
	w      io.Writer
	titled bool
	header bool
	buf    []byte
}

func (e *tsvEncoder) write(d gen.Doc) error {
	if !e.header {
		e.header = true
		if e.titled {
			e.buf = append(e.buf, "id\ttitle\tdescription\n"...)
		} else {
			e.buf = append(e.buf, "id\ttext\n"...)
		}
	}
	fields := []string{d.ID, d.Text}
	if e.titled {
		fields = []string{d.ID, d.Title, d.Text}
	}
	for k, f := range fields {
		if strings.ContainsAny(f, "\t\r\n") {
			return fmt.Errorf("document %s: tab or line break in a TSV field", d.ID)
		}
		if k > 0 {
			e.buf = append(e.buf, '\t')
		}
		e.buf = append(e.buf, f...)
	}
	e.buf = append(e.buf, '\n')
	if len(e.buf) >= batch {
		return e.flush()
	}
	return nil
}

func (e *tsvEncoder) flush() error {
	_, err := e.w.Write(e.buf)
	e.buf = e.buf[:0]
	return err
}

// textEncoder writes one document text per line.
type textEncoder struct {
	w   io.Writer
	buf []byte
}

func (e *textEncoder) write(d gen.Doc) error {
	if strings.ContainsAny(d.Text, "\r\n") {
		return fmt.Errorf("document %s: line break in text", d.ID)
	}
	e.buf = append(append(e.buf, d.Text...), '\n')
	if len(e.buf) >= batch {
		return e.flush()
	}
	return nil
}

func (e *textEncoder) flush() error {
	_, err := e.w.Write(e.buf)
	e.buf = e.buf[:0]
	return err
}

// truthWriter collects the ground-truth TSV: one row per document with what
// was planted in it.
type truthWriter struct {
	n   int
	id  func(i, n int) string // gen.ID or gen.AdID
	buf []byte
}

func newTruthWriter(n int, id func(i, n int) string) *truthWriter {
	return &truthWriter{n: n, id: id, buf: []byte("id\tkind\tsource\tedit_rate\tdepth\tchain\tfamily\tboiler\n")}
}

// add appends d's row: source is the source's id or empty, family and
// boiler are numbers or empty.
func (t *truthWriter) add(d gen.Doc) {
	b := append(t.buf, d.ID...)
	b = append(b, '\t')
	b = append(b, d.Kind.String()...)
	b = append(b, '\t')
	if d.Source >= 0 {
		b = append(b, t.id(d.Source, t.n)...)
	}
	b = append(b, '\t')
	b = strconv.AppendFloat(b, d.EditRate, 'g', -1, 64)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(d.Depth), 10)
	b = append(b, '\t')
	b = strconv.AppendBool(b, d.Chain)
	b = append(b, '\t')
	if d.Family >= 0 {
		b = strconv.AppendInt(b, int64(d.Family), 10)
	}
	b = append(b, '\t')
	if d.Boiler >= 0 {
		b = strconv.AppendInt(b, int64(d.Boiler), 10)
	}
	t.buf = append(b, '\n')
}

// writeFile calls write with a buffered writer on path ("-": standard
// output) and returns the bytes written. A file is written to a temporary
// file in the same directory, synced and renamed over path only when write
// succeeds; on failure path is left as it was.
func writeFile(path string, write func(w io.Writer) error) (n int64, err error) {
	if path == "-" {
		cw := &countWriter{w: os.Stdout}
		bw := bufio.NewWriterSize(cw, 1<<20)
		if err := write(bw); err != nil {
			return cw.n, err
		}
		err := bw.Flush()
		return cw.n, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	cw := &countWriter{w: f}
	bw := bufio.NewWriterSize(cw, 1<<20)
	if err = write(bw); err != nil {
		return cw.n, err
	}
	if err = bw.Flush(); err != nil {
		return cw.n, err
	}
	if err = f.Chmod(0o644); err != nil {
		return cw.n, err
	}
	if err = f.Sync(); err != nil {
		return cw.n, err
	}
	if err = f.Close(); err != nil {
		return cw.n, err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return cw.n, err
	}
	return cw.n, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
