package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/shingle"
)

// contractCorpus: a and its copies a2, a3 (identical text), b a near
// duplicate of a, c unrelated.
func contractCorpus(t *testing.T) string {
	dir := t.TempDir()
	a := words(0, 60)
	return write(t, dir, "c.jsonl", fmt.Sprintf(`{"id":"a","text":%q}
{"id":"b","text":%q}
{"id":"a2","text":%q}
{"id":"c","text":%q}
{"id":"a3","text":%q}
`, a, words(0, 50)+" x y z", a, words(500, 560), a))
}

func pairLines(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(read(t, path)), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestPairsEveryPair: --pairs lists every pair, copies included and each
// copy with the near-duplicate; --pairs-compact keeps the star listing.
func TestPairsEveryPair(t *testing.T) {
	in := contractCorpus(t)
	dir := t.TempDir()
	all, compact := filepath.Join(dir, "all.tsv"), filepath.Join(dir, "compact.tsv")
	if code, _, stderr := cli(t, "", "dedup", "--quiet", "--pairs", all, in); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := cli(t, "", "dedup", "--quiet", "--pairs-compact", "--pairs", compact, in); code != 0 {
		t.Fatal(stderr)
	}
	sh, _ := shingle.New(shingle.Options{})
	jab := strconv.FormatFloat(shingle.Jaccard(sh.AppendSetString(nil, words(0, 60)), sh.AppendSetString(nil, words(0, 50)+" x y z")), 'f', 6, 64)
	want := []string{
		"a\tb\t" + jab, "a\ta2\t1.000000", "a\ta3\t1.000000",
		"b\ta2\t" + jab, "b\ta3\t" + jab,
		"a2\ta3\t1.000000",
	}
	if got := pairLines(t, all); !slices.Equal(got, want) {
		t.Errorf("--pairs:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantCompact := []string{"a\tb\t" + jab, "a\ta2\t1.000000", "a\ta3\t1.000000"}
	if got := pairLines(t, compact); !slices.Equal(got, wantCompact) {
		t.Errorf("--pairs-compact:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantCompact, "\n"))
	}
	// explain reads either listing and finds the same clusters.
	for _, p := range []string{all, compact} {
		x := explainJSON(t, "--pairs", p, "a3", "b", in)
		if !x.SameCluster || x.ClusterA == nil || x.ClusterA.Representative != "a" || x.ClusterA.Size != 4 {
			t.Errorf("explain --pairs %s: %+v", filepath.Base(p), x)
		}
	}
}

func TestDuplicateIDsWarning(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "d.jsonl", `{"id":"x","text":"one two three four"}
{"id":"y","text":"five six seven eight"}
{"id":"x","text":"nine ten eleven twelve"}
{"id":"x","text":"thirteen fourteen fifteen"}
`)
	code, _, stderr := cli(t, "", "dedup", "--no-progress", in)
	if code != 0 || !strings.Contains(stderr, "warning:") || !strings.Contains(stderr, `2 documents repeat an earlier id`) ||
		!strings.Contains(stderr, `"x" in `+in+` record 1, `+in+` record 3, `+in+` record 4`) {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = cli(t, "", "dedup", "--strict-ids", "--quiet", in)
	if code != 1 || !strings.Contains(stderr, "--strict-ids") || !strings.Contains(stderr, in+" record 3") {
		t.Errorf("--strict-ids: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestExplicitZeroIsError: an explicit value is never replaced by a default.
func TestExplicitZeroIsError(t *testing.T) {
	in := contractCorpus(t)
	for _, args := range [][]string{
		{"--threshold", "0"}, {"--ngram", "0"}, {"--num-perm", "0"}, {"--workers", "-1"}, {"--recall", "0"},
		{"--ngram", "-3"}, {"--max-cluster", "-1"}, {"--bands", "50", "--rows", "3"},
	} {
		code, _, stderr := cli(t, "", append(append([]string{"dedup"}, args...), in)...)
		if code != exitUsage || !strings.Contains(stderr, args[0]) || strings.Count(stderr, "\n") != 2 {
			t.Errorf("%v: exit %d, stderr %q; want a one-line usage error naming %s", args, code, stderr, args[0])
		}
	}
	// Unset, the same flags take their defaults.
	if code, _, stderr := cli(t, "", "dedup", "--quiet", in); code != 0 {
		t.Errorf("defaults: exit %d: %s", code, stderr)
	}
}

// TestExplainWeighted: with --weight idf, explain reports the weighted
// Jaccard that dedup compared with the threshold, from a dedup run or
// from a pairs file alike.
func TestExplainWeighted(t *testing.T) {
	in := contractCorpus(t)
	pairs := filepath.Join(t.TempDir(), "p.tsv")
	if code, _, stderr := cli(t, "", "dedup", "--quiet", "--weight", "idf", "--threshold", "0.3", "--pairs", pairs, in); code != 0 {
		t.Fatal(stderr)
	}
	var jab string
	for _, l := range pairLines(t, pairs) {
		if f := strings.Split(l, "\t"); f[0] == "a" && f[1] == "b" {
			jab = f[2]
		}
	}
	if jab == "" {
		t.Fatalf("no pair a, b in %s", read(t, pairs))
	}
	plain := explainJSON(t, "a", "b", in)
	for _, from := range [][]string{nil, {"--pairs", pairs}} {
		x := explainJSON(t, append(append([]string{"--weight", "idf", "--threshold", "0.3"}, from...), "a", "b", in)...)
		var j json.Number = x.Jaccard
		if string(j) != jab {
			t.Errorf("%v: explain says %s, dedup's pair says %s", from, j, jab)
		}
		if string(j) == string(plain.Jaccard) {
			t.Errorf("%v: weighted Jaccard %s equals the plain one: the corpus does not tell them apart", from, j)
		}
	}
}

// TestExplainRefinePairs: a pairs file written with --refine edit (four
// columns) is read by explain.
func TestExplainRefinePairs(t *testing.T) {
	in := contractCorpus(t)
	pairs := filepath.Join(t.TempDir(), "p.tsv")
	if code, _, stderr := cli(t, "", "dedup", "--quiet", "--refine", "edit", "--pairs", pairs, in); code != 0 {
		t.Fatal(stderr)
	}
	if f := strings.Split(pairLines(t, pairs)[0], "\t"); len(f) != 4 {
		t.Fatalf("refine pairs line has %d fields", len(f))
	}
	if x := explainJSON(t, "--pairs", pairs, "a", "b", in); !x.SameCluster {
		t.Errorf("explain --pairs (4 columns): %+v", x)
	}
}

func TestEvalStages(t *testing.T) {
	in := contractCorpus(t)
	code, _, stderr := cli(t, "", "eval", in)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, stage := range []string{"eval: read 5 documents", "eval: dedup engine:", "eval: exact all-pairs join:", "eval: measured S-curve"} {
		if !strings.Contains(stderr, stage) {
			t.Errorf("stderr lacks %q:\n%s", stage, stderr)
		}
	}
	if code, _, stderr := cli(t, "", "eval", "--quiet", in); code != 0 || stderr != "" {
		t.Errorf("eval --quiet: exit %d, stderr %q", code, stderr)
	}
}

func TestProgressLine(t *testing.T) {
	var p progress
	p.set("writing pairs", 200)
	p.add(50)
	if got := p.line(1); !strings.Contains(got, "writing pairs") || !strings.Contains(got, " 25%") {
		t.Errorf("line = %q", got)
	}
	p.set("exact join", 0)
	if got := p.line(1); got != "exact join: working" {
		t.Errorf("line of a stage without a total = %q", got)
	}
	b, err := neardup.NewBatch(neardup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p.watch(b)
	b.Add("x", []byte("some text"))
	if got := p.line(1); !strings.HasPrefix(got, "reading: 1 document,") {
		t.Errorf("line while a batch reads = %q", got)
	}
}

func TestOutputNameFormat(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "ads.csv", "id,text\n1,alpha beta gamma delta\n2,alpha beta gamma delta\n")
	code, _, stderr := cli(t, "", "dedup", "--output", filepath.Join(dir, "out.jsonl"), in)
	if code != exitUsage || !strings.Contains(stderr, "out.csv") || strings.Count(stderr, "\n") != 2 {
		t.Errorf("--output .jsonl for a CSV input: exit %d, %q", code, stderr)
	}
	out := filepath.Join(dir, "out.csv.gz")
	if code, _, stderr := cli(t, "", "dedup", "--quiet", "--output", out, in); code != 0 {
		t.Errorf("--output .csv.gz: exit %d, %s", code, stderr)
	}
}

func TestDirBinarySkipped(t *testing.T) {
	dir := t.TempDir()
	d := filepath.Join(dir, "docs")
	write(t, d, "a.txt", words(0, 40))
	write(t, d, "b.txt", words(0, 40))
	write(t, d, "blob.bin", "\x00\x01"+words(0, 40))
	stats := filepath.Join(dir, "stats.json")
	code, _, stderr := cli(t, "", "dedup", "--no-progress", "--stats", stats, d)
	if code != 0 || !strings.Contains(stderr, "1 file of directory inputs left out (--include-binary reads it)") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	var st struct {
		Documents int `json:"documents"`
		Binary    int `json:"skipped_binary_files"`
		Pairs     int `json:"reported_pairs"`
	}
	if err := json.Unmarshal([]byte(read(t, stats)), &st); err != nil {
		t.Fatal(err)
	}
	if st.Documents != 2 || st.Binary != 1 || st.Pairs != 1 {
		t.Errorf("stats %+v: want 2 documents, 1 binary file, 1 pair", st)
	}
	if code, _, stderr := cli(t, "", "dedup", "--quiet", "--include-binary", "--stats", stats, d); code != 0 {
		t.Fatal(stderr)
	}
	if err := json.Unmarshal([]byte(read(t, stats)), &st); err != nil {
		t.Fatal(err)
	}
	if st.Documents != 3 || st.Binary != 0 {
		t.Errorf("--include-binary: stats %+v", st)
	}
}
