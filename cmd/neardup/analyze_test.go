package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/neardup/neardup/cmd/neardup/internal/chart"
	"github.com/neardup/neardup/internal/gen"
	"github.com/neardup/neardup/shingle"
)

func analyzeCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"analyze"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

type analyzeDoc struct{ id, text string }

// analyzeCorpus writes the generated corpus (300 documents, plus two with
// no token) to a JSONL file and returns its path and documents.
func analyzeCorpus(t *testing.T) (string, []analyzeDoc) {
	t.Helper()
	var docs []analyzeDoc
	err := gen.Generate(gen.Config{Docs: 300, Seed: 1, MeanWords: 60}, func(i int, d gen.Doc) error {
		docs = append(docs, analyzeDoc{d.ID, d.Text})
		if i == 10 {
			docs = append(docs, analyzeDoc{"none-1", " ... !!! -- "}, analyzeDoc{"none-2", ""})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, d := range docs {
		if err := enc.Encode(map[string]string{"id": d.id, "text": d.text}); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(t.TempDir(), "corpus.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, docs
}

type analyzeJSON struct {
	Sample    int       `json:"sample"`
	SampleIDs []string  `json:"sample_ids"`
	Documents int       `json:"documents"`
	Empty     int       `json:"empty"`
	Cutoffs   []float64 `json:"cutoffs"`
	Lengths   []struct {
		Mode     string    `json:"mode"`
		N        int       `json:"n"`
		Pairs    int64     `json:"pairs"`
		BinEdges []float64 `json:"bin_edges"`
		Counts   []int64   `json:"counts"`
		Cutoffs  []struct {
			Cutoff   float64 `json:"cutoff"`
			Pairs    int64   `json:"pairs"`
			Examples []struct {
				A, B    string
				Jaccard float64
			} `json:"examples"`
		} `json:"cutoffs"`
	} `json:"lengths"`
}

func analyzeRunJSON(t *testing.T, args ...string) analyzeJSON {
	t.Helper()
	code, out, errs := analyzeCLI(t, append([]string{"--json", "--quiet"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r analyzeJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("--json output does not parse: %v\n%s", err, out)
	}
	return r
}

// The histogram, cutoff counts and examples equal a plain double loop over
// the whole corpus (smaller than --sample) with shingle.Jaccard. (Both ways
// allpairs.All counts common shingles are checked in package allpairs.)
func TestAnalyzeBruteForce(t *testing.T) {
	path, docs := analyzeCorpus(t)
	analyzeBruteForce(t, path, docs)
}

func analyzeBruteForce(t *testing.T, path string, docs []analyzeDoc) {
	cutoffs := []float64{0.05, 0.2, 0.5, 0.8}
	r := analyzeRunJSON(t, "--ngram", "1-3", "--char", "5", "--examples", "3", "--workers", "3", path)

	// Reference: a document is empty when its word set is (no token).
	w1, _ := shingle.New(shingle.Options{Mode: shingle.Word, N: 1})
	var kept []analyzeDoc
	empty := 0
	for _, d := range docs {
		if len(w1.AppendSetString(nil, d.text)) == 0 {
			empty++
			continue
		}
		kept = append(kept, d)
	}
	if empty < 2 || r.Empty != empty || r.Documents != len(kept) || r.Sample != len(kept) {
		t.Fatalf("empty %d, documents %d, sample %d; want %d, %d, %d", r.Empty, r.Documents, r.Sample, empty, len(kept), len(kept))
	}
	for i, d := range kept {
		if r.SampleIDs[i] != d.id {
			t.Fatalf("sample id %d = %q, want %q (the whole corpus, in order)", i, r.SampleIDs[i], d.id)
		}
	}
	if !slices.Equal(r.Cutoffs, cutoffs) {
		t.Fatalf("cutoffs %v", r.Cutoffs)
	}
	want := []struct {
		mode shingle.Mode
		n    int
	}{{shingle.Word, 1}, {shingle.Word, 2}, {shingle.Word, 3}, {shingle.Char, 5}}
	if len(r.Lengths) != len(want) {
		t.Fatalf("%d lengths, want %d", len(r.Lengths), len(want))
	}
	for li, w := range want {
		got := r.Lengths[li]
		if got.Mode != w.mode.String() || got.N != w.n {
			t.Fatalf("length %d is %s %d, want %s %d", li, got.Mode, got.N, w.mode, w.n)
		}
		sh, err := shingle.New(shingle.Options{Mode: w.mode, N: w.n})
		if err != nil {
			t.Fatal(err)
		}
		sets := make([][]uint64, len(kept))
		for i, d := range kept {
			sets[i] = sh.AppendSetString(nil, d.text)
		}
		var hist [20]int64
		atLeast := make([]int64, len(cutoffs))
		type pair struct {
			a, b    int
			j, dist float64
		}
		var all []pair
		for i := range sets {
			for j := i + 1; j < len(sets); j++ {
				jac := shingle.Jaccard(sets[i], sets[j])
				hist[min(int(math.Floor(jac*20)), 19)]++
				for c, cut := range cutoffs {
					if jac >= cut {
						atLeast[c]++
					}
				}
				all = append(all, pair{a: i, b: j, j: jac})
			}
		}
		name := fmt.Sprintf("%s %d", w.mode, w.n)
		n := int64(len(kept))
		if got.Pairs != n*(n-1)/2 {
			t.Errorf("%s: %d pairs, want %d", name, got.Pairs, n*(n-1)/2)
		}
		if !slices.Equal(got.Counts, hist[:]) {
			t.Errorf("%s: histogram\n%v, want\n%v", name, got.Counts, hist)
		}
		if len(got.BinEdges) != 21 || got.BinEdges[0] != 0 || got.BinEdges[20] != 1 || got.BinEdges[4] != 0.2 {
			t.Errorf("%s: bin edges %v", name, got.BinEdges)
		}
		for c, cut := range cutoffs {
			gc := got.Cutoffs[c]
			if gc.Cutoff != cut || gc.Pairs != atLeast[c] {
				t.Errorf("%s: cutoff %v: %d pairs, want %d", name, gc.Cutoff, gc.Pairs, atLeast[c])
			}
			// Consistent with the histogram: every cutoff is a bin edge.
			var sum int64
			for _, v := range got.Counts[int(math.Round(cut*20)):] {
				sum += v
			}
			if gc.Pairs != sum {
				t.Errorf("%s: cutoff %v: %d pairs, histogram from there: %d", name, cut, gc.Pairs, sum)
			}
			for k := range all {
				all[k].dist = math.Abs(all[k].j - cut)
			}
			slices.SortStableFunc(all, func(x, y pair) int {
				if x.dist != y.dist {
					return cmpFloat(x.dist, y.dist)
				}
				if x.a != y.a {
					return x.a - y.a
				}
				return x.b - y.b
			})
			if len(gc.Examples) != 3 {
				t.Fatalf("%s: cutoff %v: %d examples, want 3", name, cut, len(gc.Examples))
			}
			for k, ex := range gc.Examples {
				p := all[k]
				if ex.A != kept[p.a].id || ex.B != kept[p.b].id || ex.Jaccard != p.j {
					t.Errorf("%s: cutoff %v: example %d is %s %s %v, want %s %s %v", name, cut, k, ex.A, ex.B, ex.Jaccard, kept[p.a].id, kept[p.b].id, p.j)
				}
			}
		}
	}
}

func cmpFloat(a, b float64) int {
	if a < b {
		return -1
	}
	return 1
}

// The sample is a seeded uniform sample: same seed, same sample and output,
// whatever the number of workers; another seed, another sample.
func TestAnalyzeSampleDeterministic(t *testing.T) {
	path, docs := analyzeCorpus(t)
	ids := map[string]int{}
	for i, d := range docs {
		ids[d.id] = i
	}
	args := []string{"--sample", "40", "--ngram", "2,3", "--char", "", path}
	a := analyzeRunJSON(t, append([]string{"--sample-seed", "7", "--workers", "1"}, args...)...)
	b := analyzeRunJSON(t, append([]string{"--sample-seed", "7", "--workers", "4"}, args...)...)
	c := analyzeRunJSON(t, append([]string{"--sample-seed", "8"}, args...)...)
	if a.Sample != 40 || len(a.SampleIDs) != 40 || a.Documents+a.Empty != len(docs) {
		t.Fatalf("sample %d (%d ids) of %d documents", a.Sample, len(a.SampleIDs), a.Documents)
	}
	prev := -1
	for _, id := range a.SampleIDs {
		i, ok := ids[id]
		if !ok || i <= prev || strings.HasPrefix(id, "none") {
			t.Fatalf("sample ids %v: want distinct non-empty corpus ids in input order", a.SampleIDs)
		}
		prev = i
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Fatalf("same seed, different output:\n%s\n%s", ja, jb)
	}
	if slices.Equal(a.SampleIDs, c.SampleIDs) {
		t.Fatal("seeds 7 and 8 gave the same sample")
	}
	if len(a.Lengths) != 2 || a.Lengths[0].N != 2 || a.Lengths[1].N != 3 || a.Lengths[0].Pairs != 40*39/2 {
		t.Fatalf("lengths: %+v", a.Lengths)
	}
}

func TestAnalyzeText(t *testing.T) {
	path, _ := analyzeCorpus(t)
	code, out, errs := analyzeCLI(t, "--ngram", "3", "--cutoffs", "0.2,0.5", "--examples", "1", "--width", "40", "--lines", "5", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, s := range []string{"Sample: 299 of 299 non-empty documents (seed 1); 3 empty left out.", "word 3", "char 5", "0.95-1.00", ">= 0.2", ">= 0.5",
		"── word 3, near 0.2: J = ", "── char 5, near 0.5: J = "} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if !strings.Contains(errs, "analyze: sampled 299 of 299 documents (3 empty left out)") {
		t.Errorf("stderr: %q", errs)
	}
	// Example lines: two columns of at most 40 characters.
	for _, line := range strings.Split(out, "\n") {
		if l, r, ok := strings.Cut(line, " │ "); ok {
			if utf8.RuneCountInString(l) != 40 || utf8.RuneCountInString(r) > 40 {
				t.Errorf("example line %q: columns of %d and %d characters", line, utf8.RuneCountInString(l), utf8.RuneCountInString(r))
			}
		}
	}
	if n := strings.Count(out, "\n── "); n != 4 {
		t.Errorf("%d examples, want 2 lengths x 2 cutoffs x 1", n)
	}
	code, out, errs = analyzeCLI(t, "--ngram", "1,2", "--examples", "0", "--quiet", path)
	if code != 0 || strings.Contains(out, "\n── ") || !strings.Contains(out, "word 2") {
		t.Errorf("--examples 0: exit %d, %s\n%s", code, errs, out)
	}
}

func TestAnalyzeUsage(t *testing.T) {
	path, _ := analyzeCorpus(t)
	for _, args := range [][]string{
		{},
		{"--ngram", "3-1", path},
		{"--ngram", "x", path},
		{"--ngram", "0", path},
		{"--char", "2-", path},
		{"--ngram", "", "--char", "", path},
		{"--cutoffs", "1.5", path},
		{"--cutoffs", "0", path},
		{"--sample", "1", path},
		{"--examples", "-1", path},
		{"--plot", "x.pdf", path},
		{"--format", "xml", path},
		{"--bogus", path},
	} {
		if code, _, _ := analyzeCLI(t, args...); code != exitUsage {
			t.Errorf("analyze %q: exit %d, want %d", args, code, exitUsage)
		}
	}
	if code, _, errs := analyzeCLI(t, filepath.Join(t.TempDir(), "missing.jsonl")); code != exitError {
		t.Errorf("missing input: exit %d (%s)", code, errs)
	}
}

func chartImplemented() (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	p := chart.Plot{Series: []chart.Series{{Name: "x", X: []float64{0, 1}, Y: []float64{1, 2}}}}
	_, err := p.SVG(100, 100)
	return err == nil
}

func TestAnalyzePlot(t *testing.T) {
	if !chartImplemented() {
		t.Skip("internal/chart is not implemented yet")
	}
	path, _ := analyzeCorpus(t)
	dir := t.TempDir()
	for _, name := range []string{"hist.svg", "hist.png"} {
		p := filepath.Join(dir, name)
		if code, _, errs := analyzeCLI(t, "--ngram", "1-3", "--plot", p, "--quiet", path); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if name == "hist.svg" && !bytes.Contains(b, []byte("<svg")) || name == "hist.png" && !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s: not an %s file: %.40q", name, filepath.Ext(name), b)
		}
	}
}

func TestAnalyzeKijiji(t *testing.T) {
	path := realData(t, "kijiji.tsv")
	if testing.Short() {
		t.Skip("short")
	}
	r := analyzeRunJSON(t, "--text-field", "Title,Short Description", "--ngram", "1-5", path)
	if r.Sample != 2000 || r.Documents < 2600 || len(r.Lengths) != 6 {
		t.Fatalf("sample %d of %d, %d lengths; want 2000 of the 2,627 ads, 6 lengths", r.Sample, r.Documents, len(r.Lengths))
	}
}

// The workload docs/performance.md times: 2,000 job ads, word 1-7 and char 5.
func TestAnalyzeAdzuna(t *testing.T) {
	path := realData(t, "adzuna_first2499.csv")
	if testing.Short() {
		t.Skip("short")
	}
	code, out, errs := analyzeCLI(t, "--text-field", "Title,FullDescription", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "Sample: 2000 of") || !strings.Contains(errs, "8 lengths x 1999000 pairs") {
		t.Fatalf("output:\n%.500s\nstderr: %s", out, errs)
	}
}
