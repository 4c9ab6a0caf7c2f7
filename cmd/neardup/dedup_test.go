package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/neardup/neardup/cmd/neardup/internal/summary"
	"github.com/parquet-go/parquet-go"
)

// cli runs the command line and returns its exit code and outputs.
func cli(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Three ads: 1 and 3 are near copies (word 3-gram Jaccard 0.8), 2 differs.
const (
	adA = "Senior Go developer wanted in Rome, full time, great team, remote friendly, apply today with your CV please"
	adB = "Bakery in Milan looks for a morning baker, early shifts, bread and pastry, experience required"
	adC = "Senior Go developer wanted in Rome, full time, great team, remote friendly, apply today with your CV now"
)

func parsePairs(t *testing.T, s string) [][3]string {
	t.Helper()
	var out [][3]string
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("pairs line %q: %d fields", line, len(f))
		}
		out = append(out, [3]string{f[0], f[1], f[2]})
	}
	return out
}

func TestDedupJSONL(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "ads.jsonl", fmt.Sprintf(`{"id":"a","text":%q}
{"id":"b","text":%q}

{"id":"c","text":%q}
{"id":"d","text":""}
`, adA, adB, adC))
	pairs := filepath.Join(dir, "pairs.tsv")
	clusters := filepath.Join(dir, "clusters.jsonl")
	output := filepath.Join(dir, "unique.jsonl")
	stats := filepath.Join(dir, "stats.json")
	code, _, stderr := cli(t, "", "dedup", in, "--pairs", pairs, "--clusters", clusters, "--output", output, "--stats", stats)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p := parsePairs(t, read(t, pairs))
	// 3-gram sets of A and C: 18 tokens each, differing in the last: 15 shared of 16 each, union 17.
	if len(p) != 1 || p[0] != [3]string{"a", "c", "0.882353"} {
		t.Fatalf("pairs = %v", p)
	}
	var c clusterJSON
	if err := json.Unmarshal([]byte(read(t, clusters)), &c); err != nil {
		t.Fatal(err)
	}
	if c.Cluster != 1 || c.Size != 2 || c.Representative != "a" || len(c.Members) != 2 || c.Members[1].ID != "c" || c.Members[1].Jaccard != "0.882353" {
		t.Fatalf("cluster = %+v", c)
	}
	got := read(t, output)
	if strings.Contains(got, `"id":"c"`) || !strings.Contains(got, `"id":"a"`) || !strings.Contains(got, `"id":"b"`) || !strings.Contains(got, `"id":"d"`) {
		t.Fatalf("output = %s", got)
	}
	var st summary.Stats
	if err := json.Unmarshal([]byte(read(t, stats)), &st); err != nil {
		t.Fatal(err)
	}
	if st.Documents != 4 || st.Empty != 1 || st.Clusters != 1 || st.Duplicates != 1 || st.Params.Bands == 0 {
		t.Fatalf("stats = %+v", st)
	}
	// LSH's buckets: the classes add up, each class's members fit its
	// sizes, and every candidate is a pair of some bucket's members.
	var members, memberPairs int64
	for name, c := range st.BucketSizes {
		var lo, hi int64
		if _, err := fmt.Sscanf(name, "%d-%d", &lo, &hi); err != nil || c.Buckets < 1 || c.Members < lo*c.Buckets || c.Members > hi*c.Buckets {
			t.Errorf("bucket class %q: %+v", name, c)
		}
		members += c.Members
		memberPairs += c.Pairs
	}
	if st.Candidates < 1 || members != st.BucketMembers || memberPairs != st.BucketPairs || st.BucketPairs < st.Candidates {
		t.Errorf("buckets: %d members, %d pairs, classes %v; %d candidates", st.BucketMembers, st.BucketPairs, st.BucketSizes, st.Candidates)
	}
	// The outputs written before --stats are timed in it.
	for _, k := range []string{"write_pairs", "write_clusters", "lsh_verify"} {
		if s, ok := st.Seconds[k]; !ok || s < 0 {
			t.Errorf("stats seconds lack %s: %v", k, st.Seconds)
		}
	}
	for _, want := range []string{"4 documents", "1 empty", "clusters:   1"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("summary lacks %q:\n%s", want, stderr)
		}
	}
}

func TestDedupCSVAndTSVFields(t *testing.T) {
	dir := t.TempDir()
	csvIn := write(t, dir, "ads.csv", "Id,Title,Body\n"+
		fmt.Sprintf("10,Go dev,%q\n11,Baker,%q\n12,Go dev,\"%s\"\n", adA, adB, strings.ReplaceAll(adC, ",", ",\n")))
	pairs := filepath.Join(dir, "pairs.tsv")
	code, _, stderr := cli(t, "", "dedup", "--text-field", "Title,Body", "--pairs", pairs, csvIn)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p := parsePairs(t, read(t, pairs))
	if len(p) != 1 || p[0][0] != "10" || p[0][1] != "12" {
		t.Fatalf("pairs = %v (ids must come from the Id column)", p)
	}
	// TSV without an id column: ids are record numbers; the output keeps the header.
	tsvIn := write(t, dir, "ads.tsv", "Title\tText\n"+"x\t"+adA+"\ny\t"+adB+"\nz\t"+adC+"\n")
	out := filepath.Join(dir, "unique.tsv")
	code, _, stderr = cli(t, "", "dedup", "--text-field", "Text", "--pairs", pairs, "--output", out, tsvIn)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if p := parsePairs(t, read(t, pairs)); len(p) != 1 || p[0][0] != "1" || p[0][1] != "3" {
		t.Fatalf("pairs = %v", p)
	}
	if got, want := read(t, out), "Title\tText\nx\t"+adA+"\ny\t"+adB+"\n"; got != want {
		t.Fatalf("output:\n%q\nwant\n%q", got, want)
	}
	// A missing column is a usage of the data, named clearly.
	code, _, stderr = cli(t, "", "dedup", "--text-field", "Nope", tsvIn)
	if code != 1 || !strings.Contains(stderr, "Nope") || !strings.Contains(stderr, "ads.tsv") {
		t.Fatalf("missing column: exit %d: %s", code, stderr)
	}
}

func TestDedupMultipleInputsAndCompression(t *testing.T) {
	dir := t.TempDir()
	a := write(t, dir, "one.txt", adA+"\n"+adB+"\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(adC + "\n\n"))
	zw.Close()
	b := write(t, dir, "two.txt.gz", gz.String())
	pairs := filepath.Join(dir, "pairs.tsv")
	out := filepath.Join(dir, "unique.txt.gz")
	code, _, stderr := cli(t, "", "dedup", "--pairs", pairs, "--output", out, a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p := parsePairs(t, read(t, pairs))
	if len(p) != 1 || p[0][0] != a+":1" || p[0][1] != b+":1" {
		t.Fatalf("pairs = %v (ids need the FILE: prefix)", p)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("output is not gzip: %v", err)
	}
	var lines []string
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if want := []string{adA, adB, ""}; strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Fatalf("output lines = %q, want %q", lines, want)
	}
}

func TestDedupStdinAndDirectory(t *testing.T) {
	code, stdout, stderr := cli(t, adA+"\n"+adB+"\n"+adC+"\n", "dedup", "--pairs", "-", "--quiet", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if p := parsePairs(t, stdout); len(p) != 1 || p[0][0] != "1" || p[0][1] != "3" {
		t.Fatalf("stdin pairs = %v", p)
	}
	code, stdout, stderr = cli(t, `{"text":"`+adA+`"}`+"\n"+`{"text":"`+adC+`"}`+"\n", "dedup", "--output", "-", "--quiet", "-")
	if code != 0 || strings.Count(stdout, "\n") != 1 {
		t.Fatalf("stdin JSONL --output -: exit %d, %q, %s", code, stdout, stderr)
	}

	dir := t.TempDir()
	write(t, dir, "docs/x.txt", adA)
	write(t, dir, "docs/sub/y.txt", adC)
	write(t, dir, "docs/z.txt", adB)
	pairs := filepath.Join(dir, "pairs.tsv")
	out := filepath.Join(dir, "kept")
	code, _, stderr = cli(t, "", "dedup", "--pairs", pairs, "--output", out, filepath.Join(dir, "docs"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p := parsePairs(t, read(t, pairs))
	if len(p) != 1 || !((p[0][0] == "sub/y.txt" && p[0][1] == "x.txt") || (p[0][0] == "x.txt" && p[0][1] == "sub/y.txt")) {
		t.Fatalf("dir pairs = %v", p)
	}
	var kept []string
	filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(out, path)
			kept = append(kept, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(kept)
	if strings.Join(kept, ",") != "sub/y.txt,z.txt" {
		t.Fatalf("kept files = %v", kept)
	}
}

// TestDedupBadInput: errors name the file and line, exit 1, and leave no
// output behind; --skip-bad skips and counts.
func TestDedupBadInput(t *testing.T) {
	dir := t.TempDir()
	good := write(t, dir, "good.jsonl", `{"text":"`+adA+`"}`+"\n")
	bad := write(t, dir, "bad.jsonl", `{"text":"`+adA+`"}`+"\n"+`{"text":"`+adC+`"}`+"\n"+`{"text": "broken`+"\n"+`{"text":"`+adB+`"}`+"\n")
	pairs := filepath.Join(dir, "pairs.tsv")
	write(t, dir, "pairs.tsv", "previous\n")
	code, _, stderr := cli(t, "", "dedup", "--pairs", pairs, good, bad)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	if !strings.Contains(stderr, "bad.jsonl:3") {
		t.Errorf("error does not name bad.jsonl:3: %s", stderr)
	}
	if got := read(t, pairs); got != "previous\n" {
		t.Errorf("a failed run changed the pairs file: %q", got)
	}
	stats := filepath.Join(dir, "stats.json")
	code, _, stderr = cli(t, "", "dedup", "--skip-bad", "--pairs", pairs, "--stats", stats, bad)
	if code != 0 {
		t.Fatalf("--skip-bad: exit %d: %s", code, stderr)
	}
	var st summary.Stats
	if err := json.Unmarshal([]byte(read(t, stats)), &st); err != nil {
		t.Fatal(err)
	}
	if st.Skipped != 1 || st.Documents != 3 {
		t.Errorf("skip-bad stats: %+v", st)
	}
	if p := parsePairs(t, read(t, pairs)); len(p) != 1 {
		t.Errorf("skip-bad pairs = %v", p)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}

	csvBad := write(t, dir, "bad.csv", "id,text\n1,\"fine\"\n2,\"unterminated\n3,more\n")
	code, _, stderr = cli(t, "", "dedup", csvBad)
	if code != 1 || !strings.Contains(stderr, "bad.csv:") {
		t.Errorf("unterminated CSV quote: exit %d: %s", code, stderr)
	}
	code, _, stderr = cli(t, "", "dedup", filepath.Join(dir, "missing.jsonl"))
	if code != 1 || !strings.Contains(stderr, "missing.jsonl") {
		t.Errorf("missing file: exit %d: %s", code, stderr)
	}
}

func TestDedupEdgeInputs(t *testing.T) {
	dir := t.TempDir()
	empty := write(t, dir, "empty.txt", "")
	blank := write(t, dir, "blank.txt", strings.Repeat("\n", 1000))
	for _, in := range []string{empty, blank} {
		stats := filepath.Join(dir, "s.json")
		code, _, stderr := cli(t, "", "dedup", "--stats", stats, in)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", in, code, stderr)
		}
		var st summary.Stats
		if err := json.Unmarshal([]byte(read(t, stats)), &st); err != nil {
			t.Fatal(err)
		}
		if st.Pairs != 0 || st.Empty != st.Documents {
			t.Errorf("%s: stats %+v", in, st)
		}
	}
	if testing.Short() {
		return
	}
	// A 100 MB single document next to a copy of itself.
	var big strings.Builder
	for big.Len() < 100<<20 {
		fmt.Fprintf(&big, "word%d ", big.Len()%9973)
	}
	doc := big.String()
	huge := write(t, dir, "huge.txt", doc+"\n"+doc+"\n")
	pairs := filepath.Join(dir, "pairs.tsv")
	code, _, stderr := cli(t, "", "dedup", "--pairs", pairs, huge)
	if code != 0 {
		t.Fatalf("100 MB document: exit %d: %s", code, stderr)
	}
	if p := parsePairs(t, read(t, pairs)); len(p) != 1 || p[0][2] != "1.000000" {
		t.Fatalf("pairs = %v", p)
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "a.txt", adA+"\n")
	for _, args := range [][]string{
		{"dedup"},
		{"dedup", "--threshold", "2", in},
		{"dedup", "--bands", "3", in},
		{"dedup", "--bands", "100", "--rows", "5", in},
		{"dedup", "--verify", "maybe", in},
		{"dedup", "--keep", "middle", in},
		{"dedup", "--shingle", "sentence", in},
		{"dedup", "--format", "xml", in},
		{"dedup", "--pairs", in, in},
		{"nosuchcommand"},
	} {
		code, _, stderr := cli(t, "", args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
	if code, _, _ := cli(t, "", "dedup", "-h"); code != 0 {
		t.Errorf("-h: exit %d", code)
	}
	if code, out, _ := cli(t, "", "help"); code != 0 || !strings.Contains(out, "dedup") {
		t.Errorf("help: %d %q", code, out)
	}
}

// TestRealData runs on the real corpora when ../shared is there.
func TestRealData(t *testing.T) {
	data := filepath.Join("..", "..", "..", "shared", "data")
	for _, tc := range []struct {
		file, field string
		docs        int
	}{
		{"kijiji.tsv", "Title,Short Description", 2627},
		{"adzuna_first2499.csv", "Title,FullDescription", 2499},
	} {
		p := filepath.Join(data, tc.file)
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s not present: %v", p, err)
		}
		stats := filepath.Join(t.TempDir(), "s.json")
		code, _, stderr := cli(t, "", "dedup", "--text-field", tc.field, "--stats", stats, p)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.file, code, stderr)
		}
		var st summary.Stats
		if err := json.Unmarshal([]byte(read(t, stats)), &st); err != nil {
			t.Fatal(err)
		}
		if st.Documents != tc.docs || st.Clusters == 0 {
			t.Errorf("%s: %+v", tc.file, st)
		}
		t.Logf("%s: %d docs, %d pairs, %d clusters, largest %d", tc.file, st.Documents, st.Pairs, st.Clusters, st.LargestCluster)
	}
}

type adRow struct {
	ID    string `parquet:"id"`
	Title string `parquet:"title"`
	Text  string `parquet:"text"`
}

// TestDedupParquet reads Parquet, takes ids from a column and writes the
// deduplicated corpus back as Parquet with the same schema.
func TestDedupParquet(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[adRow](&buf)
	if _, err := w.Write([]adRow{{"p1", "Go", adA}, {"p2", "Bread", adB}, {"p3", "Go", adC}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	in := write(t, dir, "ads.parquet", buf.String())
	pairs := filepath.Join(dir, "pairs.tsv")
	out := filepath.Join(dir, "unique.parquet")
	code, _, stderr := cli(t, "", "dedup", "--text-field", "title,text", "--pairs", pairs, "--output", out, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if p := parsePairs(t, read(t, pairs)); len(p) != 1 || p[0][0] != "p1" || p[0][1] != "p3" {
		t.Fatalf("pairs = %v", p)
	}
	rows, err := parquet.ReadFile[adRow](out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].ID != "p1" || rows[1].ID != "p2" || rows[1].Text != adB {
		t.Fatalf("output rows = %+v", rows)
	}
}

// TestDedupRefineEdit: --refine edit adds a fourth pairs column and an
// "edit" field per cluster member; without it the contract is unchanged.
func TestDedupRefineEdit(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "ads.txt", adA+"\n"+adB+"\n"+adC+"\n")
	pairs := filepath.Join(dir, "pairs.tsv")
	clusters := filepath.Join(dir, "clusters.jsonl")
	code, _, stderr := cli(t, "", "dedup", "--refine", "edit", "--pairs", pairs, "--clusters", clusters, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// 18 tokens each, one substituted: edit similarity 17/18.
	if got := strings.TrimSpace(read(t, pairs)); got != "1\t3\t0.882353\t0.944444" {
		t.Fatalf("pairs = %q", got)
	}
	if !strings.Contains(read(t, clusters), `"id":"3","jaccard":0.882353,"edit":0.944444`) {
		t.Fatalf("clusters = %s", read(t, clusters))
	}
	code, _, _ = cli(t, "", "dedup", "--pairs", pairs, "--clusters", clusters, in)
	if code != 0 || strings.Count(read(t, pairs), "\t") != 2 || strings.Contains(read(t, clusters), "edit") {
		t.Fatalf("without --refine: %q %q", read(t, pairs), read(t, clusters))
	}
	if code, _, _ := cli(t, "", "dedup", "--refine", "cosine", in); code != 2 {
		t.Errorf("--refine cosine: exit %d, want 2", code)
	}
}

// Japanese and Chinese texts and their copies wrapped at another width are
// found at Jaccard 1 by the default dedup; copies in full-width Latin and
// digits only with --normalize nfkc; unrelated texts are not paired.
func TestDedupCJKCopies(t *testing.T) {
	ja := "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。"
	zh := "我们在Linux系统上运行这个程序已经很多年了，从来没有遇到过严重的问题，所以我们决定继续使用它。"
	other := "今日は良い天気ですね。明日は雨が降るかもしれませんが、週末には晴れるでしょう。"
	wrap := func(s string, width int) string {
		var b strings.Builder
		for i, r := range []rune(s) {
			if i > 0 && i%width == 0 {
				b.WriteString("\n")
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	fullwidth := strings.NewReplacer("Linux", "Ｌｉｎｕｘ").Replace(zh)
	lines := []string{}
	for _, d := range [][2]string{{"ja", ja}, {"ja-wrapped", wrap(ja, 17)}, {"zh", zh}, {"zh-wrapped", wrap(zh, 23)},
		{"zh-fullwidth", fullwidth}, {"other", other}} {
		b, _ := json.Marshal(map[string]string{"id": d[0], "text": d[1]})
		lines = append(lines, string(b))
	}
	in := write(t, t.TempDir(), "cjk.jsonl", strings.Join(lines, "\n")+"\n")
	pairs := func(args ...string) map[string]string {
		code, out, errb := cli(t, "", append(append([]string{"dedup", "--quiet", "--pairs", "-"}, args...), in)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb)
		}
		m := map[string]string{}
		for _, p := range parsePairs(t, out) {
			m[p[0]+" "+p[1]] = p[2]
		}
		return m
	}
	plain := pairs()
	for _, k := range []string{"ja ja-wrapped", "zh zh-wrapped"} {
		if plain[k] != "1.000000" {
			t.Errorf("%s: %q, want 1.000000 (all pairs: %v)", k, plain[k], plain)
		}
	}
	if _, ok := plain["zh zh-fullwidth"]; ok && plain["zh zh-fullwidth"] == "1.000000" {
		t.Errorf("full-width copy identical without NFKC: the test shows nothing")
	}
	nfkc := pairs("--normalize", "nfkc")
	if nfkc["zh zh-fullwidth"] != "1.000000" || nfkc["zh-wrapped zh-fullwidth"] != "1.000000" {
		t.Errorf("--normalize nfkc: %v, want the full-width copy at 1.000000", nfkc)
	}
	for k := range nfkc {
		if strings.Contains(k, "other") {
			t.Errorf("an unrelated text paired: %s %s", k, nfkc[k])
		}
	}
	for _, mode := range []string{"word", "char"} {
		if m := pairs("--shingle", mode); m["ja ja-wrapped"] != "1.000000" {
			t.Errorf("--shingle %s: ja ~ ja-wrapped %q", mode, m["ja ja-wrapped"])
		}
	}
}

// TestDedupPairsEscapeIDs: ids with a tab, a newline or a backslash are
// escaped in the pairs file (each id is checked once, not once a line),
// and plain ids beside them are written as they are.
func TestDedupPairsEscapeIDs(t *testing.T) {
	dir := t.TempDir()
	ids := []string{"a\tx", `b\y`, "plain", "n\nl", "c\rr"}
	var in strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&in, "{\"id\":%q,\"text\":%q}\n", id, adA)
	}
	path := write(t, dir, "ads.jsonl", in.String())
	pairs := filepath.Join(dir, "pairs.tsv")
	if code, _, stderr := cli(t, "", "dedup", path, "--pairs", pairs); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	esc := []string{`a\tx`, `b\\y`, "plain", `n\nl`, `c\rr`}
	var want []string
	for i := range esc {
		for j := i + 1; j < len(esc); j++ {
			want = append(want, esc[i]+"\t"+esc[j]+"\t1.000000")
		}
	}
	if got := strings.Split(strings.TrimSpace(read(t, pairs)), "\n"); !slices.Equal(got, want) {
		t.Fatalf("pairs:\n%q\nwant\n%q", got, want)
	}
}

// Two outputs to one file are refused before any work (the second would
// replace the first), except the null device, which may take any number.
func TestDedupOutputsShareAPath(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "ads.jsonl", fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n{\"id\":\"c\",\"text\":%q}\n", adA, adC))
	same := filepath.Join(dir, "out.txt")
	code, _, stderr := cli(t, "", "dedup", "--pairs", same, "--clusters", same, in)
	if code != 2 || !strings.Contains(stderr, "--clusters "+same+" would overwrite --pairs") {
		t.Fatalf("same path: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(same); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused run wrote %s: %v", same, err)
	}
	code, _, stderr = cli(t, "", "dedup", "--quiet", "--pairs", os.DevNull, "--clusters", os.DevNull, "--stats", os.DevNull, in)
	if code != 0 {
		t.Fatalf("%s for three outputs: exit %d: %s", os.DevNull, code, stderr)
	}
}
