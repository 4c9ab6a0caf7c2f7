package pipeline

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cliflags"
	"github.com/neardup/neardup/corpus"
)

const sample = "../../testdata/sample/ads.jsonl"

// neardupBin is the single-machine neardup, built from this checkout.
var neardupBin string

func TestMain(m *testing.M) {
	beam.Init()
	dir, err := os.MkdirTemp("", "neardup-beam-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	neardupBin = filepath.Join(dir, "neardup")
	build := exec.Command("go", "build", "-C", "../..", "-o", neardupBin, "./cmd/neardup")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build neardup:", err)
		os.Exit(1)
	}
	// Beam's loopback environment leaves an empty placeholder file in the
	// temporary directory for every pipeline it submits
	// ("beamloopbackworker-*"): keep them, and every test's temporary
	// files, under dir.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", tmp)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func prismExec(ctx context.Context, p *beam.Pipeline) (beam.PipelineResult, error) {
	return prism.Execute(ctx, p)
}

// outputs names the three outputs in dir.
func outputs(dir string, pairs, clusters, output bool) Outputs {
	var o Outputs
	if pairs {
		o.Pairs = filepath.Join(dir, "pairs.tsv")
	}
	if clusters {
		o.Clusters = filepath.Join(dir, "clusters.jsonl")
	}
	if output {
		o.Output = filepath.Join(dir, "unique.jsonl")
	}
	return o
}

// config parses dedup's flags as neardup-beam does.
func config(t *testing.T, args []string, inputs []string, work string) (Config, neardup.Options) {
	t.Helper()
	var in cliflags.Input
	var eng cliflags.Engine
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	in.Register(fs)
	eng.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	co, so, err := in.Options()
	if err != nil {
		t.Fatal(err)
	}
	o, err := eng.Options(so)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewConfig(o, inputs, co, work)
	if err != nil {
		t.Fatal(err)
	}
	c.Shards = 3
	return c, o
}

// sameAsDedup runs dedup and the pipelines with the same flags on inputs
// and checks that every output has the same lines (after sorting).
func sameAsDedup(t *testing.T, args []string, inputs []string, want Outputs, rounds int) *Summary {
	t.Helper()
	dir := t.TempDir()
	single, beamed := filepath.Join(dir, "dedup"), filepath.Join(dir, "beam")
	for _, d := range []string{single, beamed} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	o1 := outputs(single, want.Pairs != "", want.Clusters != "", want.Output != "")
	o2 := outputs(beamed, want.Pairs != "", want.Clusters != "", want.Output != "")
	o1.PairsCompact, o2.PairsCompact = want.PairsCompact, want.PairsCompact
	dargs := append([]string{"dedup", "--quiet"}, args...)
	for _, x := range [][2]string{{"--pairs", o1.Pairs}, {"--clusters", o1.Clusters}, {"--output", o1.Output}} {
		if x[1] != "" {
			dargs = append(dargs, x[0], x[1])
		}
	}
	if o1.PairsCompact {
		dargs = append(dargs, "--pairs-compact")
	}
	cmd := exec.Command(neardupBin, append(dargs, inputs...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("neardup %s: %v\n%s", strings.Join(dargs, " "), err, out)
	}

	c, o := config(t, args, inputs, filepath.Join(dir, "work"))
	c.Rounds = rounds
	if err := os.Mkdir(c.Work, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sum, err := Run(ctx, c, o2, o.StrictIDs, prismExec, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range [][2]string{{o1.Pairs, o2.Pairs}, {o1.Clusters, o2.Clusters}, {o1.Output, o2.Output}} {
		if f[0] != "" {
			sameLines(t, f[0], f[1])
		}
	}
	return sum
}

// sameLines checks that two files hold the same lines, in any order.
func sameLines(t *testing.T, want, got string) {
	t.Helper()
	w, g := lines(t, want), lines(t, got)
	if len(w) == 0 {
		t.Errorf("%s: dedup wrote nothing; the test would prove nothing", filepath.Base(want))
	}
	if !slices.Equal(w, g) {
		t.Errorf("%s: dedup %d lines, beam %d", filepath.Base(want), len(w), len(g))
		for i := 0; i < min(len(w), len(g)); i++ {
			if w[i] != g[i] {
				t.Fatalf("first difference:\n dedup %q\n beam  %q", w[i], g[i])
			}
		}
	}
}

func lines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 {
		return nil
	}
	l := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	slices.Sort(l)
	return l
}

var all = Outputs{Pairs: "x", Clusters: "x", Output: "x"}

func TestSampleSameAsDedup(t *testing.T) {
	sum := sameAsDedup(t, nil, []string{sample}, all, 4)
	if sum.Pipelines != 2 || sum.Counters["documents"] != 1500 {
		t.Errorf("%d pipelines, %d documents; want 2 and 1500", sum.Pipelines, sum.Counters["documents"])
	}
}

// Components and keep longest, the compact pairs, and one component round
// per pipeline, so that the driver runs rounds until they converge.
func TestSampleOptionsSameAsDedup(t *testing.T) {
	sum := sameAsDedup(t, []string{"--cluster", "components", "--keep", "longest", "--threshold", "0.4"},
		[]string{sample}, Outputs{Pairs: "x", PairsCompact: true, Clusters: "x", Output: "x"}, 1)
	if sum.Pipelines < 3 || sum.Rounds < 1 {
		t.Errorf("%d pipelines for %d rounds: want more than one round pipeline", sum.Pipelines, sum.Rounds)
	}
}

func TestSampleEstimateSameAsDedup(t *testing.T) {
	sameAsDedup(t, []string{"--verify", "estimate", "--keep", "shortest", "--max-cluster", "5"}, []string{sample}, all, 4)
}

// writeCorpus writes docs as JSONL ({"id", "text"}) to a file in dir.
func writeCorpus(t *testing.T, dir, name string, docs [][2]string) string {
	t.Helper()
	var b bytes.Buffer
	for _, d := range docs {
		fmt.Fprintf(&b, "{\"id\":%q,\"text\":%q}\n", d[0], d[1])
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// generated is a corpus of chains of copies (each a few words from the
// one before, so that the ends of a chain share little), a group of
// identical documents, a bucket of near-copies larger than the bucket
// limit used with it, empty documents and random unrelated ones, shuffled.
func generated(t *testing.T, identical int) string {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 11))
	word := func() string { return fmt.Sprintf("w%d", r.IntN(4000)) }
	text := func(n int) []string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = word()
		}
		return ws
	}
	var docs [][2]string
	add := func(id string, ws []string) { docs = append(docs, [2]string{id, strings.Join(ws, " ")}) }
	for i := range 600 {
		add(fmt.Sprintf("rand-%d", i), text(40+r.IntN(40)))
	}
	for c := range 25 {
		ws := text(60)
		for i := range 12 {
			add(fmt.Sprintf("chain-%d-%d", c, i), slices.Clone(ws))
			for range 3 {
				ws[r.IntN(len(ws))] = word()
			}
		}
	}
	same := text(50)
	for i := range identical {
		add(fmt.Sprintf("same-%d", i), same)
	}
	base := text(70)
	for i := range 120 {
		ws := slices.Clone(base)
		ws[r.IntN(len(ws))] = word()
		add(fmt.Sprintf("near-%d", i), ws)
	}
	for i := range 15 {
		add(fmt.Sprintf("empty-%d", i), []string{[]string{"", "!!!", "  ", "...?"}[i%4]})
	}
	r.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	return writeCorpus(t, t.TempDir(), "generated.jsonl", docs)
}

// A corpus of chains and thousands of identical documents, with a bucket
// limit that makes the near-copies' buckets chained.
func TestGeneratedSameAsDedup(t *testing.T) {
	in := generated(t, 2000)
	t.Run("star", func(t *testing.T) {
		sum := sameAsDedup(t, []string{"--max-bucket", "20"}, []string{in}, Outputs{Pairs: "x", PairsCompact: true, Clusters: "x", Output: "x"}, 2)
		if sum.Counters["large_buckets"] == 0 || sum.Counters["identical_documents"] < 1999 || sum.Largest < 2000 {
			t.Errorf("the corpus did not do what it is for: %v, largest cluster %d", sum.Counters, sum.Largest)
		}
		t.Logf("%d component rounds", sum.Rounds)
	})
	t.Run("components", func(t *testing.T) {
		sameAsDedup(t, []string{"--cluster", "components", "--max-bucket", "20"}, []string{in}, Outputs{Clusters: "x", Output: "x"}, 2)
	})
}

// Every pair of a group of a thousand identical documents (half a
// million lines).
func TestGeneratedEveryPairSameAsDedup(t *testing.T) {
	if testing.Short() {
		t.Skip("half a million pairs on Prism")
	}
	sameAsDedup(t, nil, []string{generated(t, 1000)}, Outputs{Pairs: "x"}, 4)
}

// Empty documents, ids given twice, ids missing (numbered), and two
// inputs (ids prefixed by the input's name).
func TestEmptyAndDuplicateIDsSameAsDedup(t *testing.T) {
	dir := t.TempDir()
	a := writeCorpus(t, dir, "a.jsonl", [][2]string{
		{"x", "the quick brown fox jumps over the lazy dog again and again"},
		{"x", "the quick brown fox jumps over the lazy dog again and again"},
		{"", ""},
		{"y", "the quick brown fox jumps over the lazy dog again and once more"},
		{"", "!!!"},
		{"z", "completely different words here with nothing shared at all"},
		{"x", ""},
		{"", "the quick brown fox jumps over the lazy dog again and again"},
	})
	b := writeCorpus(t, dir, "b.jsonl", [][2]string{
		{"x", "the quick brown fox jumps over the lazy dog again and again"},
		{"w", "completely different words here with nothing shared at all"},
		{"", ""},
	})
	sameAsDedup(t, nil, []string{a}, all, 4)
	sameAsDedup(t, nil, []string{a, b}, Outputs{Pairs: "x", Clusters: "x"}, 4)

	c, o := config(t, []string{"--strict-ids"}, []string{a}, t.TempDir())
	_, err := Run(context.Background(), c, outputs(t.TempDir(), true, false, false), o.StrictIDs, prismExec, io.Discard)
	if !errors.Is(err, ErrDuplicateID) {
		t.Errorf("--strict-ids with ids given twice: %v, want ErrDuplicateID", err)
	}
}

// A corpus without near-duplicates has empty pairs and clusters files, as
// dedup writes them (textio.Write writes no file for an empty collection),
// with a local work directory or one behind a URL.
func TestNoNearDuplicates(t *testing.T) {
	dir := t.TempDir()
	in := writeCorpus(t, dir, "distinct.jsonl", [][2]string{
		{"a", "the quick brown fox jumps over the lazy dog"},
		{"b", "completely different words here with nothing shared at all"},
		{"c", "a third text that shares no three words with the others"},
	})
	for i, work := range []string{filepath.Join(dir, "work"), "memfs://no-pairs-work"} {
		outDir := filepath.Join(dir, fmt.Sprint("out", i))
		if err := os.Mkdir(outDir, 0o755); err != nil {
			t.Fatal(err)
		}
		c, o := config(t, nil, []string{in}, work)
		out := outputs(outDir, true, true, true)
		if _, err := Run(context.Background(), c, out, o.StrictIDs, prismExec, io.Discard); err != nil {
			t.Fatalf("work %s: %v", work, err)
		}
		for _, f := range []string{out.Pairs, out.Clusters} {
			if st, err := os.Stat(f); err != nil || st.Size() != 0 {
				t.Errorf("work %s: %s: %v, want an empty file", work, filepath.Base(f), err)
			}
		}
		if n := len(lines(t, out.Output)); n != 3 {
			t.Errorf("work %s: %d documents kept, want 3", work, n)
		}
	}
}

// Inputs and the work directory behind URLs go through Beam's file systems
// (here the in-memory one, as gs:// would on Dataflow).
func TestURLInputsAndWork(t *testing.T) {
	ctx := context.Background()
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := filesystem.New(ctx, "memfs://in/ads.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	if err := filesystem.Write(ctx, fs, "memfs://in/ads.jsonl", data); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	want := filepath.Join(dir, "want.tsv")
	if out, err := exec.Command(neardupBin, "dedup", "--quiet", "--pairs", want, sample).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	c, o := config(t, nil, []string{"memfs://in/ads.jsonl"}, "memfs://work")
	out := Outputs{Pairs: filepath.Join(dir, "got.tsv"), Output: filepath.Join(dir, "unique.jsonl")}
	if err := CheckOutputs(c, out); err == nil {
		t.Error("CheckOutputs let --output of an input behind a URL through")
	}
	out.Output = ""
	if _, err := Run(ctx, c, out, o.StrictIDs, prismExec, io.Discard); err != nil {
		t.Fatal(err)
	}
	sameLines(t, want, out.Pairs)
}

// CheckInputs finds a missing local input before any pipeline, in
// corpus.Open's words, and leaves URLs to the workers unless no file
// system serves their scheme.
func TestCheckInputs(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.jsonl")
	for _, c := range []struct {
		inputs []string
		want   string // "" for no error
	}{
		{[]string{sample, dir}, ""},
		{[]string{"gs://no-such-bucket/ads.jsonl", "memfs://nothing/here.jsonl"}, ""},
		{[]string{sample, missing}, missing + ": stat: no such file or directory"},
		{[]string{"s3://bucket/ads.jsonl"}, "s3://bucket/ads.jsonl: no file system for its scheme"},
	} {
		err := CheckInputs(c.inputs)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.inputs, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("%q: %v, want %q", c.inputs, err, c.want)
		}
	}
	if _, err := corpus.Open(missing, corpus.Options{}); err == nil || err.Error() != missing+": stat: no such file or directory" {
		t.Errorf("corpus.Open says %v: CheckInputs's wording is no longer dedup's", err)
	}
	if err := CheckInputs([]string{"s3://b/x"}); !errors.Is(err, ErrScheme) {
		t.Errorf("an s3:// input: %v, want ErrScheme", err)
	}
}

// The work files' records read back as written, and a damaged one is an
// error, not a wrong value.
func TestRecords(t *testing.T) {
	u := Signed{Seq: seqOf(3, 17), Size: 3, Set: []uint64{1, 1 << 63, 5}, Sig: []uint32{9, 8}}
	var got Signed
	decodeSigned(encodeSigned(u), func(_ int64, s Signed) { got = s })
	if got.Seq != u.Seq || got.Size != u.Size || !slices.Equal(got.Set, u.Set) || !slices.Equal(got.Sig, u.Sig) {
		t.Errorf("got %+v, want %+v", got, u)
	}
	d := Doc{Seq: 5, ID: "tab\tnew\nline", Size: 12, Empty: true}
	var gd Doc
	decodeDoc(encodeDoc(d), func(_ int64, x Doc) { gd = x })
	if gd != d {
		t.Errorf("got %+v, want %+v", gd, d)
	}
	line := encodeEdge(Edge{A: 1, B: 2, Jaccard: 0.75})
	for _, bad := range []string{line[:len(line)-4], line + "AAAA", "!!"} {
		x := decode(bad)
		x.int()
		x.int()
		x.float()
		if x.done() == nil {
			t.Errorf("%q decoded without an error", bad)
		}
	}
	if fileOf(seqOf(7, 1<<39)) != 7 || numOf(seqOf(7, 1<<39)) != 1<<39 {
		t.Error("sequence numbers do not keep the file and record number")
	}
}

// Star shape, the convergence test of the component rounds.
func TestStarShaped(t *testing.T) {
	for _, c := range []struct {
		u    int64
		ns   []int64
		want bool
	}{
		{1, []int64{2, 3}, true}, // root
		{3, []int64{1}, true},    // leaf
		{2, []int64{1, 3}, false},
		{3, []int64{1, 2}, false},
	} {
		if got := starShaped(c.u, c.ns); got != c.want {
			t.Errorf("starShaped(%d, %v) = %v", c.u, c.ns, got)
		}
	}
}

// Japanese text, re-wrapped and full-width copies, with --normalize nfkc:
// the options reach the workers through the encoded Params.
func TestNormalizeSameAsDedup(t *testing.T) {
	base := []string{
		"吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。",
		"Linux カーネル 6.1 の新機能について説明します。メモリ管理とスケジューラが改善され、多くのドライバが追加されました。",
		"今日は良い天気ですね。明日は雨が降るかもしれませんが、週末には晴れるでしょう。",
	}
	var docs [][2]string
	for i, b := range base {
		docs = append(docs, [2]string{fmt.Sprint("orig-", i), b})
		rs := []rune(b)
		docs = append(docs, [2]string{fmt.Sprint("wrap-", i), string(rs[:len(rs)/3]) + "\n" + string(rs[len(rs)/3:])})
		docs = append(docs, [2]string{fmt.Sprint("full-", i), strings.NewReplacer("Linux", "Ｌｉｎｕｘ", "6.1", "６.１").Replace(b)})
	}
	in := writeCorpus(t, t.TempDir(), "ja.jsonl", docs)
	sameAsDedup(t, []string{"--normalize", "nfkc"}, []string{in}, all, 4)
	sameAsDedup(t, []string{"--normalize", "nfkc", "--shingle", "char"}, []string{in}, Outputs{Pairs: "x", Clusters: "x"}, 4)
}
