package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/internal/dedupout"
	"github.com/neardup/neardup/internal/gen"
	"github.com/neardup/neardup/shingle"
)

// TestSampleAgainstBruteForce: the sampled check counts what comparing
// every pair touching the drawn documents counts (exact pairs, those
// listed, precision, wrong printed values, pairs left with both kept), on
// a generated corpus and a listing with pairs missing, false pairs and a
// wrong value, with the index's frequent-shingle cut-off made small so
// that most shingles are left out of it.
func TestSampleAgainstBruteForce(t *testing.T) {
	dir := t.TempDir()
	var lines, ids []string
	var texts []string
	err := gen.Generate(gen.Config{Docs: 500, Seed: 7, MeanWords: 40}, func(i int, d gen.Doc) error {
		if i%7 == 3 { // an id the pairs file writes escaped
			d.ID += "\tx\\y"
		}
		b, _ := json.Marshal(map[string]string{"id": d.ID, "text": d.Text})
		lines = append(lines, string(b))
		ids, texts = append(ids, d.ID), append(texts, d.Text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	corpusPath := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(corpusPath, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const th = 0.5
	sh, err := shingle.New(shingle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sets := make([][]uint64, len(texts))
	for i, s := range texts {
		sets[i] = sh.AppendSet(nil, []byte(s))
	}
	// The listing: the exact pairs but every 5th, three false pairs (one
	// of them printed with a wrong value) and one true pair misprinted.
	// Clusters: the first document of every 4th exact pair is dropped.
	type pair struct{ a, b int }
	jac := map[pair]float64{}
	var listing []string
	dropped := map[string]bool{}
	exactN, falseN := 0, 0
	for a := range sets {
		for b := a + 1; b < len(sets); b++ {
			j := shingle.Jaccard(sets[a], sets[b])
			jac[pair{a, b}] = j
			ea, eb := dedupout.EscapeField(ids[a]), dedupout.EscapeField(ids[b])
			line := fmt.Sprintf("%s\t%s\t%s", ea, eb, strconv.FormatFloat(j, 'f', 6, 64))
			switch {
			case j >= th:
				if exactN%4 == 0 {
					dropped[ids[a]] = true
				}
				if exactN%5 != 0 {
					if exactN%11 == 1 {
						line = fmt.Sprintf("%s\t%s\t0.123456", ea, eb)
					}
					listing = append(listing, line)
				}
				exactN++
			case j > 0.1 && falseN < 3:
				if falseN == 0 {
					line = fmt.Sprintf("%s\t%s\t0.999999", ea, eb)
				}
				listing = append(listing, line)
				falseN++
			}
		}
	}
	if exactN < 50 || falseN < 3 {
		t.Fatalf("corpus too poor: %d exact pairs, %d false", exactN, falseN)
	}
	pairsPath := filepath.Join(dir, "pairs.tsv")
	os.WriteFile(pairsPath, []byte(strings.Join(listing, "\n")+"\n"), 0o644)
	var cl []string
	for id := range dropped {
		cl = append(cl, fmt.Sprintf(`{"representative":"x","members":[{"id":"x"},{"id":%q}],"review":false}`, id))
	}
	clustersPath := filepath.Join(dir, "clusters.jsonl")
	os.WriteFile(clustersPath, []byte(strings.Join(cl, "\n")+"\n"), 0o644)

	listed := map[pair]string{}
	for _, l := range listing {
		f := strings.Split(l, "\t")
		a, b := index(ids, dedupout.UnescapeField(f[0])), index(ids, dedupout.UnescapeField(f[1]))
		listed[pair{a, b}] = f[2]
	}
	defer func(n int) { frequentPosting = n }(frequentPosting)
	for _, fp := range []int{64, 2} {
		frequentPosting = fp
		for _, k := range []int{1, 3, 10} {
			var want sampleReport
			correct := 0
			for p, j := range jac {
				if !drawn(p.a, k) && !drawn(p.b, k) {
					continue
				}
				s, ok := listed[p]
				if j >= th {
					want.ExactPairs++
					if ok {
						want.Found++
					}
					if !dropped[ids[p.a]] && !dropped[ids[p.b]] {
						want.KeptBothPairs++
					}
				}
				if ok {
					want.Reported++
					if j >= th {
						correct++
					}
					if s != strconv.FormatFloat(j, 'f', 6, 64) {
						want.WrongJaccard++
					}
				}
			}
			got, err := runSample(corpusPath, pairsPath, clustersPath, th, sh, corpus.Options{}, k)
			if err != nil {
				t.Fatal(err)
			}
			if got.ExactPairs != want.ExactPairs || got.Found != want.Found || got.Reported != want.Reported ||
				got.WrongJaccard != want.WrongJaccard || got.KeptBothPairs != want.KeptBothPairs ||
				got.Precision != float64(correct)/float64(want.Reported) || got.Documents != len(ids) {
				t.Errorf("cut-off %d, one in %d: got %+v, want %+v (precision %d/%d)", fp, k, *got, want, correct, want.Reported)
			}
			if k > 1 && (got.Sampled == 0 || got.Sampled >= len(ids)) {
				t.Errorf("one in %d: drew %d of %d", k, got.Sampled, len(ids))
			}
		}
	}
}

func index(ids []string, id string) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	panic("unknown id " + id)
}

// TestEachDocFiles: several files are one corpus, places continue from
// file to file, and ids carry the file's name as neardup's do.
func TestEachDocFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	os.WriteFile(a, []byte(`{"id":"x","text":"one"}`+"\n"+`{"text":"two"}`+"\n"), 0o644)
	os.WriteFile(b, []byte(`{"id":"y","text":"three"}`+"\n"), 0o644)
	var got []string
	err := eachDoc(a+","+b, corpus.Options{}, func(i int, id string, text []byte) {
		got = append(got, fmt.Sprintf("%d %s %s", i, id, text))
	})
	want := []string{"0 " + a + ":x one", "1 " + a + ":2 two", "2 " + b + ":y three"}
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	got = nil
	eachDoc(a, corpus.Options{}, func(i int, id string, text []byte) { got = append(got, id) })
	if strings.Join(got, "|") != "x|2" {
		t.Errorf("one file: ids %q, want x and 2", got)
	}
}

// TestPairFields: the ids come back unescaped, the Jaccard as written;
// lines of two or four fields are refused.
func TestPairFields(t *testing.T) {
	fs, ok := pairFields([]byte(`a\tb` + "\t" + `c\\d` + "\t0.500000"))
	if !ok || string(fs[0]) != "a\tb" || string(fs[1]) != `c\d` || string(fs[2]) != "0.500000" {
		t.Errorf("got %q, %v", fs, ok)
	}
	for _, bad := range []string{"a\tb", "a\tb\t0.5\t0.5", ""} {
		if _, ok := pairFields([]byte(bad)); ok {
			t.Errorf("%q: accepted", bad)
		}
	}
}
