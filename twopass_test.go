package neardup

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/shingle"
)

// sliceReread is a Rereader over texts in memory. It records which
// documents were asked for; change, if set, alters a document's text.
type sliceReread struct {
	docs   []string
	asked  []int
	change func(d int, text string) string
	extra  int // if >= 0, also give this document (a broken Rereader)
}

func (r *sliceReread) Reread(ctx context.Context, want func(d int) bool, fn func(d int, text []byte) error) error {
	for d, text := range r.docs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !want(d) && d != r.extra {
			continue
		}
		r.asked = append(r.asked, d)
		if r.change != nil {
			text = r.change(d, text)
		}
		if err := fn(d, []byte(text)); err != nil {
			return err
		}
	}
	return nil
}

// withoutTimes returns st with the durations and the pass counts zeroed,
// for comparing two runs.
func withoutTimes(st Stats) Stats {
	st.ReadShingle, st.Collapse, st.Sign, st.Candidate, st.Second, st.SecondVerify, st.Refine, st.Group = 0, 0, 0, 0, 0, 0, 0, 0
	st.Passes, st.Reread, st.Held = 0, 0, 0
	return st
}

// TestTwoPassSameAsOnePass: the two-pass mode reports exactly what one pass
// reports (pairs with their Jaccard, clusters with their members' Jaccard,
// Dup, the counts) over corpora with planted copies, chains, identical
// documents, empty documents and buckets chained over MaxBucket, in star
// and components mode with every keep policy; it reads again one document
// per distinct set in a held candidate pair, and no other.
func TestTwoPassSameAsOnePass(t *testing.T) {
	docs := corpusDocs(t, 3000, 80, 5)
	for i := 0; i < 300; i++ { // identical copies, some of a document that has near-copies
		docs = append(docs, docs[i%7])
	}
	docs = append(docs, "", "  ", "one", "one", "one two three", "one two three four")
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"defaults", Options{}},
		{"components-longest", Options{Cluster: ClusterComponents, Keep: KeepLongest}},
		{"shortest-maxbucket3", Options{Keep: KeepShortest, MaxBucket: 3}},
		{"char5-t0.6-maxcluster4", Options{Params: Params{Shingle: shingle.Options{Mode: shingle.Char, N: 5}, Threshold: 0.6}, MaxCluster: 4}},
		{"t0.3-20x2-3workers", Options{Params: Params{Threshold: 0.3, LSH: lsh.Params{Bands: 20, Rows: 2}}, Workers: 3}},
		{"chunks-of-3", Options{Workers: 4}},
	} {
		o := c.o
		t.Run(c.name, func(t *testing.T) {
			if c.name == "chunks-of-3" {
				// Many small chunks of the second pass and many small
				// blocks of its layout, on more workers than cores.
				defer func(n int, b uint32, g, p int) {
					rereadChunkDocs, layoutBlock, groupChunk, pairPagesBlock = n, b, g, p
				}(rereadChunkDocs, layoutBlock, groupChunk, pairPagesBlock)
				// The verified pairs' lists in blocks of 2 pairs, lent
				// by the sets verified (overwritten if a set is read
				// after it).
				rereadChunkDocs, layoutBlock, groupChunk, pairPagesBlock = 3, 3, 3, 2
				// Sets released as the blocks are verified are
				// overwritten: a set read after its release changes
				// the pairs. (Lent blocks are released on the sorting
				// goroutines: the count is atomic.)
				var released atomic.Int64
				defer func(f func(*sigArena, []uint64, int, int)) { releaseSets = f }(releaseSets)
				releaseSets = func(_ *sigArena, vals []uint64, from, to int) {
					for i := range vals[from:to] {
						vals[from+i] = uint64(i) * 0x9e3779b97f4a7c15
					}
					released.Add(int64(to - from))
				}
				defer func() {
					if released.Load() == 0 {
						t.Error("no set was released")
					}
				}()
			}
			_, one := runBatch(t, o, docs)
			rr := &sliceReread{docs: docs, extra: -1}
			o2 := o
			o2.Reread = rr
			_, two := runBatch(t, o2, docs)
			if one.Stats.Passes != 1 || two.Stats.Passes != 2 {
				t.Fatalf("passes %d and %d, want 1 and 2", one.Stats.Passes, two.Stats.Passes)
			}
			if len(one.Pairs) == 0 || len(one.Clusters) == 0 {
				t.Fatalf("no pairs: the comparison shows nothing")
			}
			if !reflect.DeepEqual(one.Pairs, two.Pairs) {
				t.Errorf("pairs differ: %d in one pass, %d in two", len(one.Pairs), len(two.Pairs))
			}
			if !reflect.DeepEqual(one.Clusters, two.Clusters) {
				t.Errorf("clusters differ")
			}
			if !reflect.DeepEqual(one.Dup, two.Dup) {
				t.Errorf("Dup differs")
			}
			if a, b := withoutTimes(one.Stats), withoutTimes(two.Stats); !reflect.DeepEqual(a, b) {
				t.Errorf("stats differ:\n one %+v\n two %+v", a, b)
			}
			// Read again: exactly the earliest document of each distinct
			// set in a verified pair (and no more than the held ones).
			inPair := map[int]bool{}
			for _, p := range two.Pairs {
				if p.Jaccard < 1 || two.Canonical(p.B) == p.B {
					inPair[two.Canonical(p.A)], inPair[two.Canonical(p.B)] = true, true
				}
			}
			asked := map[int]bool{}
			for _, d := range rr.asked {
				if asked[d] || two.Canonical(d) != d {
					t.Fatalf("document %d read again twice, or not the earliest of its set", d)
				}
				asked[d] = true
			}
			for d := range inPair {
				if !asked[d] {
					t.Errorf("document %d is in a verified pair but was not read again", d)
				}
			}
			if two.Stats.Reread != len(rr.asked) || len(rr.asked) >= two.Stats.Distinct {
				t.Errorf("read again %d (stats %d) of %d distinct sets", len(rr.asked), two.Stats.Reread, two.Stats.Distinct)
			}
			// (Pairs of chained buckets beyond their chains are verified
			// together at the end, not held.)
			if h := two.Stats.Held; h < int64(two.Stats.Verified) && two.Stats.LargeBuckets == 0 || h > two.Stats.Candidates {
				t.Errorf("held %d pairs: not between the %d verified and the %d candidates", h, two.Stats.Verified, two.Stats.Candidates)
			}
			// Similarity: under star the sets are dropped once verified,
			// so NaN for two different sets; under components they are
			// kept. 1 for identical ones.
			for _, p := range two.Pairs[:min(50, len(two.Pairs))] {
				s := two.Similarity(p.A, p.B)
				want := p.Jaccard
				if o.Cluster == ClusterStar && two.Canonical(p.A) != two.Canonical(p.B) {
					want = math.NaN()
				}
				if s != want && !(math.IsNaN(s) && math.IsNaN(want)) {
					t.Errorf("Similarity(%d, %d) = %v after two passes (Jaccard %v)", p.A, p.B, s, p.Jaccard)
				}
				if s := one.Similarity(p.A, p.B); s != p.Jaccard {
					t.Errorf("one pass: Similarity(%d, %d) = %v, want %v", p.A, p.B, s, p.Jaccard)
				}
			}
		})
	}
}

// TestTwoPassWithoutArena: where the system gives no signature arena, the
// signatures are copied from the chunks, with the same results.
func TestTwoPassWithoutArena(t *testing.T) {
	defer func(saved bool) { useSigArena = saved }(useSigArena)
	docs := corpusDocs(t, 2000, 60, 21)
	for _, o := range []Options{{}, {Verify: VerifyEstimate}} {
		useSigArena = true
		_, a := runBatch(t, Options{Verify: o.Verify, Reread: &sliceReread{docs: docs, extra: -1}}, docs)
		useSigArena = false
		_, b := runBatch(t, Options{Verify: o.Verify, Reread: &sliceReread{docs: docs, extra: -1}}, docs)
		if len(a.Pairs) == 0 || !reflect.DeepEqual(a.Pairs, b.Pairs) || !reflect.DeepEqual(a.Clusters, b.Clusters) {
			t.Errorf("verify %v: with and without the arena: %d and %d pairs, or other clusters", o.Verify, len(a.Pairs), len(b.Pairs))
		}
	}
}

// TestTwoPassBitmaps: the pre-filter also tests the sets' bitmaps
// (shingle.MaxIntersection) and holds fewer pairs, in two passes and in
// one, with the same results as without that test and as one pass: a
// bound that rejected a pair reaching the threshold would lose it here.
func TestTwoPassBitmaps(t *testing.T) {
	defer func(saved bool) { useSetBitmaps = saved }(useSetBitmaps)
	docs := corpusDocs(t, 3000, 60, 23)
	for name, o := range map[string]Options{
		"defaults":    {},
		"t0.3":        {Params: Params{Threshold: 0.3}},
		"char5-t0.7":  {Params: Params{Shingle: shingle.Options{Mode: shingle.Char, N: 5}, Threshold: 0.7}},
		"maxbucket-4": {MaxBucket: 4},
	} {
		_, one := runBatch(t, o, docs)
		useSetBitmaps = false
		_, oneWithout := runBatch(t, o, docs)
		o.Reread = &sliceReread{docs: docs, extra: -1}
		_, without := runBatch(t, o, docs)
		useSetBitmaps = true
		o.Reread = &sliceReread{docs: docs, extra: -1}
		_, with := runBatch(t, o, docs)
		if len(one.Pairs) == 0 {
			t.Fatalf("%s: no pairs: the comparison shows nothing", name)
		}
		if !reflect.DeepEqual(one.Pairs, with.Pairs) || !reflect.DeepEqual(without.Pairs, with.Pairs) || !reflect.DeepEqual(one.Clusters, with.Clusters) {
			t.Errorf("%s: %d pairs in one pass, %d in two without bitmaps, %d with, or other clusters", name, len(one.Pairs), len(without.Pairs), len(with.Pairs))
		}
		if with.Stats.Held >= without.Stats.Held || with.Stats.Held < int64(with.Stats.Verified) && with.Stats.LargeBuckets == 0 {
			t.Errorf("%s: held %d pairs with bitmaps, %d without (%d verified): want fewer with, and no fewer than verified", name, with.Stats.Held, without.Stats.Held, with.Stats.Verified)
		}
		if !reflect.DeepEqual(one.Pairs, oneWithout.Pairs) || !reflect.DeepEqual(one.Clusters, oneWithout.Clusters) || one.Stats.Verified != oneWithout.Stats.Verified {
			t.Errorf("%s: one pass: %d pairs with bitmaps, %d without, or other clusters", name, len(one.Pairs), len(oneWithout.Pairs))
		}
	}
}

// TestTwoPassOnlyWhereItApplies: estimate verification, idf weights and the
// edit refinement need every set or none, so they run in one pass.
func TestTwoPassOnlyWhereItApplies(t *testing.T) {
	docs := corpusDocs(t, 300, 60, 9)
	for _, o := range []Options{{Verify: VerifyEstimate}, {Params: Params{Weight: WeightIDF}}, {Refine: RefineEdit}} {
		rr := &sliceReread{docs: docs, extra: -1}
		o.Reread = rr
		_, res := runBatch(t, o, docs)
		if res.Stats.Passes != 1 || len(rr.asked) != 0 {
			t.Errorf("%+v: %d passes, %d documents read again; want 1 and 0", o, res.Stats.Passes, len(rr.asked))
		}
	}
}

// TestTwoPassChangedInput: a document whose text changed between the
// passes, or that is missing the second time, fails the run with
// ErrChanged; a Rereader that gives a document not asked for fails it with
// ErrInvalid.
func TestTwoPassChangedInput(t *testing.T) {
	docs := corpusDocs(t, 500, 60, 3)
	_, one := runBatch(t, Options{}, docs)
	if len(one.Pairs) == 0 {
		t.Fatal("no pairs")
	}
	victim := one.Pairs[0].A
	run := func(rr *sliceReread) error {
		b, err := NewBatch(Options{Reread: rr})
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range docs {
			if err := b.Add(fmt.Sprint(i), []byte(d)); err != nil {
				t.Fatal(err)
			}
		}
		_, err = b.Run(context.Background())
		return err
	}
	changed := &sliceReread{docs: docs, extra: -1, change: func(d int, text string) string {
		if d == victim {
			return text + " and one more sentence at the end"
		}
		return text
	}}
	if err := run(changed); !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), fmt.Sprintf("document %d", victim)) {
		t.Errorf("changed text: %v, want ErrChanged naming document %d", err, victim)
	}
	short := &sliceReread{docs: docs[:victim], extra: -1}
	if err := run(short); !errors.Is(err, ErrChanged) {
		t.Errorf("missing document: %v, want ErrChanged", err)
	}
	extra := &sliceReread{docs: docs, extra: len(docs) - 1}
	if one.Canonical(len(docs)-1) == len(docs)-1 {
		// Make sure the extra one is not asked for anyway.
		extra.extra = -1
		for d := range docs {
			if one.Canonical(d) != d {
				extra.extra = d
				break
			}
		}
	}
	if extra.extra >= 0 {
		if err := run(extra); !errors.Is(err, ErrInvalid) {
			t.Errorf("a document not asked for: %v, want ErrInvalid", err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b, _ := NewBatch(Options{Reread: &sliceReread{docs: docs, extra: -1}})
	for i, d := range docs {
		b.Add(fmt.Sprint(i), []byte(d))
	}
	if _, err := b.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestMaxBucketLosesNothing: buckets over MaxBucket compare their members'
// signatures instead of listing every pair (lsh.Candidates.MinAgree, from
// the Verifier), so the pairs, clusters and counts are those of the search
// with no limit, in one pass, in two and under VerifyEstimate. The corpus is
// short documents ending in one long shared paragraph: they fill large
// buckets in most bands, and many of their near-duplicate pairs share no
// smaller bucket and are no neighbours in the chains.
func TestMaxBucketLosesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	word := func() string { return fmt.Sprintf("w%d", rng.IntN(100000)) }
	var shared []string
	for range 60 {
		shared = append(shared, word())
	}
	var docs []string
	for range 600 {
		var d []string
		for range 3 + rng.IntN(40) {
			d = append(d, word())
		}
		docs = append(docs, strings.Join(append(d, shared...), " "))
	}
	for _, mode := range []Verify{VerifyExact, VerifyEstimate} {
		for _, two := range []bool{false, true} {
			if two && mode == VerifyEstimate {
				continue // estimates keep no sets: one pass only
			}
			name := fmt.Sprintf("%v two=%v", mode, two)
			run := func(maxBucket int) *Result {
				o := Options{Verify: mode, MaxBucket: maxBucket}
				if two {
					o.Reread = &sliceReread{docs: docs, extra: -1}
				}
				_, res := runBatch(t, o, docs)
				return res
			}
			limited, all := run(20), run(-1)
			if limited.Stats.LargeBuckets == 0 || all.Stats.LargeBuckets != 0 {
				t.Fatalf("%s: %d and %d large buckets: the corpus does not test the limit", name, limited.Stats.LargeBuckets, all.Stats.LargeBuckets)
			}
			if len(all.Pairs) < 1000 {
				t.Fatalf("%s: only %d pairs", name, len(all.Pairs))
			}
			if !reflect.DeepEqual(limited.Pairs, all.Pairs) {
				t.Errorf("%s: pairs differ: %d with MaxBucket 20, %d with no limit", name, len(limited.Pairs), len(all.Pairs))
			}
			if !reflect.DeepEqual(limited.Clusters, all.Clusters) {
				t.Errorf("%s: clusters differ", name)
			}
			if limited.Stats.Verified != all.Stats.Verified || limited.Stats.Pairs != all.Stats.Pairs {
				t.Errorf("%s: verified %d vs %d, pairs %d vs %d", name, limited.Stats.Verified, all.Stats.Verified, limited.Stats.Pairs, all.Stats.Pairs)
			}
		}
	}
}

// TestLayOut checks the second pass's layout against its definition on
// random held pairs: every set of a held pair or a chained bucket has one
// place and no other set has one, the places hold the sets' counts back to
// back, each held pair is in the block of its earlier place exactly once
// (packed later<<32 | earlier), a group of sets all paired with their
// earliest member sits in consecutive places, and several lists (read on
// goroutines of their own) give the layout of one list of their pairs.
func TestLayOut(t *testing.T) {
	defer func(b uint32, s int) { layoutBlock, layoutSlabPairs = b, s }(layoutBlock, layoutSlabPairs)
	r := rand.New(rand.NewPCG(7, 8))
	for iter := range 200 {
		layoutBlock = uint32(1 + r.IntN(8))
		layoutSlabPairs = 1 + r.IntN(12) // blocks cut from several slabs
		nu := 1 + r.IntN(60)
		counts := make([]int32, nu)
		for u := range counts {
			counts[u] = int32(1 + r.IntN(9))
		}
		var held []blockList[[2]uint32]
		want := map[[2]uint32]int{}
		inPair := map[uint32]bool{}
		for range 1 + r.IntN(3) {
			var l blockList[[2]uint32]
			for range r.IntN(2 * nu) {
				i, j := uint32(r.IntN(nu)), uint32(r.IntN(nu))
				if i == j || want[[2]uint32{min(i, j), max(i, j)}] > 0 {
					continue // held pairs are distinct pairs of distinct sets
				}
				want[[2]uint32{min(i, j), max(i, j)}]++
				inPair[i], inPair[j] = true, true
				l.add([2]uint32{min(i, j), max(i, j)})
			}
			held = append(held, l)
		}
		var row []int32
		if r.IntN(2) == 0 {
			row = make([]int32, nu)
			for u := range row {
				row[u] = -1
				if r.IntN(5) == 0 {
					row[u] = 0
				}
			}
		}
		// One list of the same pairs in the same order: the layout of
		// one goroutine, which the lists' goroutines must reproduce.
		var one blockList[[2]uint32]
		for _, h := range held {
			for _, blk := range h.blocks {
				for _, p := range blk {
					one.add(p)
				}
			}
		}
		ref := layOut([]blockList[[2]uint32]{one}, row, counts)
		l := layOut(held, row, counts)
		if !reflect.DeepEqual(l, ref) {
			t.Fatalf("iter %d: %d lists laid out %+v, one list %+v", iter, len(held), l, ref)
		}
		for _, h := range held {
			if h.n != 0 || h.blocks != nil {
				t.Fatal("held not emptied")
			}
		}
		placed := 0
		for u := range nu {
			in := inPair[uint32(u)] || row != nil && row[u] >= 0
			p := l.pos[u]
			if in != (p != noPos) {
				t.Fatalf("iter %d: set %d: in a pair or chained %v, place %d", iter, u, in, p)
			}
			if in {
				placed++
				if l.order[p] != uint32(u) || l.off[p+1]-l.off[p] != int(counts[u]) {
					t.Fatalf("iter %d: set %d at %d: order %d, room %d for %d values", iter, u, p, l.order[p], l.off[p+1]-l.off[p], counts[u])
				}
			}
		}
		if placed != len(l.order) || l.off[0] != 0 {
			t.Fatalf("iter %d: %d placed, order has %d", iter, placed, len(l.order))
		}
		got := map[[2]uint32]int{}
		for k, blk := range l.blocks {
			for _, p := range blk {
				a, c := uint32(p), uint32(p>>32)
				if a > c || a/layoutBlock != uint32(k) {
					t.Fatalf("iter %d: pair %d-%d in block %d", iter, a, c, k)
				}
				i, j := l.order[a], l.order[c]
				got[[2]uint32{min(i, j), max(i, j)}]++
			}
		}
		if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("iter %d: pairs by block %v, held %v", iter, got, want)
		}
	}
	// A group: sets 10..19 all paired with each other, among pairs of sets
	// before, between and after them; the group's sets are consecutive, in
	// ascending order.
	var l blockList[[2]uint32]
	for i := uint32(10); i < 20; i++ {
		for j := i + 1; j < 20; j++ {
			l.add([2]uint32{i, j})
		}
		l.add([2]uint32{i - 10, i + 10})
	}
	counts := make([]int32, 40)
	for u := range counts {
		counts[u] = 2
	}
	lay := layOut([]blockList[[2]uint32]{l}, nil, counts)
	p := lay.pos[10]
	for u := uint32(11); u < 20; u++ {
		if lay.pos[u] != p+u-10 {
			t.Fatalf("clique 10..19: set %d at %d, set 10 at %d", u, lay.pos[u], p)
		}
	}
}

// BenchmarkLayOut: the second pass's layout of 16 million held pairs among
// 4 million sets (pairs within groups of 8 neighbouring sets, the rest at
// random), in one list (one goroutine) and in two (one each), as the
// batch's two workers hold them.
func BenchmarkLayOut(b *testing.B) {
	const nu, pairs = 4 << 20, 16 << 20
	r := rand.New(rand.NewPCG(1, 2))
	all := make([][2]uint32, pairs)
	for k := range all {
		i := uint32(r.IntN(nu))
		j := i&^7 + uint32(r.IntN(8))
		if k%4 == 0 {
			j = uint32(r.IntN(nu))
		}
		if i == j {
			j = (j + 1) % nu
		}
		all[k] = [2]uint32{min(i, j), max(i, j)}
	}
	counts := make([]int32, nu)
	for u := range counts {
		counts[u] = 250
	}
	for _, lists := range []int{1, 2} {
		b.Run(fmt.Sprint("lists=", lists), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				held := make([]blockList[[2]uint32], lists)
				for k, p := range all {
					held[k%lists].add(p)
				}
				b.StartTimer()
				layOut(held, nil, counts)
			}
		})
	}
}

// TestTwoPassHeld: the pairs two passes hold are exactly the LSH
// candidates (pairs of distinct sets that agree on a whole band, found
// here by brute force) that pass the whole pre-filter: the sizes, the
// bitmaps' bound and the signatures' agreement (Prefilter). A pre-filter
// that skipped a test would hold more pairs, which exact verification
// then mostly rejects: the results alone would not show it.
func TestTwoPassHeld(t *testing.T) {
	// Long documents: their bitmaps bound the overlap more loosely, so
	// the signatures reject some of the pairs the bitmaps pass.
	docs := corpusDocs(t, 1500, 400, 9)
	for i := range 60 {
		docs = append(docs, docs[i*3]) // identical copies: one distinct set each
	}
	for _, th := range []float64{0.3, 0.5, 0.7} {
		o := Options{Params: Params{Threshold: th}, MaxBucket: -1, Reread: &sliceReread{docs: docs, extra: -1}}
		b, res := runBatch(t, o, docs)
		if res.Stats.Passes != 2 || res.Stats.LargeBuckets != 0 {
			t.Fatalf("t=%v: %d passes, %d large buckets", th, res.Stats.Passes, res.Stats.LargeBuckets)
		}
		type doc struct {
			d    int
			set  []uint64
			sig  []uint32
			bits shingle.Bitmap
		}
		var ds []doc
		for d, text := range docs {
			if res.Canonical(d) != d {
				continue
			}
			set := b.sk.AppendSet(nil, []byte(text))
			if len(set) == 0 {
				continue
			}
			x := doc{d: d, set: set, sig: b.sk.AppendSignature(nil, set)}
			x.bits.Add(set)
			ds = append(ds, x)
		}
		p := b.o.LSH
		cands := map[[2]int]bool{}
		for band := range p.Bands {
			byVals := map[string][]int{}
			for k, x := range ds {
				key := fmt.Sprint(x.sig[band*p.Rows : (band+1)*p.Rows])
				byVals[key] = append(byVals[key], k)
			}
			for _, ks := range byVals {
				for i, a := range ks {
					for _, c := range ks[i+1:] {
						cands[[2]int{a, c}] = true
					}
				}
			}
		}
		want, bitsOnly := 0, 0 // passing all; passing the sizes and bitmaps only
		for pr := range cands {
			x, y := &ds[pr[0]], &ds[pr[1]]
			sx := Sketch{Size: len(x.set), Signature: x.sig}
			sy := Sketch{Size: len(y.set), Signature: y.sig}
			if b.ver.sizesBitmapsOK(len(x.set), len(y.set), &x.bits, &y.bits) {
				if b.ver.Prefilter(&sx, &sy) {
					want++
				} else {
					bitsOnly++
				}
			}
		}
		if want == 0 || bitsOnly == 0 {
			t.Fatalf("t=%v: %d candidates, %d pass, %d pass all but the signatures: the test shows little", th, len(cands), want, bitsOnly)
		}
		if res.Stats.Candidates != int64(len(cands)) {
			t.Errorf("t=%v: %d candidates, the brute-force banding finds %d", th, res.Stats.Candidates, len(cands))
		}
		if res.Stats.Held != int64(want) {
			t.Errorf("t=%v: %d pairs held, %d of the candidates pass the pre-filter", th, res.Stats.Held, want)
		}
	}
}

// TestBlockList: values come back in order across blocks cut from several
// slabs (at most one block a slab, three, and more than a list holds),
// blocks lent by more are used first, a list's first slab is one block,
// and the padded list keeps to its 128 bytes (two workers' lists never
// share a pair of cache lines).
func TestBlockList(t *testing.T) {
	if s := unsafe.Sizeof(blockList[verified]{}); s != 128 {
		t.Errorf("blockList is %d bytes, want 128", s)
	}
	defer func(b int) { listSlabBytes = b }(listSlabBytes)
	for _, slabBlocks := range []int{1, 3, 64} {
		listSlabBytes = slabBlocks * blockLen * 8
		lent := 0
		var l blockList[uint64]
		l.more = func() []uint64 {
			if lent == 2 {
				return nil
			}
			lent++
			return make([]uint64, 0, 7) // a short block, as pairPages may lend
		}
		const n = 5*blockLen + 3
		for i := range uint64(n) {
			l.add(i * 3)
		}
		if l.n != n || len(l.blocks) != 2+5 {
			t.Fatalf("%d blocks a slab: n %d, %d blocks", slabBlocks, l.n, len(l.blocks))
		}
		var short blockList[uint64]
		short.add(1)
		if len(short.slab) != 0 || cap(short.blocks[0]) != blockLen {
			t.Fatalf("%d blocks a slab: a list of one value has a slab of %d more values", slabBlocks, len(short.slab))
		}
		i := uint64(0)
		for k, blk := range l.blocks {
			if k < 2 && cap(blk) != 7 || k >= 2 && cap(blk) != blockLen {
				t.Fatalf("%d blocks a slab: block %d has cap %d", slabBlocks, k, cap(blk))
			}
			for _, v := range blk {
				if v != i*3 {
					t.Fatalf("%d blocks a slab: value %d is %d", slabBlocks, i, v)
				}
				i++
			}
		}
		if i != n {
			t.Fatalf("%d blocks a slab: %d values in the blocks", slabBlocks, i)
		}
	}
}
