package cluster

import (
	"math/rand/v2"
	"reflect"
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

// TestStarInvariant: on random graphs every node's center is itself or a
// neighbour, and the result does not depend on the order of the edges.
func TestStarInvariant(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 200; iter++ {
		n := 1 + r.IntN(60)
		var edges [][2]uint32
		for range r.IntN(3 * n) {
			edges = append(edges, [2]uint32{uint32(r.IntN(n)), uint32(r.IntN(n))})
		}
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
