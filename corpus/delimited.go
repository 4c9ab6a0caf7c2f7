package corpus

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// CSV and TSV share record framing and column selection; they differ in how a
// record is split into fields.
//
// CSV is strict RFC 4180 as encoding/csv reads it. Lines are grouped into a
// record until the record holds an even number of '"' (a newline inside a
// quoted field leaves the count odd), and the group is parsed by encoding/csv.
// This lets a bad record be skipped without losing the rest of the file: a
// record with the wrong number of fields is skipped whole, and a record with
// broken quoting (bare or unterminated quote) costs only its first line;
// reading resumes with the next line.
//
// TSV is read by a quote-aware splitter rather than encoding/csv, because
// with LazyQuotes a field that merely starts with a stray '"' (as in real
// exports) makes encoding/csv swallow the rest of the file. A field that
// starts with '"' and is well quoted ("" for a quote, closed by '"' before a
// tab or the end of the line) is unquoted and may hold tabs and newlines;
// otherwise, or when the quoted reading gives the wrong number of fields, the
// record is its first line split literally at tabs, quotes kept. This reads
// back everything encoding/csv writes with Comma '\t'.

type delimSrc struct {
	r      *Reader
	ls     *lineSrc
	tsv    bool
	header []string
	want   int // fields per record; -1 while reading the header
	text   []int
	id     int // column index of the id, -1 for none
	num    int
	buf    []byte

	rawSpan
	headerRaw []byte // the header's bytes, as raw gave them (a copy)
	// ahead reports that the current record was read literally after the
	// quote-aware reading looked at lines past it (or hit the end of the
	// input): read from its own bytes in another context, the record may
	// take in the lines that follow it there.
	ahead       bool
	headerAhead bool // ahead, for the header

	// CSV
	cr     *csv.Reader
	feed   feeder
	fields []string

	// TSV
	tf   [][]byte // fields of the current record
	val  []byte   // unquoted field bytes
	offs []int    // field ends in val
	grp  []byte   // lines of a multi-line record
}

// feeder hands encoding/csv one record at a time.
type feeder struct{ b []byte }

func (f *feeder) Read(p []byte) (int, error) {
	if len(f.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.b)
	f.b = f.b[n:]
	return n, nil
}

func (r *Reader) openDelimited(ls *lineSrc, o Options, tsv bool) error {
	d, err := newDelimSrc(r, ls, tsv)
	if err != nil {
		return err
	}
	r.src = d
	if d.header == nil {
		return nil // an empty input has no header and no records
	}
	if d.text, d.id, err = columns(d.header, o); err != nil {
		if r.sniffed && len(o.TextFields) == 0 {
			// Perhaps plain text that looks delimited.
			err = fmt.Errorf("%w (the content was taken for %v: its first lines have a header and the same number of fields; use --format to read it otherwise)", err, r.format)
		}
		return err
	}
	return nil
}

// newDelimSrc reads the header from ls. At the end of the input (no header)
// d.header is nil. A malformed header is an *Error.
func newDelimSrc(r *Reader, ls *lineSrc, tsv bool) (*delimSrc, error) {
	d := &delimSrc{r: r, ls: ls, tsv: tsv, want: -1, id: -1}
	if !tsv {
		d.cr = csv.NewReader(&d.feed)
		d.cr.ReuseRecord = true
		d.cr.FieldsPerRecord = -1
	}
	_, err := d.read()
	if err == io.EOF {
		return d, nil
	}
	if err != nil {
		if b, ok := err.(badRecord); ok {
			b.e.Err = fmt.Errorf("header: %w", b.e.Err)
			return nil, b.e
		}
		return nil, err
	}
	d.header = append([]string(nil), d.strings()...)
	d.headerRaw = append([]byte(nil), d.raw()...)
	d.headerAhead = d.ahead
	d.want = len(d.header)
	if !tsv {
		d.cr.FieldsPerRecord = d.want
	}
	return d, nil
}

// columns resolves the text and id columns among names. Default names match
// case-insensitively when there is no exact match; explicit names exactly.
func columns(names []string, o Options) (text []int, id int, err error) {
	fields := o.TextFields
	def := len(fields) == 0
	if def {
		fields = []string{"text"}
	}
	for _, f := range fields {
		i := findColumn(names, f, def)
		if i < 0 {
			return nil, -1, fmt.Errorf("%w: column %q not found; available columns: %s", ErrMissingField, f, quoteList(names))
		}
		text = append(text, i)
	}
	id = -1
	if o.IDField != "" {
		if id = findColumn(names, o.IDField, false); id < 0 {
			return nil, -1, fmt.Errorf("%w: id column %q not found; available columns: %s", ErrMissingField, o.IDField, quoteList(names))
		}
	} else {
		id = findColumn(names, "id", true)
	}
	return text, id, nil
}

func findColumn(names []string, name string, fold bool) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	if fold {
		for i, n := range names {
			if strings.EqualFold(n, name) {
				return i
			}
		}
	}
	return -1
}

func quoteList(s []string) string {
	var b strings.Builder
	for i, x := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(x))
	}
	if len(s) == 0 {
		return "(none)"
	}
	return b.String()
}

func (d *delimSrc) next(rec *Record) error {
	if d.header == nil {
		return io.EOF
	}
	line, err := d.read()
	if err != nil {
		return err
	}
	t := d.buf[:0]
	for i, c := range d.text {
		if i > 0 {
			t = append(t, ' ')
		}
		if d.tsv {
			t = append(t, d.tf[c]...)
		} else {
			t = append(t, d.fields[c]...)
		}
	}
	d.buf = t
	*rec = Record{Num: d.num, Line: line, Text: t}
	if d.id >= 0 {
		if d.tsv {
			rec.ID = string(d.tf[d.id])
		} else {
			rec.ID = d.fields[d.id]
		}
	}
	return nil
}

// strings returns the current record's fields as strings.
func (d *delimSrc) strings() []string {
	if !d.tsv {
		return d.fields
	}
	s := make([]string, len(d.tf))
	for i, f := range d.tf {
		s[i] = string(f)
	}
	return s
}

// read reads the next record into d.fields (CSV) or d.tf (TSV), counting it,
// and returns its first line. Blank lines are skipped (kept in d.pre).
func (d *delimSrc) read() (int, error) {
	d.pre = d.pre[:0]
	d.ahead = false
	for {
		b, n, err := d.ls.next()
		if err == io.EOF {
			d.end = append(d.end[:0], d.pre...)
		}
		if err != nil {
			return n, d.r.ioErr(n, err)
		}
		if len(trimEOL(b)) == 0 {
			d.pre = append(d.pre, b...)
			continue
		}
		if d.want >= 0 {
			d.num++
		}
		if d.tsv {
			return n, d.readTSV(b, n)
		}
		return n, d.readCSV(b, n)
	}
}

// bad reports a malformed record; the header (want < 0) has no number.
func (d *delimSrc) bad(line int, err error) error {
	num := d.num
	if d.want < 0 {
		num = 0
	}
	return d.r.bad(line, num, err)
}

func (d *delimSrc) readCSV(b []byte, line int) error {
	rec := b
	first := len(b)
	if q := bytes.Count(b, quote); q%2 != 0 {
		d.grp = append(d.grp[:0], b...)
		for q%2 != 0 {
			nb, _, err := d.ls.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return d.r.ioErr(line, err)
			}
			d.grp = append(d.grp, nb...)
			q += bytes.Count(nb, quote)
		}
		rec = d.grp
	}
	d.feed.b = rec
	fields, err := d.cr.Read()
	// Drain: after an error encoding/csv may leave part of the group unread.
	for {
		if _, e := d.cr.Read(); e == io.EOF {
			break
		}
	}
	d.feed.b = nil
	if err == nil {
		// A record that parses is its whole group: the group ends at the
		// first line end outside quotes.
		d.fields = fields
		d.body = rec
		return nil
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			return d.bad(line, malformed("wrong number of fields: %d, want %d", len(fields), d.want))
		}
		// Broken quoting: skip only the first line.
		d.ls.unread(rec[first:], line+1)
		msg := pe.Err.Error()
		if at := line + pe.Line - pe.StartLine; at != line {
			msg += " (at line " + strconv.Itoa(at) + ")"
		}
		return d.bad(line, fmt.Errorf("%w: %s", ErrMalformed, msg))
	}
	return d.r.ioErr(line, err)
}

var quote = []byte{'"'}

// TSV scanner states.
const (
	tsvStart  = iota // at the start of a field
	tsvPlain         // in an unquoted field
	tsvQuoted        // in a quoted field
	tsvAfterQ        // after a '"' in a quoted field
)

func (d *delimSrc) readTSV(b []byte, line int) error {
	if b[0] != '"' && !bytes.Contains(b, tabQuote) {
		// Fast path: no field starts with a quote.
		d.splitLiteral(trimEOL(b))
		if d.want >= 0 && len(d.tf) != d.want {
			return d.bad(line, malformed("wrong number of fields: %d, want %d", len(d.tf), d.want))
		}
		d.body = b
		return nil
	}
	d.grp = append(d.grp[:0], b...)
	first := len(b)
	d.val, d.offs = d.val[:0], d.offs[:0]
	pos, st := 0, tsvStart
	var ok, eof bool
	for {
		var done bool
		pos, st, done, ok = d.scanTSV(pos, st)
		if done {
			break
		}
		nb, _, err := d.ls.next()
		if err == io.EOF {
			ok, eof = false, true // unterminated quoted field
			break
		}
		if err != nil {
			return d.r.ioErr(line, err)
		}
		d.grp = append(d.grp, nb...)
	}
	if ok {
		d.tf = d.tf[:0]
		start := 0
		for _, end := range d.offs {
			d.tf = append(d.tf, d.val[start:end])
			start = end
		}
		if d.want < 0 || len(d.tf) == d.want {
			// The record ends at the end of the group (scanTSV stops at
			// the first line end outside quotes, and lines were added
			// only while inside quotes).
			d.body = d.grp
			return nil
		}
	}
	// Fall back to the first line, split literally.
	d.splitLiteral(trimEOL(d.grp[:first]))
	if d.want < 0 || len(d.tf) == d.want {
		d.ls.unread(d.grp[first:], line+1)
		d.body = d.grp[:first]
		d.ahead = eof || len(d.grp) > first
		return nil
	}
	if ok {
		// Well quoted but the wrong width: skip the whole record.
		return d.bad(line, malformed("wrong number of fields: %d, want %d", len(d.offs), d.want))
	}
	d.ls.unread(d.grp[first:], line+1)
	return d.bad(line, malformed("wrong number of fields: %d, want %d", len(d.tf), d.want))
}

var tabQuote = []byte{'\t', '"'}

// scanTSV continues the quote-aware scan of d.grp from pos in state st,
// appending field bytes to d.val and field ends to d.offs. done reports
// that the record ended (ok) or the quoting is malformed (!ok); otherwise
// the group ended inside a quoted field and needs the next line.
func (d *delimSrc) scanTSV(pos, st int) (npos, nst int, done, ok bool) {
	g := d.grp
	for pos < len(g) {
		c := g[pos]
		switch st {
		case tsvStart:
			if c == '"' {
				st = tsvQuoted
				pos++
				continue
			}
			st = tsvPlain
			continue
		case tsvPlain:
			switch c {
			case '\t':
				d.offs = append(d.offs, len(d.val))
				st = tsvStart
			case '\n':
				if n := len(d.val); n > 0 && d.val[n-1] == '\r' && (len(d.offs) == 0 || d.offs[len(d.offs)-1] < n) {
					d.val = d.val[:n-1]
				}
				d.offs = append(d.offs, len(d.val))
				return pos + 1, tsvStart, true, true
			default:
				d.val = append(d.val, c)
			}
		case tsvQuoted:
			if c == '"' {
				st = tsvAfterQ
			} else {
				d.val = append(d.val, c)
			}
		case tsvAfterQ:
			switch c {
			case '"':
				d.val = append(d.val, '"')
				st = tsvQuoted
			case '\t':
				d.offs = append(d.offs, len(d.val))
				st = tsvStart
			case '\n':
				d.offs = append(d.offs, len(d.val))
				return pos + 1, tsvStart, true, true
			case '\r':
				if pos+1 < len(g) && g[pos+1] == '\n' {
					d.offs = append(d.offs, len(d.val))
					return pos + 2, tsvStart, true, true
				}
				return pos, st, true, false
			default:
				return pos, st, true, false
			}
		}
		pos++
	}
	// End of the group: only a quoted field continues on the next line.
	if st == tsvQuoted && len(g) > 0 && g[len(g)-1] == '\n' {
		return pos, st, false, false
	}
	if st == tsvQuoted {
		return pos, st, true, false // unterminated at the end of input
	}
	// The last line had no newline: the record ends here.
	if st == tsvPlain {
		if n := len(d.val); n > 0 && d.val[n-1] == '\r' && (len(d.offs) == 0 || d.offs[len(d.offs)-1] < n) {
			d.val = d.val[:n-1]
		}
	}
	d.offs = append(d.offs, len(d.val))
	return pos, tsvStart, true, true
}

// splitLiteral sets d.tf to line split at tabs (aliasing line).
func (d *delimSrc) splitLiteral(line []byte) {
	d.tf = d.tf[:0]
	for {
		i := bytes.IndexByte(line, '\t')
		if i < 0 {
			d.tf = append(d.tf, line)
			return
		}
		d.tf = append(d.tf, line[:i:i])
		line = line[i+1:]
	}
}
