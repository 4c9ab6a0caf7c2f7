package neardup

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup/idf"
	"github.com/neardup/neardup/internal/editdist"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/shingle"
)

// sum64 hashes values for golden tests: FNV-1a of their little-endian bytes.
func sum64[T uint32 | uint64](vals []T) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, v := range vals {
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		h.Write(b[:])
	}
	return h.Sum64()
}

func TestFingerprintGolden(t *testing.T) {
	f := func(set []uint64, want uint64) {
		t.Helper()
		if got := Fingerprint(set); got != want {
			t.Errorf("Fingerprint(%#x) = %#x, want %#x", set, got, want)
		}
	}
	f(nil, 0)
	f([]uint64{}, 0)
	f([]uint64{1, 2, 3}, 0x1db1022c6d153551)
	f([]uint64{0, math.MaxUint64}, 0xc08819307779dca9)
	if Fingerprint([]uint64{1, 2}) == Fingerprint([]uint64{2, 1}) {
		t.Error("Fingerprint ignores order: it is defined on sorted sets and must not be symmetric")
	}
	if Fingerprint([]uint64{0}) == 0 {
		t.Error("Fingerprint of a non-empty set is 0")
	}
}

// TestSetHashes checks the two-pass mode's set hashes: the same for any
// order of a set's elements, different for sets that differ in one element
// or in size, 0 only for the empty set, and keyed (another key gives other
// values).
func TestSetHashes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	k := newSetKey()
	if a, b := k.setHashes(nil); a != 0 || b != 0 {
		t.Errorf("empty set: %#x %#x, want 0 0", a, b)
	}
	if a, _ := k.setHashes([]uint64{0}); a == 0 {
		t.Error("the first hash of {0} is 0")
	}
	if k.setHash(nil) != 0 {
		t.Error("setHash of the empty set is not 0")
	}
	seen := map[[2]uint64]int{}
	for n := 1; n < 300; n++ {
		set := make([]uint64, n)
		for i := range set {
			set[i] = r.Uint64N(1 << 20) // small values: many near-identical sets
		}
		set = slices.Compact(slices.Sorted(slices.Values(set)))
		a, b := k.setHashes(set)
		if h := k.setHash(set); h != a {
			t.Fatalf("%d elements: setHash %#x, setHashes' first %#x", n, h, a)
		}
		if h := setSum(set, k[2], k[3], 0xc2b2ae3d27d4eb4f); h != b {
			t.Fatalf("%d elements: setSum %#x, setHashes' second %#x", n, h, b)
		}
		r.Shuffle(len(set), func(i, j int) { set[i], set[j] = set[j], set[i] })
		if a2, b2 := k.setHashes(set); a2 != a || b2 != b {
			t.Fatalf("%d elements: the hashes depend on the order", n)
		}
		if prev, ok := seen[[2]uint64{a, b}]; ok {
			t.Fatalf("sets of %d and %d elements have the same hashes", prev, len(set))
		}
		seen[[2]uint64{a, b}] = len(set)
		// One element changed, one dropped, one added, and 0 added.
		for _, other := range [][]uint64{
			append(slices.Clone(set[1:]), set[0]^1),
			slices.Clone(set[1:]),
			append(slices.Clone(set), 1<<40),
			append(slices.Clone(set), 0),
		} {
			a2, b2 := k.setHashes(other)
			if a2 == a || b2 == b {
				t.Fatalf("%d elements: a set differing in one element agrees on a hash", n)
			}
		}
		if k2 := newSetKey(); k2 != k {
			if a2, b2 := k2.setHashes(set); a2 == a || b2 == b {
				t.Fatalf("%d elements: another key gives the same hash", n)
			}
		}
	}
}

// goldenText is sketched by TestSketchGolden under several Params.
const goldenText = "The quick brown fox jumps over the lazy dog; the quick brown fox!"

// TestSketchGolden pins everything an index stores or recomputes: the
// encoding of the parameters and its hash, the shingle set, the fingerprint,
// the signature, the band keys and, with idf weights, their sum. A change
// here means that indexes written before it would be misread: bump
// SketchVersion rather than edit the values.
func TestSketchGolden(t *testing.T) {
	bag2 := Params{Shingle: shingle.Options{N: 2, Bag: true}}
	tab := idf.Compute([][]uint64{mustSet(t, bag2, goldenText), mustSet(t, bag2, "the quick brown cat")})
	cases := []struct {
		p    Params
		want string
	}{
		{Params{}, "enc 4e44504101020003008001010000000000000000000000000000e03fae47e17a14aeef3f2303 hash 0x1be2220a1cdec217 " +
			"set 9 0xf194a174f59385c9 fp 0x8c505715921ede2d " +
			"sig [0x42e7645b 0x12951783 0x3bedd54d 0x1597525c 0xc6d032b 0x2ecfba88 0xc5257b7 0x1736b28b] 0x2efee21778fccb35 " +
			"keys 35 [0xaf1d2a16ce88484 0x9c5e0ea2ccc4a537 0xd75e77dcdc363ce4 0x6064915f5dc71f04] 0xd779b89b8fa5d44e wsum 0x0"},
		{Params{Shingle: shingle.Options{Mode: shingle.Char}, Slots: 64, Seed: 7, Threshold: 0.8},
			"enc 4e4450410102010500400700000000000000009a9999999999e93fae47e17a14aeef3f0c05 hash 0xd802d5152207a96c " +
				"set 45 0x931caa921c44120a fp 0x4e7191cc6f34fb7 " +
				"sig [0x9d6c2ae 0xa9430bb 0x51056fc 0xee23630 0xa3acee3 0x1d48c64 0x4f84ec4 0x13c4fa9] 0x24347a667df3be69 " +
				"keys 12 [0x3a63c81f581e8ac2 0xa43f2111761992cc 0x571f3d0d0f2c6615 0x17016c665f2fb9cf] 0x490b24112fe487d4 wsum 0x0"},
		{Params{Shingle: shingle.Options{N: 2, Bag: true}, Weight: WeightIDF},
			"enc 4e44504101020002018001010000000000000001000000000000e03fae47e17a14aeef3f2303 hash 0x945b75cdfcc55452 " +
				"set 12 0x8baba206ef5ae428 fp 0x7b7f54eedb303abf " +
				"sig [0x158302bc 0x1114e08f 0x118561fb 0x12ec00b4 0x33e35605 0x3be6bcc 0x92e2d31 0x36b7b3cc] 0xeb220790bb7ec217 " +
				"keys 35 [0x9e6b37c532232667 0xe459844265db3330 0x2b239a69b29f3f13 0x1c24ea68768af1db] 0xa6f1eccdb23b2428 wsum 0x40300dfd9cfdefcb"},
	}
	for i, c := range cases {
		sk, err := NewSketcher(c.p)
		if err != nil {
			t.Fatal(err)
		}
		var s Sketch
		sk.Sketch(&s, []byte(goldenText), tab) // tab is used only under WeightIDF
		keys := sk.AppendBandKeys(nil, s.Signature)
		enc, err := c.p.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprintf("enc %x hash %#x set %d %#x fp %#x sig %#x %#x keys %d %#x %#x wsum %#x", enc, c.p.Hash(),
			len(s.Set), sum64(s.Set), s.Fingerprint, s.Signature[:8], sum64(s.Signature), len(keys), keys[:4], sum64(keys),
			math.Float64bits(s.WeightSum))
		if got != c.want {
			t.Errorf("case %d (%v):\n got %s\nwant %s", i, c.p, got, c.want)
		}
	}
}

func mustSet(t *testing.T, p Params, text string) []uint64 {
	t.Helper()
	sk, err := NewSketcher(p)
	if err != nil {
		t.Fatal(err)
	}
	return sk.AppendSet(nil, []byte(text))
}

func TestSketchAllocs(t *testing.T) {
	if raceEnabled {
		// The race detector's sync.Pool drops a random quarter of the
		// scratch buffers put back; the count is checked without it.
		t.Skip("allocation count is not defined under the race detector")
	}
	sk, err := NewSketcher(Params{})
	if err != nil {
		t.Fatal(err)
	}
	text := []byte(goldenText + " " + goldenText)
	var s Sketch
	var keys []uint64
	sk.Sketch(&s, text, nil)
	keys = sk.AppendBandKeys(keys, s.Signature)
	if n := testing.AllocsPerRun(200, func() {
		sk.Sketch(&s, text, nil)
		keys = sk.AppendBandKeys(keys[:0], s.Signature)
	}); n != 0 {
		t.Errorf("Sketch + AppendBandKeys allocate %v times per document", n)
	}
}

// TestSketcherConcurrent shares one Sketcher between goroutines (for the
// race detector) and checks every sketch against a sequential one.
func TestSketcherConcurrent(t *testing.T) {
	docs := corpusDocs(t, 300, 80, 5)
	sk, err := NewSketcher(Params{})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]Sketch, len(docs))
	for i, d := range docs {
		sk.Sketch(&want[i], []byte(d), nil)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			var s Sketch
			for i := w; i < len(docs); i += 2 {
				sk.Sketch(&s, []byte(docs[i]), nil)
				if !slices.Equal(s.Set, want[i].Set) || !slices.Equal(s.Signature, want[i].Signature) || s.Fingerprint != want[i].Fingerprint {
					t.Errorf("document %d sketched differently on goroutine %d", i, w)
					return
				}
			}
		})
	}
	wg.Wait()
}

// refJaccard is the slow, obviously correct Jaccard: maps.
func refJaccard(a, b []uint64) float64 {
	in := map[uint64]bool{}
	for _, x := range a {
		in[x] = true
	}
	inter := 0
	for _, x := range b {
		if in[x] {
			inter++
		}
	}
	u := len(a) + len(b) - inter
	if u == 0 {
		return 0
	}
	return float64(inter) / float64(u)
}

// refWeighted is the slow weighted Jaccard with one global weight per element.
func refWeighted(a, b []uint64, w func(uint64) float64) float64 {
	in := map[uint64]bool{}
	var union, inter float64
	for _, x := range a {
		in[x] = true
		union += w(x)
	}
	for _, x := range b {
		if in[x] {
			inter += w(x)
		} else {
			union += w(x)
		}
	}
	if union == 0 {
		return 0
	}
	return inter / union
}

// TestVerifier checks Verify and Similarity against the slow references on
// generated near-duplicates, for plain, weighted and estimated similarity.
func TestVerifier(t *testing.T) {
	docs := corpusDocs(t, 400, 60, 17)
	docs = append(docs, docs[3], "", "x") // an identical copy, an empty and a one-token document
	for _, c := range []struct {
		p    Params
		mode Verify
	}{
		{Params{}, VerifyExact},
		{Params{Threshold: 0.3, Shingle: shingle.Options{N: 2}}, VerifyExact},
		{Params{Weight: WeightIDF, Threshold: 0.4}, VerifyExact},
		{Params{}, VerifyEstimate},
	} {
		sk, err := NewSketcher(c.p)
		if err != nil {
			t.Fatal(err)
		}
		v, err := NewVerifier(c.p, c.mode)
		if err != nil {
			t.Fatal(err)
		}
		sks := make([]Sketch, len(docs))
		for i, d := range docs {
			sk.Sketch(&sks[i], []byte(d), nil)
		}
		var tab *idf.Table
		if c.p.Weight == WeightIDF {
			sets := make([][]uint64, len(sks))
			for i := range sks {
				sets[i] = sks[i].Set
			}
			tab = idf.Compute(sets)
			for i := range sks {
				sk.Weigh(&sks[i], tab)
			}
		}
		matches := 0
		for i := range sks {
			for j := i + 1; j < len(sks); j++ {
				a, b := &sks[i], &sks[j]
				var want float64
				switch {
				case a.Empty() || b.Empty():
					want = 0
				case c.mode == VerifyEstimate:
					want = minhash.Estimate(a.Signature, b.Signature)
					if a.Fingerprint == b.Fingerprint {
						want = 1
					}
				case tab != nil:
					want = refWeighted(a.Set, b.Set, tab.Weight)
				default:
					want = refJaccard(a.Set, b.Set)
				}
				if got := v.Similarity(a, b); math.Abs(got-want) > 1e-12 {
					t.Fatalf("%v: Similarity(%d, %d) = %v, want %v", c.p, i, j, got, want)
				}
				jac, ok := v.Verify(a, b)
				if c.mode == VerifyEstimate {
					want = minhash.Estimate(a.Signature, b.Signature)
					if a.Empty() || b.Empty() {
						want = 0
					}
				}
				if ok != (want >= v.Threshold() && !a.Empty() && !b.Empty()) {
					t.Fatalf("%v: Verify(%d, %d) = %v, %v; reference similarity %v, threshold %v", c.p, i, j, jac, ok, want, v.Threshold())
				}
				if ok {
					matches++
					if math.Abs(jac-want) > 1e-12 {
						t.Fatalf("%v: Verify(%d, %d) = %v, want %v", c.p, i, j, jac, want)
					}
				}
			}
		}
		if matches < 20 {
			t.Errorf("%v: only %d matching pairs: the corpus does not exercise the verifier", c.p, matches)
		}
	}
}

// refClusters is the slow reference of Clusters: maps, plain loops, the
// documented rules written out.
func refClusters(docs []ClusterDoc, edges [][2]int, mode ClusterMode, keep Keep) []Group {
	n := len(docs)
	adj := map[int]map[int]bool{}
	link := func(a, b int) {
		if adj[a] == nil {
			adj[a] = map[int]bool{}
		}
		adj[a][b] = true
	}
	for _, e := range edges {
		a, b := docs[e[0]].Same, docs[e[1]].Same
		if a != b {
			link(a, b)
			link(b, a)
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	less := func(x, y int) bool {
		switch keep {
		case KeepLongest:
			if docs[x].Size != docs[y].Size {
				return docs[x].Size > docs[y].Size
			}
		case KeepShortest:
			if docs[x].Size != docs[y].Size {
				return docs[x].Size < docs[y].Size
			}
		}
		return docs[x].Seq < docs[y].Seq
	}
	slices.SortFunc(order, func(x, y int) int {
		if less(x, y) {
			return -1
		}
		return 1
	})
	owner := map[int]int{} // document -> representative
	if mode == ClusterStar {
		center := map[int]int{} // group -> center group
		repOf := map[int]int{}  // center group -> representative
		for _, d := range order {
			s := docs[d].Same
			if _, ok := center[s]; ok {
				continue
			}
			center[s] = s
			repOf[s] = d
			for nb := range adj[s] {
				if _, ok := center[nb]; !ok {
					center[nb] = s
				}
			}
		}
		for d := range docs {
			owner[d] = repOf[center[docs[d].Same]]
		}
	} else {
		comp := map[int]int{} // group -> component id (a group)
		var visit func(s, c int)
		visit = func(s, c int) {
			if _, ok := comp[s]; ok {
				return
			}
			comp[s] = c
			for nb := range adj[s] {
				visit(nb, c)
			}
		}
		for d := range docs {
			visit(docs[d].Same, docs[d].Same)
		}
		repOf := map[int]int{}
		for _, d := range order {
			if _, ok := repOf[comp[docs[d].Same]]; !ok {
				repOf[comp[docs[d].Same]] = d
			}
		}
		for d := range docs {
			owner[d] = repOf[comp[docs[d].Same]]
		}
	}
	byRep := map[int][]int{}
	for d, r := range owner {
		byRep[r] = append(byRep[r], d)
	}
	var out []Group
	for r, ms := range byRep {
		if len(ms) < 2 {
			continue
		}
		slices.SortFunc(ms, func(x, y int) int { return int(docs[x].Seq) - int(docs[y].Seq) })
		out = append(out, Group{Representative: r, Members: ms})
	}
	slices.SortFunc(out, func(x, y Group) int { return int(docs[x.Members[0]].Seq) - int(docs[y.Members[0]].Seq) })
	return out
}

func TestClustersAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for iter := range 300 {
		n := 1 + rng.IntN(40)
		docs := make([]ClusterDoc, n)
		seqs := rng.Perm(10 * n)[:n] // distinct, not in index order
		if iter%2 == 0 {
			slices.Sort(seqs) // index order: keep first walks the groups in ascending order
		}
		for i := range docs {
			docs[i] = ClusterDoc{Seq: uint64(seqs[i]), Size: int64(rng.IntN(4)), Same: i}
		}
		for i := 1; i < n; i++ { // some identical groups, each named by its first member
			if h := rng.IntN(i); rng.IntN(4) == 0 && docs[h].Same == h {
				docs[i].Same = h
			}
		}
		var edges [][2]int
		for range rng.IntN(2 * n) {
			edges = append(edges, [2]int{rng.IntN(n), rng.IntN(n)})
		}
		if iter%4 == 0 {
			// Sorted by their smaller group, as Batch's pairs are: star
			// clusters then come from one pass over the edges
			// (cluster.StarSorted), which must give the same clusters.
			lo := func(e [2]int) int { return min(docs[e[0]].Same, docs[e[1]].Same) }
			slices.SortStableFunc(edges, func(x, y [2]int) int { return lo(x) - lo(y) })
		}
		for _, mode := range []ClusterMode{ClusterStar, ClusterComponents} {
			for _, keep := range []Keep{KeepFirst, KeepLongest, KeepShortest} {
				got, err := Clusters(docs, edges, mode, keep)
				if err != nil {
					t.Fatal(err)
				}
				want := refClusters(docs, edges, mode, keep)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("iter %d, %v, keep %v:\ndocs %v\nedges %v\n got %v\nwant %v", iter, mode, keep, docs, edges, got, want)
				}
				// Reversing the edges changes nothing.
				rev := slices.Clone(edges)
				slices.Reverse(rev)
				if again, _ := Clusters(docs, rev, mode, keep); fmt.Sprint(again) != fmt.Sprint(got) {
					t.Fatalf("iter %d: clusters depend on the order of edges", iter)
				}
			}
		}
	}
}

func TestClustersErrors(t *testing.T) {
	docs := []ClusterDoc{{Seq: 0, Same: 0}, {Seq: 1, Same: 0}, {Seq: 2, Same: 2}}
	for _, c := range []struct {
		docs  []ClusterDoc
		edges [][2]int
	}{
		{docs, [][2]int{{0, 3}}},
		{docs, [][2]int{{-1, 0}}},
		{[]ClusterDoc{{Same: 1}, {Same: 0}}, nil}, // Same names a document that names another
		{[]ClusterDoc{{Same: 5}}, nil},
	} {
		if _, err := Clusters(c.docs, c.edges, ClusterStar, KeepFirst); !errors.Is(err, ErrInvalid) {
			t.Errorf("Clusters(%v, %v): %v, want ErrInvalid", c.docs, c.edges, err)
		}
	}
	if _, err := Clusters(docs, nil, 7, KeepFirst); !errors.Is(err, ErrInvalid) {
		t.Errorf("Clusters with mode 7: %v, want ErrInvalid", err)
	}
	got, err := Clusters(docs, nil, ClusterStar, KeepFirst)
	if err != nil || len(got) != 1 || !slices.Equal(got[0].Members, []int{0, 1}) {
		t.Errorf("identical pair without an edge: %v, %v", got, err)
	}
}

// expandPairs is the reference of AllPairs: all pairs of documents whose
// canonical documents are equal or are a verified compact pair.
func expandPairs(res *Result, n int) []Pair {
	jac := map[[2]int]float64{}
	for _, p := range res.Pairs {
		if res.Canonical(p.B) == p.B {
			jac[[2]int{p.A, p.B}] = p.Jaccard
		}
	}
	var out []Pair
	for a := range n {
		for b := a + 1; b < n; b++ {
			ca, cb := res.Canonical(a), res.Canonical(b)
			if ca == cb && res.Stats.Documents > 0 {
				if res.v.counts[a] > 0 {
					out = append(out, Pair{A: a, B: b, Jaccard: 1})
				}
				continue
			}
			if j, ok := jac[[2]int{min(ca, cb), max(ca, cb)}]; ok {
				out = append(out, Pair{A: a, B: b, Jaccard: j})
			}
		}
	}
	return out
}

func TestAllPairs(t *testing.T) {
	docs := corpusDocs(t, 300, 50, 31)
	// Groups of identical documents, copies of near-duplicates, empties.
	docs = append(docs, docs[5], docs[5], docs[7], "", "", docs[5])
	for i := range 20 {
		docs = append(docs, docs[i%4])
	}
	for _, o := range []Options{{}, {Refine: RefineEdit}, {Verify: VerifyEstimate}} {
		b, res := runBatch(t, o, docs)
		var got []Pair
		for p := range res.AllPairs() {
			got = append(got, p)
		}
		want := expandPairs(res, len(docs))
		if len(got) != len(want) || len(got) != res.Stats.Pairs {
			t.Fatalf("%+v: AllPairs gave %d pairs, reference %d, Stats.Pairs %d", o, len(got), len(want), res.Stats.Pairs)
		}
		// PairLister's ranges, produced concurrently, give the same pairs,
		// with its indexes built in one part or several.
		for _, part := range []int{listerPart, 1, 7} {
			checkLister(t, o, res, len(docs), got, part)
		}
		sh, _ := shingle.New(b.Options().Shingle)
		var es editdist.Scratch
		for i := range got {
			g, w := got[i], want[i]
			if g.A != w.A || g.B != w.B || g.Jaccard != w.Jaccard {
				t.Fatalf("%+v: pair %d = %+v, want %+v", o, i, g, w)
			}
			if o.Refine == RefineEdit {
				ta := sh.AppendTokens(nil, []byte(docs[g.A]))
				tb := sh.AppendTokens(nil, []byte(docs[g.B]))
				if e := es.Similarity(ta, tb); g.Edit != e {
					t.Fatalf("pair %d: edit %v, want %v", i, g.Edit, e)
				}
			}
		}
		// Under exact verification, every pair is a true pair with its exact Jaccard.
		if o.Verify == VerifyExact {
			for _, p := range got {
				if j := refJaccard(mustSet(t, b.Options().Params, docs[p.A]), mustSet(t, b.Options().Params, docs[p.B])); j != p.Jaccard || j < b.Options().Threshold {
					t.Fatalf("pair %+v: exact Jaccard %v", p, j)
				}
			}
		}
		// Stopping early is honoured.
		k := 0
		for range res.AllPairs() {
			k++
			if k == 3 {
				break
			}
		}
	}
}

func TestDuplicateIDs(t *testing.T) {
	b, err := NewBatch(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"a", "b", "a", "c", "b", "a", "d", "a"} {
		if err := b.Add(id, []byte(fmt.Sprintf("text %d of id %s", i, id))); err != nil {
			t.Fatal(err)
		}
	}
	n, ex := b.DuplicateIDs(5)
	if n != 4 || len(ex) != 2 || ex[0].ID != "a" || ex[0].Count != 4 || !slices.Equal(ex[0].Docs, []int{0, 2, 5, 7}) ||
		ex[1].ID != "b" || !slices.Equal(ex[1].Docs, []int{1, 4}) {
		t.Fatalf("DuplicateIDs = %d, %+v", n, ex)
	}
	if _, ex := b.DuplicateIDs(1); len(ex) != 1 {
		t.Errorf("DuplicateIDs(1) gave %d examples", len(ex))
	}
	res, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.DuplicateIDs != 4 || len(res.DuplicateIDs) != 2 {
		t.Errorf("Stats.DuplicateIDs = %d, %d examples", res.Stats.DuplicateIDs, len(res.DuplicateIDs))
	}

	b, _ = NewBatch(Options{StrictIDs: true})
	b.Add("x", []byte("one two three"))
	b.Add("x", []byte("four five six"))
	if _, err := b.Run(context.Background()); !errors.Is(err, ErrDuplicateID) {
		t.Errorf("Run with StrictIDs and a repeated id: %v, want ErrDuplicateID", err)
	}
}

// TestCloseWithoutRun: a Batch that is abandoned after Add stops its
// goroutines on Close, and refuses further use.
func TestCloseWithoutRun(t *testing.T) {
	before := runtime.NumGoroutine()
	b, err := NewBatch(Options{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("NewBatch started %d goroutines before any Add", g-before)
	}
	for i := range 2000 {
		b.Add(fmt.Sprint(i), []byte("some words to shingle here and there"))
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines left after Close", g-before)
	}
	if err := b.Add("x", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Add after Close: %v, want ErrClosed", err)
	}
	if _, err := b.Run(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close: %v, want ErrClosed", err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestResultSimilarity(t *testing.T) {
	docs := corpusDocs(t, 120, 40, 41)
	for _, o := range []Options{{}, {Params: Params{Weight: WeightIDF}}} {
		b, res := runBatch(t, o, docs)
		p := b.Options().Params
		sk, _ := NewSketcher(p)
		sets := make([][]uint64, len(docs))
		for i, d := range docs {
			sets[i] = sk.AppendSet(nil, []byte(d))
		}
		var tab *idf.Table
		if p.Weight == WeightIDF {
			// idf over the distinct non-empty sets, as Batch computes it.
			var distinct [][]uint64
			seen := map[string]bool{}
			for _, s := range sets {
				if k := fmt.Sprint(s); len(s) > 0 && !seen[k] {
					seen[k] = true
					distinct = append(distinct, s)
				}
			}
			tab = idf.Compute(distinct)
		}
		for range 500 {
			a, c := rand.IntN(len(docs)), rand.IntN(len(docs))
			want := refJaccard(sets[a], sets[c])
			if tab != nil {
				want = refWeighted(sets[a], sets[c], tab.Weight)
			}
			if a == c || slices.Equal(sets[a], sets[c]) {
				want = 1
			}
			if got := res.Similarity(a, c); math.Abs(got-want) > 1e-12 {
				t.Fatalf("%v: Similarity(%d, %d) = %v, want %v", p.Weight, a, c, got, want)
			}
		}
	}
}

func TestParamsEncoding(t *testing.T) {
	ps := []Params{
		{},
		{Shingle: shingle.Options{Mode: shingle.Char, N: 7, Bag: true}, Slots: 256, Seed: 99, Weight: WeightIDF, Threshold: 0.8, Recall: 0.95},
		{Slots: 64, LSH: lsh.Params{Bands: 10, Rows: 6}},
	}
	for _, p := range ps {
		enc, err := p.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var q Params
		if err := q.UnmarshalBinary(enc); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		r, _ := p.Resolve()
		if q != r {
			t.Fatalf("round trip: %+v, want %+v", q, r)
		}
		if err := r.Compatible(p); err != nil {
			t.Fatalf("Compatible with itself: %v", err)
		}
		if q.Hash() != p.Hash() || q.Hash() == 0 {
			t.Fatalf("hash %#x vs %#x", q.Hash(), p.Hash())
		}
		// Every truncation and the wrong magic are corrupt.
		for k := range enc {
			if err := q.UnmarshalBinary(enc[:k]); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("truncated to %d bytes: %v, want ErrCorrupt", k, err)
			}
		}
		if err := q.UnmarshalBinary(append(slices.Clone(enc), 0)); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("trailing byte: %v, want ErrCorrupt", err)
		}
		other := slices.Clone(enc)
		other[5]++ // the sketch version
		if err := q.UnmarshalBinary(other); !errors.Is(err, ErrVersion) {
			t.Fatalf("other sketch version: %v, want ErrVersion", err)
		}
		other[5]--
		other[4]++ // the encoding version
		if err := q.UnmarshalBinary(other); !errors.Is(err, ErrVersion) {
			t.Fatalf("other encoding version: %v, want ErrVersion", err)
		}
	}
	if _, err := (Params{Threshold: 2}).AppendBinary(nil); !errors.Is(err, ErrOptions) {
		t.Errorf("AppendBinary of an invalid threshold: %v", err)
	}
	base := Params{}
	for _, q := range []Params{
		{Shingle: shingle.Options{N: 4}},
		{Shingle: shingle.Options{Mode: shingle.Char}},
		{Shingle: shingle.Options{Bag: true}},
		{Slots: 64},
		{Seed: 2},
		{Weight: WeightIDF},
		{LSH: lsh.Params{Bands: 20, Rows: 4}},
		{Threshold: 0.7, LSH: lsh.Params{Bands: 35, Rows: 3}},
	} {
		if err := base.Compatible(q); !errors.Is(err, ErrIncompatible) {
			t.Errorf("Compatible(%+v): %v, want ErrIncompatible", q, err)
		}
	}
	// Recall only chooses bands and rows: the same bands, another recall.
	if err := base.Compatible(Params{Recall: 0.9905}); err != nil {
		t.Errorf("another recall with the same bands: %v", err)
	}
}

func FuzzParamsDecode(f *testing.F) {
	for _, p := range []Params{{}, {Shingle: shingle.Options{Mode: shingle.Char, Bag: true}, Weight: WeightIDF}} {
		enc, _ := p.MarshalBinary()
		f.Add(enc)
	}
	f.Add([]byte("NDPA"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p Params
		err := p.UnmarshalBinary(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) && !errors.Is(err, ErrOptions) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			return
		}
		enc, err := p.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded %+v does not encode: %v", p, err)
		}
		var q Params
		if err := q.UnmarshalBinary(enc); err != nil || q != p {
			t.Fatalf("re-decode: %+v, %v; want %+v", q, err, p)
		}
	})
}

// TestVerifierMinOverlapTable: the Verifier's table of shingle.MinOverlap
// by size sum gives MinOverlap's own answer for every pair of sizes, at
// thresholds from 0.05 to 1, in the table and past it.
func TestVerifierMinOverlapTable(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, th := range []float64{0.05, 0.3, 1.0 / 3, 0.5, 0.7, 0.85, 0.99, 1} {
		v, err := NewVerifier(Params{Threshold: th}, VerifyExact)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.need) != needSums {
			t.Fatalf("t=%v: no table", th)
		}
		check := func(na, nb int) {
			if got, want := v.minOverlap(na, nb), shingle.MinOverlap(na, nb, th); got != want {
				t.Fatalf("t=%v: minOverlap(%d, %d) = %d, want %d", th, na, nb, got, want)
			}
		}
		for na := range 300 {
			for nb := range 300 {
				check(na, nb)
			}
		}
		for range 20000 {
			check(r.IntN(2*needSums), r.IntN(2*needSums))
		}
	}
	if v, _ := NewVerifier(Params{Threshold: 0.5}, VerifyEstimate); v.need != nil {
		t.Error("a table under VerifyEstimate, which has no bitmaps")
	}
}

// TestSizesBitmapsRow: the test of one document against a row of others
// gives what the test of each pair gives (sizes from 0, so empty sets and
// sizes too far apart are in), with and without the threshold's table.
func TestSizesBitmapsRow(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	const n = 200
	bms := make([]shingle.Bitmap, n)
	sizes := make([]int32, n)
	for i := range bms {
		set := make([]uint64, r.IntN(400))
		base := r.Uint64() & (1<<63 - 1) // shared elements make bounds pass
		for k := range set {
			set[k] = r.Uint64()
			if r.IntN(3) > 0 {
				set[k] = base + uint64(k)<<54
			}
		}
		set = slices.Compact(slices.Sorted(slices.Values(set)))
		bms[i].Add(set)
		sizes[i] = int32(len(set))
		if i%4 == 0 {
			// Sizes whose sums straddle the end of the table (the
			// bounds take the sizes as given).
			sizes[i] = int32(needSums/2 - 40 + r.IntN(80))
		}
	}
	for _, th := range []float64{0.05, 0.3, 0.5, 0.9, 1} {
		v, err := NewVerifier(Params{Threshold: th}, VerifyExact)
		if err != nil {
			t.Fatal(err)
		}
		loop := *v
		loop.need = nil
		passed := 0
		var bound []int32
		for _, ver := range []*Verifier{v, &loop} {
			for x := range n {
				ys := make([]int32, r.IntN(n))
				for i := range ys {
					ys[i] = int32(r.IntN(n))
				}
				ok := make([]bool, len(ys))
				for i := range ok {
					ok[i] = r.IntN(2) == 0 // overwritten
				}
				bound = ver.sizesBitmapsRow(ok, int(sizes[x]), &bms[x], ys, sizes, bms, bound)
				for i, y := range ys {
					want := ver.sizesBitmapsOK(int(sizes[x]), int(sizes[y]), &bms[x], &bms[y])
					if ok[i] != want {
						t.Fatalf("t=%v: %d against %d: %v, pair by pair %v", th, x, y, ok[i], want)
					}
					if want {
						passed++
					}
				}
			}
		}
		if passed == 0 {
			t.Errorf("t=%v: no pair passed: the test checks only rejections", th)
		}
	}
}

// BenchmarkBitmapOK is the size and bitmap test of a pair as the
// pre-filter runs it (sizesBitmapsOK: the length filter, then
// shingle.MaxIntersection and the overlap the threshold needs, from the
// Verifier's table or from shingle.MinOverlap's loop).
func BenchmarkBitmapOK(b *testing.B) {
	v, err := NewVerifier(Params{Threshold: 0.5}, VerifyExact)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(33, 34))
	var bits [64]shingle.Bitmap
	var sk [64]Sketch
	for i := range bits {
		set := make([]uint64, 150+r.IntN(200))
		for k := range set {
			set[k] = r.Uint64()
		}
		bits[i].Add(set)
		sk[i].Size = len(set)
	}
	loop := *v
	loop.need = nil // shingle.MinOverlap for every pair
	for _, c := range []struct {
		name string
		v    *Verifier
	}{{"table", v}, {"loop", &loop}} {
		b.Run(c.name, func(b *testing.B) {
			n := 0
			for i := 0; b.Loop(); i++ {
				x, y := i%64, (i*7+3)%64
				if c.v.sizesBitmapsOK(sk[x].Size, sk[y].Size, &bits[x], &bits[y]) {
					n++
				}
			}
			_ = n
		})
	}
	// A row of 63 partners at once (sizesBitmapsRow), as the large
	// buckets test them; ns/op is per pair.
	b.Run("row", func(b *testing.B) {
		sizes := make([]int32, len(sk))
		for i := range sk {
			sizes[i] = int32(sk[i].Size)
		}
		ys := make([]int32, 63)
		ok := make([]bool, len(ys))
		var bound []int32
		for i := 0; b.Loop(); i++ {
			x := i % 64
			for k := range ys {
				ys[k] = int32((x + 1 + k) % 64)
			}
			bound = v.sizesBitmapsRow(ok, sk[x].Size, &bits[x], ys, sizes, bits[:], bound)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ys)), "ns/pair")
	})
}

// checkLister checks that PairLister's ranges of a result of n documents,
// produced concurrently, give the pairs want (AllPairs'), with its indexes
// built in parts of at least part pairs on 5 processors.
func checkLister(t *testing.T, o Options, res *Result, n int, want []Pair, part int) {
	t.Helper()
	defer func(p, procs int) { listerPart = p; runtime.GOMAXPROCS(procs) }(listerPart, runtime.GOMAXPROCS(5))
	listerPart = part
	l := res.PairLister()
	if l.Documents() != n {
		t.Fatalf("PairLister.Documents() = %d, want %d", l.Documents(), n)
	}
	for _, step := range []int{1, 7, 100} {
		parts := make([][]Pair, (n+step-1)/step)
		var wg sync.WaitGroup
		for k := range parts {
			wg.Go(func() {
				for p := range l.Range(k*step, min((k+1)*step, n)) {
					parts[k] = append(parts[k], p)
				}
			})
		}
		wg.Wait()
		if all := slices.Concat(parts...); !slices.Equal(all, want) {
			t.Fatalf("%+v, parts of %d pairs: PairLister ranges of %d gave %d pairs, not AllPairs' %d", o, part, step, len(all), len(want))
		}
	}
}

func BenchmarkSetHashes(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	set := make([]uint64, 250)
	for i := range set {
		set[i] = r.Uint64()
	}
	k := newSetKey()
	var sink uint64
	for b.Loop() {
		a, c := k.setHashes(set)
		sink += a ^ c
	}
	_ = sink
}
