package main

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/gen"
	"github.com/neardup/neardup/shingle"
)

// evalCorpus writes 2000 generated documents as JSONL and returns the path
// and the texts.
func evalCorpus(t *testing.T) (string, []string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	var texts []string
	err = gen.Generate(gen.Config{Docs: 2000, Seed: 1, MeanWords: 100}, func(i int, d gen.Doc) error {
		texts = append(texts, d.Text)
		return enc.Encode(map[string]string{"id": d.ID, "text": d.Text})
	})
	if err == nil {
		err = w.Flush()
	}
	if err2 := f.Close(); err == nil {
		err = err2
	}
	if err != nil {
		t.Fatal(err)
	}
	return p, texts
}

func TestEvalAgainstBruteForce(t *testing.T) {
	path, texts := evalCorpus(t)
	png := filepath.Join(t.TempDir(), "eval.png")
	code, out, errs := cli(t, "", "eval", "--json", "--plot", png, path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"recall", "precision", "recall_bins", "candidate_bins", "true_pairs", "lsh_pairs", "candidates"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("--json lacks %q", k)
		}
	}

	// Brute force: all pairs of shingle sets, and the pairs dedup reports.
	sh, _ := shingle.New(shingle.Options{})
	sets := make([][]uint64, len(texts))
	for i, s := range texts {
		sets[i] = sh.AppendSetString(nil, s)
	}
	b, err := neardup.NewBatch(neardup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range texts {
		if err := b.Add("", []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	reported := map[[2]int]bool{}
	for _, p := range res.Pairs {
		reported[[2]int{p.A, p.B}] = true
	}
	earliest := func(i int) int {
		for k := 0; k < i; k++ {
			if len(sets[k]) > 0 && shingle.Jaccard(sets[k], sets[i]) == 1 {
				return k
			}
		}
		return i
	}
	first := make([]int, len(sets))
	for i := range sets {
		first[i] = earliest(i)
	}
	truePairs, found := 0, 0
	for i := range sets {
		for j := i + 1; j < len(sets); j++ {
			if len(sets[i]) == 0 || len(sets[j]) == 0 || shingle.Jaccard(sets[i], sets[j]) < 0.5 {
				continue
			}
			truePairs++
			fi, fj := min(first[i], first[j]), max(first[i], first[j])
			if fi == fj || reported[[2]int{i, j}] || reported[[2]int{fi, fj}] {
				found++
			}
		}
	}
	want := float64(found) / float64(truePairs)
	if rep.TruePairs != truePairs || rep.Found != found || rep.Recall != want {
		t.Errorf("eval: %d true, %d found, recall %v; brute force: %d, %d, %v", rep.TruePairs, rep.Found, rep.Recall, truePairs, found, want)
	}
	if rep.Recall < 0.98 {
		t.Errorf("recall %v < 0.98", rep.Recall)
	}
	if rep.Precision != 1 || !rep.JaccardExact {
		t.Errorf("precision %v, exact Jaccard %v", rep.Precision, rep.JaccardExact)
	}
	if len(rep.RecallBins) != 10 {
		t.Errorf("%d recall bins, want 10", len(rep.RecallBins))
	}
	for _, bin := range rep.CandidateBins {
		if bin.Pairs < 30 {
			continue // too few pairs to say anything
		}
		switch {
		case bin.From >= 0.6 && *bin.Fraction < 0.98:
			t.Errorf("bin %v: %v of %d pairs candidates, want ~1", bin.From, *bin.Fraction, bin.Pairs)
		case bin.To <= 0.4 && !within(*bin.Fraction, *bin.Formula, 0.1+3*sd(*bin.Formula, bin.Pairs)):
			t.Errorf("bin %v: measured %v, formula %v (%d pairs)", bin.From, *bin.Fraction, *bin.Formula, bin.Pairs)
		}
	}
	if _, err := os.Stat(png); err != nil {
		t.Errorf("--plot: %v", err)
	}
}

func within(a, b, tol float64) bool { return a-b <= tol && b-a <= tol }

func sd(p float64, n int) float64 {
	v := p * (1 - p) / float64(n)
	if v <= 0 {
		return 0
	}
	return math.Sqrt(v)
}

func TestEvalUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"--bands", "3", "x"}, {"--plot", "a.gif", "x"}, {"--plot-from", "0", "x"}} {
		if code, _, _ := cli(t, "", append([]string{"eval"}, args...)...); code != 2 {
			t.Errorf("eval %v: exit %d, want 2", args, code)
		}
	}
}
