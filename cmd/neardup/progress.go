package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/neardup/neardup"
)

// startProgress shows a one-line progress display on standard error while
// a run goes on, when standard error is a terminal and the run has taken
// more than a second. The returned function stops it and clears the line.
func startProgress(e *env, disabled bool, b *neardup.Batch, src *source) (stop func()) {
	if disabled || !e.stderrTTY {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		select {
		case <-done:
			return
		case <-time.After(time.Second):
		}
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			stage, n, total := b.Progress()
			el := time.Since(start).Seconds()
			line := ""
			if stage == "read" {
				mb := float64(src.bytes.Load()) / 1e6
				line = fmt.Sprintf("reading: %d documents, %.0f MB (%.0f MB/s)", b.Len(), mb, mb/el)
			} else {
				line = fmt.Sprintf("%s: %s", stage, bar(n, total))
			}
			fmt.Fprintf(e.stderr, "\r\x1b[K%s  %.1fs", line, el)
			select {
			case <-done:
				fmt.Fprint(e.stderr, "\r\x1b[K")
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
		})
	}
}

// bar draws done/total as a 30-column bar, or just the count when the total
// is unknown.
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
