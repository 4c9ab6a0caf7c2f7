package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const sampleAds = "../../testdata/sample/ads.jsonl"

// lines returns the non-empty lines of s.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestIndexSameAsDedup: an index built from the sample reports, for each
// document, exactly dedup's pairs (every pair listed), with the same
// Jaccard; querying a document finds itself too.
func TestIndexSameAsDedup(t *testing.T) {
	dir := t.TempDir()
	ixDir := filepath.Join(dir, "ix")
	pairs := filepath.Join(dir, "pairs.tsv")
	if code, _, stderr := cli(t, "", "dedup", "--quiet", "--pairs", pairs, sampleAds); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := cli(t, "", "index", "build", "--index", ixDir, sampleAds); code != 0 {
		t.Fatal(stderr)
	}
	code, out, stderr := cli(t, "", "index", "query", "--index", ixDir, "--quiet", sampleAds)
	if code != 0 {
		t.Fatal(stderr)
	}
	var got []string
	self := 0
	for _, l := range lines(out) {
		f := strings.Split(l, "\t")
		if f[0] == f[1] {
			self++
			if f[2] != "1.000000" {
				t.Errorf("a document matches itself at %s", f[2])
			}
			continue
		}
		got = append(got, l)
	}
	var want []string
	for _, l := range lines(read(t, pairs)) {
		f := strings.Split(l, "\t")
		want = append(want, l, f[1]+"\t"+f[0]+"\t"+f[2])
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("index query found %d matches between documents, dedup %d pairs (x2)", len(got), len(want))
	}
	if self != 1481 { // the sample's documents with shingles
		t.Errorf("%d documents matched themselves, want 1481", self)
	}
	code, out, _ = cli(t, "", "index", "stats", "--index", ixDir, "--check", "--json")
	var st struct {
		Documents int64  `json:"documents"`
		Check     string `json:"check"`
		Resident  int64  `json:"resident_bytes"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 {
		t.Fatalf("stats: %v, %d: %s", err, code, out)
	}
	if st.Documents != 1481 || st.Check != "ok" || st.Resident <= 0 || st.Resident > 1024*st.Documents {
		t.Errorf("stats %+v", st)
	}
}

// TestIndexIncrementalDedup: `index query --add` over a corpus, starting
// from an empty index, keeps exactly the documents dedup --output keeps:
// a document is kept when no document kept before it is its near-duplicate,
// which is star clustering with --keep first.
func TestIndexIncrementalDedup(t *testing.T) {
	dir := t.TempDir()
	ixDir := filepath.Join(dir, "ix")
	kept := filepath.Join(dir, "kept.jsonl")
	if code, _, stderr := cli(t, "", "dedup", "--quiet", "--output", kept, sampleAds); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := cli(t, "", "index", "create", "--index", ixDir); code != 0 {
		t.Fatal(stderr)
	}
	// In two halves, with a small --batch so that documents meet earlier
	// ones both in the index and in their own transaction.
	all := lines(read(t, sampleAds))
	first := write(t, dir, "a.jsonl", strings.Join(all[:700], "\n")+"\n")
	second := write(t, dir, "b.jsonl", strings.Join(all[700:], "\n")+"\n")
	for _, in := range []string{first, second} {
		if code, _, stderr := cli(t, "", "index", "query", "--index", ixDir, "--add", "--batch", "37", "--quiet", in); code != 0 {
			t.Fatal(stderr)
		}
	}
	var want []string
	for _, l := range lines(read(t, kept)) {
		var d struct{ ID, Text string }
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatal(err)
		}
		if strings.TrimFunc(d.Text, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') }) == "" {
			continue // no shingles: dedup keeps it, the index does not take it
		}
		want = append(want, d.ID)
	}
	// The documents in the index are the kept ones.
	code, out, stderr := cli(t, "", "index", "stats", "--index", ixDir, "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var st struct{ Documents int }
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if st.Documents != len(want) {
		t.Fatalf("the index kept %d documents, dedup %d", st.Documents, len(want))
	}
	// Each kept document is in the index under its id: removing them all
	// leaves it empty.
	idsFile := write(t, dir, "ids.txt", strings.Join(want, "\n")+"\n")
	if code, _, stderr := cli(t, "", "index", "remove", "--index", ixDir, "--ids", idsFile); code != 0 {
		t.Fatalf("removing dedup's kept ids: %s", stderr)
	}
	code, out, _ = cli(t, "", "index", "stats", "--index", ixDir, "--check", "--json")
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 || st.Documents != 0 {
		t.Fatalf("after removing them: %d documents, exit %d: %s", st.Documents, code, out)
	}
}

func TestIndexCommandErrors(t *testing.T) {
	dir := t.TempDir()
	ixDir := filepath.Join(dir, "ix")
	in := write(t, dir, "d.jsonl", fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n{\"id\":\"b\",\"text\":%q}\n", words(0, 40), words(0, 38)))
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"index"}, 2, "missing index command"},
		{[]string{"index", "creat", "--index", ixDir}, 2, "did you mean create"},
		{[]string{"index", "create"}, 2, "--index DIR is required"},
		{[]string{"index", "query", "--index", ixDir, in}, 1, "no index there"},
		{[]string{"index", "create", "--index", ixDir, "--weight", "idf"}, 2, "flag provided but not defined"},
		{[]string{"index", "create", "--index", ixDir, "--threshold", "0"}, 2, "--threshold 0"},
		{[]string{"index", "create", "--index", ixDir}, 0, "created"},
		{[]string{"index", "create", "--index", ixDir}, 1, "holds an index already"},
		{[]string{"index", "build", "--index", ixDir, "--threshold", "0.7", in}, 1, "made with --threshold=0.5; --threshold=0.7 differs from it"},
		{[]string{"index", "add", "--index", ixDir, in}, 0, "2 documents read, 1 with near-duplicates"},
		{[]string{"index", "add", "--index", ixDir, in}, 0, "2 not added: id already indexed"},
		{[]string{"index", "query", "--index", ixDir, "--threshold", "0.2", in}, 2, "neardup index: --threshold 0.2 is below the index's 0.5 (the index finds pairs at its threshold"},
		{[]string{"index", "query", "--index", ixDir, "--threshold", "1.5", in}, 2, "neardup index: --threshold 1.5: want a number in (0, 1]"},
		{[]string{"index", "query", "--index", ixDir, "--threshold", "0.5", in}, 0, "2 documents read"},
		{[]string{"index", "remove", "--index", ixDir, "a", "zz"}, 1, `"zz" is not in the index`},
		{[]string{"index", "stats", "--index", ixDir, "--check"}, 0, "check: ok"},
	} {
		code, stdout, stderr := cli(t, "", c.args...)
		if code != c.code || !strings.Contains(stdout+stderr, c.want) {
			t.Errorf("%v: exit %d, output %q %q; want exit %d and %q", c.args, code, stdout, stderr, c.code, c.want)
		}
	}
}
