package allpairs

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
)

type pairKey struct{ i, j int }

// brute is the reference: every pair compared by a sorted merge, with the
// documented float64 threshold test.
func brute(sets [][]uint64, t float64) map[pairKey]float64 {
	out := map[pairKey]float64{}
	for i := range sets {
		for j := i + 1; j < len(sets); j++ {
			a, b := sets[i], sets[j]
			if len(a) == 0 || len(b) == 0 {
				continue
			}
			o, x, y := 0, 0, 0
			for x < len(a) && y < len(b) {
				switch {
				case a[x] < b[y]:
					x++
				case a[x] > b[y]:
					y++
				default:
					o++
					x++
					y++
				}
			}
			if jac := float64(o) / float64(len(a)+len(b)-o); jac >= t {
				out[pairKey{i, j}] = jac
			}
		}
	}
	return out
}

func collect(t *testing.T, sets [][]uint64, th float64, workers int) map[pairKey]float64 {
	t.Helper()
	return collectFrom(t, func(fn func(i, j int, jac float64)) { JoinWorkers(sets, th, workers, fn) })
}

// collectFrom gathers the pairs join reports, failing on a pair out of
// order or reported twice.
func collectFrom(t *testing.T, join func(fn func(i, j int, jac float64))) map[pairKey]float64 {
	t.Helper()
	var mu sync.Mutex
	got := map[pairKey]float64{}
	bad := ""
	join(func(i, j int, jac float64) {
		mu.Lock()
		defer mu.Unlock()
		k := pairKey{i, j}
		if i >= j {
			bad = fmt.Sprintf("pair %v not ordered", k)
		}
		if _, dup := got[k]; dup {
			bad = fmt.Sprintf("pair %v reported twice", k)
		}
		got[k] = jac
	})
	if bad != "" {
		t.Fatal(bad)
	}
	return got
}

func compare(t *testing.T, name string, got, want map[pairKey]float64) {
	t.Helper()
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Fatalf("%s: missing %v (jaccard %v); got %d pairs, want %d", name, k, w, len(got), len(want))
		}
		if g != w {
			t.Fatalf("%s: %v jaccard %v, want %v", name, k, g, w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Fatalf("%s: extra %v (jaccard %v)", name, k, g)
		}
	}
}

// randomSets draws sets from a skewed vocabulary and plants near-copies
// (random drops and additions) of earlier sets, some of them tiny so that
// exact-threshold pairs such as 2 of 4 are common.
func randomSets(rng *rand.Rand, n, vocab, maxLen int) [][]uint64 {
	sets := make([][]uint64, n)
	word := func() uint64 {
		// Skewed: low values are much more frequent.
		w := rng.IntN(vocab)
		w = rng.IntN(w + 1)
		return uint64(w)*0x9e3779b97f4a7c15 + 1
	}
	for i := range sets {
		m := map[uint64]bool{}
		if i > 0 && rng.IntN(2) == 0 {
			for _, v := range sets[rng.IntN(i)] {
				if rng.IntN(5) != 0 {
					m[v] = true
				}
			}
			for range rng.IntN(3) {
				m[word()] = true
			}
		} else {
			l := rng.IntN(maxLen + 1)
			for range l {
				m[word()] = true
			}
		}
		s := make([]uint64, 0, len(m))
		for v := range m {
			s = append(s, v)
		}
		slices.Sort(s)
		sets[i] = s
	}
	return sets
}

func TestJoinAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	total := 0
	for _, shape := range []struct{ n, vocab, maxLen int }{
		{0, 10, 5}, {1, 10, 5}, {2, 3, 3}, {10, 6, 4}, {60, 20, 6}, {200, 50, 12}, {400, 2000, 40}, {300, 100000, 60},
	} {
		for trial := range 4 {
			sets := randomSets(rng, shape.n, shape.vocab, shape.maxLen)
			all := brute(sets, 0.1) // the lowest threshold below: filtered for the others
			ranked := Rank(sets, 2) // one ranking for every threshold
			for _, th := range []float64{0.1, 0.3, 0.5, 0.8, 1.0, 2.0 / 3, 0.75, 0.9} {
				want := map[pairKey]float64{}
				for k, jac := range all {
					if jac >= th {
						want[k] = jac
					}
				}
				total += len(want)
				for _, workers := range []int{1, 2, 5} {
					name := fmt.Sprintf("shape %+v trial %d t=%v workers=%d", shape, trial, th, workers)
					compare(t, name, collect(t, sets, th, workers), want)
					compare(t, name+" ranked once", collectFrom(t, func(fn func(i, j int, jac float64)) { ranked.Join(th, workers, fn) }), want)
				}
			}
		}
	}
	if total < 10000 {
		t.Errorf("only %d reference pairs: inputs too easy", total)
	}
}

// TestJoinSyntheticSample checks a sample of the benchmark corpus (see
// syntheticCorpus) against brute force, so the benchmark's input is known to
// be joined correctly.
func TestJoinSyntheticSample(t *testing.T) {
	thresholds := []float64{0.3, 0.5, 0.8}
	for _, c := range []struct{ vocab, shingle int }{{0, 0}, {1 << 20, 3}, {1 << 20, 1}, {5000, 1}} {
		sets := syntheticCorpus(400, c.vocab, c.shingle)
		// The pairs at a higher threshold are a subset of those at the
		// lowest: one brute-force pass serves all three.
		all := brute(sets, thresholds[0])
		for _, th := range thresholds {
			want := map[pairKey]float64{}
			for k, jac := range all {
				if jac >= th {
					want[k] = jac
				}
			}
			compare(t, fmt.Sprintf("%+v t=%v", c, th), collect(t, sets, th, 2), want)
			if th == 0.5 && len(want) < 30 {
				t.Errorf("%+v: only %d pairs", c, len(want))
			}
		}
	}
}

func TestExactThreshold(t *testing.T) {
	f := func(a, b []uint64, th float64, want bool) {
		t.Helper()
		got := false
		Join([][]uint64{a, b}, th, func(i, j int, jac float64) { got = true })
		if got != want {
			t.Errorf("Join(%v, %v, %v) reported %v, want %v", a, b, th, got, want)
		}
	}
	f([]uint64{1, 2, 3}, []uint64{2, 3, 4}, 0.5, true)     // 2/4
	f([]uint64{1, 2, 3}, []uint64{2, 3, 4}, 0.5001, false) // just above
	f([]uint64{1, 2, 3}, []uint64{1, 2, 3}, 1, true)
	f([]uint64{1, 2, 3}, []uint64{1, 2, 4}, 1, false)
	f([]uint64{1, 2, 3, 4, 5, 6, 7}, []uint64{1, 2, 3, 8, 9, 10}, 0.3, true) // 3/10
	f([]uint64{1, 2}, []uint64{1, 3, 4, 5, 6}, 1.0/6, true)                  // 1/6
	f([]uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, []uint64{1, 2, 3, 4, 5, 6, 7, 8}, 0.8, true)
	f([]uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, []uint64{1, 2, 3, 4, 5, 6, 7}, 0.8, false)
	f(nil, nil, 0.1, false)
	f([]uint64{1}, nil, 0.1, false)
	f([]uint64{5, 3, 1}, []uint64{1, 3, 5}, 1, true)         // order does not matter
	f([]uint64{1, 1, 2, 2}, []uint64{1, 2}, 1, true)         // duplicates ignored
	f([]uint64{1, 2, 3, 3}, []uint64{1, 2, 4, 4}, 0.5, true) // 2/4 as sets
	f([]uint64{7, 7, 8}, []uint64{9, 10}, 0.01, false)       // a duplicate is not shared
}

func TestJoinPanicsOnBadThreshold(t *testing.T) {
	for _, th := range []float64{0, -1, 1.5} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("t=%v: no panic", th)
				}
			}()
			Join(nil, th, func(int, int, float64) {})
		}()
	}
}

func ExampleJoin() {
	sets := [][]uint64{
		{1, 2, 3, 4},
		{10, 11},
		{1, 2, 3, 5},
		{2, 3, 4, 5},
		{},
	}
	var out []string
	Join(sets, 0.5, func(i, j int, jac float64) {
		out = append(out, fmt.Sprintf("%d-%d %.2f", i, j, jac))
	})
	slices.Sort(out)
	fmt.Println(out)
	// Output:
	// [0-2 0.60 0-3 0.60 2-3 0.60]
}

// Rank once, join at two thresholds: the pairs at the higher one are
// those of the lower one that reach it.
func ExampleRanked_Join() {
	sets := [][]uint64{
		{1, 2, 3, 4},
		{1, 2, 3, 4, 5, 6},
		{1, 2, 3, 5},
		{7, 8},
	}
	r := Rank(sets, 1)
	for _, t := range []float64{0.5, 0.65} {
		var out []string
		r.Join(t, 1, func(i, j int, jac float64) {
			out = append(out, fmt.Sprintf("%d-%d %.2f", i, j, jac))
		})
		slices.Sort(out)
		fmt.Println(t, out)
	}
	// Output:
	// 0.5 [0-1 0.67 0-2 0.60 1-2 0.67]
	// 0.65 [0-1 0.67 1-2 0.67]
}

// refPrepare is prepare written plainly: document frequencies from a map,
// shared elements ranked by sorting (frequency, value*mixMul).
func refPrepare(sets [][]uint64) *prepared {
	freq := map[uint64]int{}
	for _, s := range sets {
		for _, v := range s {
			freq[v]++
		}
	}
	var vals []uint64
	for v, f := range freq {
		if f >= 2 {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	slices.SortFunc(vals, func(a, b uint64) int {
		if c := freq[a] - freq[b]; c != 0 {
			return c
		}
		return cmp.Compare(a*mixMul, b*mixMul)
	})
	rank := map[uint64]uint32{}
	for r, v := range vals {
		rank[v] = uint32(r)
	}
	p := &prepared{nranks: len(vals)}
	ranks := make([][]uint32, len(sets))
	single := make([]int32, len(sets))
	for i, s := range sets {
		for _, v := range s {
			if r, ok := rank[v]; ok {
				ranks[i] = append(ranks[i], r)
			} else {
				single[i]++
			}
		}
		slices.Sort(ranks[i])
		ranks[i] = slices.Compact(ranks[i])
		if len(ranks[i]) > 0 {
			p.order = append(p.order, uint32(i))
		}
	}
	if len(p.order) < 2 {
		return nil
	}
	size := func(i uint32) int32 { return single[i] + int32(len(ranks[i])) }
	slices.SortStableFunc(p.order, func(a, b uint32) int { return int(size(a) - size(b)) })
	for _, i := range p.order {
		p.size = append(p.size, size(i))
		p.single = append(p.single, single[i])
		p.start = append(p.start, uint32(len(p.ranks)))
		p.ranks = append(p.ranks, ranks[i]...)
	}
	p.start = append(p.start, uint32(len(p.ranks)))
	return p
}

// TestPrepare compares prepare with refPrepare on hashes, on small
// integers (one partition's worth of keys would hold them all without the
// mixing), on skewed sets whose few frequent elements make long runs, and
// with the passes shared among 2, 3 and 5 goroutines.
func TestPrepare(t *testing.T) {
	old := parallelFrom
	t.Cleanup(func() { parallelFrom = old })
	parallelFrom = 1
	rng := rand.New(rand.NewPCG(5, 6))
	small := make([][]uint64, 3000)
	for i := range small {
		m := map[uint64]bool{}
		for range rng.IntN(40) {
			m[uint64(rng.IntN(rng.IntN(20000)+1))] = true
		}
		for v := range m {
			small[i] = append(small[i], v)
		}
		slices.Sort(small[i])
	}
	cases := map[string][][]uint64{
		"hashes":      syntheticCorpus(2000, 0, 0),
		"shingles":    syntheticCorpus(2000, 1<<20, 3),
		"words":       syntheticCorpus(2000, 5000, 1),
		"small ints":  small,
		"skewed":      randomSets(rng, 3000, 300, 30),
		"one set":     {{1, 2, 3}},
		"no sharing":  {{1, 2}, {3, 4}},
		"one element": {{7}, {7}},
	}
	for name, sets := range cases {
		want := refPrepare(sets)
		for _, workers := range []int{1, 2, 3, 5} {
			got := prepare(sets, workers)
			if (got == nil) != (want == nil) {
				t.Fatalf("%s, %d workers: prepared %v, want %v", name, workers, got != nil, want != nil)
			}
			if got == nil {
				continue
			}
			got.ranks = slices.Clip(got.ranks)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, %d workers: prepared sets differ from the reference's", name, workers)
			}
		}
	}
}
