package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/neardup/neardup/internal/gen"
)

func runQuiet(t *testing.T, args ...string) {
	t.Helper()
	var stderr bytes.Buffer
	if err := run(context.Background(), append([]string{"-q"}, args...), &stderr); err != nil {
		t.Fatalf("gencorpus %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
}

// TestSample checks that the committed sample is what the generator makes.
// If the generator changes on purpose, regenerate it with
// go generate ./bench/gencorpus and commit both.
func TestSample(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		file string
		args []string
	}{
		{"ads.jsonl", []string{"-sample"}},
		{"ads.csv", []string{"-sample", "-n", "200"}},
	} {
		out := filepath.Join(dir, c.file)
		runQuiet(t, append(c.args, "-o", out)...)
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sample", c.file))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("testdata/sample/%s is stale: run go generate ./bench/gencorpus", c.file)
		}
		if len(got) > 1<<20 {
			t.Errorf("%s is %d bytes, over 1 MiB", c.file, len(got))
		}
	}
}

func TestFormats(t *testing.T) {
	const n = 300
	var docs []gen.Doc
	if err := gen.Generate(gen.Config{Docs: n, Seed: 9}, func(_ int, d gen.Doc) error {
		docs = append(docs, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	read := func(name string) string {
		b, err := os.ReadFile(path(name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	runQuiet(t, "-n", "300", "-seed", "9", "-o", path("c.jsonl"), "-truth", path("truth.tsv"))
	for i, line := range strings.Split(strings.TrimSuffix(read("c.jsonl"), "\n"), "\n") {
		var rec struct{ ID, Text string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if rec.ID != docs[i].ID || rec.Text != docs[i].Text {
			t.Fatalf("line %d: %+v != doc %s", i+1, rec, docs[i].ID)
		}
	}
	truth := strings.Split(strings.TrimSuffix(read("truth.tsv"), "\n"), "\n")
	if len(truth) != n+1 || truth[0] != "id\tkind\tsource\tedit_rate\tdepth\tchain\tfamily\tboiler" {
		t.Fatalf("truth: %d lines, header %q", len(truth), truth[0])
	}
	for i, d := range docs {
		f := strings.Split(truth[i+1], "\t")
		src := ""
		if d.Source >= 0 {
			src = docs[d.Source].ID
		}
		if len(f) != 8 || f[0] != d.ID || f[1] != d.Kind.String() || f[2] != src {
			t.Fatalf("truth row %q for %+v", truth[i+1], d)
		}
	}

	runQuiet(t, "-n", "300", "-seed", "9", "-o", path("c.csv"))
	recs, err := csv.NewReader(strings.NewReader(read("c.csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != n+1 || recs[0][0] != "id" || recs[0][1] != "text" {
		t.Fatalf("csv: %d records, header %q", len(recs), recs[0])
	}
	for i, d := range docs {
		if recs[i+1][0] != d.ID || recs[i+1][1] != d.Text {
			t.Fatalf("csv record %d differs", i+1)
		}
	}

	runQuiet(t, "-n", "300", "-seed", "9", "-format", "tsv", "-o", path("c.out"))
	runQuiet(t, "-n", "300", "-seed", "9", "-o", path("c.txt"))
	tsv := strings.Split(read("c.out"), "\n")
	txt := strings.Split(read("c.txt"), "\n")
	if len(tsv) != n+2 || tsv[0] != "id\ttext" || len(txt) != n+1 {
		t.Fatalf("tsv %d lines (header %q), text %d lines", len(tsv), tsv[0], len(txt))
	}
	for i, d := range docs {
		if tsv[i+1] != d.ID+"\t"+d.Text || txt[i] != d.Text {
			t.Fatalf("tsv/text line for %s differs", d.ID)
		}
	}
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{{"-format", "xml"}, {"extra"}, {"-n", "x"}} {
		if err := run(context.Background(), args, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("%q: err %v, want errUsage", args, err)
		}
	}
	if err := run(context.Background(), []string{"-n", "10", "-o", filepath.Join(t.TempDir(), "no", "such", "dir.jsonl")}, io.Discard); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("writing into a missing directory: err %v, want fs.ErrNotExist", err)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	boom := errors.New("boom")
	if _, err := writeFile(p, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if b := read(); b != "old" {
		t.Errorf("failed write changed the file to %q", b)
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 {
		t.Errorf("temporary file left behind: %v", es)
	}
	n, err := writeFile(p, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err })
	if err != nil || n != 3 {
		t.Fatalf("write: %v, %d bytes", err, n)
	}
	if b := read(); b != "new" {
		t.Errorf("file %q after the write, want \"new\"", b)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode())
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := filepath.Join(t.TempDir(), "c.jsonl")
	if err := run(ctx, []string{"-q", "-n", "100000", "-o", p}, io.Discard); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("cancelled run left %s", p)
	}
}

func checkJSONString(t *testing.T, s string) {
	t.Helper()
	b := appendJSONString([]byte("x"), s)
	if b[0] != 'x' {
		t.Fatal("dst prefix lost")
	}
	var got string
	if err := json.Unmarshal(b[1:], &got); err != nil {
		t.Fatalf("%q encodes as invalid JSON %s: %v", s, b[1:], err)
	}
	want := s
	if !utf8.ValidString(s) {
		want = "" // each invalid byte becomes U+FFFD
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			want += string(r)
			i += size
		}
	}
	if got != want {
		t.Fatalf("%q round-trips as %q", s, got)
	}
	if bytes.ContainsAny(b, "\n\r\u2028\u2029") {
		t.Fatalf("%q encodes with a raw line break: %s", s, b)
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{
		"", "plain", `quote " and \ backslash`, "tab\tnl\ncr\r", "\x00\x01\x1f\x7f", "£15.65 Café Lumière",
		"\u2028\u2029", "bad \xff utf8 \xc3", "<&>", "emoji 😀", strings.Repeat("é", 100),
	} {
		checkJSONString(t, s)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	f.Add("Café \"x\"\n\xff")
	f.Fuzz(checkJSONString)
}

func TestPipelineConsumerError(t *testing.T) {
	boom := errors.New("boom")
	n := 0
	err := pipeline(context.Background(), gen.Generate, gen.Config{Docs: 100000, MeanWords: 10}, func(gen.Doc) error {
		n++
		if n == 1000 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || n != 1000 {
		t.Fatalf("err %v after %d docs", err, n)
	}
}

// TestCyrillic: -script cyrillic writes the Latin corpus with each letter
// replaced by its Cyrillic one (mapped back, the same bytes), and the
// letters keep case pairs and are distinct, so the tokens stay one to one.
func TestCyrillic(t *testing.T) {
	seen := map[rune]bool{}
	for i, r := range gen.Cyrillic {
		if unicode.ToUpper(r) != gen.CyrillicUpper[i] || unicode.ToLower(gen.CyrillicUpper[i]) != r || seen[r] || !unicode.IsLetter(r) {
			t.Fatalf("letter %d: %c/%c", i, r, gen.CyrillicUpper[i])
		}
		seen[r] = true
	}
	if len(gen.Cyrillic) != 26 || len(gen.CyrillicUpper) != 26 {
		t.Fatalf("%d and %d letters", len(gen.Cyrillic), len(gen.CyrillicUpper))
	}
	back := map[rune]rune{}
	for i := range 26 {
		back[gen.Cyrillic[i]], back[gen.CyrillicUpper[i]] = rune('a'+i), rune('A'+i)
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"-n", "200"}, {"-sample", "-n", "50"}} {
		lat, cyr := filepath.Join(dir, "latin.jsonl"), filepath.Join(dir, "cyrillic.jsonl")
		runQuiet(t, append(args, "-o", lat)...)
		runQuiet(t, append(args, "-script", "cyrillic", "-o", cyr)...)
		want, err := os.ReadFile(lat)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(cyr)
		if err != nil {
			t.Fatal(err)
		}
		// Only the texts (and titles) were written in Cyrillic.
		mapped := strings.Map(func(r rune) rune {
			if l, ok := back[r]; ok {
				return l
			}
			return r
		}, string(got))
		if mapped != string(want) {
			t.Fatalf("%v: mapped back, the Cyrillic corpus is not the Latin one", args)
		}
		if bytes.Equal(got, want) || !utf8.Valid(got) {
			t.Fatalf("%v: the Cyrillic corpus is the Latin one, or not UTF-8", args)
		}
	}
	var stderr bytes.Buffer
	if err := run(context.Background(), []string{"-q", "-script", "greek"}, &stderr); !errors.Is(err, errUsage) {
		t.Fatalf("-script greek: %v, want a usage error", err)
	}
}
