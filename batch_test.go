package neardup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/neardup/neardup/allpairs"
	"github.com/neardup/neardup/internal/gen"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/shingle"
)

// corpusDocs generates n documents with planted near-duplicates.
func corpusDocs(t testing.TB, n, words int, seed uint64) []string {
	t.Helper()
	var docs []string
	err := gen.Generate(gen.Config{Docs: n, Seed: seed, MeanWords: words}, func(i int, d gen.Doc) error {
		docs = append(docs, d.Text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func runBatch(t testing.TB, o Options, docs []string) (*Batch, *Result) {
	t.Helper()
	b, err := NewBatch(o)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		if err := b.Add(fmt.Sprint(i), []byte(d)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return b, res
}

// exactPairs is the reference: every pair with Jaccard >= t by an exact
// similarity join over the same shingle sets.
func exactPairs(t testing.TB, so shingle.Options, docs []string, th float64) (map[[2]int]float64, [][]uint64) {
	t.Helper()
	sh, err := shingle.New(so)
	if err != nil {
		t.Fatal(err)
	}
	sets := make([][]uint64, len(docs))
	for i, d := range docs {
		sets[i] = sh.AppendSet(nil, []byte(d))
	}
	want := map[[2]int]float64{}
	allpairs.Join(sets, th, func(i, j int, jac float64) {
		if i > j {
			i, j = j, i
		}
		want[[2]int{i, j}] = jac
	})
	return want, sets
}

// TestRecallPrecision checks a whole run against the exact join: every
// reported pair is a true pair with its exact Jaccard, and nearly every true
// pair is reported (directly or through identical sets).
func TestRecallPrecision(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 1500
	}
	docs := corpusDocs(t, n, 120, 7)
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"word3 t0.5", Options{Params: Params{Threshold: 0.5}}},
		{"word5 t0.7", Options{Params: Params{Threshold: 0.7, Shingle: shingle.Options{N: 5}}}},
		{"char5 t0.6", Options{Params: Params{Threshold: 0.6, Shingle: shingle.Options{Mode: shingle.Char}}}},
		{"word2 bag t0.4", Options{Params: Params{Threshold: 0.4, Shingle: shingle.Options{N: 2, Bag: true}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, res := runBatch(t, tc.o, docs)
			o := b.Options()
			want, sets := exactPairs(t, o.Shingle, docs, o.Threshold)
			if len(want) == 0 {
				t.Fatal("the generated corpus has no true pairs: the test would prove nothing")
			}
			// rep maps each document to the earliest one with the same set.
			rep := make([]int, len(docs))
			firstOf := map[string]int{}
			for i, set := range sets {
				k := fmt.Sprint(set)
				if f, ok := firstOf[k]; ok && len(set) > 0 {
					rep[i] = f
				} else {
					firstOf[k] = i
					rep[i] = i
				}
			}
			got := map[[2]int]bool{}
			for _, p := range res.Pairs {
				if p.A >= p.B {
					t.Fatalf("pair %v not ordered", p)
				}
				exact := shingle.Jaccard(sets[p.A], sets[p.B])
				if p.Jaccard != exact {
					t.Fatalf("pair (%d,%d) reported J=%v, exact %v", p.A, p.B, p.Jaccard, exact)
				}
				if exact < o.Threshold {
					t.Fatalf("pair (%d,%d) below threshold: %v", p.A, p.B, exact)
				}
				if _, ok := want[[2]int{p.A, p.B}]; !ok {
					t.Fatalf("pair (%d,%d) J=%v not found by the exact join", p.A, p.B, exact)
				}
				got[[2]int{p.A, p.B}] = true
			}
			found := 0
			for pr := range want {
				a, c := rep[pr[0]], rep[pr[1]]
				if a > c {
					a, c = c, a
				}
				if a == c || got[[2]int{a, c}] {
					found++
				}
			}
			recall := float64(found) / float64(len(want))
			t.Logf("%d docs, %d true pairs, %d reported, recall %.4f, P(t)=%.4f, %v", len(docs), len(want), len(res.Pairs), recall, o.LSH.Probability(o.Threshold), o.LSH)
			if recall < 0.99 {
				t.Errorf("recall %.4f < 0.99", recall)
			}
		})
	}
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	docs := corpusDocs(t, 1500, 80, 3)
	_, want := runBatch(t, Options{Workers: 1}, docs)
	if len(want.Clusters) == 0 {
		t.Fatal("no clusters: the test would prove nothing")
	}
	for _, w := range []int{2, 3, 8} {
		_, got := runBatch(t, Options{Workers: w}, docs)
		if !reflect.DeepEqual(got.Pairs, want.Pairs) {
			t.Errorf("workers=%d: pairs differ", w)
		}
		if !reflect.DeepEqual(got.Clusters, want.Clusters) {
			t.Errorf("workers=%d: clusters differ", w)
		}
	}
}

// TestManyIdentical: ten thousand copies of one text are recognised as one
// set, not compared pairwise.
func TestManyIdentical(t *testing.T) {
	docs := corpusDocs(t, 200, 60, 11)
	copyText := "the quick brown fox jumps over the lazy dog near the river bank"
	for i := 0; i < 10000; i++ {
		docs = append(docs, copyText)
	}
	_, res := runBatch(t, Options{}, docs)
	st := res.Stats
	if st.Identical < 9999 {
		t.Fatalf("identical = %d, want >= 9999", st.Identical)
	}
	if st.Candidates > 100000 {
		t.Fatalf("%d candidates for 10,000 identical documents", st.Candidates)
	}
	var big *Cluster
	for i := range res.Clusters {
		if len(res.Clusters[i].Members) >= 10000 {
			big = &res.Clusters[i]
		}
	}
	if big == nil {
		t.Fatal("no cluster holds the 10,000 copies")
	}
	if big.Representative != 200 {
		t.Errorf("representative %d, want the first copy (200)", big.Representative)
	}
	for _, m := range big.Members {
		if m.Doc >= 200 && m.Jaccard != 1 {
			t.Fatalf("copy %d has J=%v with the representative", m.Doc, m.Jaccard)
		}
	}
}

func TestEmptyDocuments(t *testing.T) {
	docs := []string{"", "   ", "!!! ...", "alpha beta gamma delta", "", "alpha beta gamma delta"}
	_, res := runBatch(t, Options{}, docs)
	if res.Stats.Empty != 4 {
		t.Errorf("empty = %d, want 4", res.Stats.Empty)
	}
	if len(res.Pairs) != 1 || res.Pairs[0] != (Pair{A: 3, B: 5, Jaccard: 1}) {
		t.Errorf("pairs = %v, want only (3,5)", res.Pairs)
	}
	for i, d := range res.Dup {
		if d != (i == 5) {
			t.Errorf("Dup[%d] = %v", i, d)
		}
	}
}

// TestChainAndKeep: a chain a~b~c where a and c are below the threshold is
// one component (in components mode); member similarities to the representative are exact even
// when below t; --keep picks the representative.
func TestChainAndKeep(t *testing.T) {
	words := func(lo, hi int) string {
		var s []string
		for i := lo; i < hi; i++ {
			s = append(s, fmt.Sprintf("w%d", i))
		}
		return strings.Join(s, " ")
	}
	// 1-gram sets: a={0..99}, b={30..129}, c={60..159}: J(a,b)=J(b,c)=70/130, J(a,c)=40/160.
	docs := []string{words(0, 100), words(30, 130), words(60, 160), words(500, 520)}
	so := shingle.Options{N: 1}
	for _, tc := range []struct {
		keep Keep
		rep  int
	}{{KeepFirst, 0}, {KeepLongest, 2}, {KeepShortest, 0}} {
		_, res := runBatch(t, Options{Params: Params{Shingle: so, Threshold: 0.5, LSH: lsh.Params{Bands: 40, Rows: 1}}, Keep: tc.keep, Cluster: ClusterComponents}, docs)
		if len(res.Clusters) != 1 {
			t.Fatalf("clusters = %+v", res.Clusters)
		}
		c := res.Clusters[0]
		if c.Representative != tc.rep {
			t.Errorf("keep %v: representative %d, want %d", tc.keep, c.Representative, tc.rep)
		}
		if len(c.Members) != 3 {
			t.Fatalf("members = %+v", c.Members)
		}
		if tc.keep == KeepFirst && c.Members[2].Jaccard != 40.0/160 {
			t.Errorf("J(a,c) = %v, want %v", c.Members[2].Jaccard, 40.0/160)
		}
		if len(res.Pairs) != 2 {
			t.Errorf("pairs = %v, want (0,1) and (1,2)", res.Pairs)
		}
	}
}

func TestVerifyEstimate(t *testing.T) {
	docs := corpusDocs(t, 1500, 100, 5)
	b, res := runBatch(t, Options{Verify: VerifyEstimate}, docs)
	if len(res.Pairs) == 0 {
		t.Fatal("no pairs")
	}
	want, _ := exactPairs(t, b.Options().Shingle, docs, 0.5)
	agree := 0
	for _, p := range res.Pairs {
		if p.Jaccard < 0.5 {
			t.Fatalf("pair %v below threshold", p)
		}
		if _, ok := want[[2]int{p.A, p.B}]; ok {
			agree++
		}
	}
	// Estimates near t can fall either side, but most reported pairs are true.
	if float64(agree) < 0.9*float64(len(res.Pairs)) {
		t.Errorf("only %d of %d estimated pairs are true pairs", agree, len(res.Pairs))
	}
}

func TestRunTwiceAndCancel(t *testing.T) {
	b, err := NewBatch(Options{})
	if err != nil {
		t.Fatal(err)
	}
	b.Add("a", []byte("one two three"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Run(ctx); err != context.Canceled {
		t.Errorf("Run on a cancelled context: %v", err)
	}
	if _, err := b.Run(context.Background()); !errors.Is(err, ErrRan) {
		t.Errorf("second Run: %v, want ErrRan", err)
	}
	if err := b.Add("b", nil); !errors.Is(err, ErrRan) {
		t.Errorf("Add after Run: %v, want ErrRan", err)
	}
}

// TestIDs: IDs is ID of every document, and the Batch's next Add does not
// write into what was appended to it.
func TestIDs(t *testing.T) {
	b, err := NewBatch(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := b.Add(fmt.Sprintf("doc-%d", i), []byte("one two three")); err != nil {
			t.Fatal(err)
		}
	}
	ids := b.IDs()
	if len(ids) != b.Len() {
		t.Fatalf("%d ids for %d documents", len(ids), b.Len())
	}
	for i, id := range ids {
		if id != b.ID(i) {
			t.Fatalf("IDs()[%d] = %q, ID(%d) = %q", i, id, i, b.ID(i))
		}
	}
	more := append(ids, "x")
	if err := b.Add("doc-100", nil); err != nil {
		t.Fatal(err)
	}
	if b.ID(100) != "doc-100" || more[100] != "x" {
		t.Fatalf("ID(100) = %q, appended %q: IDs() shares room with the Batch", b.ID(100), more[100])
	}
}

func TestOptionsErrors(t *testing.T) {
	bad := []Options{
		{Params: Params{Threshold: 1.5}},
		{Params: Params{Threshold: -0.1}},
		{Params: Params{Recall: 1}},
		{Params: Params{Slots: 16, LSH: lsh.Params{Bands: 5, Rows: 4}}},
		{Params: Params{LSH: lsh.Params{Bands: 5}}},
		{Params: Params{Shingle: shingle.Options{N: -1}}},
		{Params: Params{Shingle: shingle.Options{N: shingle.MaxN + 1}}},
		{Params: Params{Slots: -1}},
		{Params: Params{Shingle: shingle.Options{Mode: 7}}},
		{Workers: -1},
		{MaxCluster: -1},
		{Verify: 9},
		{Keep: 9},
		{Cluster: 9},
		{Refine: 9},
		{Params: Params{Weight: 9}},
		{Params: Params{Weight: WeightIDF}, Verify: VerifyEstimate},
	}
	for _, o := range bad {
		if _, err := NewBatch(o); !errors.Is(err, ErrOptions) {
			t.Errorf("NewBatch(%+v): %v, want ErrOptions", o, err)
		}
	}
}

func BenchmarkBatch(b *testing.B) {
	docs := corpusDocs(b, 10000, 250, 1)
	var size int64
	for _, d := range docs {
		size += int64(len(d))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		runBatch(b, Options{}, docs)
	}
	b.ReportMetric(float64(len(docs))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// TestMinAgreement checks the signature filter's cut-off against a direct
// binomial computation.
func TestMinAgreement(t *testing.T) {
	binomCDF := func(k int, p float64, below int) float64 { // P(X < below)
		s := 0.0
		for x := 0; x < below; x++ {
			c := 1.0
			for i := 0; i < x; i++ {
				c *= float64(k-i) / float64(i+1)
			}
			s += c * math.Pow(p, float64(x)) * math.Pow(1-p, float64(k-x))
		}
		return s
	}
	for _, tc := range []struct {
		k int
		t float64
	}{{128, 0.5}, {128, 0.8}, {64, 0.3}, {256, 0.9}, {16, 0.5}} {
		m := minAgreement(tc.k, tc.t, 1e-6)
		if p := binomCDF(tc.k, tc.t, m); p > 1e-6 {
			t.Errorf("k=%d t=%v: m=%d misses %g > 1e-6", tc.k, tc.t, m, p)
		}
		if p := binomCDF(tc.k, tc.t, m+1); m < tc.k && p <= 1e-6 {
			t.Errorf("k=%d t=%v: m=%d is not the largest (m+1 misses %g)", tc.k, tc.t, m, p)
		}
	}
	if m := minAgreement(128, 1, 1e-6); m != 128 {
		t.Errorf("t=1: %d", m)
	}
}

// TestRefineEdit checks Pair.Edit and Member.Edit against a plain
// Levenshtein over the documents' words, on copies with known edits.
func TestRefineEdit(t *testing.T) {
	words := make([]string, 120)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", i)
	}
	base := strings.Join(words, " ")
	sub := append([]string(nil), words...)
	for _, i := range []int{10, 50, 90} { // 3 substitutions
		sub[i] = "x" + sub[i]
	}
	del := append(append([]string(nil), words[:30]...), words[36:]...) // 6 deletions
	docs := []string{base, strings.Join(sub, " "), strings.Join(del, " "), "unrelated text entirely here"}
	lev := func(a, b []string) int {
		prev := make([]int, len(b)+1)
		for j := range prev {
			prev[j] = j
		}
		for i := 1; i <= len(a); i++ {
			cur := make([]int, len(b)+1)
			cur[0] = i
			for j := 1; j <= len(b); j++ {
				c := prev[j-1]
				if a[i-1] != b[j-1] {
					c++
				}
				cur[j] = min(c, prev[j]+1, cur[j-1]+1)
			}
			prev = cur
		}
		return prev[len(b)]
	}
	want := func(x, y int) float64 {
		a, b := strings.Fields(docs[x]), strings.Fields(docs[y])
		return 1 - float64(lev(a, b))/float64(max(len(a), len(b)))
	}
	_, res := runBatch(t, Options{Refine: RefineEdit, Params: Params{Threshold: 0.5}}, docs)
	if len(res.Pairs) < 2 {
		t.Fatalf("pairs = %v", res.Pairs)
	}
	for _, p := range res.Pairs {
		if w := want(p.A, p.B); p.Edit != w {
			t.Errorf("pair (%d,%d): Edit = %v, want %v", p.A, p.B, p.Edit, w)
		}
	}
	if got := want(0, 1); got != 1-3.0/120 {
		t.Fatalf("reference broken: %v", got)
	}
	for _, c := range res.Clusters {
		for _, m := range c.Members {
			if w := want(m.Doc, c.Representative); m.Edit != w {
				t.Errorf("member %d: Edit = %v, want %v", m.Doc, m.Edit, w)
			}
		}
	}
	// Without RefineEdit nothing is computed.
	_, res = runBatch(t, Options{Params: Params{Threshold: 0.5}}, docs)
	for _, p := range res.Pairs {
		if p.Edit != 0 {
			t.Errorf("Edit set without RefineEdit: %v", p)
		}
	}
}

// TestWeightIDF checks a weighted run against a from-scratch reference:
// df over the distinct non-empty sets with maps, w = ln((N+1)/(df+1)) + 1,
// and the weighted Jaccard of every pair by brute force. Reported values
// must match within float rounding and recall must be high.
func TestWeightIDF(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 250
	}
	docs := corpusDocs(t, n, 80, 21)
	b, res := runBatch(t, Options{Params: Params{Weight: WeightIDF}}, docs)
	o := b.Options()
	sh, _ := shingle.New(o.Shingle)
	sets := make([][]uint64, len(docs))
	distinct := map[string]bool{}
	df := map[uint64]int{}
	for i, d := range docs {
		sets[i] = sh.AppendSet(nil, []byte(d))
		k := fmt.Sprint(sets[i])
		if len(sets[i]) == 0 || distinct[k] {
			continue
		}
		distinct[k] = true
		for _, x := range sets[i] {
			df[x]++
		}
	}
	nd := float64(len(distinct))
	w := func(x uint64) float64 { return math.Log((nd+1)/float64(df[x]+1)) + 1 }
	wj := func(a, c []uint64) float64 { return refWeighted(a, c, w) }
	got := map[[2]int]bool{}
	for _, p := range res.Pairs {
		want := wj(sets[p.A], sets[p.B])
		if math.Abs(p.Jaccard-want) > 1e-9 || p.Jaccard < 0.5 {
			t.Fatalf("pair (%d,%d): weighted Jaccard %v, reference %v", p.A, p.B, p.Jaccard, want)
		}
		got[[2]int{p.A, p.B}] = true
	}
	// Recall over distinct sets (pairs of identical sets are implied).
	first := map[string]int{}
	rep := make([]int, len(docs))
	for i, s := range sets {
		k := fmt.Sprint(s)
		if f, ok := first[k]; ok {
			rep[i] = f
		} else {
			first[k], rep[i] = i, i
		}
	}
	truePairs, found := 0, 0
	for i := range sets {
		if rep[i] != i || len(sets[i]) == 0 {
			continue
		}
		for j := i + 1; j < len(sets); j++ {
			if rep[j] != j || len(sets[j]) == 0 || wj(sets[i], sets[j]) < 0.5-1e-9 {
				continue
			}
			truePairs++
			if got[[2]int{i, j}] {
				found++
			}
		}
	}
	if truePairs == 0 {
		t.Fatal("no weighted pairs: the test proves nothing")
	}
	if r := float64(found) / float64(truePairs); r < 0.97 {
		t.Errorf("weighted recall %.4f (%d of %d)", r, found, truePairs)
	}
	t.Logf("%d weighted pairs, %d found", truePairs, found)
	if _, err := NewBatch(Options{Params: Params{Weight: WeightIDF}, Verify: VerifyEstimate}); err == nil {
		t.Error("idf with estimate verification accepted")
	}
}

// TestSortedPairs compares sortedPairs with one plain sort of the same
// pairs: verified pairs spread over several lists and blocks, identical
// copies, document counts below, at and above the number of ranges, one
// worker and several.
func TestSortedPairs(t *testing.T) {
	for _, nd := range []int{1, 2, 7, 255, 256, 257, 3000} {
		for _, workers := range []int{1, 3} {
			rng := rand.New(rand.NewPCG(uint64(nd), uint64(workers)))
			rep := make([]uint32, nd)
			for d := range rep {
				rep[d] = uint32(d)
				if d > 0 && rng.IntN(4) == 0 {
					rep[d] = rep[rng.IntN(d)]
				}
			}
			found := make([]blockList[verified], 3)
			var want []Pair
			seen := map[[2]int]bool{}
			for range nd * 3 {
				a, b := rng.IntN(nd), rng.IntN(nd)
				if a >= b || rep[a] != uint32(a) || rep[b] != uint32(b) || seen[[2]int{a, b}] {
					continue
				}
				seen[[2]int{a, b}] = true
				j := float64(rng.IntN(1000)) / 1000
				found[rng.IntN(len(found))].add(verified{a: uint32(a), b: uint32(b), jaccard: j})
				want = append(want, Pair{A: a, B: b, Jaccard: j})
			}
			nv := len(want)
			for d, r := range rep {
				if r != uint32(d) {
					want = append(want, Pair{A: int(r), B: d, Jaccard: 1})
				}
			}
			slices.SortFunc(want, func(x, y Pair) int {
				if x.A != y.A {
					return x.A - y.A
				}
				return x.B - y.B
			})
			got, gotNV := sortedPairs(found, rep, workers, nil)
			if gotNV != nv || !slices.Equal(got, want) {
				t.Fatalf("%d documents, %d workers: %d pairs (%d verified), want %d (%d)", nd, workers, len(got), gotNV, len(want), nv)
			}
			for i := range found {
				if found[i].n != 0 || len(found[i].blocks) != 0 {
					t.Fatalf("list %d not emptied", i)
				}
			}
		}
	}
}

// randomPairs returns n pairs with distinct (A, B), A < B < docs, A drawn
// from the first spread documents and some A's given many pairs.
func randomPairs(rng *rand.Rand, n, docs, spread int) []Pair {
	seen := map[[2]int]bool{}
	var ps []Pair
	for len(ps) < n {
		a := rng.IntN(spread)
		if rng.IntN(8) == 0 {
			a = rng.IntN(4) // a few A's with many pairs
		}
		b := a + 1 + rng.IntN(docs-a-1)
		if seen[[2]int{a, b}] {
			continue
		}
		seen[[2]int{a, b}] = true
		ps = append(ps, Pair{A: a, B: b, Jaccard: float64(rng.IntN(1000)) / 1000})
	}
	return ps
}

// TestPairSorter: sortByAB and sortByB give what slices.SortFunc gives,
// for A's close together (the counting sort), spread (the fallback),
// groups of one A small (insertion) and large (packed keys), reusing one
// sorter.
func TestPairSorter(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	byAB := func(x, y Pair) int {
		if x.A != y.A {
			return cmp.Compare(x.A, y.A)
		}
		return cmp.Compare(x.B, y.B)
	}
	var s pairSorter
	for _, n := range []int{0, 1, 2, 13, 200, 5000} {
		for _, spread := range []int{1, 10, 1000, 1_000_000} {
			ps := randomPairs(rng, n, spread+100_000, spread)
			want := slices.Clone(ps)
			slices.SortFunc(want, byAB)
			s.sortByAB(ps)
			if !slices.Equal(ps, want) {
				t.Fatalf("sortByAB: %d pairs, A's among %d: not sorted as by SortFunc", n, spread)
			}
			// sortByB on one A's pairs, shuffled.
			one := want[:0:0]
			for _, p := range want {
				if p.A == want[0].A {
					one = append(one, p)
				}
			}
			got := slices.Clone(one)
			rng.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
			s.sortByB(got)
			if !slices.Equal(got, one) {
				t.Fatalf("sortByB: %d pairs of one A: not sorted", len(one))
			}
		}
	}
}

// TestSortHigh compares sortHigh with slices.Sort on keys that meet its
// precondition (the low halves ascend among equal high halves), below and
// above the size it switches to the radix sort at, with high halves spread
// over every digit or sharing the top ones (skipped passes).
func TestSortHigh(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	var scratch []uint64
	for _, n := range []int{0, 1, 2, 1000, 1023, 1024, 1025, 5000, 70000} {
		for _, high := range []uint64{1, 7, 1 << 11, 1 << 22, 1 << 32} {
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = rng.Uint64N(high)<<32 | uint64(i) // low: the index, ascending
			}
			want := slices.Sorted(slices.Values(keys))
			scratch = sortHigh(keys, scratch)
			if !slices.Equal(keys, want) {
				t.Fatalf("%d keys, high halves below %d: not sorted as by slices.Sort", n, high)
			}
		}
	}
}

// BenchmarkSortPairs sorts 1M pairs (A among 100k documents, B among
// 200k) by (A, B) as sortedPairs sorts a range, beside slices.SortFunc.
func BenchmarkSortPairs(b *testing.B) {
	rng := rand.New(rand.NewPCG(23, 24))
	src := randomPairs(rng, 1_000_000, 200_000, 100_000)
	ps := make([]Pair, len(src))
	b.Run("pairSorter", func(b *testing.B) {
		var s pairSorter
		for b.Loop() {
			copy(ps, src)
			s.sortByAB(ps)
		}
	})
	b.Run("SortFunc", func(b *testing.B) {
		for b.Loop() {
			copy(ps, src)
			slices.SortFunc(ps, func(x, y Pair) int {
				if x.A != y.A {
					return cmp.Compare(x.A, y.A)
				}
				return cmp.Compare(x.B, y.B)
			})
		}
	})
}

// TestInvalidUTF8Count: Stats.InvalidUTF8 counts the documents that are
// not valid UTF-8 (utf8.Valid), whichever path shingles them (the word
// tokeniser's ASCII path vouches for most texts without utf8.Valid), in
// one pass and in two, under each verification, for word and character
// shingles and with NFKC.
func TestInvalidUTF8Count(t *testing.T) {
	docs := corpusDocs(t, 200, 40, 3)
	docs = append(docs, "", "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e", "bad \xff byte in a text", "\xc3", "ascii only here",
		"\uff21\uff22\uff23 fullwidth", "trailing half rune \xe2\x82", "possibilit\u00c3\u00a0 mojibake is valid")
	want := 0
	for _, d := range docs {
		if !utf8.ValidString(d) {
			want++
		}
	}
	if want < 3 {
		t.Fatalf("only %d invalid documents: the test shows little", want)
	}
	for _, o := range []Options{
		{},
		{Verify: VerifyEstimate},
		{Params: Params{Shingle: shingle.Options{Mode: shingle.Char, N: 4}}},
		{Params: Params{Shingle: shingle.Options{Mode: shingle.Word, NFKC: true}}},
		{Reread: &sliceReread{docs: docs, extra: -1}},
	} {
		_, res := runBatch(t, o, docs)
		if got := res.Stats.InvalidUTF8; got != want {
			t.Errorf("%+v: InvalidUTF8 = %d, want %d", o, got, want)
		}
	}
}

// runsOfPairs returns n pairs of one A whose B's are distinct and come as
// the given number of ascending runs, their values interleaved (as
// Range's groups of copies are).
func runsOfPairs(rng *rand.Rand, n, runs int) []Pair {
	bs := rng.Perm(4 * n)[:n]
	for i := range bs {
		bs[i] += 10
	}
	var ps []Pair
	for r := range runs {
		lo, hi := r*n/runs, (r+1)*n/runs
		run := slices.Sorted(slices.Values(bs[lo:hi]))
		for _, b := range run {
			ps = append(ps, Pair{A: 1, B: b, Jaccard: float64(b%1000) / 1000})
		}
	}
	return ps
}

// TestMergeByB: mergeByB sorts by B what sortByB sorts, for lists of one
// to many ascending runs (past mergeRunsMax it sorts), runs of one pair,
// and runs already in order.
func TestMergeByB(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	var s pairSorter
	byB := func(x, y Pair) int { return cmp.Compare(x.B, y.B) }
	for _, n := range []int{0, 1, 2, 3, 5, 13, 40, 300} {
		for _, runs := range []int{1, 2, 3, 4, mergeRunsMax, mergeRunsMax + 1, 50} {
			if runs > max(n, 1) {
				continue
			}
			for range 20 {
				ps := runsOfPairs(rng, n, runs)
				want := slices.Clone(ps)
				slices.SortFunc(want, byB)
				s.mergeByB(ps)
				if !slices.Equal(ps, want) {
					t.Fatalf("%d pairs in %d runs: got %v, want %v", n, runs, ps, want)
				}
			}
		}
	}
	// Runs whose values do not interleave, and a run that ends where the
	// next starts higher (one run, not two).
	ps := []Pair{{A: 1, B: 7}, {A: 1, B: 9}, {A: 1, B: 2}, {A: 1, B: 3}, {A: 1, B: 10}, {A: 1, B: 1}}
	s.mergeByB(ps)
	if !slices.IsSortedFunc(ps, byB) || len(ps) != 6 || ps[0].B != 1 || ps[5].B != 10 {
		t.Fatalf("got %v", ps)
	}
}

// BenchmarkMergeByB: mergeByB beside sortByB on lists of one A in a few
// ascending runs, as PairLister.Range sorts them.
func BenchmarkMergeByB(b *testing.B) {
	rng := rand.New(rand.NewPCG(29, 30))
	for _, c := range []struct{ n, runs int }{{20, 2}, {100, 2}, {100, 3}, {400, 4}} {
		src := runsOfPairs(rng, c.n, c.runs)
		ps := make([]Pair, len(src))
		var s pairSorter
		b.Run(fmt.Sprintf("merge/n=%d/runs=%d", c.n, c.runs), func(b *testing.B) {
			for b.Loop() {
				copy(ps, src)
				s.mergeByB(ps)
			}
		})
		b.Run(fmt.Sprintf("sort/n=%d/runs=%d", c.n, c.runs), func(b *testing.B) {
			for b.Loop() {
				copy(ps, src)
				s.sortByB(ps)
			}
		})
	}
}

// BenchmarkPairListing ranges over every pair of a synthetic result the
// shape of the 10M benchmark's (2 million documents, 4% of them later
// copies in groups of 2-6, about 15 verified pairs a document with
// partners anywhere in the corpus), as the pairs file's writers do: the
// listing's cache misses, without formatting.
func BenchmarkPairListing(b *testing.B) {
	const n = 2_000_000
	rng := rand.New(rand.NewPCG(31, 32))
	rep := make([]uint32, n)
	for d := range rep {
		rep[d] = uint32(d)
	}
	for d := 0; d < n; d++ {
		if rng.IntN(100) < 2 { // a group: the next copies anywhere after d
			for range 1 + rng.IntN(5) {
				c := d + 1 + rng.IntN(n-d)
				if c < n && rep[c] == uint32(c) {
					rep[c] = rep[d]
				}
			}
		}
	}
	var pairs []Pair
	for d := range n {
		if rep[d] != uint32(d) {
			pairs = append(pairs, Pair{A: int(rep[d]), B: d, Jaccard: 1})
			continue
		}
		for range rng.IntN(30) {
			e := d + 1 + rng.IntN(n-d)
			if e < n && rep[e] == uint32(e) {
				pairs = append(pairs, Pair{A: d, B: e, Jaccard: 0.5 + float64(rng.IntN(500))/1000})
			}
		}
	}
	slices.SortFunc(pairs, func(x, y Pair) int {
		if x.A != y.A {
			return cmp.Compare(x.A, y.A)
		}
		return cmp.Compare(x.B, y.B)
	})
	pairs = slices.CompactFunc(pairs, func(x, y Pair) bool { return x.A == y.A && x.B == y.B })
	r := &Result{Pairs: pairs, v: &views{rep: rep}}
	// Building the indexes (a pass over the documents and one over the
	// pairs, on every processor), then listing.
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			r.PairLister()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(pairs)), "ns/compact-pair")
	})
	b.Run("range", func(b *testing.B) {
		l := r.PairLister()
		listed := 0
		for b.Loop() {
			listed = 0
			for lo := 0; lo < n; lo += 600 {
				for p := range l.Range(lo, min(lo+600, n)) {
					listed += p.B & 1
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(pairs)), "ns/compact-pair")
		_ = listed
	})
}

// TestOnPairs: OnPairs is called once, before the clusters are built, with
// the Result Run returns, its pairs and pair counts final; work it starts
// may list the pairs while Run builds the clusters (run with -race).
func TestOnPairs(t *testing.T) {
	docs := corpusDocs(t, 600, 50, 41)
	docs = append(docs, docs[3], docs[3], docs[9])
	_, want := runBatch(t, Options{}, docs)
	var calls int
	var seen *Result
	var listed []Pair
	var counts [4]int // the pair counts of Stats, the fields OnPairs's work may read
	done := make(chan struct{})
	o := Options{OnPairs: func(r *Result) {
		calls++
		seen = r
		if r.Clusters != nil || r.Dup != nil {
			t.Errorf("OnPairs: clusters already built")
		}
		go func() {
			defer close(done)
			counts = [4]int{r.Stats.Pairs, r.Stats.Verified, r.Stats.CompactPairs, int(r.Stats.Candidates)}
			l := r.PairLister()
			for p := range l.Range(0, l.Documents()) {
				listed = append(listed, p)
			}
		}()
	}}
	_, got := runBatch(t, o, docs)
	<-done
	if calls != 1 || seen != got {
		t.Fatalf("OnPairs called %d times, with the returned Result: %v", calls, seen == got)
	}
	all := slices.Collect(got.AllPairs())
	if len(all) == 0 || !slices.Equal(listed, all) {
		t.Errorf("listed %d pairs while the clusters were built, want AllPairs' %d", len(listed), len(all))
	}
	if w := [4]int{want.Stats.Pairs, want.Stats.Verified, want.Stats.CompactPairs, int(want.Stats.Candidates)}; counts != w {
		t.Errorf("Stats' pairs, verified, compact pairs, candidates at OnPairs %v, want %v", counts, w)
	}
	if !reflect.DeepEqual(got.Clusters, want.Clusters) || !reflect.DeepEqual(got.Dup, want.Dup) || got.Stats.Clusters != want.Stats.Clusters || got.Stats.Duplicates != want.Stats.Duplicates {
		t.Errorf("clusters differ with OnPairs")
	}
}
