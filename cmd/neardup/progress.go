package main

import (
	"fmt"
	"sync/atomic"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cmd/neardup/internal/statusline"
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
	return fmt.Sprintf("%s: %s", stage, statusline.Bar(done, total))
}

// startProgress shows p as a one-line display on standard error while a
// command works, when standard error is a terminal and the command has
// taken more than a second (statusline.Show). The returned function stops
// it and clears the line; it may be called more than once.
func startProgress(e *env, disabled bool, p *progress) (stop func()) {
	if disabled || !e.stderrTTY {
		return func() {}
	}
	return statusline.Show(e.stderr, p.line)
}
