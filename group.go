package neardup

import (
	"cmp"
	"fmt"
	"iter"
	"math"
	"slices"

	"github.com/neardup/neardup/cluster"
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
	return 0, fieldError("Cluster", s, "want components or star")
}

// String returns m's name as ParseClusterMode reads it: "star" or
// "components".
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

// ClusterDoc is a document as Clusters sees it. Documents are named by
// their index in the slice given to Clusters; nothing else about that index
// matters, so a caller may cluster any subset of a corpus (one connected
// component of a distributed run, documents of an index) with its own
// numbering.
type ClusterDoc struct {
	// Seq is the document's place in input order: it is "first" for
	// KeepFirst, breaks the ties of the other Keep policies, and orders
	// members and clusters. Documents have distinct Seq values.
	Seq uint64
	// Size is the text length in bytes (KeepLongest, KeepShortest).
	Size int64
	// Same is the index of the document that stands for this document's
	// identical-set group (its own index when it has no copy): every
	// document of a group of identical shingle sets names one document of
	// the group, which names itself.
	Same int
}

// Group is one cluster found by Clusters: indices into the documents.
type Group struct {
	Representative int   // the document kept, chosen by the Keep policy
	Members        []int // in ascending Seq, the representative included
}

// Clusters groups documents connected by verified pairs, the one place
// where clusters are made (Batch, explain and a distributed run call it).
//
// edges are the verified pairs, as indices into docs, in any order and with
// any repetition; documents with identical sets (ClusterDoc.Same) are
// joined without an edge, and an edge may name any document of a group.
// Under ClusterStar, documents are taken in keep order (Keep on Size, ties
// and KeepFirst by Seq); each one not yet in a cluster becomes a
// representative and takes every document not yet in a cluster that has an
// edge with it, each with its identical copies, so every member is verified
// against its representative (or is a copy of it or of a verified
// neighbour). Under ClusterComponents, each connected component is a
// cluster and its representative is its first document in keep order.
//
// Only clusters of two or more documents are returned, ordered by their
// smallest Seq. The result depends on edges as a set, on Seq, Size and the
// groups, never on the order of docs or edges. Clusters runs in
// O(n log n + edges) time and returns an error wrapping ErrInvalid, doing
// nothing, when an index is out of range or a Same names a document that
// does not name itself.
func Clusters(docs []ClusterDoc, edges [][2]int, mode ClusterMode, keep Keep) ([]Group, error) {
	n := len(docs)
	if uint64(n) >= math.MaxUint32 {
		return nil, fmt.Errorf("%w: Clusters of %d documents", ErrInvalid, n)
	}
	for i, d := range docs {
		if d.Same < 0 || d.Same >= n || docs[d.Same].Same != d.Same {
			return nil, fmt.Errorf("%w: Clusters: document %d names %d as its group, which is not a group", ErrInvalid, i, d.Same)
		}
	}
	for _, e := range edges {
		if e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n {
			return nil, fmt.Errorf("%w: Clusters: edge %v out of range [0, %d)", ErrInvalid, e, n)
		}
	}
	if mode > ClusterComponents || keep > KeepShortest {
		return nil, fmt.Errorf("%w: Clusters: mode %d, keep %d", ErrInvalid, mode, keep)
	}
	// The edges between groups, as clusters takes them.
	es := make([][2]uint32, 0, len(edges))
	for _, e := range edges {
		if a, b := docs[e[0]].Same, docs[e[1]].Same; a != b {
			es = append(es, [2]uint32{uint32(a), uint32(b)})
		}
	}
	return clusters(docs, func(yield func(a, b uint32) bool) {
		for _, e := range es {
			if !yield(e[0], e[1]) {
				return
			}
		}
	}, mode, keep), nil
}

// clusters is Clusters on checked arguments, with the edges as pairs of
// groups (documents that are their own ClusterDoc.Same), from a sequence
// it may range over twice, the same edges each time: Batch hands it its
// verified pairs as they are, without a copy (at 10M documents, 154
// million edges, 1.2 GB even as a [][2]uint32, at the time of the run's
// peak memory).
func clusters(docs []ClusterDoc, edges iter.Seq2[uint32, uint32], mode ClusterMode, keep Keep) []Group {
	n := len(docs)
	bySeq := seqOrder(docs)
	order := keepOrder(docs, bySeq, keep)
	// group[d]: the document whose cluster d is in; rep[g]: its representative.
	group := make([]uint32, n)
	rep := make([]int32, n)
	if mode == ClusterStar {
		// setOrder: the groups in keep order of their first document;
		// first[s]: that document, the group's would-be representative.
		seen := make([]bool, n)
		setOrder := make([]uint32, 0, n)
		for _, d := range order {
			if s := docs[d].Same; !seen[s] {
				seen[s] = true
				rep[s] = int32(d)
				setOrder = append(setOrder, uint32(s))
			}
		}
		// Keeping the first with the groups in ascending order (Batch's
		// case: each group is named by its earliest document) and edges
		// sorted by their smaller group (Batch's pairs are sorted by A),
		// the stars come from one pass over the edges, without a graph:
		// at 10M documents the graph (two passes over 154 million edges,
		// three random accesses an edge) was most of this stage.
		var center []uint32
		ok := keep == KeepFirst && slices.IsSorted(setOrder)
		if ok {
			center, ok = cluster.StarSorted(n, edges)
		}
		if !ok {
			center = cluster.Star(cluster.NewGraphSeq(n, edges), setOrder)
		}
		for d := range docs {
			group[d] = center[docs[d].Same]
		}
	} else {
		uf := cluster.NewUnionFind(n)
		for d := range docs {
			uf.Union(uint32(d), uint32(docs[d].Same))
		}
		for a, b := range edges {
			uf.Union(a, b)
		}
		for d := range docs {
			group[d] = uf.Find(uint32(d))
			rep[d] = -1
		}
		for _, d := range order {
			if g := group[d]; rep[g] < 0 {
				rep[g] = int32(d)
			}
		}
	}
	// Size the clusters, then open them in ascending Seq of their first
	// member, their members sharing one array (each slice's capacity
	// clipped, so appending to one never overwrites another).
	size := make([]uint32, n)
	for d := range docs {
		size[group[d]]++
	}
	total, count := 0, 0
	for _, sz := range size {
		if sz >= 2 {
			total += int(sz)
			count++
		}
	}
	backing := make([]int, total)
	slot := make([]int32, n) // 1 + index of the cluster of a group
	out := make([]Group, 0, count)
	off := 0
	for _, d := range bySeq {
		g := group[d]
		if size[g] < 2 {
			continue
		}
		k := slot[g]
		if k == 0 {
			sz := int(size[g])
			out = append(out, Group{Representative: int(rep[g]), Members: backing[off : off : off+sz]})
			off += sz
			k = int32(len(out))
			slot[g] = k
		}
		out[k-1].Members = append(out[k-1].Members, int(d))
	}
	return out
}

// seqOrder returns the indices of docs in ascending Seq.
func seqOrder(docs []ClusterDoc) []uint32 {
	order := make([]uint32, len(docs))
	for i := range order {
		order[i] = uint32(i)
	}
	if !slices.IsSortedFunc(order, func(x, y uint32) int { return cmp.Compare(docs[x].Seq, docs[y].Seq) }) {
		slices.SortFunc(order, func(x, y uint32) int { return cmp.Compare(docs[x].Seq, docs[y].Seq) })
	}
	return order
}

// keepOrder returns bySeq reordered as keep prefers documents as
// representatives, ties in Seq order.
func keepOrder(docs []ClusterDoc, bySeq []uint32, keep Keep) []uint32 {
	switch keep {
	case KeepLongest:
		order := slices.Clone(bySeq)
		slices.SortStableFunc(order, func(x, y uint32) int { return cmp.Compare(docs[y].Size, docs[x].Size) })
		return order
	case KeepShortest:
		order := slices.Clone(bySeq)
		slices.SortStableFunc(order, func(x, y uint32) int { return cmp.Compare(docs[x].Size, docs[y].Size) })
		return order
	}
	return bySeq
}
