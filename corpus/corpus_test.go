package corpus

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// rec is a Record with its text copied, for comparisons.
type rec struct {
	Num, Line int
	ID, Text  string
}

func (r rec) String() string { return fmt.Sprintf("{%d %d %q %q}", r.Num, r.Line, r.ID, r.Text) }

func write(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func gz(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zst(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := zstd.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readFile reads every record of path; err is the error that ended reading
// (nil at EOF). skipped is Reader.Skipped at the end.
func readFile(t testing.TB, path string, o Options) (recs []rec, skipped int, err error) {
	t.Helper()
	r, err := Open(path, o)
	if err != nil {
		return nil, 0, err
	}
	defer r.Close()
	return drain(r)
}

func drain(r *Reader) (recs []rec, skipped int, err error) {
	for {
		x, err := r.Next()
		if err == io.EOF {
			return recs, r.Skipped(), nil
		}
		if err != nil {
			return recs, r.Skipped(), err
		}
		recs = append(recs, rec{x.Num, x.Line, x.ID, string(x.Text)})
	}
}

func mustRead(t testing.TB, path string, o Options) []rec {
	t.Helper()
	recs, _, err := readFile(t, path, o)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return recs
}

func same(t testing.TB, what string, got, want []rec) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}

// wantErr checks that err is an *Error that wraps target (when not nil) and
// whose message contains every part.
func wantErr(t testing.TB, err, target error, parts ...string) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one containing %q", parts)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	if _, ok := err.(*Error); !ok {
		t.Errorf("error %T is not *Error itself", err)
	}
	if target != nil && !errors.Is(err, target) {
		t.Errorf("error %q does not wrap %v", err, target)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
	return e
}

func TestParseFormat(t *testing.T) {
	for f := Auto; f <= Dir; f++ {
		g, err := ParseFormat(f.String())
		if err != nil || g != f {
			t.Errorf("ParseFormat(%q) = %v, %v", f.String(), g, err)
		}
	}
	if f, err := ParseFormat("JSONL"); err != nil || f != JSONL {
		t.Errorf("ParseFormat(JSONL) = %v, %v", f, err)
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("ParseFormat(xml): no error")
	}
	if s := Format(99).String(); s != "Format(99)" {
		t.Errorf("Format(99).String() = %q", s)
	}
}

func TestDetect(t *testing.T) {
	dir := t.TempDir()
	f := func(path string, want Format) {
		t.Helper()
		got, err := Detect(path)
		if err != nil || got != want {
			t.Errorf("Detect(%q) = %v, %v; want %v", path, got, err, want)
		}
	}
	f("a.txt", Text)
	f("a.text", Text)
	f("a.TXT.GZ", Text)
	f("a.jsonl", JSONL)
	f("x/a.ndjson.zst", JSONL)
	f("a.json.gz", JSONL)
	f("a.csv", CSV)
	f("a.csv.zst", CSV)
	f("a.tsv", TSV)
	f("a.tab", TSV)
	f("a.parquet", Parquet)
	f("a.pq.gz", Parquet)
	f(dir, Dir)
	f("-", Auto)
	for _, p := range []string{"a.xml", "a.gz", "noext"} {
		_, err := Detect(p)
		wantErr(t, err, ErrUnknownFormat, p, "--format")
	}
}

func TestCheckOutputName(t *testing.T) {
	ok := func(path string, in Format) {
		t.Helper()
		if err := CheckOutputName(path, in); err != nil {
			t.Errorf("CheckOutputName(%q, %v): %v", path, in, err)
		}
	}
	bad := func(path string, in Format, suggest string) {
		t.Helper()
		err := CheckOutputName(path, in)
		wantErr(t, err, ErrFormatMismatch, path, "input's format, "+in.String(), "name it "+suggest)
	}
	ok("-", TSV)
	ok("out.tsv", TSV)
	ok("out.TAB.gz", TSV)
	ok("dir/out.csv.zst", CSV)
	ok("out.ndjson", JSONL)
	ok("out.json.gz", JSONL)
	ok("out.text", Text)
	ok("out.pq", Parquet)
	ok("out", CSV)         // no extension
	ok("out.dat", CSV)     // unknown extension
	ok("out.gz", JSONL)    // compression only
	ok("unique.csv", Dir)  // a directory of any name
	ok("unique.csv", Auto) // input not known yet
	bad("out.csv", TSV, "out.tsv")
	bad("dir/Out.CSV.GZ", TSV, "Out.tsv.GZ")
	bad("out.tsv.zst", CSV, "out.csv.zst")
	bad("out.txt", JSONL, "out.jsonl")
	bad("out.jsonl", Text, "out.txt")
	bad("out.parquet", CSV, "out.csv")
	bad("out.csv", Parquet, "out.parquet")
	bad("a.b.json", TSV, "a.b.tsv")
}

func TestErrorString(t *testing.T) {
	f := func(e *Error, want string) {
		t.Helper()
		if got := e.Error(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	f(&Error{File: "a.csv", Line: 3, Record: 2, Err: ErrMalformed}, "a.csv:3: record 2: malformed record")
	f(&Error{File: "a.csv", Err: ErrMalformed}, "a.csv: malformed record")
	f(&Error{File: "a.pq", Record: 7, Err: ErrMalformed}, "a.pq: record 7: malformed record")
	f(&Error{Line: 4, Err: ErrMalformed}, "line 4: malformed record")
	f(&Error{Err: ErrMalformed}, "malformed record")
	e := &Error{File: "x", Err: ErrMissingField}
	if !errors.Is(e, ErrMissingField) {
		t.Error("Unwrap")
	}
}

func TestText(t *testing.T) {
	dir := t.TempDir()
	f := func(name, data string, want []rec) {
		t.Helper()
		same(t, name, mustRead(t, write(t, dir, name, []byte(data)), Options{}), want)
	}
	f("a.txt", "one\r\ntwo\n\nthree", []rec{{1, 1, "", "one"}, {2, 2, "", "two"}, {3, 3, "", ""}, {4, 4, "", "three"}})
	f("b.txt", "", nil)
	f("c.txt", "\n\n\n", []rec{{1, 1, "", ""}, {2, 2, "", ""}, {3, 3, "", ""}})
	f("d.txt", "\xef\xbb\xbfbom\n", []rec{{1, 1, "", "bom"}})
	f("e.txt", "bad \xff\xfe utf8\r\n  spaces kept \t\n", []rec{{1, 1, "", "bad \xff\xfe utf8"}, {2, 2, "", "  spaces kept \t"}})
	f("f.txt", "a\rb\n", []rec{{1, 1, "", "a\rb"}})
	f("g.txt", "{\"text\":\"not json here\"}\n", []rec{{1, 1, "", `{"text":"not json here"}`}})
}

func TestTextLongLines(t *testing.T) {
	dir := t.TempDir()
	// Lines around and far beyond the read buffer.
	var b bytes.Buffer
	var want []rec
	for i, n := range []int{lineBufSize - 1, lineBufSize, lineBufSize + 1, 3*lineBufSize + 7, 5} {
		line := strings.Repeat(string(rune('a'+i)), n)
		b.WriteString(line)
		b.WriteString("\n")
		want = append(want, rec{i + 1, i + 1, "", line})
	}
	same(t, "long", mustRead(t, write(t, dir, "long.txt", b.Bytes()), Options{}), want)
}

func TestText100MB(t *testing.T) {
	if testing.Short() {
		t.Skip("100 MB document")
	}
	dir := t.TempDir()
	doc := bytes.Repeat([]byte("lorem ipsum dolor sit amet "), 100<<20/27)
	data := append(append(append([]byte("first\n"), doc...), '\n'), "last"...)
	p := write(t, dir, "big.txt", data)
	for _, o := range []Options{{}, {Format: JSONL}} {
		if o.Format == JSONL {
			j := append(append([]byte(`{"id":7,"text":"`), doc...), "\"}\n"...)
			p = write(t, dir, "big.jsonl", j)
		}
		r, err := Open(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			x, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
			if len(x.Text) > 1000 && !bytes.Equal(x.Text, doc) {
				t.Fatalf("%s: big document differs: len %d want %d", p, len(x.Text), len(doc))
			}
		}
		r.Close()
		if want := map[Format]int{Auto: 3, JSONL: 1}[o.Format]; n != want {
			t.Errorf("%s: %d records, want %d", p, n, want)
		}
	}
}

func TestJSONL(t *testing.T) {
	dir := t.TempDir()
	data := `{"id":"a1","text":"hello \"world\"\n\u00e9"}

{"id":42,"text":"second","other":1}
   
{"text":7.50}
{"text":true,"id":null}
{"text":null,"id":-3e2}
{"text":"x\ud800y","id":"\u0041"}
{"text":["arr",1],"id":{"k":1}}
`
	p := write(t, dir, "a.jsonl", []byte(data))
	same(t, "jsonl", mustRead(t, p, Options{}), []rec{
		{1, 1, "a1", "hello \"world\"\n\u00e9"},
		{2, 3, "42", "second"},
		{3, 5, "", "7.50"},
		{4, 6, "", "true"},
		{5, 7, "-3e2", ""},
		{6, 8, "A", `x\ud800y`}, // fastjson keeps a lone surrogate escaped
		{7, 9, `{"k":1}`, `["arr",1]`},
	})

	// Several fields, an explicit id field, and missing fields.
	data = `{"title":"T","body":"B","key":"k1","id":"ignored"}
{"title":"T2","key":5}
{"body":"B3"}
{"title":null,"body":"B4"}
`
	p = write(t, dir, "b.ndjson", []byte(data))
	same(t, "fields", mustRead(t, p, Options{TextFields: []string{"title", "body"}, IDField: "key"}), []rec{
		{1, 1, "k1", "T B"},
		{2, 2, "5", "T2 "},
		{3, 3, "", " B3"},
		{4, 4, "", " B4"},
	})

	// CRLF, BOM and invalid UTF-8 pass through.
	p = write(t, dir, "c.json", []byte("\xef\xbb\xbf{\"text\":\"a\xffb\"}\r\n{\"text\":\"c\"}"))
	same(t, "crlf", mustRead(t, p, Options{}), []rec{{1, 1, "", "a\xffb"}, {2, 2, "", "c"}})

	// Empty file and a file of blank lines have no records.
	same(t, "empty", mustRead(t, write(t, dir, "e.jsonl", nil), Options{}), nil)
	same(t, "blank", mustRead(t, write(t, dir, "f.jsonl", []byte("\n\n  \r\n\t\n")), Options{}), nil)
}

func TestJSONLBad(t *testing.T) {
	dir := t.TempDir()
	data := `{"text":"one"}
{"text":"two"}
{"text":"thr
{"text":"four"}
[1,2]
{"title":"no text"}
{"text":"seven"} trailing
{"text":"eight"}
`
	p := write(t, dir, "bad.jsonl", []byte(data))
	recs, _, err := readFile(t, p, Options{})
	e := wantErr(t, err, ErrMalformed, p+":3:", "record 3")
	if e.File != p || e.Line != 3 || e.Record != 3 {
		t.Errorf("error fields %+v", e)
	}
	same(t, "before the error", recs, []rec{{1, 1, "", "one"}, {2, 2, "", "two"}})

	// Errors are sticky.
	r, _ := Open(p, Options{})
	drain(r)
	if _, err := r.Next(); err == nil || err == io.EOF {
		t.Errorf("Next after an error: %v", err)
	}
	r.Close()

	recs, skipped, err := readFile(t, p, Options{SkipBad: true})
	if err != nil {
		t.Fatal(err)
	}
	if skipped != 4 {
		t.Errorf("skipped %d, want 4", skipped)
	}
	same(t, "skip bad", recs, []rec{{1, 1, "", "one"}, {2, 2, "", "two"}, {4, 4, "", "four"}, {8, 8, "", "eight"}})

	// Missing every text field.
	p = write(t, dir, "missing.jsonl", []byte("{\"text\":\"a\"}\n\n{\"body\":\"b\"}\n"))
	_, _, err = readFile(t, p, Options{})
	wantErr(t, err, ErrMissingField, p+":3:", "record 2", `"text"`)
	_, _, err = readFile(t, p, Options{TextFields: []string{"x", "y"}})
	wantErr(t, err, ErrMissingField, p+":1:", `"x", "y"`)
}

func TestCSV(t *testing.T) {
	dir := t.TempDir()
	data := "Id,title,text,extra\r\n" +
		"1,T1,plain,x\r\n" +
		"\r\n" +
		"2,T2,\"multi\r\nline, \"\"quoted\"\"\n\nfield\",y\r\n" +
		"3,,\"\",\n" +
		"4,T4,bad \xff utf8,z"
	p := write(t, dir, "a.csv", []byte(data))
	same(t, "default", mustRead(t, p, Options{}), []rec{
		{1, 2, "1", "plain"},
		{2, 4, "2", "multi\nline, \"quoted\"\n\nfield"},
		{3, 8, "3", ""},
		{4, 9, "4", "bad \xff utf8"},
	})
	same(t, "fields", mustRead(t, p, Options{TextFields: []string{"title", "extra"}, IDField: "title"}), []rec{
		{1, 2, "T1", "T1 x"},
		{2, 4, "T2", "T2 y"},
		{3, 8, "", " "},
		{4, 9, "T4", "T4 z"},
	})

	// No id column: ID is empty. The default text column matches case-insensitively.
	p = write(t, dir, "b.csv", []byte("\xef\xbb\xbfTEXT,n\nhello,1\n"))
	same(t, "noid", mustRead(t, p, Options{}), []rec{{1, 2, "", "hello"}})

	// Empty file: no records. Header only: no records.
	same(t, "empty", mustRead(t, write(t, dir, "e.csv", nil), Options{}), nil)
	same(t, "header only", mustRead(t, write(t, dir, "h.csv", []byte("id,text\n")), Options{}), nil)
}

func TestCSVMissingColumn(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.csv", "a.tsv"} {
		sep := map[string]string{"a.csv": ",", "a.tsv": "\t"}[name]
		p := write(t, dir, name, []byte(strings.Join([]string{"id", "body", "title"}, sep)+"\n1"+sep+"b"+sep+"t\n"))
		_, err := Open(p, Options{})
		wantErr(t, err, ErrMissingField, p, `"text"`, `"id", "body", "title"`)
		_, err = Open(p, Options{TextFields: []string{"body", "Title"}})
		wantErr(t, err, ErrMissingField, p, `"Title"`, `"id", "body", "title"`)
		_, err = Open(p, Options{TextFields: []string{"body"}, IDField: "key"})
		wantErr(t, err, ErrMissingField, p, `"key"`)
		same(t, name, mustRead(t, p, Options{TextFields: []string{"title", "body"}}), []rec{{1, 2, "1", "t b"}})
	}
}

func TestCSVBad(t *testing.T) {
	dir := t.TempDir()
	f := func(name, data string, errParts []string, wantRecs []rec, skip []rec, skipped int) {
		t.Helper()
		p := write(t, dir, name, []byte(data))
		recs, _, err := readFile(t, p, Options{})
		wantErr(t, err, ErrMalformed, append([]string{p}, errParts...)...)
		same(t, name+" strict", recs, wantRecs)
		for range 2 { // twice: the numbering must not change
			recs, n, err := readFile(t, p, Options{SkipBad: true})
			if err != nil {
				t.Fatalf("%s: SkipBad: %v", name, err)
			}
			same(t, name+" SkipBad", recs, skip)
			if n != skipped {
				t.Errorf("%s: skipped %d, want %d", name, n, skipped)
			}
		}
	}
	// Wrong field count.
	f("count.csv", "id,text\n1,a\n2,b,extra\n3,c\n4\n5,e\n",
		[]string{":3:", "record 2", "wrong number of fields"},
		[]rec{{1, 2, "1", "a"}},
		[]rec{{1, 2, "1", "a"}, {3, 4, "3", "c"}, {5, 6, "5", "e"}}, 2)
	// Unterminated quote: only its first line is lost.
	f("unterminated.csv", "id,text\n1,a\n2,\"open\n3,c\n4,d\n",
		[]string{":3:", "record 2", `extraneous or missing " in quoted-field`},
		[]rec{{1, 2, "1", "a"}},
		[]rec{{1, 2, "1", "a"}, {3, 4, "3", "c"}, {4, 5, "4", "d"}}, 1)
	// Bare quote in an unquoted field; quote not followed by a comma.
	f("bare.csv", "id,text\n1,a\"b\n2,\"x\"y\n3,\"ok\"\n",
		[]string{":2:", "record 1", `bare "`},
		nil,
		[]rec{{3, 4, "3", "ok"}}, 2)
	// A bad quote on a later line of a multi-line record.
	f("later.csv", "id,text\n1,\"a\nb\"c\n2,d\n3,\"e\nf\"\n",
		[]string{":2:", "at line 3"},
		nil,
		[]rec{{3, 4, "2", "d"}, {4, 5, "3", "e\nf"}}, 2)
	// A well-quoted multi-line record of the wrong width is skipped whole.
	f("wide.csv", "id,text\n1,\"a\nb\",c\n2,d\n",
		[]string{":2:", "wrong number of fields: 3, want 2"},
		nil,
		[]rec{{2, 4, "2", "d"}}, 1)

	// A malformed header fails Open.
	p := write(t, dir, "header.csv", []byte("id,\"text\n1,a\n"))
	_, err := Open(p, Options{})
	wantErr(t, err, ErrMalformed, p+":1:", "header")
}

func TestTSV(t *testing.T) {
	dir := t.TempDir()
	data := "id\ttext\tn\n" +
		"1\tsays \"hi\" there\tx\n" + // stray quotes inside a field
		"2\t\"quoted \"\"x\"\"\tand\nnewline\"\ty\n" + // a well-quoted field with tab and newline
		"3\t\"starts with a quote. and\tz\n" + // never closed: literal
		"4\t\"closed\" then more\tw\r\n" + // quote followed by text: literal
		"5\t\" spaced \"\t\"\"\n" +
		"\n" +
		"6\t\t\n" +
		"7\tlast\tv"
	p := write(t, dir, "a.tsv", []byte(data))
	same(t, "tsv", mustRead(t, p, Options{}), []rec{
		{1, 2, "1", `says "hi" there`},
		{2, 3, "2", "quoted \"x\"\tand\nnewline"},
		{3, 5, "3", `"starts with a quote. and`},
		{4, 6, "4", `"closed" then more`},
		{5, 7, "5", " spaced "},
		{6, 9, "6", ""},
		{7, 10, "7", "last"},
	})
	// A quoted reading with the wrong width falls back to the line.
	p = write(t, dir, "b.tsv", []byte("id\ttext\tx\ty\n1\t\"a\tb\"\tc\n2\t\"x\ny\"\tp\tq\n3\tonly\n"))
	recs, _, err := readFile(t, p, Options{})
	same(t, "fallback", recs, []rec{{1, 2, "1", `"a`}, {2, 3, "2", "x\ny"}})
	wantErr(t, err, ErrMalformed, p+":5:", "record 3", "wrong number of fields: 2, want 4")
	// Both readings of the wrong width: a well-quoted record is skipped whole.
	p = write(t, dir, "w.tsv", []byte("id\ttext\tn\n1\t\"a\nb\"\tc\td\n2\td\te\n"))
	recs, _, err = readFile(t, p, Options{SkipBad: true})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "whole", recs, []rec{{2, 4, "2", "d"}})

	recs, n, err := readFile(t, write(t, dir, "c.tsv", []byte("id\ttext\n1\ta\tb\n2\tb\n\"3\n")), Options{SkipBad: true})
	if err != nil || n != 2 {
		t.Errorf("SkipBad: %v, skipped %d", err, n)
	}
	same(t, "skip", recs, []rec{{2, 3, "2", "b"}})
}

// TestDelimitedSkipConsistency reads messy CSV and TSV twice with SkipBad and
// through Filter, and checks that numbers and texts agree.
func TestDelimitedSkipConsistency(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"m.csv", "m.tsv"} {
		sep := ","
		if strings.HasSuffix(name, ".tsv") {
			sep = "\t"
		}
		var b strings.Builder
		b.WriteString("id" + sep + "text\n")
		for i := range 200 {
			switch i % 7 {
			case 0:
				fmt.Fprintf(&b, "%d%s\"open %d\n", i, sep, i)
			case 3:
				fmt.Fprintf(&b, "%d%sa%sb\n", i, sep, sep)
			case 5:
				fmt.Fprintf(&b, "%d%s\"multi\n%d\"\n", i, sep, i)
			default:
				fmt.Fprintf(&b, "%d%sdoc %d\n", i, sep, i)
			}
		}
		p := write(t, dir, name, []byte(b.String()))
		o := Options{SkipBad: true}
		a, na, err := readFile(t, p, o)
		if err != nil {
			t.Fatal(err)
		}
		c, nc, _ := readFile(t, p, o)
		same(t, name+" twice", c, a)
		if na == 0 || na != nc {
			t.Errorf("%s: skipped %d and %d", name, na, nc)
		}
		// Filter keeps every other record; re-reading gives that subset.
		var want []rec
		for _, x := range a {
			if x.Num%2 == 0 {
				want = append(want, x)
			}
		}
		out := filepath.Join(dir, "out-"+name)
		filterTo(t, out, []string{p}, o, func(_, num int) bool { return num%2 == 0 })
		got := mustRead(t, out, Options{})
		if len(got) != len(want) {
			t.Fatalf("%s: filter kept %d, want %d", name, len(got), len(want))
		}
		for i := range got {
			if got[i].ID != want[i].ID || got[i].Text != want[i].Text {
				t.Errorf("%s: filtered %v, want %v", name, got[i], want[i])
			}
		}
	}
}

func filterTo(t testing.TB, out string, inputs []string, o Options, keep func(file, num int) bool) {
	t.Helper()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	cw, err := NewCompressWriter(f, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := Filter(cw, inputs, o, keep); err != nil {
		t.Fatalf("Filter: %v", err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestUnreadable(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "nope.txt")
	_, err := Open(p, Options{})
	wantErr(t, err, os.ErrNotExist, p, "no such file")
	_, err = Open(dir, Options{Format: Text})
	wantErr(t, err, nil, dir, "directory")
	_, err = Open(write(t, dir, "x.xml", []byte("<a/>")), Options{})
	wantErr(t, err, ErrUnknownFormat, "x.xml", "--format")
	_, err = Open(write(t, dir, "x.txt", nil), Options{Format: Dir})
	wantErr(t, err, nil, "x.txt", "not a directory")
	if os.Geteuid() != 0 {
		p := write(t, dir, "locked.txt", []byte("a\n"))
		os.Chmod(p, 0)
		_, err = Open(p, Options{})
		wantErr(t, err, os.ErrPermission, p)
	}
	// A corrupt compressed stream is reported with the file name.
	bad := gz(t, bytes.Repeat([]byte("hello world\n"), 1000))
	bad = bad[:len(bad)/2]
	p = write(t, dir, "trunc.txt.gz", bad)
	_, _, err = readFile(t, p, Options{SkipBad: true})
	wantErr(t, err, io.ErrUnexpectedEOF, p)
}

func TestCompressed(t *testing.T) {
	dir := t.TempDir()
	plain := []byte("{\"id\":1,\"text\":\"a\"}\n{\"id\":2,\"text\":\"b\"}\n")
	want := []rec{{1, 1, "1", "a"}, {2, 2, "2", "b"}}
	same(t, "gz", mustRead(t, write(t, dir, "a.jsonl.gz", gz(t, plain)), Options{}), want)
	same(t, "zst", mustRead(t, write(t, dir, "a.jsonl.zst", zst(t, plain)), Options{}), want)
	// Mislabeled: compressed content without the suffix, and the reverse.
	same(t, "mislabeled gz", mustRead(t, write(t, dir, "b.jsonl", gz(t, plain)), Options{}), want)
	same(t, "mislabeled zst", mustRead(t, write(t, dir, "c.jsonl", zst(t, plain)), Options{}), want)
	same(t, "plain .gz", mustRead(t, write(t, dir, "d.jsonl.gz", plain), Options{}), want)
	// Multi-member gzip.
	two := append(gz(t, plain[:20]), gz(t, plain[20:])...)
	same(t, "two members", mustRead(t, write(t, dir, "e.jsonl.gz", two), Options{}), want)
	// An empty compressed file.
	same(t, "empty", mustRead(t, write(t, dir, "f.txt.gz", gz(t, nil)), Options{}), nil)
}

func TestStdin(t *testing.T) {
	dir := t.TempDir()
	f := func(data []byte, o Options, want []rec) {
		t.Helper()
		p := write(t, dir, "stdin", data)
		in, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		old := os.Stdin
		os.Stdin = in
		defer func() { os.Stdin = old }()
		same(t, "stdin", mustRead(t, "-", o), want)
	}
	jsonl := []byte("\n  {\"text\":\"a\"}\n{\"text\":\"b\"}\n")
	f(jsonl, Options{}, []rec{{1, 2, "", "a"}, {2, 3, "", "b"}})
	f(gz(t, jsonl), Options{}, []rec{{1, 2, "", "a"}, {2, 3, "", "b"}})
	f([]byte("\xef\xbb\xbf{\"text\":\"a\"}"), Options{}, []rec{{1, 1, "", "a"}})
	f([]byte("plain\n{\"text\":\"b\"}\n"), Options{}, []rec{{1, 1, "", "plain"}, {2, 2, "", `{"text":"b"}`}})
	f([]byte(strings.Repeat(" ", 1000)+"\nx"), Options{}, []rec{{1, 1, "", strings.Repeat(" ", 1000)}, {2, 2, "", "x"}})
	f(nil, Options{}, nil)
	f([]byte("id,text\n1,a\n"), Options{Format: CSV}, []rec{{1, 2, "1", "a"}})
	f(zst(t, []byte("id\ttext\n1\ta\n")), Options{Format: TSV}, []rec{{1, 2, "1", "a"}})
	f(parquetBytes(t, []parquetRow{{ID: 5, Text: "pq"}}), Options{Format: Parquet}, []rec{{1, 0, "5", "pq"}})
	f(parquetBytes(t, []parquetRow{{ID: 5, Text: "pq"}}), Options{}, []rec{{1, 0, "5", "pq"}})

	// NewReader detects by name, else sniffs.
	r, err := NewReader(strings.NewReader("id\ttext\n9\tz\n"), "upload.tsv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := drain(r)
	same(t, "NewReader", recs, []rec{{1, 2, "9", "z"}})
	if err != nil || r.Format() != TSV {
		t.Errorf("NewReader: %v, format %v", err, r.Format())
	}
}

func TestDir(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "docs")
	write(t, root, "b.txt", []byte("bee"))
	write(t, root, "a/z.txt", []byte("zed\nline2"))
	write(t, root, "a/y.md", []byte("why"))
	write(t, root, "a.txt", []byte("ay"))
	write(t, root, ".hidden", []byte("no"))
	write(t, root, ".git/config", []byte("no"))
	write(t, root, "c/.d/e.txt", []byte("no"))
	write(t, root, "c/empty.txt", nil)
	write(t, root, "c/g.txt.gz", gz(t, []byte("unzipped")))
	os.Symlink(filepath.Join(root, "b.txt"), filepath.Join(root, "link.txt"))
	want := []rec{
		{1, 0, "a/y.md", "why"},
		{2, 0, "a/z.txt", "zed\nline2"},
		{3, 0, "a.txt", "ay"},
		{4, 0, "b.txt", "bee"},
		{5, 0, "c/empty.txt", ""},
		{6, 0, "c/g.txt.gz", "unzipped"},
	}
	same(t, "dir", mustRead(t, root, Options{}), want)
	same(t, "dir format", mustRead(t, root, Options{Format: Dir}), want)

	// FilterDir copies the kept files.
	dst := filepath.Join(dir, "out")
	if err := FilterDir(dst, root, func(n int) bool { return n%2 == 0 }); err != nil {
		t.Fatal(err)
	}
	var kept []rec
	for _, x := range want {
		if x.Num%2 == 0 {
			kept = append(kept, rec{len(kept) + 1, 0, x.ID, x.Text})
		}
	}
	same(t, "FilterDir", mustRead(t, dst, Options{}), kept)
	raw, _ := os.ReadFile(filepath.Join(dst, "c/g.txt.gz"))
	if !bytes.Equal(raw, gz(t, []byte("unzipped"))) {
		t.Error("FilterDir did not copy the file byte for byte")
	}
	err := FilterDir(dst, root, func(int) bool { return true })
	wantErr(t, err, nil, dst, "exists")
	err = FilterDir(filepath.Join(dir, "out2"), filepath.Join(root, "b.txt"), func(int) bool { return true })
	wantErr(t, err, nil, "not a directory")
	err = Filter(io.Discard, []string{root}, Options{}, func(int, int) bool { return true })
	wantErr(t, err, nil, "FilterDir")

	// An unreadable file is a bad record.
	if os.Geteuid() != 0 {
		os.Chmod(filepath.Join(root, "b.txt"), 0)
		_, _, err := readFile(t, root, Options{})
		wantErr(t, err, os.ErrPermission, "b.txt", "record 4")
		recs, n, err := readFile(t, root, Options{SkipBad: true})
		if err != nil || n != 1 || len(recs) != 5 || recs[3].Num != 5 {
			t.Errorf("SkipBad: %v %d %v", err, n, recs)
		}
	}
}

func TestDirBinary(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "docs")
	late := append(bytes.Repeat([]byte("x"), binarySniffLen), 0) // NUL just past 8 KiB
	edge := append(bytes.Repeat([]byte("y"), binarySniffLen-1), 0)
	write(t, root, "a.txt", []byte("text"))
	write(t, root, "b.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	write(t, root, "c.txt", late)
	write(t, root, "d.bin", edge)
	write(t, root, "e.gz", gz(t, []byte("zipped\x00binary")))
	write(t, root, "f.txt", []byte("last"))
	r, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := drain(r)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "binary skipped", recs, []rec{{1, 0, "a.txt", "text"}, {3, 0, "c.txt", string(late)}, {6, 0, "f.txt", "last"}})
	if n := r.SkippedBinary(); n != 3 {
		t.Errorf("SkippedBinary = %d, want 3", n)
	}
	if n := r.Skipped(); n != 0 {
		t.Errorf("Skipped = %d, want 0 (binary files are counted apart)", n)
	}
	r.Close()

	r, err = Open(root, Options{IncludeBinary: true})
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err = drain(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 6 || recs[1].ID != "b.png" || recs[4] != (rec{5, 0, "e.gz", "zipped\x00binary"}) {
		t.Errorf("IncludeBinary: %v", recs)
	}
	if n := r.SkippedBinary(); n != 0 {
		t.Errorf("IncludeBinary: SkippedBinary = %d", n)
	}
	r.Close()

	// FilterDir copies by number: binary files pass through when kept.
	dst := filepath.Join(dir, "out")
	if err := FilterDir(dst, root, func(n int) bool { return n != 1 }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "d.bin")); err != nil || !bytes.Equal(b, edge) {
		t.Errorf("FilterDir did not copy the binary file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dst, "a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("FilterDir copied a dropped file: %v", err)
	}

	// Other formats never count binary files; a binary text input is
	// refused, unless IncludeBinary.
	nul := write(t, dir, "nul.txt", []byte("a\x00b\n"))
	_, err = Open(nul, Options{})
	wantErr(t, err, ErrBinary, nul, "NUL byte", "--include-binary")
	r, err = Open(nul, Options{IncludeBinary: true})
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err = drain(r)
	if err != nil || len(recs) != 1 || r.SkippedBinary() != 0 {
		t.Errorf("text with NUL: %v %v %d", recs, err, r.SkippedBinary())
	}
	r.Close()
}

// realData returns the path of a file of the shared real corpora
// (../../shared/data beside the repository), skipping t when it is absent,
// as in a fresh clone.
func realData(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "shared", "data", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("real data absent: %v", err)
	}
	return p
}

func TestRealData(t *testing.T) {
	// f reads path and checks every record; it takes the subtest's t, so a
	// failure or skip belongs to the subtest that called it.
	f := func(t *testing.T, path string, o Options, rows int, check func(i int, x rec)) {
		t.Helper()
		recs := mustRead(t, path, o)
		if len(recs) != rows {
			t.Errorf("%s: %d records, want %d", path, len(recs), rows)
		}
		for i, x := range recs {
			if x.Num != i+1 {
				t.Fatalf("%s: record %d has Num %d", path, i+1, x.Num)
			}
			check(i, x)
		}
	}
	t.Run("kijiji", func(t *testing.T) {
		path := realData(t, "kijiji.tsv")
		f(t, path, Options{TextFields: []string{"Title", "Short Description"}}, 2627, func(i int, x rec) {
			if x.Line != i+2 || x.ID != "" || len(x.Text) < 2 {
				t.Errorf("record %v", x)
			}
		})
		// Every row has the 6 columns of the header.
		r, err := Open(path, Options{TextFields: []string{"Title"}})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		s := r.src.(*delimSrc)
		if len(s.header) != 6 {
			t.Errorf("header %q", s.header)
		}
		n := 0
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
			if len(s.tf) != 6 {
				t.Errorf("record %d: %d fields", n, len(s.tf))
			}
		}
		if n != 2627 {
			t.Errorf("%d records, want 2627", n)
		}
	})
	t.Run("adzuna", func(t *testing.T) {
		path := realData(t, "adzuna_first2499.csv")
		f(t, path, Options{TextFields: []string{"Title", "FullDescription"}}, 2499, func(i int, x rec) {
			if x.ID == "" || x.Line != i+2 || !strings.Contains(x.Text, " ") {
				t.Errorf("record %v", x)
			}
			if i == 0 && (x.ID != "12612628" || !strings.HasPrefix(x.Text, "Engineering Systems Analyst Engineering Systems Analyst Dorking")) {
				t.Errorf("first record %v", x)
			}
		})
	})
}

func TestNoAllocs(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	for i := range 1000 {
		fmt.Fprintf(&b, "{\"text\":\"document number %d with \\\"escapes\\\" and more\",\"n\":%d}\n", i, i)
	}
	jsonl := write(t, dir, "a.jsonl", b.Bytes())
	multi := write(t, dir, "m.jsonl", bytes.ReplaceAll(b.Bytes(), []byte(`,"n"`), []byte(`,"title":"t","n"`)))
	text := write(t, dir, "a.txt", b.Bytes())
	for _, c := range []struct {
		path string
		o    Options
	}{{jsonl, Options{}}, {multi, Options{TextFields: []string{"title", "text", "n"}}}, {text, Options{}}} {
		r, err := Open(c.path, c.o)
		if err != nil {
			t.Fatal(err)
		}
		for range 10 { // warm up the buffers
			r.Next()
		}
		if n := testing.AllocsPerRun(500, func() {
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations per record", c.path, n)
		}
		r.Close()
	}
}

func TestClose(t *testing.T) {
	dir := t.TempDir()
	r, err := Open(write(t, dir, "a.txt", []byte("x\n")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("Next after Close: %v", err)
	}
	// The Parquet spool file is removed on Close.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	r, err = Open(write(t, dir, "a.parquet.gz", gz(t, parquetBytes(t, []parquetRow{{ID: 1, Text: "a"}}))), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 1 {
		t.Errorf("spool files: %v", ents)
	}
	r.Close()
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("spool files left: %v", ents)
	}
}

// TestSkipTo: in JSONL and text input SkipTo passes over the records
// before the one asked for (blank JSONL lines are not records, malformed
// ones are passed over unread), past the end it returns io.EOF for good,
// and in CSV it passes over nothing.
func TestSkipTo(t *testing.T) {
	dir := t.TempDir()
	jsonl := write(t, dir, "a.jsonl", []byte("{\"text\":\"one\"}\n\n{not json\n  \n{\"text\":\"three\"}\n{\"text\":\"four\"}\n"))
	r, err := Open(jsonl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SkipTo(3); err != nil {
		t.Fatalf("SkipTo(3): %v", err)
	}
	rec, err := r.Next()
	if err != nil || rec.Num != 3 || string(rec.Text) != "three" || rec.Line != 5 {
		t.Fatalf("after SkipTo(3): %+v, %v; want record 3 at line 5", rec, err)
	}
	if err := r.SkipTo(2); err != nil { // behind: nothing
		t.Fatal(err)
	}
	if rec, err := r.Next(); err != nil || rec.Num != 4 {
		t.Fatalf("after SkipTo(2): %+v, %v; want record 4", rec, err)
	}
	r.Close()
	r, _ = Open(jsonl, Options{})
	if err := r.SkipTo(9); err != io.EOF {
		t.Fatalf("SkipTo past the end: %v, want io.EOF", err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("Next after the end: %v", err)
	}
	r.Close()
	text := write(t, dir, "a.txt", []byte("one\n\nthree\n"))
	r, _ = Open(text, Options{})
	if err := r.SkipTo(2); err != nil {
		t.Fatal(err)
	}
	if rec, err := r.Next(); err != nil || rec.Num != 2 || len(rec.Text) != 0 {
		t.Fatalf("text after SkipTo(2): %+v, %v; want the empty record 2", rec, err)
	}
	r.Close()
	csv := write(t, dir, "a.csv", []byte("text\n\"one\nline\"\ntwo\nthree\n"))
	r, _ = Open(csv, Options{})
	if err := r.SkipTo(3); err != nil {
		t.Fatal(err)
	}
	if rec, err := r.Next(); err != nil || rec.Num != 1 {
		t.Fatalf("CSV after SkipTo(3): %+v, %v; want record 1 (nothing passed over)", rec, err)
	}
	r.Close()
}
