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
	wantErr(t, err, nil, "bad.parquet", "parquet")
}

// input is one test input: its file content and the records it holds.
type input struct {
	data  []byte
	lines []string // text/JSONL: the raw line of each record
}

func TestFilter(t *testing.T) {
	dir := t.TempDir()
	text := []input{
		{lines: []string{"alpha", "beta\r", "", "gamma \xff", "delta"}},
		{lines: []string{"one", "two", "three"}},
	}
	jsonl := []input{
		{lines: []string{`{"id":1,"text":"a \"q\""}`, `{"id":2,  "text": "b"}`, `{"id":"3","text":"c\u00e9"}`, `{"text":"d","id":4}`}},
		{lines: []string{`{"id":5,"text":"e"}` + "\r", `{"id":6,"text":"f"}`}},
	}
	join := func(ins []input, blank bool) []input {
		out := make([]input, len(ins))
		for i, in := range ins {
			s := strings.Join(in.lines, "\n") + "\n"
			if blank { // JSONL blank lines are not records and not copied
				s = "\n" + strings.Join(in.lines, "\n\n") + "\n"
			}
			out[i] = input{data: []byte(s), lines: in.lines}
		}
		return out
	}
	csvIn := []input{
		{data: []byte("id,text,n\n1,\"multi\nline, \"\"q\"\"\",x\n2,plain,y\n3,,z\n4, lead,w\n")},
		{data: []byte("id,text,n\n5,e,1\n6,\"f\r\ng\",2\n")},
	}
	tsvIn := []input{
		{data: []byte("id\ttext\tn\n1\tsays \"hi\"\tx\n2\t\"starts. \tx\n3\t\"tab\there\"\ty\n4\t lead\tz\n")},
		{data: []byte("id\ttext\tn\n5\t\"\"\"q\"\"\"\t1\n6\tf\t2\n")},
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
		{"txt", join(text, false)},
		{"jsonl", join(jsonl, true)},
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
				var wantBytes []byte
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
					for k, x := range mustRead(t, p, Options{}) {
						if keep(i, x.Num) {
							want = append(want, rec{len(want) + 1, 0, x.ID, x.Text})
							if in.lines != nil {
								wantBytes = append(append(wantBytes, in.lines[k]...), '\n')
							}
						}
					}
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
				if wantBytes != nil {
					raw := filepath.Join(dir, "raw."+c.ext)
					filterTo(t, raw, paths, Options{}, keep)
					if b, _ := os.ReadFile(raw); !bytes.Equal(b, wantBytes) {
						t.Errorf("output\n%q\nwant\n%q", b, wantBytes)
					}
					// Keeping everything reproduces every line byte for byte.
					var all []byte
					for _, in := range c.ins {
						for _, l := range in.lines {
							all = append(append(all, l...), '\n')
						}
					}
					filterTo(t, raw, paths, Options{}, func(int, int) bool { return true })
					if b, _ := os.ReadFile(raw); !bytes.Equal(b, all) {
						t.Errorf("keep all: output\n%q\nwant\n%q", b, all)
					}
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
