package parallel

import (
	"slices"
	"sync/atomic"
	"testing"
)

func TestRun(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 7} {
		var calls [8]atomic.Int32
		Run(workers, func(w int) { calls[w].Add(1) })
		for w := range calls {
			want := int32(0)
			if w < max(workers, 1) {
				want = 1
			}
			if got := calls[w].Load(); got != want {
				t.Errorf("workers %d: fn(%d) called %d times, want %d", workers, w, got, want)
			}
		}
	}
}

// TestSplit checks Split against its definition, by a scan for each
// range, on weights with empty items and a heavy one.
func TestSplit(t *testing.T) {
	weights := []int{3, 0, 0, 5, 1, 40, 0, 2, 2, 2, 0, 7}
	start := []int{0}
	for _, x := range weights {
		start = append(start, start[len(start)-1]+x)
	}
	n, total := len(weights), start[len(weights)]
	for workers := 1; workers <= 20; workers++ {
		from := Split(start, workers)
		if len(from) != workers+1 || from[0] != 0 || from[workers] != n {
			t.Fatalf("workers %d: %v", workers, from)
		}
		for w := 1; w < workers; w++ {
			at := w * total / workers
			k := 0
			for k < n && start[k] < at {
				k++
			}
			if from[w] != k {
				t.Fatalf("workers %d: from[%d] = %d, want %d", workers, w, from[w], k)
			}
		}
		if !slices.IsSorted(from) {
			t.Fatalf("workers %d: ranges out of order: %v", workers, from)
		}
	}
	u := []uint32{0, 10, 20, 30, 40}
	if got := Split(u, 2); !slices.Equal(got, []int{0, 2, 4}) {
		t.Errorf("Split(%v, 2) = %v", u, got)
	}
}

// TestFor: every index in exactly one chunk, no chunk longer than asked,
// w below workers and never in two calls at once, for sizes around the
// chunk length and several worker counts.
func TestFor(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 5} {
		for _, n := range []int{0, 1, 6, 7, 8, 100} {
			const chunk = 7
			seen := make([]atomic.Int32, n)
			var calls atomic.Int32
			var busy [8]atomic.Int32 // calls under way per w: never two
			For(n, workers, chunk, func(w, lo, hi int) {
				calls.Add(1)
				if w < 0 || w >= max(workers, 1) {
					t.Errorf("workers %d n %d: w = %d", workers, n, w)
					return
				}
				if busy[w].Add(1) != 1 {
					t.Errorf("workers %d n %d: two calls with w = %d at once", workers, n, w)
				}
				defer busy[w].Add(-1)
				if lo < 0 || hi > n || hi <= lo || hi-lo > chunk {
					t.Errorf("workers %d n %d: chunk [%d, %d)", workers, n, lo, hi)
					return
				}
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
			})
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("workers %d n %d: index %d done %d times", workers, n, i, c)
				}
			}
			if want := int32((n + chunk - 1) / chunk); calls.Load() != want {
				t.Fatalf("workers %d n %d: %d chunks, want %d", workers, n, calls.Load(), want)
			}
		}
	}
}
