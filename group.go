package neardup

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/neardup/neardup/cluster"
	"github.com/neardup/neardup/internal/editdist"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/shingle"
)

// ClusterMode says how verified pairs become clusters.
//
// Connected components chain: documents a~b~c, each pair verified but a and c
// unrelated, make one component, and a deduplicated corpus keeps only one of
// them. (A case reported on real job ads: components over word 3-gram pairs
// at 0.4 made one group of 1,749 ads whose two ends share nothing.) Star clusters do not
// chain: every member is verified (Jaccard >= threshold) against its
// cluster's representative, which is the document a deduplicated corpus
// keeps. That is the promise "a dropped document is a near-duplicate of a
// kept one", so star is the default (the zero value). Measured by
// TestClusterModeNumbers (go test -run ClusterModeNumbers -v), word 3-grams,
// threshold 0.5, keep first; "below t" counts members other than the
// representative whose Jaccard with it is under the threshold:
//
//	corpus (20,000 documents each but the first)  mode        clusters  largest  below t
//	explicit chain d0..d9, J(di,di+1) = 0.59      components         1       10  8 of 9 (89%)
//	                                              star               5        2  0 of 5
//	gen.Generate, defaults                        components      2012       86  1217 of 5088 (24%)
//	                                              star            2332       67  0 of 4566
//	gen.Generate, DupRate 0.5, ChainRate 0.8      components      1248      197  5948 of 9792 (61%)
//	                                              star            2975       86  0 of 7615
//	gen.GenerateAds                               components      2550      106  661 of 7018 (9%)
//	                                              star            2698       69  0 of 6687
//
// Star drops fewer documents (4566 instead of 5088 on the default corpus)
// because it does not merge what only a chain connects, while components
// drop 1217 documents that are below the threshold with the document kept in
// their place. (GenerateAds texts are title, newline, description.)
type ClusterMode uint8

const (
	// ClusterStar walks the documents in the order of Options.Keep (first:
	// input order; longest: longest first; shortest: shortest first; ties by
	// input order); each document not yet in a cluster becomes a
	// representative and takes every document not yet in a cluster that has
	// a verified pair with it, together with all the documents whose shingle
	// set is identical to its own or to such a neighbour's. The clusters do
	// not depend on the number of workers. The zero value: the default.
	ClusterStar ClusterMode = iota
	// ClusterComponents makes each connected component of the verified
	// pairs (identical sets included) a cluster, as union-find does.
	ClusterComponents
)

// ParseClusterMode parses "components" or "star".
func ParseClusterMode(s string) (ClusterMode, error) {
	switch s {
	case "components":
		return ClusterComponents, nil
	case "star":
		return ClusterStar, nil
	}
	return 0, fmt.Errorf("%w: cluster %q: want components or star", ErrOptions, s)
}

func (m ClusterMode) String() string {
	if m == ClusterStar {
		return "star"
	}
	return "components"
}

// MinJaccard returns the lowest Jaccard of a member with the representative
// (1 for a cluster without members).
func (c *Cluster) MinJaccard() float64 {
	lo := 1.0
	for _, m := range c.Members {
		lo = min(lo, m.Jaccard)
	}
	return lo
}

// Below returns the number of members whose Jaccard with the representative
// is below t. It is 0 for every star cluster under VerifyExact.
func (c *Cluster) Below(t float64) int {
	k := 0
	for _, m := range c.Members {
		if m.Jaccard < t {
			k++
		}
	}
	return k
}

// verified is what the grouping stage can consult about the documents.
type verified struct {
	sets   [][]uint64 // shingle set of each document (nil under VerifyEstimate)
	sigs   []uint32   // signatures of the distinct sets, k values each
	k      int
	rep    []uint32   // earliest document with the same set
	uniqOf []int32    // distinct-set index of each document, -1 if empty
	toks   [][]uint64 // RefineEdit: token sequence of each document, else nil
	// weights (WeightIDF) holds the idf weights of each distinct set.
	weights *weights
}

// weights are the idf weights of the distinct sets, parallel to the sets,
// and their sums.
type weights struct {
	of  [][]float64
	sum []float64
}

// similarity returns the Jaccard of documents x and y: exact under
// VerifyExact, the signature estimate otherwise.
func (v *verified) similarity(x, y int) float64 {
	switch {
	case x == y || v.rep[x] == v.rep[y]:
		return 1
	case v.weights != nil:
		u, w := v.uniqOf[x], v.uniqOf[y]
		return minhash.WeightedJaccard(v.sets[x], v.weights.of[u], v.sets[y], v.weights.of[w])
	case v.sets != nil:
		return shingle.Jaccard(v.sets[x], v.sets[y])
	}
	u, w := int(v.uniqOf[x]), int(v.uniqOf[y])
	if u < 0 || w < 0 {
		return 0
	}
	return minhash.Estimate(v.sigs[u*v.k:(u+1)*v.k], v.sigs[w*v.k:(w+1)*v.k])
}

// group turns res.Pairs into res.Clusters and res.Dup, and fills the
// cluster counts of st.
func (b *Batch) group(res *Result, st *Stats, v *verified) {
	n := len(b.ids)
	var comps [][]uint32
	var reps []int
	if b.o.Cluster == ClusterStar {
		comps, reps = b.stars(res.Pairs, v)
	} else {
		comps, reps = b.components(res.Pairs)
	}
	res.Dup = make([]bool, n)
	res.Clusters = make([]Cluster, len(comps))
	var es editdist.Scratch
	for ci, comp := range comps {
		r := reps[ci]
		members := make([]Member, len(comp))
		for mi, m := range comp {
			members[mi] = Member{Doc: int(m), Jaccard: v.similarity(int(m), r)}
			if v.toks != nil {
				members[mi].Edit = es.Similarity(v.toks[m], v.toks[r])
			}
		}
		c := Cluster{ID: ci + 1, Representative: r, Members: members}
		c.Review = b.o.MaxCluster > 0 && len(comp) > b.o.MaxCluster
		if c.Review {
			st.Review++
			st.ReviewDocs += len(comp)
		} else {
			for _, m := range comp {
				if int(m) != r {
					res.Dup[m] = true
				}
			}
			st.Duplicates += len(comp) - 1
		}
		if c.Below(b.o.Threshold) > 0 {
			st.BelowClusters++
		}
		res.Clusters[ci] = c
		st.LargestCluster = max(st.LargestCluster, len(comp))
	}
	st.Clusters = len(comps)
}

// components returns the connected components of the pairs, ordered by their
// earliest document, and the representative of each chosen by Options.Keep.
func (b *Batch) components(pairs []Pair) ([][]uint32, []int) {
	uf := cluster.NewUnionFind(len(b.ids))
	for _, p := range pairs {
		uf.Union(uint32(p.A), uint32(p.B))
	}
	comps := uf.Components(2)
	reps := make([]int, len(comps))
	for ci, comp := range comps {
		r := int(comp[0])
		for _, m := range comp[1:] {
			switch b.o.Keep {
			case KeepLongest:
				if b.sizes[m] > b.sizes[r] {
					r = int(m)
				}
			case KeepShortest:
				if b.sizes[m] < b.sizes[r] {
					r = int(m)
				}
			}
		}
		reps[ci] = r
	}
	return comps, reps
}

// keepOrder returns the documents in the order Options.Keep prefers them as
// representatives, ties by input order.
func (b *Batch) keepOrder() []uint32 {
	order := make([]uint32, len(b.ids))
	for i := range order {
		order[i] = uint32(i)
	}
	switch b.o.Keep {
	case KeepLongest:
		slices.SortStableFunc(order, func(x, y uint32) int { return cmp.Compare(b.sizes[y], b.sizes[x]) })
	case KeepShortest:
		slices.SortStableFunc(order, func(x, y uint32) int { return cmp.Compare(b.sizes[x], b.sizes[y]) })
	}
	return order
}

// stars returns the star clusters (see ClusterStar), ordered by their
// earliest document, members ascending, and the representative of each.
//
// The stars are built over distinct sets, each named by its earliest
// document (v.rep): a pair between two documents with distinct sets always
// names the earliest copies, and every other copy is paired only with its
// earliest copy, so working on sets is what expands identical groups. The
// representative of a star is the first document of its center's set in
// keep order; the other documents of its sets are members.
func (b *Batch) stars(pairs []Pair, v *verified) ([][]uint32, []int) {
	n := len(b.ids)
	var edges [][2]uint32
	for _, p := range pairs {
		if v.rep[p.B] != uint32(p.B) {
			continue // an identical copy, handled through v.rep
		}
		edges = append(edges, [2]uint32{uint32(p.A), uint32(p.B)})
	}
	g := cluster.NewGraph(n, edges)
	edges = nil
	order := b.keepOrder()
	// setOrder: the earliest copies in the keep order of their first copy;
	// first[s]: the first document of set s in keep order (its would-be
	// representative).
	first := make([]uint32, n)
	seen := make([]bool, n)
	setOrder := make([]uint32, 0, n)
	for _, d := range order {
		s := v.rep[d]
		if !seen[s] {
			seen[s] = true
			first[s] = d
			setOrder = append(setOrder, s)
		}
	}
	center := cluster.Star(g, setOrder)
	// Size the stars, open them in order of their earliest document.
	size := make([]uint32, n)
	for d := range n {
		size[center[v.rep[d]]]++
	}
	slot := make([]int32, n) // 1 + index of the star of a center
	var comps [][]uint32
	var reps []int
	for d := range n {
		c := center[v.rep[d]]
		if size[c] < 2 {
			continue
		}
		k := slot[c]
		if k == 0 {
			comps = append(comps, make([]uint32, 0, size[c]))
			reps = append(reps, int(first[c]))
			k = int32(len(comps))
			slot[c] = k
		}
		comps[k-1] = append(comps[k-1], uint32(d))
	}
	return comps, reps
}
