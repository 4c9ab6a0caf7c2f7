package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

// A failed write names the file once: as the writer's own path error, or
// with the output's name when the error has none.
func TestWriteErr(t *testing.T) {
	pe := &fs.PathError{Op: "write", Path: "out/pairs.tsv", Err: errors.New("no space left on device")}
	if got := writeErr("out/pairs.tsv", fmt.Errorf("flush: %w", pe)); strings.Count(got.Error(), "out/pairs.tsv") != 1 || !errors.Is(got, pe.Err) {
		t.Errorf("path error: %v", got)
	}
	plain := errors.New("disk full")
	if got := writeErr("out/pairs.tsv", plain); got.Error() != "write out/pairs.tsv: disk full" || !errors.Is(got, plain) {
		t.Errorf("plain error: %v", got)
	}
}
