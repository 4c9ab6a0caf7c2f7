package main

import (
	"context"
	"errors"
)

// STUB: replaced by the implementation of "neardup tune".
func runTune(ctx context.Context, e *env, args []string) error {
	return errors.New("not implemented yet")
}
