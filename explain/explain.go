// Package explain reconstructs, from a list of verified pairs, why two
// documents are or are not in one cluster: the groups of identical copies,
// the shortest path of pairs from one document to the other (copies being
// one node), the clusters the pairs make, and the longest runs of tokens
// the two texts share. It is what "neardup explain" computes; the command
// only reads the corpus and prints.
//
// Documents are numbered by their place in the corpus, from 0; pairs are
// neardup.Pair values with A < B. Nothing here is safe for concurrent
// mutation of its inputs; the functions do not retain or modify them.
//
// Who uses it from outside: a program that shows its users why two
// documents were grouped (or not), from a batch's Result.Pairs or from a
// pairs file read back with the same numbering.
package explain

import (
	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cluster"
)

// Groups returns, for each document, the first document with the same
// set fingerprint (neardup.Fingerprint): itself when it is the first of its
// group or its set is empty (fingerprint 0; empty documents are not copies
// of one another).
func Groups(fps []uint64) []int {
	canon := make([]int, len(fps))
	first := map[uint64]int{}
	for d, fp := range fps {
		canon[d] = d
		if fp != 0 {
			if e, ok := first[fp]; ok {
				canon[d] = e
			} else {
				first[fp] = d
			}
		}
	}
	return canon
}

// DistinctSets returns the distinct non-empty sets, the first of each
// group of equal fingerprints: the sets the corpus idf weights are
// computed over, as dedup computes them. The result aliases sets.
func DistinctSets(sets [][]uint64, fps []uint64) [][]uint64 {
	seen := make(map[uint64]bool, len(fps))
	var out [][]uint64
	for i, fp := range fps {
		if fp != 0 && !seen[fp] {
			seen[fp] = true
			out = append(out, sets[i])
		}
	}
	return out
}

// Step is one document of a path and the Jaccard of the pair that leads
// to it from the previous step (0 for the first step, which has none).
type Step struct {
	Doc     int
	Jaccard float64
}

// Path returns a shortest path of pairs from document a to document b
// among n documents, each step with its Jaccard, where documents with the
// same canon (Groups, or neardup's Result.Canonical) are one node, so that
// a compact and a full pairs listing give the same path: the path runs over
// the groups, then names a and b themselves at its ends. Two copies are one
// step apart with Jaccard 1, and a path from a to itself is a alone. It
// reports whether there is a path; when there is none the path is empty.
func Path(n int, canon []int, pairs []neardup.Pair, a, b int) ([]Step, bool) {
	path := []Step{{Doc: a}}
	if a == b {
		return path, true
	}
	ca, cb := canon[a], canon[b]
	if ca == cb {
		return append(path, Step{Doc: b, Jaccard: 1}), true
	}
	jac := map[[2]int]float64{}
	var edges [][2]uint32
	for _, p := range pairs {
		x, y := canon[p.A], canon[p.B]
		if x == y {
			continue
		}
		k := [2]int{min(x, y), max(x, y)}
		if _, ok := jac[k]; !ok {
			jac[k] = p.Jaccard
			edges = append(edges, [2]uint32{uint32(x), uint32(y)})
		}
	}
	nodes := cluster.NewGraph(n, edges).Path(uint32(ca), uint32(cb))
	if nodes == nil {
		return []Step{}, false
	}
	for i := 1; i < len(nodes); i++ {
		u, v := int(nodes[i-1]), int(nodes[i])
		d := v
		if i == len(nodes)-1 {
			d = b
		}
		path = append(path, Step{Doc: d, Jaccard: jac[[2]int{min(u, v), max(u, v)}]})
	}
	return path, true
}

// Cluster is the cluster a document is in.
type Cluster struct {
	Representative int  // the document dedup keeps
	Size           int  // members, the representative included
	Review         bool // more members than o.MaxCluster: set aside for review
}

// ClustersOf returns the clusters of documents a and b (nil for one in no
// cluster) that the pairs make with neardup.Clusters, as dedup makes them:
// sizes are the documents' text lengths in bytes (for --keep longest),
// canon groups identical copies (Groups), and o gives the cluster mode,
// the keep order and MaxCluster. Its errors are neardup.Clusters'.
func ClustersOf(sizes []int64, canon []int, pairs []neardup.Pair, o neardup.Options, a, b int) (ca, cb *Cluster, err error) {
	docs := make([]neardup.ClusterDoc, len(sizes))
	for d := range docs {
		docs[d] = neardup.ClusterDoc{Seq: uint64(d), Size: sizes[d], Same: canon[d]}
	}
	edges := make([][2]int, len(pairs))
	for i, p := range pairs {
		edges[i] = [2]int{p.A, p.B}
	}
	groups, err := neardup.Clusters(docs, edges, o.Cluster, o.Keep)
	if err != nil {
		return nil, nil, err
	}
	for _, g := range groups {
		c := &Cluster{Representative: g.Representative, Size: len(g.Members), Review: o.MaxCluster > 0 && len(g.Members) > o.MaxCluster}
		for _, m := range g.Members {
			if m == a {
				ca = c
			}
			if m == b {
				cb = c
			}
		}
	}
	return ca, cb, nil
}
