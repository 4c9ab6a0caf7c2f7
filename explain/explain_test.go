package explain

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup"
)

func TestGroups(t *testing.T) {
	got := Groups([]uint64{7, 0, 7, 9, 0, 9, 7})
	if want := []int{0, 1, 0, 3, 4, 3, 0}; !slices.Equal(got, want) {
		t.Fatalf("Groups = %v, want %v", got, want)
	}
	sets := [][]uint64{{1}, nil, {1}, {2}}
	if got := DistinctSets(sets, []uint64{7, 0, 7, 9}); len(got) != 2 || got[0][0] != 1 || got[1][0] != 2 {
		t.Fatalf("DistinctSets = %v, want [[1] [2]]", got)
	}
}

// distSlow is the length in steps of a shortest path between the groups of
// a and b, by breadth-first search over the pairs (-1: none).
func distSlow(canon []int, pairs []neardup.Pair, a, b int) int {
	dist := map[int]int{canon[a]: 0}
	frontier := []int{canon[a]}
	for len(frontier) > 0 {
		var next []int
		for _, u := range frontier {
			if u == canon[b] {
				return dist[u]
			}
			for _, p := range pairs {
				x, y := canon[p.A], canon[p.B]
				for _, e := range [][2]int{{x, y}, {y, x}} {
					if _, seen := dist[e[1]]; e[0] == u && !seen {
						dist[e[1]] = dist[u] + 1
						next = append(next, e[1])
					}
				}
			}
		}
		frontier = next
	}
	return -1
}

func TestPathAgainstBFS(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		n := 2 + r.IntN(12)
		fps := make([]uint64, n)
		for d := range fps {
			fps[d] = uint64(r.IntN(n)) // 0: empty; equal values: copies
		}
		canon := Groups(fps)
		var pairs []neardup.Pair
		jac := map[[2]int]float64{}
		for range r.IntN(2 * n) {
			a, b := r.IntN(n), r.IntN(n)
			if a == b {
				continue
			}
			j := float64(1+r.IntN(99)) / 100
			pairs = append(pairs, neardup.Pair{A: min(a, b), B: max(a, b), Jaccard: j})
			if k := [2]int{min(canon[a], canon[b]), max(canon[a], canon[b])}; jac[k] == 0 {
				jac[k] = j // the first pair between two groups names the step
			}
		}
		a, b := r.IntN(n), r.IntN(n)
		path, ok := Path(n, canon, pairs, a, b)
		want := distSlow(canon, pairs, a, b)
		if a == b {
			want = 0
		}
		if ok != (want >= 0) {
			t.Fatalf("trial %d: Path(%d, %d) ok = %v, BFS distance %d", trial, a, b, ok, want)
		}
		if !ok {
			if len(path) != 0 {
				t.Fatalf("trial %d: no path but %v", trial, path)
			}
			continue
		}
		if len(path) != want+1 && !(canon[a] == canon[b] && a != b && len(path) == 2) {
			t.Fatalf("trial %d: Path(%d, %d) = %v, want %d steps", trial, a, b, path, want)
		}
		if path[0].Doc != a || path[len(path)-1].Doc != b {
			t.Fatalf("trial %d: Path(%d, %d) = %v: wrong ends", trial, a, b, path)
		}
		for k := 1; k < len(path); k++ {
			u, v := canon[path[k-1].Doc], canon[path[k].Doc]
			w, ok := jac[[2]int{min(u, v), max(u, v)}]
			if u == v {
				w, ok = 1, true
			}
			if !ok || path[k].Jaccard != w {
				t.Fatalf("trial %d: step %d of %v is no pair (or not its Jaccard %v)", trial, k, path, w)
			}
		}
	}
}

func TestClustersOf(t *testing.T) {
	// 0-1-2 is a chain, 3 is a copy of 0, 4 is alone.
	canon := []int{0, 1, 2, 0, 4}
	pairs := []neardup.Pair{{A: 0, B: 1, Jaccard: 0.9}, {A: 1, B: 2, Jaccard: 0.8}}
	o := neardup.Options{Cluster: neardup.ClusterComponents, MaxCluster: 3}
	ca, cb, err := ClustersOf([]int64{5, 5, 5, 5, 5}, canon, pairs, o, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	if ca == nil || ca.Representative != 0 || ca.Size != 4 || !ca.Review || cb != nil {
		t.Fatalf("ClustersOf = %+v, %+v; want {0 4 true}, nil", ca, cb)
	}
}

func ExamplePath() {
	// Document 2 is a copy of 0; 0 and 1 are near-duplicates, 1 and 3 too.
	canon := Groups([]uint64{7, 8, 7, 9})
	pairs := []neardup.Pair{{A: 0, B: 1, Jaccard: 0.8}, {A: 1, B: 3, Jaccard: 0.7}}
	path, ok := Path(4, canon, pairs, 2, 3)
	fmt.Println(ok, path)
	// Output: true [{2 0} {1 0.8} {3 0.7}]
}
