package neardup

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/gen"
)

// window returns the words w<lo> ... w<hi-1>.
func window(lo, hi int) string {
	var s []string
	for i := lo; i < hi; i++ {
		s = append(s, fmt.Sprintf("w%d", i))
	}
	return strings.Join(s, " ")
}

// chainDocs returns d0..d9, windows of 100 words shifted by 25: consecutive
// documents have word 3-gram Jaccard 73/123 = 0.593, documents two apart
// 48/148 = 0.324, and d0, d9 share nothing.
func chainDocs() []string {
	var docs []string
	for i := range 10 {
		docs = append(docs, window(25*i, 25*i+100))
	}
	return docs
}

// checkClusters checks what holds in both modes: clusters partition a subset
// of the documents, each has two or more members in document order, its
// representative among them, member similarities exact, Dup and Stats
// consistent. Under star it also checks the invariant: every member is at or
// above the threshold with the representative and is a verified neighbour of
// it or has the same set as the representative or as such a neighbour.
func checkClusters(t *testing.T, b *Batch, res *Result, docs []string) {
	t.Helper()
	o := b.Options()
	_, sets := exactPairs(t, o.Shingle, docs, 1)
	// canon[d]: the earliest document with d's set; adj: verified pairs
	// between sets.
	canon := make([]int, len(docs))
	firstOf := map[string]int{}
	for d, s := range sets {
		k := fmt.Sprint(s)
		if _, ok := firstOf[k]; !ok {
			firstOf[k] = d
		}
		canon[d] = firstOf[k]
	}
	adj := map[[2]int]bool{}
	for _, p := range res.Pairs {
		a, b := canon[p.A], canon[p.B]
		adj[[2]int{a, b}], adj[[2]int{b, a}] = true, true
	}
	owner := map[int]int{}
	dups, review := 0, 0
	for ci, c := range res.Clusters {
		if c.ID != ci+1 || len(c.Members) < 2 {
			t.Fatalf("cluster %d: id %d, %d members", ci, c.ID, len(c.Members))
		}
		if ci > 0 && res.Clusters[ci-1].Members[0].Doc >= c.Members[0].Doc {
			t.Fatalf("clusters %d, %d not ordered by earliest document", ci, ci+1)
		}
		hasRep := false
		for mi, m := range c.Members {
			if mi > 0 && c.Members[mi-1].Doc >= m.Doc {
				t.Fatalf("cluster %d: members not ascending", c.ID)
			}
			if prev, ok := owner[m.Doc]; ok {
				t.Fatalf("document %d in clusters %d and %d", m.Doc, prev, c.ID)
			}
			owner[m.Doc] = c.ID
			hasRep = hasRep || m.Doc == c.Representative
			want := shingleJaccard(sets[m.Doc], sets[c.Representative])
			if m.Jaccard != want {
				t.Fatalf("cluster %d: member %d J=%v, want %v", c.ID, m.Doc, m.Jaccard, want)
			}
			if res.Dup[m.Doc] != (!c.Review && m.Doc != c.Representative) {
				t.Fatalf("cluster %d: Dup[%d] = %v (review %v)", c.ID, m.Doc, res.Dup[m.Doc], c.Review)
			}
			if o.Cluster != ClusterStar || m.Doc == c.Representative {
				continue
			}
			if m.Jaccard < o.Threshold {
				t.Fatalf("star cluster %d: member %d has J=%v < %v with representative %d", c.ID, m.Doc, m.Jaccard, o.Threshold, c.Representative)
			}
			if a, r := canon[m.Doc], canon[c.Representative]; a != r && !adj[[2]int{a, r}] {
				t.Fatalf("star cluster %d: member %d is not a neighbour of representative %d nor a copy of one", c.ID, m.Doc, c.Representative)
			}
		}
		if !hasRep {
			t.Fatalf("cluster %d: representative %d not a member", c.ID, c.Representative)
		}
		if c.Review {
			review++
		} else {
			dups += len(c.Members) - 1
		}
	}
	for d, dup := range res.Dup {
		if _, ok := owner[d]; dup && !ok {
			t.Fatalf("Dup[%d] set outside any cluster", d)
		}
	}
	// Every pair lies within one cluster (components) or, under star, no
	// unclustered document has a verified pair with another unclustered one.
	for _, p := range res.Pairs {
		ca, okA := owner[p.A]
		cb, okB := owner[p.B]
		if o.Cluster == ClusterComponents && (!okA || ca != cb) {
			t.Fatalf("pair %v split across clusters", p)
		}
		if !okA && !okB {
			t.Fatalf("pair %v left out of every cluster", p)
		}
	}
	if st := res.Stats; st.Clusters != len(res.Clusters) || st.Duplicates != dups || st.Review != review {
		t.Fatalf("stats %+v: want %d clusters, %d duplicates, %d review", st, len(res.Clusters), dups, review)
	}
}

func shingleJaccard(a, b []uint64) float64 {
	if reflect.DeepEqual(a, b) {
		return 1
	}
	i, j, inter := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			inter++
			i++
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// modeNumbers are what TestClusterModeNumbers reports per mode.
type modeNumbers struct {
	clusters, largest, members, below int
}

func numbers(res *Result, th float64) modeNumbers {
	var m modeNumbers
	m.clusters = len(res.Clusters)
	for _, c := range res.Clusters {
		m.largest = max(m.largest, len(c.Members))
		m.members += len(c.Members) - 1
		m.below += c.Below(th)
	}
	return m
}

func (m modeNumbers) String() string {
	return fmt.Sprintf("%d clusters, largest %d, %d of %d non-representative members below t (%.0f%%)",
		m.clusters, m.largest, m.below, m.members, 100*float64(m.below)/float64(max(m.members, 1)))
}

func TestStarChain(t *testing.T) {
	docs := chainDocs()
	for _, mode := range []ClusterMode{ClusterComponents, ClusterStar} {
		b, res := runBatch(t, Options{Cluster: mode}, docs)
		checkClusters(t, b, res, docs)
		if len(res.Pairs) != 9 {
			t.Fatalf("%v: pairs %v, want the 9 consecutive ones", mode, res.Pairs)
		}
		for _, p := range res.Pairs {
			if p.B != p.A+1 || p.Jaccard != 73.0/123 {
				t.Fatalf("pair %+v, want consecutive at 73/123", p)
			}
		}
		got := numbers(res, 0.5)
		t.Logf("%v: %v", mode, got)
		switch mode {
		case ClusterComponents:
			if got != (modeNumbers{clusters: 1, largest: 10, members: 9, below: 8}) {
				t.Errorf("components: %+v", got)
			}
			c := res.Clusters[0]
			if c.MinJaccard() != 0 || c.Below(0.5) != 8 || res.Stats.BelowClusters != 1 {
				t.Errorf("components: min %v, below %d, stats %d", c.MinJaccard(), c.Below(0.5), res.Stats.BelowClusters)
			}
		case ClusterStar:
			// d0 takes d1, d2 takes d3, ...
			if got != (modeNumbers{clusters: 5, largest: 2, members: 5, below: 0}) || res.Stats.BelowClusters != 0 {
				t.Errorf("star: %+v", got)
			}
			for i, c := range res.Clusters {
				if c.Representative != 2*i || c.Members[1].Doc != 2*i+1 || c.MinJaccard() != 73.0/123 {
					t.Errorf("star cluster %+v", c)
				}
			}
		}
	}
	// keep longest: d1, padded with punctuation (same set), comes first and
	// takes d0 and d2.
	docs[1] += strings.Repeat(".", 400)
	_, res := runBatch(t, Options{Cluster: ClusterStar, Keep: KeepLongest}, docs)
	if c := res.Clusters[0]; c.Representative != 1 || len(c.Members) != 3 {
		t.Errorf("keep longest: first cluster %+v, want d1 with d0 and d2", c)
	}
}

// TestStarIdentical: copies of a center and of its neighbours join its star,
// and the representative is the copy --keep prefers.
func TestStarIdentical(t *testing.T) {
	x, y, z := window(0, 100), window(20, 120), window(40, 140) // J(x,y)=J(y,z)=0.67, J(x,z)=0.42
	docs := []string{
		x,            // 0
		z,            // 1
		y + "!",      // 2: y's earliest copy
		"  " + x,     // 3: copy of x, longer
		y,            // 4
		window(0, 5), // 5: unrelated
		z + " ...",   // 6: copy of z, longest
	}
	b, res := runBatch(t, Options{Cluster: ClusterStar}, docs)
	checkClusters(t, b, res, docs)
	// first: x (0) takes its copy 3 and y (2, 4); z and its copy form a star.
	want := []Cluster{
		{ID: 1, Representative: 0, Members: []Member{{Doc: 0, Jaccard: 1}, {Doc: 2, Jaccard: 2.0 / 3}, {Doc: 3, Jaccard: 1}, {Doc: 4, Jaccard: 2.0 / 3}}},
		{ID: 2, Representative: 1, Members: []Member{{Doc: 1, Jaccard: 1}, {Doc: 6, Jaccard: 1}}},
	}
	for i := range want {
		for j := range want[i].Members {
			want[i].Members[j].Jaccard = res.Clusters[i].Members[j].Jaccard // checked by checkClusters
		}
	}
	if !reflect.DeepEqual(res.Clusters, want) {
		t.Errorf("keep first: clusters %+v\nwant %+v", res.Clusters, want)
	}
	// longest: z's copy 6 is longest, takes z and y (2, 4); x and its copy 3
	// remain, with 3 (longer) as representative.
	b, res = runBatch(t, Options{Cluster: ClusterStar, Keep: KeepLongest}, docs)
	checkClusters(t, b, res, docs)
	if len(res.Clusters) != 2 || res.Clusters[0].Representative != 3 || len(res.Clusters[0].Members) != 2 ||
		res.Clusters[1].Representative != 6 || len(res.Clusters[1].Members) != 4 {
		t.Errorf("keep longest: clusters %+v", res.Clusters)
	}
}

func genDocs(t *testing.T, ads bool, c gen.Config) []string {
	t.Helper()
	var docs []string
	fn := func(i int, d gen.Doc) error {
		docs = append(docs, d.Title+"\n"+d.Text)
		return nil
	}
	var err error
	if ads {
		err = gen.GenerateAds(c, fn)
	} else {
		err = gen.Generate(c, fn)
	}
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func TestStarInvariantGenerated(t *testing.T) {
	// The clusters are made on every worker, a few at a time.
	defer func(n int) { groupChunk = n }(groupChunk)
	groupChunk = 2
	corpora := []struct {
		name string
		docs []string
	}{
		{"gen", genDocs(t, false, gen.Config{Docs: 3000, Seed: 7, MeanWords: 120, DupRate: 0.5, ChainRate: 0.8})},
		{"ads", genDocs(t, true, gen.Config{Docs: 3000, Seed: 7})},
	}
	for _, c := range corpora {
		for _, keep := range []Keep{KeepFirst, KeepLongest, KeepShortest} {
			for _, mode := range []ClusterMode{ClusterComponents, ClusterStar} {
				b, res := runBatch(t, Options{Cluster: mode, Keep: keep}, c.docs)
				if len(res.Clusters) < 50 {
					t.Fatalf("%s: %d clusters: the test would prove little", c.name, len(res.Clusters))
				}
				checkClusters(t, b, res, c.docs)
				if mode == ClusterStar && res.Stats.BelowClusters != 0 {
					t.Errorf("%s keep %v: %d star clusters with members below t", c.name, keep, res.Stats.BelowClusters)
				}
			}
		}
	}
}

func TestStarDeterministicAcrossWorkers(t *testing.T) {
	docs := genDocs(t, false, gen.Config{Docs: 2000, Seed: 3, MeanWords: 80, DupRate: 0.5, ChainRate: 0.8})
	for _, keep := range []Keep{KeepFirst, KeepLongest} {
		_, want := runBatch(t, Options{Cluster: ClusterStar, Keep: keep, Workers: 1}, docs)
		for _, w := range []int{2, 3, 8} {
			// Clusters made on every worker, a few at a time.
			defer func(n int) { groupChunk = n }(groupChunk)
			groupChunk = 1 + w%3
			_, got := runBatch(t, Options{Cluster: ClusterStar, Keep: keep, Workers: w}, docs)
			if !reflect.DeepEqual(got.Clusters, want.Clusters) || !reflect.DeepEqual(got.Dup, want.Dup) {
				t.Errorf("keep %v, workers=%d: clusters differ", keep, w)
			}
			counts := func(s Stats) [4]int { return [4]int{s.Clusters, s.Duplicates, s.LargestCluster, s.BelowClusters} }
			if a, b := counts(got.Stats), counts(want.Stats); a != b {
				t.Errorf("keep %v, workers=%d: clusters, duplicates, largest, below %v, want %v", keep, w, a, b)
			}
		}
	}
}

func TestMaxCluster(t *testing.T) {
	docs := append(chainDocs(), "alpha beta gamma delta", "alpha beta gamma delta")
	for _, mode := range []ClusterMode{ClusterComponents, ClusterStar} {
		b, res := runBatch(t, Options{Cluster: mode, MaxCluster: 3}, docs)
		checkClusters(t, b, res, docs)
		st := res.Stats
		switch mode {
		case ClusterComponents:
			// the chain (10) is set aside, the pair (10, 11) is deduplicated.
			if len(res.Clusters) != 2 || !res.Clusters[0].Review || res.Clusters[1].Review ||
				st.Review != 1 || st.ReviewDocs != 10 || st.Duplicates != 1 || st.LargestCluster != 10 {
				t.Errorf("components: clusters %+v, stats %+v", res.Clusters, st)
			}
			for d := range 10 {
				if res.Dup[d] {
					t.Errorf("document %d of a review cluster dropped", d)
				}
			}
			if !res.Dup[11] {
				t.Errorf("copy 11 kept")
			}
		case ClusterStar:
			if st.Review != 0 || st.Duplicates != 6 {
				t.Errorf("star: stats %+v", st)
			}
		}
	}
}

// TestClusterModeNumbers checks the figures the ClusterMode doc comment
// reports: if clustering changes them, the documentation must change too.
func TestClusterModeNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("20,000-document corpora")
	}
	corpora := []struct {
		name             string
		docs             []string
		components, star modeNumbers // clusters, largest, members, below t
	}{
		{"explicit chain d0..d9", chainDocs(), modeNumbers{1, 10, 9, 8}, modeNumbers{5, 2, 5, 0}},
		{"gen 20000 docs (defaults)", genDocs(t, false, gen.Config{Docs: 20000, Seed: 1}),
			modeNumbers{2012, 86, 5088, 1217}, modeNumbers{2332, 67, 4566, 0}},
		{"gen 20000 docs, DupRate 0.5, ChainRate 0.8", genDocs(t, false, gen.Config{Docs: 20000, Seed: 1, DupRate: 0.5, ChainRate: 0.8}),
			modeNumbers{1248, 197, 9792, 5948}, modeNumbers{2975, 86, 7615, 0}},
		{"ads 20000", genDocs(t, true, gen.Config{Docs: 20000, Seed: 1}),
			modeNumbers{2550, 106, 7018, 661}, modeNumbers{2698, 69, 6687, 0}},
	}
	for _, c := range corpora {
		for _, mode := range []ClusterMode{ClusterComponents, ClusterStar} {
			_, res := runBatch(t, Options{Cluster: mode}, c.docs)
			got, want := numbers(res, 0.5), c.star
			if mode == ClusterComponents {
				want = c.components
			}
			if got != want {
				t.Errorf("%s, %v: %v; the ClusterMode doc says %v", c.name, mode, got, want)
			}
			if got.members != res.Stats.Duplicates {
				t.Errorf("%s, %v: %d members, Stats.Duplicates %d", c.name, mode, got.members, res.Stats.Duplicates)
			}
		}
	}
}
