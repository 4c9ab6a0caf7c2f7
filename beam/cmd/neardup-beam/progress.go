package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// isTerminal reports whether f is a terminal (a character device).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progress shows the pipeline a run is in as one line on a terminal, as
// neardup dedup shows its stage: from a second after the start, the
// elapsed time updated five times a second, the line cleared at the end.
// pipeline.Run writes it a line as each pipeline starts.
type progress struct {
	w     io.Writer
	mu    sync.Mutex
	stage string
	done  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
}

func startProgress(w io.Writer) *progress {
	p := &progress{w: w, stage: "starting", done: make(chan struct{})}
	p.wg.Go(func() {
		start := time.Now()
		select {
		case <-p.done:
			return
		case <-time.After(time.Second):
		}
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			p.mu.Lock()
			stage := p.stage
			p.mu.Unlock()
			fmt.Fprintf(p.w, "\r\x1b[K%s  %.1fs", stage, time.Since(start).Seconds())
			select {
			case <-p.done:
				fmt.Fprint(p.w, "\r\x1b[K")
				return
			case <-tick.C:
			}
		}
	})
	return p
}

// Write takes the line "neardup-beam: pipeline N: WHAT" as the stage.
func (p *progress) Write(b []byte) (int, error) {
	s := strings.TrimSpace(strings.TrimPrefix(string(b), "neardup-beam: "))
	p.mu.Lock()
	p.stage = s
	p.mu.Unlock()
	return len(b), nil
}

// stop clears the line; it may be called more than once.
func (p *progress) stop() {
	p.once.Do(func() {
		close(p.done)
		p.wg.Wait()
	})
}
