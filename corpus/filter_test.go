package corpus

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

type parquetRow struct {
	ID    int64    `parquet:"id"`
	Title string   `parquet:"title"`
	Text  string   `parquet:"text"`
	Score float64  `parquet:"score"`
	Opt   *string  `parquet:"opt,optional"`
	Tags  []string `parquet:"tags"`
	Raw   []byte   `parquet:"raw"`
}

func parquetBytes(t testing.TB, rows []parquetRow) []byte {
	t.Helper()
	var b bytes.Buffer
	w := parquet.NewGenericWriter[parquetRow](&b)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestParquet(t *testing.T) {
	dir := t.TempDir()
	s := "optional"
	rows := []parquetRow{
		{ID: 1, Title: "T1", Text: "first", Score: 1.5, Opt: &s, Tags: []string{"x", "y"}, Raw: []byte("r\xff")},
		{ID: -2, Title: "", Text: "", Score: 0},
		{ID: 3, Title: "T3", Text: "third\nline", Score: 1e21},
	}
	p := write(t, dir, "a.parquet", parquetBytes(t, rows))
	same(t, "default", mustRead(t, p, Options{}), []rec{{1, 0, "1", "first"}, {2, 0, "-2", ""}, {3, 0, "3", "third\nline"}})
	_, err := Open(p, Options{IDField: "Title"})
	wantErr(t, err, ErrMissingField, p, `"Title"`, `"id", "title", "text"`)
	same(t, "fields", mustRead(t, p, Options{TextFields: []string{"title", "score", "opt", "tags", "raw"}, IDField: "title"}), []rec{
		{1, 0, "T1", "T1 1.5 optional x y r\xff"},
		{2, 0, "", " 0   "},
		{3, 0, "T3", "T3 1e+21   "},
	})
	_, err = Open(p, Options{TextFields: []string{"body"}})
	wantErr(t, err, ErrMissingField, p, `"body"`, `"score"`)

	// Many rows, across batches and row groups.
	many := make([]parquetRow, 1000)
	for i := range many {
		many[i] = parquetRow{ID: int64(i), Text: fmt.Sprint("doc ", i)}
	}
	var b bytes.Buffer
	w := parquet.NewGenericWriter[parquetRow](&b, parquet.MaxRowsPerRowGroup(300))
	w.Write(many)
	w.Close()
	recs := mustRead(t, write(t, dir, "many.pq.zst", zst(t, b.Bytes())), Options{})
	if len(recs) != 1000 || recs[999] != (rec{1000, 0, "999", "doc 999"}) {
		t.Errorf("many: %d records, last %v", len(recs), recs[len(recs)-1])
	}

	// Not Parquet.
	_, err = Open(write(t, dir, "bad.parquet", []byte("PAR1 not really")), Options{})
	wantErr(t, err, ErrCorrupt, "bad.parquet", "parquet")
}

// input is one test input. For text, JSONL, CSV and TSV its content is head
// followed by the raw bytes of each record (what Filter copies); Parquet
// inputs have data only.
type input struct {
	data []byte
	head string   // CSV/TSV: the header line
	recs []string // raw bytes of each record
}

func lines(head string, recs ...string) input {
	return input{data: []byte(head + strings.Join(recs, "")), head: head, recs: recs}
}

func TestFilter(t *testing.T) {
	dir := t.TempDir()
	text := []input{
		lines("", "alpha\n", "beta\r\n", "\n", "gamma \xff\n", "delta\n"),
		lines("", "one\n", "two\n", "three"), // no final line end
	}
	jsonl := []input{
		// Blank lines belong to the record after them; those at the end to the last record.
		lines("", "\n"+`{"id":1,"text":"a \"q\""}`+"\n", "\n  \n"+`{"id":2,  "text": "b"}`+"\n", `{"id":"3","text":"c\u00e9"}`+"\n", `{"text":"d","id":4}`+"\n\n"),
		lines("", `{"id":5,"text":"e"}`+"\r\n", "\r\n"+`{"id":6,"text":"f"}`),
	}
	csvIn := []input{
		lines("id,text,n\n", "1,\"multi\nline, \"\"q\"\"\",x\n", "2,plain,y\n", "3,,z\n", "4, lead,w\n"),
		lines("id,text,n\n", "5,e,1\n", "6,\"f\r\ng\",2\n"),
	}
	tsvIn := []input{
		lines("id\ttext\tn\n", "1\tsays \"hi\"\tx\n", "2\t\"starts. \tx\n", "3\t\"tab\there\"\ty\n", "4\t lead\tz\n"),
		lines("id\ttext\tn\n", "5\t\"\"\"q\"\"\"\t1\n", "6\tf\t2\n"),
	}
	mkpq := func(start, n int) []byte {
		rows := make([]parquetRow, n)
		for i := range rows {
			rows[i] = parquetRow{ID: int64(start + i), Text: fmt.Sprint("doc ", start+i), Tags: []string{"t"}}
		}
		return parquetBytes(t, rows)
	}
	pqIn := []input{{data: mkpq(1, 5)}, {data: mkpq(100, 3)}}

	cases := []struct {
		ext string
		ins []input
	}{
		{"txt", text},
		{"jsonl", jsonl},
		{"csv", csvIn},
		{"tsv", tsvIn},
		{"parquet", pqIn},
	}
	keep := func(file, num int) bool { return (file+num)%2 == 1 }
	for _, c := range cases {
		for _, comp := range []string{"", ".gz", ".zst"} {
			t.Run(c.ext+comp, func(t *testing.T) {
				var paths []string
				var want []rec
				var wantBytes, all []byte
				for i, in := range c.ins {
					data := in.data
					switch comp {
					case ".gz":
						data = gz(t, data)
					case ".zst":
						data = zst(t, data)
					}
					p := write(t, dir, fmt.Sprintf("in%d.%s%s", i, c.ext, comp), data)
					paths = append(paths, p)
					recs := mustRead(t, p, Options{})
					if in.recs != nil && len(recs) != len(in.recs) {
						t.Fatalf("%s: %d records, want %d", p, len(recs), len(in.recs))
					}
					if i == 0 {
						wantBytes = append(wantBytes, in.head...)
					}
					for k, x := range recs {
						if keep(i, x.Num) {
							want = append(want, rec{len(want) + 1, 0, x.ID, x.Text})
							if in.recs != nil {
								if len(wantBytes) > 0 && wantBytes[len(wantBytes)-1] != '\n' {
									wantBytes = append(wantBytes, '\n')
								}
								wantBytes = append(wantBytes, in.recs[k]...)
							}
						}
					}
					if i == 0 {
						all = append(all, in.head...)
					}
					all = append(all, strings.Join(in.recs, "")...)
				}
				out := filepath.Join(dir, "out."+c.ext+comp)
				filterTo(t, out, paths, Options{}, keep)
				got := mustRead(t, out, Options{})
				for i := range got {
					got[i].Line = 0
				}
				same(t, "filtered", got, want)
				if len(want) == 0 {
					t.Fatal("nothing kept")
				}
				if c.ext == "parquet" {
					return
				}
				raw := filepath.Join(dir, "raw."+c.ext)
				filterTo(t, raw, paths, Options{}, keep)
				if b, _ := os.ReadFile(raw); !bytes.Equal(b, wantBytes) {
					t.Errorf("output\n%q\nwant\n%q", b, wantBytes)
				}
				// Keeping everything reproduces the inputs byte for byte
				// (without the second header).
				filterTo(t, raw, paths, Options{}, func(int, int) bool { return true })
				if b, _ := os.ReadFile(raw); !bytes.Equal(b, all) {
					t.Errorf("keep all: output\n%q\nwant\n%q", b, all)
				}
			})
		}
	}
}

func TestFilterMismatch(t *testing.T) {
	dir := t.TempDir()
	a := write(t, dir, "a.csv", []byte("id,text\n1,a\n"))
	b := write(t, dir, "b.csv", []byte("text,id\nb,2\n"))
	e := write(t, dir, "e.csv", nil)
	j := write(t, dir, "j.jsonl", []byte(`{"text":"x"}`))
	all := func(int, int) bool { return true }
	var out bytes.Buffer
	wantErr(t, Filter(&out, []string{a, b}, Options{}, all), nil, b, "header")
	wantErr(t, Filter(&out, []string{a, j}, Options{}, all), nil, j, "format")
	// Empty inputs contribute nothing; the header comes from the first non-empty one.
	out.Reset()
	if err := Filter(&out, []string{e, a, e, a}, Options{}, all); err != nil {
		t.Fatal(err)
	}
	if out.String() != "id,text\n1,a\n1,a\n" {
		t.Errorf("output %q", out.String())
	}
	// One empty column: the row must survive.
	one := write(t, dir, "one.csv", []byte("text\n\"\"\nx\n"))
	out.Reset()
	if err := Filter(&out, []string{one}, Options{}, all); err != nil {
		t.Fatal(err)
	}
	p := write(t, dir, "one-out.csv", out.Bytes())
	same(t, "one column", mustRead(t, p, Options{}), []rec{{1, 2, "", ""}, {2, 3, "", "x"}})

	type other struct {
		Text string `parquet:"text"`
	}
	var ob bytes.Buffer
	w := parquet.NewGenericWriter[other](&ob)
	w.Write([]other{{"x"}})
	w.Close()
	p1 := write(t, dir, "p1.parquet", parquetBytes(t, []parquetRow{{Text: "a"}}))
	p2 := write(t, dir, "p2.parquet", ob.Bytes())
	wantErr(t, Filter(&out, []string{p1, p2}, Options{}, all), nil, p2, "schema")

	// Bad input fails Filter unless SkipBad, and then numbering matches the Reader's.
	bad := write(t, dir, "bad.jsonl", []byte("{\"text\":\"a\"}\n{bad\n{\"text\":\"c\"}\n"))
	wantErr(t, Filter(&out, []string{bad}, Options{}, all), ErrMalformed, bad+":2:")
	out.Reset()
	var nums []int
	err := Filter(&out, []string{bad}, Options{SkipBad: true}, func(_, n int) bool { nums = append(nums, n); return n == 3 })
	if err != nil || out.String() != "{\"text\":\"c\"}\n" || fmt.Sprint(nums) != "[1 3]" {
		t.Errorf("SkipBad filter: %v %q %v", err, out.String(), nums)
	}
}

// filterBytes runs Filter over the given inputs (name, content) and returns
// the output.
func filterBytes(t *testing.T, files [][2]string, o Options, keep func(file, num int) bool) []byte {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for _, f := range files {
		paths = append(paths, write(t, dir, f[0], []byte(f[1])))
	}
	var out bytes.Buffer
	if err := Filter(&out, paths, o, keep); err != nil {
		t.Fatalf("Filter: %v", err)
	}
	return out.Bytes()
}

// TestFilterRaw checks that Filter copies CSV, TSV, JSONL and text records
// byte for byte: keeping every record reproduces the file, and keeping a
// subset gives exactly the raw bytes of those records after the header.
func TestFilterRaw(t *testing.T) {
	all := func(int, int) bool { return true }
	even := func(_, num int) bool { return num%2 == 0 }
	f := func(name string, in input) {
		t.Helper()
		if got := filterBytes(t, [][2]string{{name, string(in.data)}}, Options{}, all); !bytes.Equal(got, in.data) {
			t.Errorf("%s: keep all:\n got %q\nwant %q", name, got, in.data)
		}
		want := in.head
		for i, r := range in.recs {
			if (i+1)%2 == 0 {
				want += r
			}
		}
		if got := filterBytes(t, [][2]string{{name, string(in.data)}}, Options{}, even); string(got) != want {
			t.Errorf("%s: keep even:\n got %q\nwant %q", name, got, want)
		}
		// The records are the ones the reader sees.
		recs := mustRead(t, write(t, t.TempDir(), name, in.data), Options{})
		if len(recs) != len(in.recs) {
			t.Errorf("%s: %d records, want %d", name, len(recs), len(in.recs))
		}
	}
	f("crlf.csv", lines("id,text\r\n", "1,a\r\n", "2,\"multi\r\nline \"\"q\"\"\"\r\n", "3,\"x,y\"\r\n", "4,last"))
	f("quotes.csv", lines("\"id\",\"text\"\n", "1,\"\"\"\"\n", "2,\"a\n\nb\"\n", "\n\n3,c\n", "4,\"\"\n", "\r\n5,\" sp \"\n\n\n"))
	f("crlf.tsv", lines("id\ttext\r\n", "1\tsays \"hi\" there\r\n", "2\t\"quoted\r\n\"\"x\"\"\tand\"\r\n", "3\t\"stray quote\r\n", "4\t\"closed\" then more\r\n", "5\tlast"))
	f("blank.tsv", lines("\n\nid\ttext\n", "\n1\ta\n", "\r\n\r\n2\t\"b\n\nc\"\n", "3\t\"d\n", "4\te\n\n"))
	f("cr.csv", lines("id,text\n", "1,a\n", "2,b\r"))
	f("bare.txt", lines("", "a\r\n", "\n", "b\n", " \n", "c"))
	f("blank.jsonl", lines("", "\n{\"text\":\"a\"}\r\n", "  \n{\"text\":\"b\"}\n", "{\"text\":\"c\"}\n\n\n"))

	// A byte order mark is the file's: kept at the start of the output.
	f("bom.csv", input{data: []byte("\xef\xbb\xbfid,text\n1,a\n2,b\n"), head: "\xef\xbb\xbfid,text\n", recs: []string{"1,a\n", "2,b\n"}})
	bomText := []byte("\xef\xbb\xbfone\ntwo\n")
	if got := filterBytes(t, [][2]string{{"b.txt", string(bomText)}}, Options{}, all); !bytes.Equal(got, bomText) {
		t.Errorf("text BOM: %q", got)
	}
	if got := filterBytes(t, [][2]string{{"b.txt", string(bomText)}}, Options{}, even); string(got) != "\xef\xbb\xbftwo\n" {
		t.Errorf("text BOM, second line only: %q", got)
	}
	// A second input's mark is not written in the middle of the output,
	// and a second header is not written, whatever its quoting.
	got := filterBytes(t, [][2]string{{"a.csv", "id,text\n1,a\n"}, {"b.csv", "\xef\xbb\xbf\"id\",\"text\"\n2,b\n"}}, Options{}, all)
	if string(got) != "id,text\n1,a\n2,b\n" {
		t.Errorf("second BOM and header: %q", got)
	}
	// A record that starts with a mark of its own (after the file's) keeps
	// it, and a reader sees it.
	got = filterBytes(t, [][2]string{{"two.txt", "\xef\xbb\xbf\xef\xbb\xbfx\n"}}, Options{}, all)
	if string(got) != "\xef\xbb\xbf\xef\xbb\xbfx\n" {
		t.Errorf("double BOM: %q", got)
	}

	// A last record without a line end gets one when more follows: the
	// output's line ending (CRLF here), or LF after a CR.
	got = filterBytes(t, [][2]string{{"a.csv", "id,text\r\n1,a"}, {"b.csv", "id,text\n2,b"}, {"c.csv", "id,text\n3,c\r"}, {"d.csv", "id,text\n4,d\n"}}, Options{}, all)
	if string(got) != "id,text\r\n1,a\r\n2,b\r\n3,c\r\n4,d\n" {
		t.Errorf("line ends between inputs: %q", got)
	}
	got = filterBytes(t, [][2]string{{"a.txt", "x"}, {"b.txt", "y\r\nz"}}, Options{}, all)
	if string(got) != "x\ny\r\nz" {
		t.Errorf("text line ends between inputs: %q", got)
	}
	got = filterBytes(t, [][2]string{{"a.jsonl", "{\"text\":\"a\"}\r\n{\"text\":\"b\"}"}, {"b.jsonl", "\n{\"text\":\"c\"}\n"}}, Options{}, all)
	if string(got) != "{\"text\":\"a\"}\r\n{\"text\":\"b\"}\r\n\n{\"text\":\"c\"}\n" {
		t.Errorf("JSONL line ends between inputs: %q", got)
	}
	// Blank lines after the last record go with it; a file with a header
	// and blank lines only keeps them when its header is written.
	got = filterBytes(t, [][2]string{{"a.tsv", "id\ttext\n\n"}, {"b.tsv", "id\ttext\n1\ta\n\n"}, {"c.tsv", "id\ttext\n2\tb\n\n"}}, Options{}, func(f, _ int) bool { return f == 1 })
	if string(got) != "id\ttext\n\n1\ta\n\n" {
		t.Errorf("trailing blank lines: %q", got)
	}

	// Skipped bad records are not written, nor the blank lines before them.
	got = filterBytes(t, [][2]string{{"bad.csv", "id,text\n1,a\n\n2,b,extra\n3,c\n"}}, Options{SkipBad: true}, all)
	if string(got) != "id,text\n1,a\n3,c\n" {
		t.Errorf("SkipBad: %q", got)
	}
}

func TestFilterOptions(t *testing.T) {
	// Records are selected by the numbers a Reader with the same options
	// gives, and the copied bytes do not depend on the text fields.
	in := "id\ttitle\tbody\n1\tT\t\"a\tb\"\n2\tU\tc\n"
	got := filterBytes(t, [][2]string{{"a.tsv", in}}, Options{TextFields: []string{"title", "body"}}, func(_, n int) bool { return n == 1 })
	if string(got) != "id\ttitle\tbody\n1\tT\t\"a\tb\"\n" {
		t.Errorf("%q", got)
	}
}

// TestFilterRealData: keeping every record of the real corpora reproduces
// them byte for byte, and keeping some gives exactly their lines.
func TestFilterRealData(t *testing.T) {
	for _, c := range []struct {
		name   string
		fields []string
	}{
		{"kijiji.tsv", []string{"Title"}},
		{"adzuna_first2499.csv", []string{"Title"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := realData(t, c.name)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			o := Options{TextFields: c.fields}
			var out bytes.Buffer
			if err := Filter(&out, []string{path}, o, func(int, int) bool { return true }); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), data) {
				t.Fatalf("keep all: %d bytes out of %d differ", len(out.Bytes()), len(data))
			}
			// Every third record: the output reads back as those records.
			out.Reset()
			if err := Filter(&out, []string{path}, o, func(_, n int) bool { return n%3 == 0 }); err != nil {
				t.Fatal(err)
			}
			var want []rec
			for _, x := range mustRead(t, path, o) {
				if x.Num%3 == 0 {
					want = append(want, rec{len(want) + 1, 0, x.ID, x.Text})
				}
			}
			got := mustRead(t, write(t, t.TempDir(), c.name, out.Bytes()), o)
			for i := range got {
				got[i].Line = 0
			}
			same(t, "every third", got, want)
		})
	}
}
