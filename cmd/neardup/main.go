// Command neardup finds near-duplicate documents. See "neardup help".
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sigs
		// The first signal cancels the run, which cleans up and exits
		// 128+signal; a second one kills the process at once.
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		cancel(&signalError{s})
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	cancel(nil)
	os.Exit(code)
}
