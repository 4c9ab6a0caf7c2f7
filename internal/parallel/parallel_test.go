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
