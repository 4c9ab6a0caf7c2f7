package neardup

import (
	"github.com/neardup/neardup/cluster"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/shingle"
)

// verified is what the grouping stage can consult about the documents.
type verified struct {
	sets   [][]uint64 // shingle set of each document (nil under VerifyEstimate)
	sigs   []uint32   // signatures of the distinct sets, k values each
	k      int
	rep    []uint32 // earliest document with the same set
	uniqOf []int32  // distinct-set index of each document, -1 if empty
}

// similarity returns the Jaccard of documents x and y: exact under
// VerifyExact, the signature estimate otherwise.
func (v *verified) similarity(x, y int) float64 {
	switch {
	case x == y || v.rep[x] == v.rep[y]:
		return 1
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
	o := b.o
	uf := cluster.NewUnionFind(n)
	for _, p := range res.Pairs {
		uf.Union(uint32(p.A), uint32(p.B))
	}
	comps := uf.Components(2)
	res.Dup = make([]bool, n)
	res.Clusters = make([]Cluster, len(comps))
	for ci, comp := range comps {
		r := int(comp[0])
		for _, m := range comp[1:] {
			switch o.Keep {
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
		members := make([]Member, len(comp))
		for mi, m := range comp {
			members[mi] = Member{Doc: int(m), Jaccard: v.similarity(int(m), r)}
			if int(m) != r {
				res.Dup[m] = true
			}
		}
		res.Clusters[ci] = Cluster{ID: ci + 1, Representative: r, Members: members}
		st.Duplicates += len(comp) - 1
		st.LargestCluster = max(st.LargestCluster, len(comp))
	}
	st.Clusters = len(comps)
}
