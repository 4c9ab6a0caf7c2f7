package main

import (
	"encoding/json"
	"encoding/xml"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/shingle"
)

func tuneJSON(t *testing.T, args ...string) tuneReport {
	t.Helper()
	code, out, errs := cli(t, "", append([]string{"tune", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("tune %v: exit %d: %s", args, code, errs)
	}
	var rep tuneReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("tune --json: %v\n%s", err, out)
	}
	return rep
}

func TestTuneSCurveValues(t *testing.T) {
	rep := tuneJSON(t, "--bands", "35", "--rows", "3", "--threshold", "0.5", "--at", "0.2,0.8")
	if rep.Bands != 35 || rep.Rows != 3 || len(rep.Candidates) != 1 {
		t.Fatalf("got %+v", rep)
	}
	c := rep.Candidates[0]
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", name, got, want)
		}
	}
	near("P(0.5)", *c.PThreshold, 1-math.Pow(7.0/8, 35))           // 0.990661...
	near("P(0.2)", c.At["0.2"], 1-math.Pow(1-0.008, 35))           // 0.245067...
	near("P(0.8)", c.At["0.8"], 1-math.Pow(1-0.512, 35))           // 1 - 0.488^35
	near("thr", c.ThresholdApprox, math.Pow(1.0/35, 1.0/3))        // 0.3057
	near("steep", c.Steepest, math.Pow((2.0/3)/(35-1.0/3), 1.0/3)) // 0.2682
	near("fcr", c.FalseCandidate, lsh.FalseCandidateRate(lsh.Params{Bands: 35, Rows: 3}, 0.5))
	if math.Abs(*c.PThreshold-0.990661) > 1e-6 {
		t.Errorf("P(0.5) = %v, want 0.990661", *c.PThreshold)
	}
}

func TestTuneThresholdSameAsChoose(t *testing.T) {
	for _, c := range []struct {
		k         string
		t, recall float64
	}{{"128", 0.5, 0.99}, {"128", 0.8, 0.99}, {"256", 0.3, 0.95}, {"64", 0.9, 0.999}} {
		rep := tuneJSON(t, "--num-perm", c.k, "--threshold", fmtSim(c.t), "--recall", fmtSim(c.recall))
		k := 0
		for _, r := range []byte(c.k) {
			k = 10*k + int(r-'0')
		}
		want, err := lsh.Choose(k, c.t, c.recall)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Bands != want.Bands || rep.Rows != want.Rows {
			t.Errorf("%v: tune chose %dx%d, lsh.Choose %v", c, rep.Bands, rep.Rows, want)
		}
		chosen := 0
		for _, row := range rep.Candidates {
			p := lsh.Params{Bands: row.Bands, Rows: row.Rows}
			if p.Bands*p.Rows > k || *row.PThreshold < c.recall {
				t.Errorf("%v: listed %v does not qualify", c, p)
			}
			if row.Chosen {
				chosen++
				if p != want {
					t.Errorf("%v: marked %v", c, p)
				}
			}
		}
		if chosen != 1 {
			t.Errorf("%v: %d rows marked chosen", c, chosen)
		}
	}
}

func TestTuneTwoPointBrute(t *testing.T) {
	for _, c := range [][4]float64{{0.05, 0.005, 0.5, 0.99}, {0.3, 0.05, 0.8, 0.95}, {0.2, 0.01, 0.8, 0.99}, {0.1, 0.001, 0.7, 0.9}} {
		rep := tuneJSON(t, "--low", fmtSim(c[0]), "--max-fp", fmtSim(c[1]), "--high", fmtSim(c[2]), "--min-recall", fmtSim(c[3]))
		// Plain search: every b*r <= 128 meeting both targets; keep the
		// largest min(ln(maxFP/P(low)), ln((1-minRecall)/(1-P(high)))),
		// ties to fewer bands.
		best, bestM := [2]int{}, math.Inf(-1)
		for r := 1; r <= 128; r++ {
			for b := 1; b*r <= 128; b++ {
				pl := 1 - math.Pow(1-math.Pow(c[0], float64(r)), float64(b))
				miss := math.Pow(1-math.Pow(c[2], float64(r)), float64(b))
				if pl > c[1]*(1+1e-12) || 1-miss < c[3]*(1-1e-12) {
					continue
				}
				m := math.Min(math.Log(c[1]/pl), math.Log((1-c[3])/miss))
				if m > bestM+1e-9 || (m > bestM-1e-9 && b < best[0]) {
					best, bestM = [2]int{b, r}, m
				}
			}
		}
		if best[0] == 0 {
			t.Fatalf("%v: brute force found nothing", c)
		}
		if rep.Bands != best[0] || rep.Rows != best[1] {
			t.Errorf("%v: tune chose %dx%d, brute force %v", c, rep.Bands, rep.Rows, best)
		}
		for _, row := range rep.Candidates {
			if *row.PLow > c[1] || *row.PHigh < c[3] {
				t.Errorf("%v: listed %dx%d misses a target", c, row.Bands, row.Rows)
			}
		}
	}
}

func TestTuneTablePlotAndErrors(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "s.svg")
	code, out, errs := cli(t, "", "tune", "--threshold", "0.5", "--plot", svg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "0.990661") || !strings.Contains(out, "*") {
		t.Errorf("table lacks the chosen 35x3:\n%s", out)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b, new(struct{})); err != nil {
		t.Fatalf("--plot SVG: %v", err)
	}
	for _, args := range [][]string{
		{"--threshold", "0"}, {"--bands", "10"}, {"--bands", "100", "--rows", "2"},
		{"--low", "0.5", "--high", "0.4", "--max-fp", "0.01"}, {"--low", "0.1", "--high", "0.5"},
		{"--threshold", "0.5", "--low", "0.1", "--high", "0.5", "--max-fp", "0.01"},
		{"--at", "2"}, {"--plot", "x.pdf"}, {"stray"}, {"--corpus-docs", "5"},
		{"--low", "0.49", "--max-fp", "0.0001", "--high", "0.5", "--min-recall", "0.9999"}, // unreachable
	} {
		if code, _, _ := cli(t, "", append([]string{"tune"}, args...)...); code != 2 {
			t.Errorf("tune %v: exit %d, want 2", args, code)
		}
	}
}

func TestTuneSample(t *testing.T) {
	dir := t.TempDir()
	// Three documents: a and c share 0.8 of their 3-gram sets, b shares none.
	p := write(t, dir, "s.jsonl", `{"text":"`+adA+`"}`+"\n"+`{"text":"`+adB+`"}`+"\n"+`{"text":"`+adC+`"}`+"\n")
	rep := tuneJSON(t, "--bands", "35", "--rows", "3", "--sample", p, "--corpus-docs", "30")
	c := rep.Candidates[0]
	if rep.Sample == nil || rep.Sample.Documents != 3 || rep.Sample.Pairs != 3 || c.CandPerDoc == nil {
		t.Fatalf("sample: %+v %+v", rep.Sample, c)
	}
	// Only (a, c) has J > 0: the mean P over the 3 pairs is P(J)/3, and a
	// document of a 30-document corpus has 29 others.
	want := (lsh.Params{Bands: 35, Rows: 3}).Probability(jaccardOf(adA, adC)) / 3 * 29
	if math.Abs(*c.CandPerDoc-want) > 1e-3*want {
		t.Errorf("cand/doc = %v, want %v", *c.CandPerDoc, want)
	}
}

// jaccardOf is the exact Jaccard of two texts' default (word 3-gram) shingle sets.
func jaccardOf(a, b string) float64 {
	sh, err := shingle.New(shingle.Options{})
	if err != nil {
		panic(err)
	}
	return shingle.Jaccard(sh.AppendSetString(nil, a), sh.AppendSetString(nil, b))
}
