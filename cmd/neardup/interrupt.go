package main

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
)

// signalError is the cause of a run's context when a signal stopped it.
type signalError struct{ sig os.Signal }

func (e *signalError) Error() string {
	if e.sig == syscall.SIGTERM {
		return "terminated"
	}
	return "interrupted"
}

// exitCode is 128 plus the signal number, as a shell reports a process
// killed by the signal: 130 for SIGINT, 143 for SIGTERM.
func (e *signalError) exitCode() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return exitError
}

// stoppedBy returns the signal that cancelled ctx, or nil.
func stoppedBy(ctx context.Context) *signalError {
	var se *signalError
	if ctx.Err() != nil && errors.As(context.Cause(ctx), &se) {
		return se
	}
	return nil
}

// cancelReader reads r, but once ctx is done its Read returns ctx.Err() at
// once, even while a Read of r is blocked: a read of standard input from a
// terminal or a pipe cannot be interrupted otherwise, and a command waiting
// for input would ignore Ctrl-C. The copying goroutine starts on the first
// Read, so a command that does not read r consumes nothing of it. It is not
// safe for concurrent use.
type cancelReader struct {
	ctx context.Context
	r   io.Reader

	mu     sync.Mutex
	pr     *io.PipeReader
	closed bool
}

func newCancelReader(ctx context.Context, r io.Reader) *cancelReader {
	return &cancelReader{ctx: ctx, r: r}
}

func (c *cancelReader) Read(p []byte) (int, error) {
	return c.pipe().Read(p)
}

func (c *cancelReader) pipe() *io.PipeReader {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pr != nil {
		return c.pr
	}
	pr, pw := io.Pipe()
	c.pr = pr
	if c.closed {
		pr.Close()
		return pr
	}
	stop := context.AfterFunc(c.ctx, func() { pr.CloseWithError(c.ctx.Err()) })
	go func() {
		_, err := io.Copy(pw, c.r)
		stop()
		pw.CloseWithError(err) // nil: the reader sees io.EOF
	}()
	return pr
}

// close ends the copying goroutine, unless it is blocked reading r: a
// command that stopped reading early leaves no goroutine writing behind.
func (c *cancelReader) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.pr != nil {
		c.pr.Close()
	}
}
