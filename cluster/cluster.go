// Package cluster groups items connected by pairs: union-find and connected
// components, and star clusters that do not chain (Graph, Star).
//
// Who uses it from outside: the engine clusters through
// neardup.Clusters, which a library user with pairs of their own (from an
// index, or a distributed join) calls instead; this package is for those
// who need the graph algorithms themselves (UnionFind, Star) over their
// own numbering.
package cluster

import "math"

// UnionFind is a disjoint-set forest over 0..n-1 with path compression and
// union by size. It is not safe for concurrent use.
//
// Find and Union run in amortised near-constant time (inverse Ackermann).
// Find compresses paths iteratively by path halving, so it never recurses
// and never allocates. The forest uses 8 bytes per element.
type UnionFind struct {
	parent []uint32
	size   []uint32 // size[r] is the size of the set rooted at r; stale for non-roots
	sets   int
}

// NewUnionFind returns n singletons, the elements 0..n-1.
// It panics if n is negative or greater than math.MaxUint32 (elements are
// uint32, and one value is kept free so counts fit in a uint32).
func NewUnionFind(n int) *UnionFind {
	if n < 0 || uint64(n) > math.MaxUint32 {
		panic("cluster: NewUnionFind: n out of range")
	}
	u := &UnionFind{
		parent: make([]uint32, n),
		size:   make([]uint32, n),
		sets:   n,
	}
	for i := range u.parent {
		u.parent[i] = uint32(i)
		u.size[i] = 1
	}
	return u
}

// Len returns n, the number of elements.
func (u *UnionFind) Len() int { return len(u.parent) }

// Sets returns the current number of disjoint sets (n minus successful unions).
func (u *UnionFind) Sets() int { return u.sets }

// Size returns the number of members of x's set.
func (u *UnionFind) Size(x uint32) int { return int(u.size[u.Find(x)]) }

// Find returns the root of x's set. Two elements are in the same set exactly
// when their roots are equal; which member is the root is unspecified and
// may change with later unions. It panics if x >= Len().
func (u *UnionFind) Find(x uint32) uint32 {
	p := u.parent
	for p[x] != x {
		// Path halving: point x at its grandparent and step there.
		p[x] = p[p[x]]
		x = p[x]
	}
	return x
}

// Union merges the sets of a and b and reports whether they were apart.
// The smaller set is attached under the larger one's root.
func (u *UnionFind) Union(a, b uint32) bool {
	ra, rb := u.Find(a), u.Find(b)
	if ra == rb {
		return false
	}
	if u.size[ra] < u.size[rb] {
		ra, rb = rb, ra
	}
	u.parent[rb] = ra
	u.size[ra] += u.size[rb]
	u.sets--
	return true
}

// Components returns the sets with at least minSize members, each sorted
// ascending, ordered by their smallest member. The result is the same
// whatever order the unions were made in.
//
// minSize <= 1 returns every set, singletons included. The components share
// one backing array but each has its capacity clipped to its length, so
// appending to one never overwrites another. Components runs in O(n) time
// (plus the Find calls) and allocates O(n) memory in total.
func (u *UnionFind) Components(minSize int) [][]uint32 {
	n := len(u.parent)
	if minSize < 1 {
		minSize = 1
	}
	// First pass: compress every element to its root, count the members
	// that will be kept and the number of components.
	roots := make([]uint32, n)
	total, comps := 0, 0
	for x := range n {
		r := u.Find(uint32(x))
		roots[x] = r
		if int(u.size[r]) >= minSize && r == uint32(x) {
			total += int(u.size[r])
			comps++
		}
	}
	if comps == 0 {
		return nil
	}
	// Second pass in ascending element order: a component is opened when
	// its smallest member is met, so components come out ordered by their
	// smallest member and members are appended in ascending order.
	// slot[r] is 1 + the index of r's component (0: not opened yet).
	slot := make([]uint32, n)
	backing := make([]uint32, total)
	out := make([][]uint32, 0, comps)
	off := 0
	for x := range n {
		r := roots[x]
		sz := int(u.size[r])
		if sz < minSize {
			continue
		}
		k := slot[r]
		if k == 0 {
			out = append(out, backing[off:off:off+sz])
			off += sz
			k = uint32(len(out))
			slot[r] = k
		}
		out[k-1] = append(out[k-1], uint32(x))
	}
	return out
}
