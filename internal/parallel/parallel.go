// Package parallel shares loops among goroutines, two ways. Run with
// Split gives each goroutine a fixed share (worker w the w-th range), for
// results that must not depend on how many goroutines there are: what
// each writes, and where, is decided before it starts. For hands out
// chunks as goroutines become free, which balances better, for loops
// whose results do not depend on who did what.
package parallel

import (
	"sync"
	"sync/atomic"
)

// Run calls fn(0) to fn(workers-1), each in a goroutine of its own when
// workers > 1 (in the calling goroutine when workers <= 1, as fn(0)), and
// returns when all have returned.
func Run(workers int, fn func(w int)) {
	if workers <= 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { fn(w) })
	}
	wg.Wait()
}

// Split divides n items of given weights into workers ranges of about
// equal weight. start holds the cumulative weights, len(start) = n+1:
// start[k] is the weight of the items before item k, nondecreasing, and
// start[n] the total. It returns from, len(from) = workers+1: range w is
// items from[w] to from[w+1]-1, from[0] = 0, from[workers] = n, and from[w]
// is the first item k with start[k] >= w*total/workers. Ranges may be
// empty; workers must be at least 1.
func Split[T ~int | ~uint32 | ~uint64](start []T, workers int) []int {
	n := len(start) - 1
	total := uint64(start[n])
	from := make([]int, workers+1)
	for w, k := 1, 0; w < workers; w++ {
		at := uint64(w) * total / uint64(workers)
		for k < n && uint64(start[k]) < at {
			k++
		}
		from[w] = k
	}
	from[workers] = n
	return from
}

// For calls fn(w, lo, hi) for the consecutive chunks [lo, hi) of [0, n),
// each at most chunk long (chunk >= 1), from up to workers goroutines that
// take the next chunk as they become free, and returns when all chunks
// are done. w is the calling goroutine's number, below workers: calls with
// the same w come one after the other, so fn may keep scratch per w. With
// workers <= 1, or a single chunk, fn is called in order from the calling
// goroutine, with w = 0.
func For(n, workers, chunk int, fn func(w, lo, hi int)) {
	if workers <= 1 || n <= chunk {
		for lo := 0; lo < n; lo += chunk {
			fn(0, lo, min(lo+chunk, n))
		}
		return
	}
	var next atomic.Int64
	Run(min(workers, (n+chunk-1)/chunk), func(w int) {
		for {
			lo := int(next.Add(int64(chunk))) - chunk
			if lo >= n {
				return
			}
			fn(w, lo, min(lo+chunk, n))
		}
	})
}
