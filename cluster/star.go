package cluster

import (
	"iter"
	"math"
)

// Graph is an undirected graph over the nodes 0..n-1, held as adjacency
// lists in one array (compressed sparse rows). It is immutable and safe for
// concurrent use. It uses 4 bytes per node plus 8 bytes per edge.
type Graph struct {
	off []uint32 // neighbours of x are nbr[off[x]:off[x+1]]
	nbr []uint32
}

// NewGraph returns the graph of n nodes and the given edges. Self-loops are
// dropped; a repeated edge appears repeatedly in Neighbors. Each node's
// neighbours are in the order of the edges. It panics if n is out of range
// (as NewUnionFind) or an edge names a node >= n.
func NewGraph(n int, edges [][2]uint32) *Graph {
	return NewGraphSeq(n, func(yield func(a, b uint32) bool) {
		for _, e := range edges {
			if !yield(e[0], e[1]) {
				return
			}
		}
	})
}

// NewGraphSeq is NewGraph with the edges from a sequence, which it ranges
// over twice (to count each node's neighbours, then to place them): a
// caller holding its edges in another form need not copy them into a
// slice. Both ranges must yield the same edges. It panics if n or a node
// is out of range, or the edges number more than math.MaxUint32/2.
func NewGraphSeq(n int, edges iter.Seq2[uint32, uint32]) *Graph {
	if n < 0 || uint64(n) >= math.MaxUint32 {
		panic("cluster: NewGraph: n or edges out of range")
	}
	g := &Graph{off: make([]uint32, n+1)}
	m := uint64(0)
	for a, b := range edges {
		if a == b {
			continue
		}
		g.off[a+1]++
		g.off[b+1]++
		if m++; m > math.MaxUint32/2 {
			panic("cluster: NewGraph: n or edges out of range")
		}
	}
	for x := 1; x <= n; x++ {
		g.off[x] += g.off[x-1]
	}
	g.nbr = make([]uint32, g.off[n])
	next := make([]uint32, n)
	copy(next, g.off[:n])
	for a, b := range edges {
		if a == b {
			continue
		}
		g.nbr[next[a]] = b
		next[a]++
		g.nbr[next[b]] = a
		next[b]++
	}
	return g
}

// Len returns n, the number of nodes.
func (g *Graph) Len() int { return len(g.off) - 1 }

// Neighbors returns the neighbours of x. The slice aliases the graph and
// must not be modified.
func (g *Graph) Neighbors(x uint32) []uint32 { return g.nbr[g.off[x]:g.off[x+1]:g.off[x+1]] }

// Path returns a shortest path from a to b (breadth-first search), a and b
// included, or nil if b cannot be reached from a. Path(a, a) is [a]. Among
// shortest paths it returns the one found first when neighbours are visited
// in Neighbors order, so the result is deterministic.
func (g *Graph) Path(a, b uint32) []uint32 {
	if a == b {
		return []uint32{a}
	}
	const unseen = math.MaxUint32
	prev := make([]uint32, g.Len())
	for i := range prev {
		prev[i] = unseen
	}
	prev[a] = a
	queue := []uint32{a}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, y := range g.Neighbors(x) {
			if prev[y] != unseen {
				continue
			}
			prev[y] = x
			if y == b {
				var path []uint32
				for z := b; z != a; z = prev[z] {
					path = append(path, z)
				}
				path = append(path, a)
				for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
					path[i], path[j] = path[j], path[i]
				}
				return path
			}
			queue = append(queue, y)
		}
	}
	return nil
}

// Star partitions the nodes of g into stars and returns center[x], the
// center of x's star, for every node.
//
// It walks order (a permutation of the nodes, or a prefix of one; nodes not
// in it become centers of their own star after it): each node not yet
// assigned becomes a center and takes every neighbour not yet assigned. Every
// member of a star is therefore a neighbour of its center, so a star never
// chains the way a connected component does: a path a-b-c where a and c are
// not adjacent puts a and c in one component but, if a comes first, b joins
// a's star and c starts its own.
//
// The result depends only on g's edges as a set and on order, not on the
// order of neighbours; a node named twice in order counts where it first
// appears. Star runs in O(n + edges) time. It panics if order names a node
// >= g.Len().
func Star(g *Graph, order []uint32) []uint32 {
	n := g.Len()
	const none = math.MaxUint32
	center := make([]uint32, n)
	for i := range center {
		center[i] = none
	}
	take := func(c uint32) {
		center[c] = c
		for _, y := range g.Neighbors(c) {
			if center[y] == none {
				center[y] = c
			}
		}
	}
	for _, x := range order {
		if center[x] == none {
			take(x)
		}
	}
	for x := range center {
		if center[x] == none {
			take(uint32(x))
		}
	}
	return center
}

// StarSorted is Star with the nodes in ascending order (Star(g, order)
// where order is 0..n-1), computed in one pass over the edges instead of
// over a Graph: under that order a node's neighbours below it have all
// been placed before its turn, so only its edges to larger nodes matter,
// and edges that come in nondecreasing order of their smaller node are
// each looked at once, at that node's turn. It allocates only the result
// (4 bytes a node) and ranges over edges once.
//
// The edges must come in nondecreasing order of min(a, b) (for instance
// pairs sorted by their first node, first < second); self-loops are
// skipped. When an edge breaks that order StarSorted stops and returns
// nil, false, and the caller falls back to Star. It panics if a node is
// >= n.
func StarSorted(n int, edges iter.Seq2[uint32, uint32]) (center []uint32, ok bool) {
	if n < 0 || uint64(n) >= math.MaxUint32 {
		panic("cluster: StarSorted: n out of range")
	}
	const none = math.MaxUint32
	center = make([]uint32, n)
	for i := range center {
		center[i] = none
	}
	prev := uint32(0)
	ok = true
	for a, b := range edges {
		if a > b {
			a, b = b, a
		}
		if a < prev {
			ok = false
			break
		}
		prev = a
		if a == b {
			continue
		}
		c := center[a]
		if c == none { // a's turn, not taken by an earlier node: a center
			center[a], c = a, a
		}
		if c == a && center[b] == none {
			center[b] = a
		}
	}
	if !ok {
		return nil, false
	}
	for x := range center {
		if center[x] == none {
			center[x] = uint32(x)
		}
	}
	return center, true
}
