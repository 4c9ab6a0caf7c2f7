package index

import (
	"context"
	"runtime"
	"sync"
)

// QueryBatch runs Query(ctx, texts[i], q) for every text on up to workers
// goroutines (0 or less: runtime.GOMAXPROCS(0)), the index being only
// read, and returns the answers in the order of texts: res[i] and errs[i]
// are the ith text's matches and error (ErrNoShingles, ErrThreshold, ...).
// It returns when every query is done; a cancelled ctx fails the queries
// not yet done with its error. texts is not modified or kept. It allocates
// the two result slices and what each Query allocates.
func (ix *Index) QueryBatch(ctx context.Context, texts [][]byte, q QueryOptions, workers int) (res [][]Match, errs []error) {
	res = make([][]Match, len(texts))
	errs = make([]error, len(texts))
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, len(texts)) {
		wg.Go(func() {
			for i := range next {
				res[i], errs[i] = ix.Query(ctx, texts[i], q)
			}
		})
	}
	for i := range texts {
		next <- i
	}
	close(next)
	wg.Wait()
	return res, errs
}
