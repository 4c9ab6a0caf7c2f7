package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/neardup/neardup"
)

// progress is what a command reports while it works: the current stage
// and, where the total is known, how much of it is done. Its methods are
// safe for concurrent use. While no stage is set, a batch attached with
// watch reports its own stages (reading, shingling, LSH bands, ...).
type progress struct {
	stage       atomic.Value // string
	done, total atomic.Int64
	batch       atomic.Pointer[neardup.Batch]
	src         *source // bytes read, for the reading stage
}

// set starts a stage of total units (0: unknown).
func (p *progress) set(stage string, total int64) {
	p.done.Store(0)
	p.total.Store(total)
	p.stage.Store(stage)
}

// add records n more units of the current stage done.
func (p *progress) add(n int64) { p.done.Add(n) }

// watch lets b report its stages until the next set.
func (p *progress) watch(b *neardup.Batch) {
	p.batch.Store(b)
	p.stage.Store("")
}

// line returns the progress line for elapsed seconds el.
func (p *progress) line(el float64) string {
	stage, _ := p.stage.Load().(string)
	done, total := p.done.Load(), p.total.Load()
	if b := p.batch.Load(); stage == "" && b != nil {
		var n int64
		stage, n, total = b.Progress()
		done = n
		if stage == "read" {
			mb := 0.0
			if p.src != nil {
				mb = float64(p.src.bytes.Load()) / 1e6
			}
			return fmt.Sprintf("reading: %s, %.0f MB (%.0f MB/s)", plural(b.Len(), "document", "documents"), mb, mb/el)
		}
	}
	if stage == "" {
		stage = "working"
	}
	if stage == "reading" && p.src != nil {
		mb := float64(p.src.bytes.Load()) / 1e6
		return fmt.Sprintf("reading: %.0f MB (%.0f MB/s)", mb, mb/el)
	}
	if total <= 0 && done > 0 {
		return fmt.Sprintf("%s: %d", stage, done)
	}
	return fmt.Sprintf("%s: %s", stage, bar(done, total))
}

// startProgress shows p as a one-line display on standard error while a
// command works, when standard error is a terminal and the command has
// taken more than a second. The returned function stops it and clears the
// line; it may be called more than once.
func startProgress(e *env, disabled bool, p *progress) (stop func()) {
	if disabled || !e.stderrTTY {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		start := time.Now()
		select {
		case <-done:
			return
		case <-time.After(time.Second):
		}
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			el := time.Since(start).Seconds()
			fmt.Fprintf(e.stderr, "\r\x1b[K%s  %.1fs", p.line(el), el)
			select {
			case <-done:
				fmt.Fprint(e.stderr, "\r\x1b[K")
				return
			case <-tick.C:
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
		})
	}
}

// bar draws done/total as a 30-column bar and a percentage, or "working"
// when the total is unknown.
func bar(done, total int64) string {
	if total <= 0 {
		return "working"
	}
	const width = 30
	f := min(float64(done)/float64(total), 1)
	n := int(f * width)
	b := make([]byte, width)
	for i := range b {
		if i < n {
			b[i] = '#'
		} else {
			b[i] = '.'
		}
	}
	return fmt.Sprintf("[%s] %3.0f%%", b, 100*f)
}
