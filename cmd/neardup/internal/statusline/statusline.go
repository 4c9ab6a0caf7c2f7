// Package statusline draws a command's progress on a terminal: one line,
// rewritten in place a few times a second (Show), and the bar it may hold
// (Bar). What the line says is the caller's; the package only draws it.
package statusline

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Show writes line(elapsed seconds) to w, a terminal, every 200 ms from
// one second on, each time over the last, followed by the elapsed
// seconds. line is called from Show's goroutine and must be safe for use
// beside the caller's. The returned function stops the display and clears
// the line before it returns; it may be called more than once.
func Show(w io.Writer, line func(elapsed float64) string) (stop func()) {
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
			fmt.Fprintf(w, "\r\x1b[K%s  %.1fs", line(el), el)
			select {
			case <-done:
				fmt.Fprint(w, "\r\x1b[K")
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

// Bar draws done/total as a 30-column bar and a percentage, or "working"
// when the total is unknown (0 or less). Done is capped at total.
func Bar(done, total int64) string {
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
