package allpairs

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// TestAll checks every pair's intersection against a map-based count, with
// both counting methods and several worker counts.
func TestAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct{ n, maxSize, univ int }{{0, 5, 10}, {1, 5, 10}, {2, 0, 10}, {60, 30, 40}, {120, 80, 5000}} {
		sets := make([][]uint64, tc.n)
		for i := range sets {
			m := map[uint64]bool{}
			for range rng.IntN(tc.maxSize + 1) {
				m[uint64(rng.IntN(tc.univ))] = true
			}
			for x := range m {
				sets[i] = append(sets[i], x)
			}
			slices.Sort(sets[i])
		}
		for _, method := range []int{methodMerge, methodPostings, methodAuto} {
			for _, workers := range []int{1, 3} {
				allMethod = method
				var mu sync.Mutex
				got := map[[2]int]int{}
				err := All(context.Background(), sets, workers, func(w, i, j, inter int) {
					if w < 0 || w >= workers || i >= j {
						t.Errorf("call (%d, %d, %d)", w, i, j)
					}
					mu.Lock()
					if _, dup := got[[2]int{i, j}]; dup {
						t.Errorf("pair (%d, %d) twice", i, j)
					}
					got[[2]int{i, j}] = inter
					mu.Unlock()
				})
				allMethod = methodAuto
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != tc.n*(tc.n-1)/2 {
					t.Fatalf("n=%d method %d: %d pairs", tc.n, method, len(got))
				}
				for i := range sets {
					in := map[uint64]bool{}
					for _, x := range sets[i] {
						in[x] = true
					}
					for j := i + 1; j < len(sets); j++ {
						want := 0
						for _, x := range sets[j] {
							if in[x] {
								want++
							}
						}
						if got[[2]int{i, j}] != want {
							t.Fatalf("n=%d method %d: |%d ∩ %d| = %d, want %d", tc.n, method, i, j, got[[2]int{i, j}], want)
						}
					}
				}
			}
		}
	}
}

func TestAllCanceled(t *testing.T) {
	sets := make([][]uint64, 500)
	for i := range sets {
		sets[i] = []uint64{uint64(i), 1 << 40}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	if err := All(ctx, sets, 1, func(int, int, int, int) { calls++ }); !errors.Is(err, context.Canceled) {
		t.Fatalf("All with a cancelled context: %v", err)
	}
	if calls != 0 {
		t.Errorf("%d calls after cancel", calls)
	}
}
