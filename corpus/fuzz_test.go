package corpus

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
)

// fuzzRead reads data as format f and checks the invariants every parser
// keeps: errors are *Error, numbers increase by one, lines never go back.
// ok is false when Open or Next failed.
func fuzzRead(t *testing.T, data []byte, o Options) (recs []rec, skipped int, ok bool) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), "fuzz", o)
	if err != nil {
		isError(t, err)
		return nil, 0, false
	}
	defer r.Close()
	recs, skipped, err = drain(r)
	if err != nil {
		isError(t, err)
		if _, err2 := r.Next(); err2 != err {
			t.Fatalf("error not sticky: %v then %v", err, err2)
		}
	}
	line, num := 0, 0
	for _, x := range recs {
		if x.Num <= num || (!o.SkipBad && x.Num != num+1) {
			t.Fatalf("record numbers %d after %d (SkipBad %v)", x.Num, num, o.SkipBad)
		}
		if o.Format == Parquet {
			if x.Line != 0 {
				t.Fatalf("Parquet record %d has line %d", x.Num, x.Line)
			}
		} else if x.Line <= line {
			t.Fatalf("record %d starts at line %d after line %d", x.Num, x.Line, line)
		}
		num, line = x.Num, x.Line
	}
	if o.SkipBad && err == nil && num > len(recs)+skipped {
		// Every number is a returned or a skipped record.
		t.Fatalf("last number %d, %d records + %d skipped", num, len(recs), skipped)
	}
	checkSkipTo(t, data, o, recs)
	return recs, skipped, err == nil
}

// checkSkipTo reads data again for some of the records recs that reading
// it through gave: after SkipTo(x.Num), the first record Next returns at
// or past x.Num must be x itself, whether the format passes over lines
// undecoded (Text, JSONL) or SkipTo does nothing.
func checkSkipTo(t *testing.T, data []byte, o Options, recs []rec) {
	t.Helper()
	step := max(len(recs)/6, 1)
	for i := 0; i < len(recs); i += step {
		x := recs[i]
		r, err := NewReader(bytes.NewReader(data), "fuzz", o)
		if err != nil {
			t.Fatalf("reading again: %v", err)
		}
		if err := r.SkipTo(x.Num); err != nil {
			t.Fatalf("SkipTo(%d): %v", x.Num, err)
		}
		for {
			y, err := r.Next()
			if err != nil {
				t.Fatalf("after SkipTo(%d): %v", x.Num, err)
			}
			if y.Num < x.Num {
				continue
			}
			if got := (rec{y.Num, y.Line, y.ID, string(y.Text)}); got != x {
				t.Fatalf("after SkipTo(%d): %v, want %v", x.Num, got, x)
			}
			break
		}
		r.Close()
	}
}

func isError(t *testing.T, err error) {
	t.Helper()
	if _, ok := err.(*Error); !ok {
		t.Fatalf("error %v is %T, not *Error", err, err)
	}
	var e *Error
	if !errors.As(err, &e) || e.File != "fuzz" {
		t.Fatalf("error %v does not name the input", err)
	}
}

// fuzzRoundTrip filters every record of data (read with SkipBad) and checks
// the output: when nothing was skipped it is data itself, byte for byte
// (Filter copies records as read); otherwise reading it gives the same ids
// and texts, with nothing skipped, unless a TSV record whose reading
// depended on the lines after it was written (a documented limitation).
func fuzzRoundTrip(t *testing.T, data []byte, o Options) {
	t.Helper()
	o.SkipBad = true
	want, skipped, ok := fuzzRead(t, data, o)
	if !ok {
		return
	}
	var out bytes.Buffer
	var r *Reader
	ahead := false
	err := filter(&out, 1, func(int) (*Reader, error) {
		var err error
		r, err = NewReader(bytes.NewReader(data), "fuzz", o)
		if err != nil {
			t.Fatalf("second open: %v", err)
		}
		if d, ok := r.src.(*delimSrc); ok && d.headerAhead {
			ahead = true
		}
		return r, nil
	}, func(_, num int) bool {
		if d, ok := r.src.(*delimSrc); ok && d.ahead {
			ahead = true
		}
		return true
	})
	if err != nil {
		t.Fatalf("filter: %v", err)
	}
	if bytes.HasPrefix(data, gzipMagic) || bytes.HasPrefix(data, zstdMagic) {
		return // the output is the decompressed content
	}
	if skipped == 0 {
		exact := data
		if d, ok := r.src.(*delimSrc); (ok && d.header == nil) || len(want) == 0 && (o.Format == JSONL || o.Format == Text) {
			// No header, no records: nothing to write (data is blank
			// lines, perhaps after a byte order mark).
			exact = nil
		}
		if !bytes.Equal(out.Bytes(), exact) {
			t.Fatalf("keep all is not byte-exact\ninput  %q\noutput %q", data, out.Bytes())
		}
	}
	if ahead && skipped > 0 {
		return
	}
	if bytes.HasPrefix(out.Bytes(), gzipMagic) || bytes.HasPrefix(out.Bytes(), zstdMagic) {
		return // plain output that looks compressed: a known limitation
	}
	got, skipped, ok := fuzzRead(t, out.Bytes(), o)
	if !ok || skipped != 0 {
		t.Fatalf("re-reading the output: ok %v, skipped %d\ninput  %q\noutput %q", ok, skipped, data, out.Bytes())
	}
	if len(got) != len(want) {
		t.Fatalf("output has %d records, input %d\ninput  %q\noutput %q", len(got), len(want), data, out.Bytes())
	}
	for i := range got {
		if got[i].ID != want[i].ID || got[i].Text != want[i].Text {
			t.Fatalf("record %d: got %v, want %v\ninput  %q\noutput %q", i, got[i], want[i], data, out.Bytes())
		}
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"", "\n", "a\nb", "a\r\nb\r\n", "\xef\xbb\xbfx\n", "\r", "\xff\n\n", "\x1f\x8b",
		"a\x00b\n", "\xff\xfeh\x00i\x00\n\x00", "\x7fELF\x02\x01\x01\x00\x00\n"} {
		f.Add([]byte(s))
	}
	long := bytes.Repeat([]byte("a line of text\n"), 1000)
	for _, c := range [][]byte{gz(f, long), zst(f, long)} {
		f.Add(c[:len(c)/2]) // truncated
	}
	f.Add(gz(f, []byte("a\x00b\n")))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Binary content is refused unless IncludeBinary.
		fuzzRead(t, data, Options{Format: Text})
		recs, skipped, ok := fuzzRead(t, data, Options{Format: Text, IncludeBinary: true})
		if bytes.HasPrefix(data, gzipMagic) || bytes.HasPrefix(data, zstdMagic) {
			return
		}
		if _, err := NewReader(bytes.NewReader(data), "fuzz", Options{Format: Text}); isBinary(data) != errors.Is(err, ErrBinary) {
			t.Fatalf("binary %v, error %v", isBinary(data), err)
		}
		if !ok || skipped != 0 {
			t.Fatalf("plain text failed")
		}
		// Reference: split at '\n', strip one '\r'; no final empty line.
		ref := bytes.TrimPrefix(data, utf8BOM)
		var want []rec
		for i, l := range bytes.SplitAfter(ref, []byte("\n")) {
			if len(l) == 0 {
				break
			}
			want = append(want, rec{i + 1, i + 1, "", string(trimEOL(l))})
		}
		if len(recs) != len(want) {
			t.Fatalf("%d records, want %d", len(recs), len(want))
		}
		for i := range recs {
			if recs[i] != want[i] {
				t.Fatalf("got %v, want %v", recs[i], want[i])
			}
		}
		fuzzRoundTrip(t, data, Options{Format: Text, IncludeBinary: true})
	})
}

func FuzzJSONL(f *testing.F) {
	for _, s := range []string{
		"", "{}", `{"text":"a","id":1}` + "\n\n" + `{"text":"b\"\u00e9","id":"x"}`,
		`{"text":1.5e3}`, `{"text":null,"id":null}`, `{"text":[1,{"a":"b"}]}`,
		`{"text":"unterminated`, `[1]`, `{"text":"a"} x`, "\xef\xbb\xbf{\"text\":\"\xff\"}\r\n",
		`{"title":"t","body":"b"}`, `{"text":"a\ud800b"}`, `{"text":{"text":"deep"}}`,
		"\n" + `{"text":"a"}` + "\n \r\n" + `{"text":"b"}` + "\nbad\n\n" + `{"text":"c"}`,
		// Explicit id fields: in no record, in some, null, under another case.
		`{"text":"a"}` + "\n" + `{"id":"x","text":"b"}`, `{"ID":1,"text":"a","title":"t"}`,
		`{"key":null,"text":"a"}` + "\n" + `{"key":"k","title":"b"}` + "\n" + `{"text":"c"}`,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18,"s":19,"t":20,"u":21,"text":"x"}`,
		`{"te\u0078t":"escaped key","\u0069d":"i"}`,
	} {
		f.Add([]byte(s))
	}
	long := bytes.Repeat([]byte(`{"id":"x","text":"a document"}`+"\n"), 1000)
	for _, c := range [][]byte{gz(f, long), zst(f, long)} {
		f.Add(c[:len(c)/2]) // truncated
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, o := range []Options{
			{Format: JSONL},
			{Format: JSONL, SkipBad: true},
			{Format: JSONL, TextFields: []string{"title", "body"}, IDField: "key"},
			{Format: JSONL, IDField: "id"},
			{Format: JSONL, TextFields: []string{"title", "text"}, IDField: "key", SkipBad: true},
		} {
			fuzzRead(t, data, o)
		}
		fuzzRoundTrip(t, data, Options{Format: JSONL})
		fuzzRoundTrip(t, data, Options{Format: JSONL, TextFields: []string{"title", "text"}})
		fuzzRoundTrip(t, data, Options{Format: JSONL, IDField: "id"})
	})
}

var csvSeeds = []string{
	"", "id,text\n1,a\n", "id,text\n1,\"a\nb\"\n2,c\n", "id,text\n1,\"open\n2,b\n",
	"text\n\"\"\n", "id,text\n1,a\"b\n", "id,text\n1,a,b\n2\n", "Id,TEXT\r\n1,\"x\"\"y\"\r\n",
	"\xef\xbb\xbfid,text\n1, lead\n", "id,text\n\n\n1,\"\r\n\"\n", "id,text\n1,\"a\"b\n",
}

func FuzzCSV(f *testing.F) {
	for _, s := range csvSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzDelimited(t, data, CSV, "id,text,n\n")
	})
}

func FuzzTSV(f *testing.F) {
	for _, s := range csvSeeds {
		f.Add(bytes.ReplaceAll([]byte(s), []byte(","), []byte("\t")))
	}
	for _, s := range []string{
		"id\ttext\n1\t\"Proponiamo \". \tRoma\n", "id\ttext\n1\t\"a\tb\"\n", "id\ttext\n1\t\"a\"\"b\"\r\n",
		"id\ttext\n1\t\"x\ny\"\tz\n2\tq\n", "id\ttext\n1\t\"x\r",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzDelimited(t, data, TSV, "id\ttext\tn\n")
	})
}

func fuzzDelimited(t *testing.T, data []byte, f Format, header string) {
	withHeader := append([]byte(header), data...)
	for _, d := range [][]byte{data, withHeader} {
		for _, skip := range []bool{false, true} {
			o := Options{Format: f, SkipBad: skip}
			a, na, _ := fuzzRead(t, d, o)
			if skip { // deterministic numbering
				b, nb, _ := fuzzRead(t, d, o)
				if na != nb || len(a) != len(b) {
					t.Fatalf("two reads differ: %d/%d records, %d/%d skipped", len(a), len(b), na, nb)
				}
				for i := range a {
					if a[i] != b[i] {
						t.Fatalf("two reads differ: %v, %v", a[i], b[i])
					}
				}
			}
		}
	}
	fuzzRoundTrip(t, withHeader, Options{Format: f})
	fuzzRoundTrip(t, withHeader, Options{Format: f, TextFields: []string{"n", "text"}, IDField: "n"})
	fuzzRoundTrip(t, data, Options{Format: f})
}

// TestFuzzSeedsReadAll makes sure the reading helpers see real records, so
// the fuzz targets are not vacuous.
func TestFuzzSeedsReadAll(t *testing.T) {
	recs, _, ok := fuzzRead(t, []byte("id\ttext\tloc\n1\t\"Proponiamo \". \tRoma\n"), Options{Format: TSV})
	if !ok || len(recs) != 1 || recs[0].Text != `"Proponiamo ". ` {
		t.Errorf("%v %v", ok, recs)
	}
	_, _, ok = fuzzRead(t, []byte("{"), Options{Format: JSONL})
	if ok {
		t.Error("malformed JSON read without error")
	}
	var r io.Reader = bytes.NewReader(nil)
	if _, err := NewReader(r, "x", Options{Format: Dir}); err == nil {
		t.Error("NewReader accepted Dir")
	}
}

// FuzzParquet reads arbitrary bytes as Parquet: the reader must not panic,
// its errors are *Error, and it must not allocate much more than the input
// can back (checkParquet): at most 256 MiB plus 2048 bytes per input byte
// (the forged files of forgedParquet made it allocate 1.2 to 4 GB without
// the check; the margin is for allocations elsewhere in the process, which
// the counter sees too).
func FuzzParquet(f *testing.F) {
	s := "opt"
	f.Add(parquetBytes(f, []parquetRow{{ID: 1, Text: "a", Opt: &s, Tags: []string{"x"}}, {ID: 2}}))
	f.Add([]byte("PAR1"))
	f.Add(validParquet(f, 20, true))
	for _, c := range forgedParquet(f) {
		f.Add(c.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n := allocDuring(func() { fuzzRead(t, data, Options{Format: Parquet, SkipBad: true}) })
		if limit := uint64(256<<20 + 2048*len(data)); n > limit {
			t.Fatalf("reading %d bytes allocated %d bytes", len(data), n)
		}
	})
}

// FuzzSniff checks that sniffing never panics or consumes input, and that
// its decision agrees with what the readers then do: Parquet and JSONL by
// their first bytes, CSV and TSV by reading the header and the records the
// sniffer checked, and for an input that fits the window, CSV or TSV
// exactly when reading it strictly with that format shows a header of two
// fields or more followed by well-formed records.
func FuzzSniff(f *testing.F) {
	for _, s := range append(csvSeeds,
		"PAR1", " {\"text\":1}", "a\tb\n1\t2\n", "a,b\tc\n1,2\t3\n", "Hi, Bob\nBye, Bob\n",
		"id\ttext\n1\t\"x\ny\"\n2\tz\n", "\xef\xbb\xbf\n\nid,text\n1,\"a\n", "x,y\r\n1,2\r\n3,\"4\r\n5\"\r\n",
	) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, size := range []int{16, 61, lineBufSize} {
			br := bufio.NewReaderSize(bytes.NewReader(data), size)
			got, err := sniff(br)
			if rest, _ := io.ReadAll(br); !bytes.Equal(rest, data) {
				t.Fatalf("sniff consumed input")
			}
			b, perr := bufio.NewReaderSize(bytes.NewReader(data), size).Peek(size)
			complete := perr == io.EOF
			b = bytes.TrimPrefix(b, utf8BOM)
			if err != nil {
				_, tsv := sniffDelimited(b, complete, true)
				_, csv := sniffDelimited(b, complete, false)
				if !errors.Is(err, ErrUnknownFormat) || !tsv || !csv {
					t.Fatalf("sniff error %v (tsv %v, csv %v)", err, tsv, csv)
				}
				continue
			}
			trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n\f\v")
			switch got {
			case Parquet:
				if !bytes.HasPrefix(data, []byte("PAR1")) {
					t.Fatalf("Parquet without magic")
				}
				continue
			case JSONL:
				if len(trimmed) == 0 || trimmed[0] != '{' {
					t.Fatalf("JSONL not starting with {")
				}
				continue
			case CSV, TSV:
				n, ok := sniffDelimited(b, complete, got == TSV)
				if !ok || n < 1 {
					t.Fatalf("sniffed %v, sniffDelimited %d %v", got, n, ok)
				}
				checkDelimited(t, data, got, n)
			case Text:
				if size == lineBufSize && complete && len(data) < size && !bytes.HasPrefix(data, []byte("PAR1")) &&
					(len(trimmed) == 0 || trimmed[0] != '{') {
					for _, g := range []Format{CSV, TSV} {
						if refDelimited(data, g) {
							t.Fatalf("sniffed Text, but the input reads as %v", g)
						}
					}
				}
			}
			if got == Text && (bytes.HasPrefix(data, gzipMagic) || bytes.HasPrefix(data, zstdMagic)) {
				continue
			}
			// The reader sniffs the same.
			r, err := NewReader(bytes.NewReader(data), "fuzz", Options{})
			if size == lineBufSize && !bytes.HasPrefix(data, gzipMagic) && !bytes.HasPrefix(data, zstdMagic) {
				if err == nil && r.Format() != got {
					t.Fatalf("NewReader sniffed %v, sniff %v", r.Format(), got)
				}
			}
			if err == nil {
				r.Close()
			}
		}
	})
}

// checkDelimited reads data as format f with the first header column as
// the text and checks that the header has two fields or more and that the
// first n records read without error.
func checkDelimited(t *testing.T, data []byte, f Format, n int) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), "fuzz", Options{Format: f})
	if err != nil && !errors.Is(err, ErrMissingField) {
		t.Fatalf("sniffed %v, then opening it: %v", f, err)
	}
	if r == nil {
		// Reopen with the first column, which exists.
		d, err := newDelimSrc(&Reader{name: "x"}, &lineSrc{br: bufio.NewReader(bytes.NewReader(bytes.TrimPrefix(data, utf8BOM)))}, f == TSV)
		if err != nil || d.header == nil {
			t.Fatalf("sniffed %v, header: %v", f, err)
		}
		r, err = NewReader(bytes.NewReader(data), "fuzz", Options{Format: f, TextFields: d.header[:1]})
		if err != nil {
			t.Fatalf("sniffed %v, then opening it with column %q: %v", f, d.header[0], err)
		}
	}
	defer r.Close()
	if h := r.src.(*delimSrc).header; len(h) < 2 {
		t.Fatalf("sniffed %v with header %q", f, h)
	}
	for i := range n {
		if _, err := r.Next(); err != nil {
			t.Fatalf("sniffed %v after %d good records, but record %d: %v", f, n, i+1, err)
		}
	}
}

// refDelimited is the sniffing rule for a whole input, through the reader:
// the first line that is not blank has the delimiter, the header has two
// fields or more, and the first records (at least one, up to sniffRecords)
// read strictly without error.
func refDelimited(data []byte, f Format) bool {
	delim := []byte{','}
	if f == TSV {
		delim = []byte{'\t'}
	}
	for _, l := range bytes.SplitAfter(bytes.TrimPrefix(data, utf8BOM), []byte("\n")) {
		if len(trimEOL(l)) > 0 {
			if !bytes.Contains(l, delim) {
				return false
			}
			break
		}
	}
	d, err := newDelimSrc(&Reader{name: "x"}, &lineSrc{br: bufio.NewReader(bytes.NewReader(bytes.TrimPrefix(data, utf8BOM)))}, f == TSV)
	if err != nil || len(d.header) < 2 {
		return false
	}
	n := 0
	for ; n < sniffRecords; n++ {
		var rec Record
		err := d.next(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			return false
		}
	}
	return n > 0
}
