package server

// The memory budget of request bodies (Options.MaxInFlightBytes). A
// request's memory is its body and what the handler derives from it (the
// parsed values, the texts handed to the index, their shingles), all of it
// live until the handler returns; without a bound, 64 concurrent 8 MB
// queries took a server from 79 MB to 2.6 GB. Each request with a body
// takes its length from the budget before reading it and gives it back
// when its handler returns; one that cannot get it in admitWait is
// refused with 503 overloaded.

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// admitWait bounds the wait of a request for its bytes of the budget;
// then it is answered 503 overloaded (with Retry-After: 1). A second is
// about five 8 MB queries' time (190 ms each, alone on a 2-core machine):
// enough for a burst to be served in turn, short beside clients'
// timeouts.
const admitWait = time.Second

// byteBudget is a counting semaphore of bytes, first come first served:
// a request waiting for more bytes than are free is not overtaken by
// smaller ones (which would starve large bodies). It works as
// golang.org/x/sync/semaphore.Weighted does (a module this one does not
// need otherwise), and keeps its high-water mark for tests.
type byteBudget struct {
	size int64 // bytes; asks are clamped to it

	mu      sync.Mutex
	held    int64
	peak    int64     // most bytes ever held at once
	waiters list.List // of *budgetWaiter, in arrival order
}

type budgetWaiter struct {
	n     int64
	ready chan struct{} // closed once the bytes are granted
}

func newByteBudget(size int64) *byteBudget { return &byteBudget{size: size} }

// clamp returns n bounded by the budget: a body larger than the whole
// budget (but within MaxBody) is served alone.
func (b *byteBudget) clamp(n int64) int64 { return min(n, b.size) }

// tryAcquire takes n bytes (0 < n <= size) if they are free and nobody
// waits before it.
func (b *byteBudget) tryAcquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.size-b.held < n || b.waiters.Len() > 0 {
		return false
	}
	b.take(n)
	return true
}

// acquire takes n bytes (0 < n <= size), waiting in line until they are
// free or ctx ends. Bytes granted as ctx ended count as acquired (nil):
// the caller must release them.
func (b *byteBudget) acquire(ctx context.Context, n int64) error {
	b.mu.Lock()
	if b.size-b.held >= n && b.waiters.Len() == 0 {
		b.take(n)
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	e := b.waiters.PushBack(w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready: // granted meanwhile
		return nil
	default:
	}
	first := b.waiters.Front() == e
	b.waiters.Remove(e)
	if first {
		b.grant() // those behind it may fit where it did not
	}
	return ctx.Err()
}

// release gives back n bytes taken by acquire.
func (b *byteBudget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.held -= n
	if b.held < 0 {
		panic("server: byteBudget released more than held")
	}
	b.grant()
}

// take and grant run with b.mu held.
func (b *byteBudget) take(n int64) {
	b.held += n
	b.peak = max(b.peak, b.held)
}

// grant admits the waiters at the front whose bytes are free, in order.
func (b *byteBudget) grant() {
	for e := b.waiters.Front(); e != nil; e = b.waiters.Front() {
		w := e.Value.(*budgetWaiter)
		if b.size-b.held < w.n {
			return
		}
		b.take(w.n)
		b.waiters.Remove(e)
		close(w.ready)
	}
}

// inUse returns the bytes held and the most ever held at once.
func (b *byteBudget) inUse() (held, peak int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held, b.peak
}
