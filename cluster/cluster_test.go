package cluster

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// refComponents is the reference: connected components by breadth-first
// search over an adjacency list, in the documented order.
func refComponents(n int, edges [][2]uint32, minSize int) [][]uint32 {
	adj := make([][]uint32, n)
	for _, e := range edges {
		adj[e[0]] = append(adj[e[0]], e[1])
		adj[e[1]] = append(adj[e[1]], e[0])
	}
	seen := make([]bool, n)
	var out [][]uint32
	for s := range n {
		if seen[s] {
			continue
		}
		seen[s] = true
		comp := []uint32{uint32(s)}
		for q := 0; q < len(comp); q++ {
			for _, v := range adj[comp[q]] {
				if !seen[v] {
					seen[v] = true
					comp = append(comp, v)
				}
			}
		}
		if len(comp) >= minSize {
			slices.Sort(comp)
			out = append(out, comp)
		}
	}
	return out
}

func TestComponentsAgainstBFS(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := rng.IntN(200)
		m := 0
		if n > 0 {
			m = rng.IntN(2 * n)
		}
		edges := make([][2]uint32, m)
		for k := range edges {
			edges[k] = [2]uint32{uint32(rng.IntN(n)), uint32(rng.IntN(n))}
		}
		for _, minSize := range []int{0, 1, 2, 3, 10} {
			want := refComponents(n, edges, minSize)
			// The same edges in several shuffled orders and orientations
			// must give identical output.
			for range 3 {
				rng.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
				u := NewUnionFind(n)
				merged := 0
				for _, e := range edges {
					a, b := e[0], e[1]
					if rng.IntN(2) == 0 {
						a, b = b, a
					}
					if u.Union(a, b) {
						merged++
					}
				}
				if u.Sets() != n-merged {
					t.Fatalf("trial %d: Sets() = %d, want %d", trial, u.Sets(), n-merged)
				}
				got := u.Components(minSize)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("trial %d n=%d minSize=%d:\n got %v\nwant %v", trial, n, minSize, got, want)
				}
				for _, c := range got {
					for _, x := range c {
						if u.Size(x) != len(c) {
							t.Fatalf("Size(%d) = %d, want %d", x, u.Size(x), len(c))
						}
					}
				}
			}
		}
	}
}

func TestUnionReportsMerge(t *testing.T) {
	u := NewUnionFind(4)
	f := func(a, b uint32, want bool) {
		t.Helper()
		if got := u.Union(a, b); got != want {
			t.Fatalf("Union(%d, %d) = %v, want %v", a, b, got, want)
		}
	}
	f(0, 1, true)
	f(1, 0, false)
	f(2, 2, false)
	f(2, 3, true)
	f(0, 3, true)
	f(1, 2, false)
	if u.Sets() != 1 || u.Find(0) != u.Find(3) {
		t.Fatal("expected one set")
	}
}

func TestComponentsDoNotAlias(t *testing.T) {
	u := NewUnionFind(6)
	u.Union(0, 1)
	u.Union(2, 3)
	c := u.Components(2)
	c[0] = append(c[0], 99)
	if !reflect.DeepEqual(c[1], []uint32{2, 3}) {
		t.Fatalf("append to one component changed another: %v", c[1])
	}
}

func TestEmpty(t *testing.T) {
	u := NewUnionFind(0)
	if c := u.Components(1); c != nil {
		t.Fatalf("Components on empty = %v", c)
	}
	u = NewUnionFind(3)
	if c := u.Components(2); c != nil {
		t.Fatalf("Components(2) on singletons = %v", c)
	}
}

// The long chain built in reverse is the worst case for a forest without
// union by size; with it Find stays shallow and nothing recurses.
func TestLongChain(t *testing.T) {
	const n = 1 << 20
	u := NewUnionFind(n)
	for i := n - 1; i > 0; i-- {
		u.Union(uint32(i), uint32(i-1))
	}
	c := u.Components(2)
	if len(c) != 1 || len(c[0]) != n || c[0][0] != 0 || c[0][n-1] != n-1 {
		t.Fatalf("unexpected components: %d", len(c))
	}
}

func ExampleUnionFind_Components() {
	u := NewUnionFind(8)
	u.Union(5, 1)
	u.Union(7, 3)
	u.Union(1, 6)
	u.Union(3, 0)
	fmt.Println(u.Components(2))
	fmt.Println(u.Components(0))
	// Output:
	// [[0 3 7] [1 5 6]]
	// [[0 3 7] [1 5 6] [2] [4]]
}

func BenchmarkUnionFind(b *testing.B) {
	for _, n := range []int{1_000, 1_000_000} {
		rng := rand.New(rand.NewPCG(3, 4))
		edges := make([][2]uint32, n)
		for k := range edges {
			edges[k] = [2]uint32{uint32(rng.IntN(n)), uint32(rng.IntN(n))}
		}
		b.Run(fmt.Sprintf("union/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				u := NewUnionFind(n)
				for _, e := range edges {
					u.Union(e[0], e[1])
				}
			}
		})
		b.Run(fmt.Sprintf("components/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			u := NewUnionFind(n)
			for _, e := range edges {
				u.Union(e[0], e[1])
			}
			for b.Loop() {
				_ = u.Components(2)
			}
		})
	}
}
