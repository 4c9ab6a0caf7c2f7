package corpus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// readStdin reads data as standard input with o.
func readStdin(t *testing.T, data []byte, o Options) (recs []rec, f Format, err error) {
	t.Helper()
	p := write(t, t.TempDir(), "stdin", data)
	in, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	old := os.Stdin
	os.Stdin = in
	defer func() { os.Stdin = old }()
	r, err := Open("-", o)
	if err != nil {
		return nil, Auto, err
	}
	defer r.Close()
	recs, _, err = drain(r)
	return recs, r.Format(), err
}

func TestSniff(t *testing.T) {
	f := func(what, data string, want Format) {
		t.Helper()
		got, err := sniff(bufio.NewReaderSize(strings.NewReader(data), lineBufSize))
		if err != nil || got != want {
			t.Errorf("%s: sniff = %v, %v; want %v", what, got, err, want)
		}
	}
	f("empty", "", Text)
	f("parquet", "PAR1xxxx", Parquet)
	f("jsonl", "\n  {\"text\":\"a\"}\n", JSONL)
	f("jsonl after BOM", "\xef\xbb\xbf{}", JSONL)
	f("tsv", "Title\tShort Description\tPrice\nA\tsays \"hi\"\t10\nB\t\"stray\t20\nC\tc\t30\n", TSV)
	f("csv", "Id,Title,FullDescription\r\n1,T,\"multi\r\nline, with \"\"quotes\"\"\"\r\n2,U,plain\r\n", CSV)
	f("csv with BOM and blank lines", "\xef\xbb\xbf\nid,text\n\n1,a\n", CSV)
	f("csv no final newline", "id,text\n1,a", CSV)
	f("prose", "Hello, world.\nThis is a line of text\nAnd another, with, commas\n", Text)
	f("one comma each but a header of one field", "\"a,b\"\nc\n", Text)
	f("header only", "id,text\n", Text)
	f("single line", "a,b", Text)
	f("wrong count later", "id,text\n1,a\n2,b\n3,c,d\n", Text)
	f("broken quote", "id,text\n1,\"a\"b\n", Text)
	f("tabs in the text", "a\tb\nc\n", Text)
	// Text whose lines all have one comma reads as CSV: its header then
	// has no "text" column, and Open says what happened (TestStdinFields).
	f("consistent commas", "Hi, Bob\nBye, Bob\n", CSV)

	// Both delimiters fit: refuse to guess.
	_, err := sniff(bufio.NewReaderSize(strings.NewReader("a,b\tc\n1,2\t3\n"), lineBufSize))
	wantErrIs(t, err, ErrUnknownFormat)

	// A window cut inside a quoted field: the records before it decide.
	var b strings.Builder
	b.WriteString("id,text\n")
	for i := 0; b.Len() < 2000; i++ {
		fmt.Fprintf(&b, "%d,\"line one\nline two, \"\"q\"\"\"\n", i)
	}
	data := b.String()
	for size := 16; size < len(data); size += 7 {
		got, err := sniff(bufio.NewReaderSize(strings.NewReader(data), size))
		want := Text // the header and one whole record do not fit
		if size >= len("id,text\n0,\"line one\nline two, \"\"q\"\"\"\n") {
			want = CSV
		}
		if err != nil || got != want {
			t.Fatalf("window %d: sniff = %v, %v; want %v", size, got, err, want)
		}
	}
}

func wantErrIs(t *testing.T, err, target error) {
	t.Helper()
	if err == nil || !errors.Is(err, target) {
		t.Errorf("error %v, want one wrapping %v", err, target)
	}
}

// TestStdinFields: a named field must exist whatever the format, and
// standard input is read as CSV or TSV when it is one.
func TestStdinFields(t *testing.T) {
	tsv := []byte("Title\tShort Description\tLocation\nBike\tA red bike\tRoma\nSofa\tGreen \"sofa\"\tMilano\n")
	// cat ads.tsv | neardup dedup --text-field NoSuchColumn -
	_, _, err := readStdin(t, tsv, Options{TextFields: []string{"NoSuchColumn"}})
	wantErr(t, err, ErrMissingField, "standard input", `"NoSuchColumn"`, `"Title", "Short Description", "Location"`)
	recs, f, err := readStdin(t, tsv, Options{TextFields: []string{"Title", "Short Description"}})
	if err != nil || f != TSV {
		t.Fatalf("TSV on stdin: %v, %v", f, err)
	}
	same(t, "stdin tsv", recs, []rec{{1, 2, "", "Bike A red bike"}, {2, 3, "", `Sofa Green "sofa"`}})
	// Compressed.
	recs, f, err = readStdin(t, zst(t, tsv), Options{TextFields: []string{"Location"}})
	if err != nil || f != TSV || len(recs) != 2 || recs[1].Text != "Milano" {
		t.Errorf("zstd TSV on stdin: %v %v %v", recs, f, err)
	}
	// The default "text" column is missing: the message says what the
	// input was taken for.
	_, _, err = readStdin(t, []byte("Hi, Bob\nBye, Bob\n"), Options{})
	wantErr(t, err, ErrMissingField, `"text"`, "taken for csv", "--format")
	recs, _, err = readStdin(t, []byte("Hi, Bob\nBye, Bob\n"), Options{Format: Text})
	if err != nil || len(recs) != 2 {
		t.Errorf("--format text: %v %v", recs, err)
	}

	// Plain text has no fields: naming one is an error, sniffed or not.
	text := []byte("one line\nanother line, different\n")
	_, f, err = readStdin(t, text, Options{})
	if err != nil || f != Text {
		t.Errorf("text on stdin: %v %v", f, err)
	}
	_, _, err = readStdin(t, text, Options{TextFields: []string{"body"}})
	wantErr(t, err, ErrNoFields, "standard input", `"body"`, "taken for plain text", "--format csv|tsv|jsonl|parquet")
	_, _, err = readStdin(t, text, Options{IDField: "key"})
	wantErr(t, err, ErrNoFields, `id field "key"`)
	dir := t.TempDir()
	p := write(t, dir, "a.txt", text)
	_, _, err = readFile(t, p, Options{TextFields: []string{"text"}})
	wantErr(t, err, ErrNoFields, p, `"text"`, "--format")
	_, _, err = readFile(t, p, Options{Format: Text, TextFields: []string{"x"}})
	wantErr(t, err, ErrNoFields, p)
	_, err = NewReader(bytes.NewReader(text), "upload", Options{TextFields: []string{"x"}})
	wantErr(t, err, ErrNoFields, "upload", "taken for plain text")
	// A directory has no fields either.
	write(t, dir, "docs/a.txt", text)
	_, _, err = readFile(t, dir+"/docs", Options{TextFields: []string{"x"}})
	wantErr(t, err, ErrNoFields, "docs", "whole files")

	// JSONL: a record without the field is an error naming its line; with
	// SkipBad, an input where no record has it is an error at the end.
	jsonl := []byte("\n{\"text\":\"a\"}\n{\"text\":\"b\"}\n")
	_, _, err = readStdin(t, jsonl, Options{TextFields: []string{"body"}})
	wantErr(t, err, ErrMissingField, "standard input:2:", "record 1", `"body"`)
	_, _, err = readStdin(t, jsonl, Options{TextFields: []string{"body"}, SkipBad: true})
	wantErr(t, err, ErrMissingField, "standard input", "no record has a text field", `"body"`, "2 skipped")
	// Some records have it: the others are skipped.
	recs, _, err = readStdin(t, []byte("{\"body\":\"x\"}\n{\"text\":\"b\"}\n"), Options{TextFields: []string{"body"}, SkipBad: true})
	if err != nil || len(recs) != 1 {
		t.Errorf("JSONL SkipBad: %v %v", recs, err)
	}
	// Parquet on standard input keeps working.
	recs, f, err = readStdin(t, gz(t, parquetBytes(t, []parquetRow{{ID: 5, Text: "pq"}})), Options{})
	if err != nil || f != Parquet || len(recs) != 1 {
		t.Errorf("gzip Parquet on stdin: %v %v %v", recs, f, err)
	}
}

// TestStdinRealData pipes the real corpora through standard input: they are
// sniffed as TSV and CSV and give the records the files give.
func TestStdinRealData(t *testing.T) {
	for _, c := range []struct {
		name   string
		fields []string
		format Format
	}{
		{"kijiji.tsv", []string{"Title", "Short Description"}, TSV},
		{"adzuna_first2499.csv", []string{"Title", "FullDescription"}, CSV},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := realData(t, c.name)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			o := Options{TextFields: c.fields}
			recs, f, err := readStdin(t, data, o)
			if err != nil || f != c.format {
				t.Fatalf("stdin: %v, %v", f, err)
			}
			same(t, c.name, recs, mustRead(t, path, o))
			_, _, err = readStdin(t, data, Options{TextFields: []string{"NoSuchColumn"}})
			wantErr(t, err, ErrMissingField, "NoSuchColumn", c.fields[0])
		})
	}
}
