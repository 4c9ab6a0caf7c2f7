package cluster

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestGraphPath(t *testing.T) {
	// 0-1-2-3 and a shortcut 0-4-3; 5 isolated; a self-loop on 2.
	g := NewGraph(6, [][2]uint32{{0, 1}, {1, 2}, {2, 3}, {0, 4}, {4, 3}, {2, 2}})
	f := func(a, b uint32, want []uint32) {
		t.Helper()
		if got := g.Path(a, b); !reflect.DeepEqual(got, want) {
			t.Errorf("Path(%d, %d) = %v, want %v", a, b, got, want)
		}
	}
	f(0, 3, []uint32{0, 4, 3})
	f(3, 1, []uint32{3, 2, 1})
	f(2, 2, []uint32{2})
	f(0, 5, nil)
	if n := g.Neighbors(2); !reflect.DeepEqual(n, []uint32{1, 3}) {
		t.Errorf("Neighbors(2) = %v (self-loop kept?)", n)
	}
}

func TestStarChain(t *testing.T) {
	var edges [][2]uint32
	for i := uint32(0); i < 9; i++ {
		edges = append(edges, [2]uint32{i, i + 1})
	}
	g := NewGraph(10, edges)
	got := Star(g, []uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	want := []uint32{0, 0, 2, 2, 4, 4, 6, 6, 8, 8}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Star in order = %v, want %v", got, want)
	}
	// Centers first: 1 takes 0 and 2; 9 (not in order) comes after 4 and 7.
	got = Star(g, []uint32{1, 4, 7})
	want = []uint32{1, 1, 1, 4, 4, 4, 7, 7, 7, 9}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Star(1, 4, 7) = %v, want %v", got, want)
	}
}

// randomEdges returns m random edges over n nodes, self-loops and repeats
// included.
func randomEdges(r *rand.Rand, n, m int) [][2]uint32 {
	edges := make([][2]uint32, 0, m)
	for range m {
		edges = append(edges, [2]uint32{uint32(r.IntN(n)), uint32(r.IntN(n))})
	}
	return edges
}

// TestStarInvariant: on random graphs every node's center is itself or a
// neighbour, and the result does not depend on the order of the edges.
func TestStarInvariant(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 200; iter++ {
		n := 1 + r.IntN(60)
		edges := randomEdges(r, n, r.IntN(3*n))
		order := make([]uint32, n)
		for i, p := range r.Perm(n) {
			order[i] = uint32(p)
		}
		g := NewGraph(n, edges)
		center := Star(g, order)
		for x, c := range center {
			if c == uint32(x) {
				continue
			}
			if center[c] != c {
				t.Fatalf("node %d: center %d is not a center", x, c)
			}
			adj := false
			for _, y := range g.Neighbors(uint32(x)) {
				adj = adj || y == c
			}
			if !adj {
				t.Fatalf("node %d: center %d is not a neighbour", x, c)
			}
		}
		r.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
		if again := Star(NewGraph(n, edges), order); !reflect.DeepEqual(again, center) {
			t.Fatalf("edge order changed the stars")
		}
	}
}

// TestStarSorted: on random graphs (repeated edges, self-loops, either
// direction), StarSorted over the edges sorted by their smaller node gives
// Star's centers in ascending order, and it refuses edges out of that
// order.
func TestStarSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	seq := func(edges [][2]uint32) func(yield func(a, b uint32) bool) {
		return func(yield func(a, b uint32) bool) {
			for _, e := range edges {
				if !yield(e[0], e[1]) {
					return
				}
			}
		}
	}
	refused := 0
	for iter := 0; iter < 500; iter++ {
		n := 1 + r.IntN(80)
		edges := randomEdges(r, n, r.IntN(4*n))
		order := make([]uint32, n)
		for i := range order {
			order[i] = uint32(i)
		}
		want := Star(NewGraph(n, edges), order)
		lo := func(e [2]uint32) uint32 { return min(e[0], e[1]) }
		sorted := slices.Clone(edges)
		slices.SortStableFunc(sorted, func(x, y [2]uint32) int { return int(lo(x)) - int(lo(y)) })
		got, ok := StarSorted(n, seq(sorted))
		if !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("n=%d edges %v: StarSorted = %v, %v; Star = %v", n, sorted, got, ok, want)
		}
		// Out of order: refused, unless the shuffle kept the order.
		r.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
		inOrder := slices.IsSortedFunc(edges, func(x, y [2]uint32) int { return int(lo(x)) - int(lo(y)) })
		got, ok = StarSorted(n, seq(edges))
		if ok != inOrder || (ok && !reflect.DeepEqual(got, want)) {
			t.Fatalf("n=%d shuffled edges %v (in order %v): StarSorted = %v, %v", n, edges, inOrder, got, ok)
		}
		if !ok {
			refused++
		}
	}
	if refused == 0 {
		t.Fatal("no shuffled edge list was refused")
	}
}
