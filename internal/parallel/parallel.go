// Package parallel shares work split into fixed ranges among goroutines,
// for results that must not depend on how many goroutines there are: each
// goroutine gets a known share (worker w the w-th range), so what it
// writes, and where, is decided before it starts.
//
// Work taken in chunks as goroutines become free balances better; it suits
// loops whose results do not depend on who did what.
package parallel

import "sync"

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
