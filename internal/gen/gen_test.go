package gen

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// collect generates a corpus into memory.
func collect(t testing.TB, c Config) []Doc {
	t.Helper()
	var docs []Doc
	if err := Generate(c, func(i int, d Doc) error {
		if i != len(docs) {
			t.Fatalf("doc %d delivered as %d", len(docs), i)
		}
		docs = append(docs, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return docs
}

// hashDocs hashes everything Generate reports about docs.
func hashDocs(docs []Doc) string {
	h := fnv.New64a()
	for _, d := range docs {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d %x %d %d %d %d %t\n", d.ID, d.Title, d.Text,
			d.Source, math.Float64bits(d.EditRate), d.Kind, d.Family, d.Boiler, d.Depth, d.Chain)
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// goldenHash pins the first 1000 documents for seed 42. If it changes, every
// corpus, shipped sample and benchmark figure changes with it: do that only
// on purpose, and say so.
const goldenHash = "29b0f354d285b472"

func TestGolden(t *testing.T) {
	c := Config{Docs: 1000, Seed: 42}
	a, b := hashDocs(collect(t, c)), hashDocs(collect(t, c))
	if a != b {
		t.Fatalf("two runs differ: %s, %s", a, b)
	}
	if a != goldenHash {
		t.Errorf("hash of the first 1000 docs for seed 42 = %s, want %s", a, goldenHash)
	}
	if o := hashDocs(collect(t, Config{Docs: 1000, Seed: 43})); o == a {
		t.Errorf("seeds 42 and 43 give the same corpus")
	}
}

func TestPrefixStable(t *testing.T) {
	short := collect(t, Config{Docs: 700, Seed: 5})
	long := collect(t, Config{Docs: 3000, Seed: 5})
	if hashDocs(short) != hashDocs(long[:700]) {
		t.Fatal("the first 700 docs of a 3000-doc corpus differ from the 700-doc corpus")
	}
}

func TestID(t *testing.T) {
	f := func(i, n int, want string) {
		t.Helper()
		if got := ID(i, n); got != want {
			t.Errorf("ID(%d, %d) = %q, want %q", i, n, got, want)
		}
	}
	f(0, 100000, "d000001")
	f(99999, 100000, "d100000")
	f(0, 1000000, "d0000001")
	f(999999, 1000000, "d1000000")
	f(41, 10, "d000042")
	if got := AdID(0, 1500); got != "ad00001" {
		t.Errorf("AdID(0, 1500) = %q", got)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{
		{Docs: -1},
		{Docs: 1, Vocab: 10},
		{Docs: 1, MeanWords: -5},
		{Docs: 1, DupRate: 0.9, TemplateRate: 0.2},
		{Docs: 1, EditRates: []float64{}},
		{Docs: 1, EditRates: []float64{1.5}},
		{Docs: 1, EditRates: []float64{math.NaN()}},
		{Docs: 1, ChainRate: 2},
	} {
		called := false
		err := Generate(c, func(int, Doc) error { called = true; return nil })
		if !errors.Is(err, ErrConfig) || called {
			t.Errorf("Generate(%+v) = %v, called %v; want ErrConfig before any call", c, err, called)
		}
	}
	if err := GenerateAds(Config{Docs: -1}, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("GenerateAds(Docs: -1) = %v", err)
	}
}

func TestStopsAtError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := Generate(Config{Docs: 100}, func(i int, d Doc) error {
		n++
		if i == 9 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 10 {
		t.Errorf("err %v after %d docs; want stop after 10", err, n)
	}
	if err := Generate(Config{}, func(int, Doc) error { t.Fatal("called for Docs 0"); return nil }); err != nil {
		t.Error(err)
	}
}

func docsN(short, long int) int {
	if testing.Short() {
		return short
	}
	return long
}

func TestKindFractions(t *testing.T) {
	n := docsN(5000, 30000)
	c := Config{Docs: n, Seed: 7, MeanWords: 60}
	count := map[Kind]int{}
	chains := 0
	for _, d := range collect(t, c) {
		count[d.Kind]++
		if d.Chain {
			chains++
		}
	}
	f := func(k Kind, want, tol float64) {
		t.Helper()
		if got := float64(count[k]) / float64(n); math.Abs(got-want) > tol {
			t.Errorf("%v fraction %.4f, want %.4f ± %.4f", k, got, want, tol)
		}
	}
	f(Copy, 0.3, 0.015)
	f(Template, 0.05, 0.008)
	f(Short, 0.01, 0.004)
	f(Empty, 0.002, 0.002)
	if got := float64(chains) / float64(count[Copy]); math.Abs(got-0.25) > 0.03 {
		t.Errorf("chain fraction of copies %.3f, want 0.25", got)
	}

	// Negative rates switch kinds off.
	for _, d := range collect(t, Config{Docs: 2000, DupRate: -1, TemplateRate: -1, ShortRate: -1, EmptyRate: -1, BoilerRate: -1}) {
		if d.Kind != Original || d.Boiler >= 0 {
			t.Fatalf("doc %s: kind %v boiler %d with all plants off", d.ID, d.Kind, d.Boiler)
		}
	}
}

func TestLength(t *testing.T) {
	for _, mean := range []int{250, 40} {
		docs := collect(t, Config{Docs: docsN(3000, 10000), Seed: 3, MeanWords: mean})
		var lens []float64
		for _, d := range docs {
			if d.Kind == Original {
				lens = append(lens, float64(len(strings.Fields(d.Text))))
			}
		}
		slices.Sort(lens)
		sum := 0.0
		for _, l := range lens {
			sum += l
		}
		m := sum / float64(len(lens))
		// Log-normal with σ = 0.5: median = mean·e^(-σ²/2) ≈ 0.88·mean.
		med := lens[len(lens)/2]
		if math.Abs(m-float64(mean)) > 0.06*float64(mean) {
			t.Errorf("MeanWords %d: mean length %.1f", mean, m)
		}
		if want := float64(mean) * math.Exp(-LengthSigma*LengthSigma/2); math.Abs(med-want) > 0.08*want {
			t.Errorf("MeanWords %d: median length %.0f, want ≈ %.0f", mean, med, want)
		}
		// About 5% of a log-normal lies below e^(-1.645σ)·median.
		lo := lens[len(lens)/20]
		if want := med * math.Exp(-1.645*LengthSigma); math.Abs(lo-want) > 0.15*want {
			t.Errorf("MeanWords %d: 5th percentile %.0f, want ≈ %.0f", mean, lo, want)
		}
	}
	for _, d := range collect(t, Config{Docs: 3000, Seed: 3}) {
		n := len(strings.Fields(d.Text))
		switch {
		case d.Kind == Short && (n < 1 || n > 10):
			t.Errorf("short doc %s has %d words", d.ID, n)
		case d.Kind == Empty && d.Text != "":
			t.Errorf("empty doc %s has text", d.ID)
		}
	}
}

// words3 returns the set of word 3-grams of s: tokens are maximal runs of
// letters and digits, lower-cased (as package shingle does it).
func words3(s string) map[string]struct{} {
	toks := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	set := map[string]struct{}{}
	for i := 0; i+3 <= len(toks); i++ {
		set[toks[i]+" "+toks[i+1]+" "+toks[i+2]] = struct{}{}
	}
	return set
}

func jaccard(a, b map[string]struct{}) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	in := 0
	for x := range a {
		if _, ok := b[x]; ok {
			in++
		}
	}
	return float64(in) / float64(len(a)+len(b)-in)
}

func TestCopyJaccard(t *testing.T) {
	docs := collect(t, Config{Docs: docsN(4000, 20000), Seed: 11})
	type acc struct {
		sum float64
		n   int
	}
	byRate := map[float64]*acc{}
	chain := map[float64]*acc{}
	for _, d := range docs {
		if d.Kind != Copy {
			continue
		}
		if d.Source < 0 || d.Source >= docIndex(t, d.ID) {
			t.Fatalf("doc %s: source %d is not an earlier doc", d.ID, d.Source)
		}
		src := docs[d.Source]
		if d.Depth != depthOf(docs, d.Source)+1 || d.Boiler != src.Boiler {
			t.Fatalf("doc %s: depth %d / boiler %d inconsistent with source %s", d.ID, d.Depth, d.Boiler, src.ID)
		}
		if d.EditRate == 0 && d.Text != src.Text {
			t.Fatalf("doc %s: exact copy differs from %s", d.ID, src.ID)
		}
		if len(strings.Fields(src.Text)) < 100 {
			continue
		}
		m := byRate
		if d.Chain {
			m = chain
		}
		if m[d.EditRate] == nil {
			m[d.EditRate] = &acc{}
		}
		m[d.EditRate].sum += jaccard(words3(d.Text), words3(src.Text))
		m[d.EditRate].n++
	}
	// Expected for rate e ≈ s/(2-s) with s = (1-e)³ the fraction of 3-grams
	// untouched; the bounds allow for sampling and the Zipf repeats.
	want := map[float64][2]float64{
		0: {1, 1}, 0.02: {0.84, 0.93}, 0.03: {0.78, 0.9}, 0.05: {0.68, 0.82},
		0.08: {0.55, 0.72}, 0.1: {0.48, 0.65}, 0.2: {0.26, 0.42}, 0.3: {0.15, 0.29},
	}
	for _, m := range []map[float64]*acc{byRate, chain} {
		for e, a := range m {
			mean := a.sum / float64(a.n)
			w, ok := want[e]
			if !ok {
				t.Errorf("unexpected edit rate %v", e)
				continue
			}
			if a.n < 5 || mean < w[0]-1e-9 || mean > w[1]+1e-9 {
				t.Errorf("edit rate %v: mean Jaccard %.3f over %d copies, want in [%v, %v]", e, mean, a.n, w[0], w[1])
			}
			t.Logf("edit rate %v: mean 3-gram Jaccard %.3f (%d copies)", e, mean, a.n)
		}
	}
	for _, e := range DefaultEditRates {
		if byRate[e] == nil {
			t.Errorf("no copies at edit rate %v", e)
		}
	}
}

func docIndex(t testing.TB, id string) int {
	var i int
	if _, err := fmt.Sscanf(id, "d%d", &i); err != nil {
		t.Fatal(err)
	}
	return i - 1
}

func depthOf(docs []Doc, i int) int {
	if docs[i].Kind != Copy {
		return 0
	}
	return docs[i].Depth
}

// TestChains checks what chains are for: along a chain neighbours stay
// similar while the ends drift apart.
func TestChains(t *testing.T) {
	docs := collect(t, Config{Docs: docsN(6000, 20000), Seed: 13})
	long := 0
	for _, d := range docs {
		if !d.Chain || d.Depth < 6 {
			continue
		}
		// Walk back to the original.
		root := d
		for root.Kind == Copy {
			root = docs[root.Source]
		}
		if len(strings.Fields(root.Text)) < 100 {
			continue
		}
		long++
		end := jaccard(words3(d.Text), words3(root.Text))
		step := jaccard(words3(d.Text), words3(docs[d.Source].Text))
		if end >= step {
			t.Errorf("chain end %s: Jaccard with root %s %.2f not below last step %.2f", d.ID, root.ID, end, step)
		}
	}
	if long < 5 {
		t.Errorf("only %d chains of depth >= 6", long)
	}
}

func TestTemplates(t *testing.T) {
	docs := collect(t, Config{Docs: docsN(6000, 20000), Seed: 17})
	fam := map[int][]Doc{}
	for _, d := range docs {
		if d.Kind == Template {
			fam[d.Family] = append(fam[d.Family], d)
		}
	}
	if len(fam) < 10 {
		t.Fatalf("%d families", len(fam))
	}
	sum, n := 0.0, 0
	for _, m := range fam {
		for i := 1; i < len(m); i++ {
			if len(m[0].Text) > 0 && m[i].Boiler != m[0].Boiler {
				t.Errorf("family %d: boilerplate %d and %d", m[0].Family, m[0].Boiler, m[i].Boiler)
			}
			sum += jaccard(words3(m[0].Text), words3(m[i].Text))
			n++
		}
	}
	// Slot densities 0.05-0.3 put family members at Jaccard ≈ 0.2-0.85.
	if mean := sum / float64(n); mean < 0.3 || mean > 0.8 {
		t.Errorf("mean Jaccard within families %.3f", mean)
	}
}

func TestBoilerplate(t *testing.T) {
	docs := collect(t, Config{Docs: 4000, Seed: 19})
	last := map[int]string{}
	withB, orig := 0, 0
	for _, d := range docs {
		if d.Kind != Original {
			continue
		}
		orig++
		if d.Boiler < 0 {
			continue
		}
		withB++
		w := strings.Fields(d.Text)
		tail := strings.Join(w[len(w)-25:], " ")
		if prev, ok := last[d.Boiler]; ok && prev != tail {
			t.Fatalf("docs with boilerplate %d end differently:\n%s\n%s", d.Boiler, prev, tail)
		}
		last[d.Boiler] = tail
	}
	if f := float64(withB) / float64(orig); math.Abs(f-0.2) > 0.03 {
		t.Errorf("boilerplate on %.3f of originals, want 0.2", f)
	}
	if len(last) < 40 {
		t.Errorf("only %d boilerplate paragraphs used", len(last))
	}
}

func TestTextForm(t *testing.T) {
	for _, d := range collect(t, Config{Docs: 3000, Seed: 23}) {
		s := d.Text
		if s == "" {
			continue
		}
		if strings.ContainsAny(s, "\n\t\r\"\\") || strings.Contains(s, "  ") || s[0] < 'A' || s[0] > 'Z' ||
			s[len(s)-1] != '.' || strings.Contains(s, ",.") || strings.Contains(s, " ,") || strings.Contains(s, " .") {
			t.Fatalf("doc %s: malformed text %q", d.ID, s)
		}
	}
}

func TestVocab(t *testing.T) {
	v := getVocab(50000)
	seen := map[string]bool{}
	for r := range uint32(v.n) {
		w := string(v.word(r))
		if seen[w] || len(w) == 0 || len(w) > maxWordLen || strings.ToLower(w) != w {
			t.Fatalf("bad or repeated word %q at rank %d", w, r)
		}
		seen[w] = true
	}
	small := getVocab(1000)
	for r := range uint32(1000) {
		if string(small.word(r)) != string(v.word(r)) {
			t.Fatalf("rank %d: vocabularies of 1000 and 50000 differ", r)
		}
	}
	// Sample: rank frequencies follow k^-1.1.
	const draws = 2_000_000
	count := make([]int, v.n)
	x := uint64(1)
	for range draws {
		x = x*6364136223846793005 + 1442695040888963407 // LCG; high and low halves are used
		y := x ^ x>>29*0xbf58476d1ce4e5b9
		count[v.sample(y^y>>32)]++
	}
	h := 0.0
	for k := range v.n {
		h += math.Pow(float64(k+1), -ZipfS)
	}
	for _, k := range []int{0, 1, 2, 9, 99, 999} {
		want := draws * math.Pow(float64(k+1), -ZipfS) / h
		if got := float64(count[k]); math.Abs(got-want) > 5*math.Sqrt(want)+0.01*want {
			t.Errorf("rank %d drawn %v times, want ≈ %.0f", k, got, want)
		}
	}
}
