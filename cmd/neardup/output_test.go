package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"strings"
	"testing"

	"github.com/neardup/neardup"
)

// pairsSeq yields n pairs (i, i+1), stopping early if asked.
func pairsSeq(n int) iter.Seq[neardup.Pair] {
	return func(yield func(neardup.Pair) bool) {
		for i := range n {
			if !yield(neardup.Pair{A: i, B: i + 1, Jaccard: float64(i%1000) / 1000}) {
				return
			}
		}
	}
}

func formatPlain(buf []byte, ps []neardup.Pair) []byte {
	for _, p := range ps {
		buf = fmt.Appendf(buf, "%d\t%d\t%.6f\n", p.A, p.B, p.Jaccard)
	}
	return buf
}

// writeOrdered writes what a plain loop writes, in order, for any number
// of workers and batch boundaries.
func TestWriteOrdered(t *testing.T) {
	for _, n := range []int{0, 1, pairBatch - 1, pairBatch, 3*pairBatch + 5} {
		var want []byte
		for p := range pairsSeq(n) {
			want = formatPlain(want, []neardup.Pair{p})
		}
		for _, workers := range []int{1, 2, 5} {
			var got bytes.Buffer
			w := bufio.NewWriter(&got)
			if err := writeOrdered(w, pairsSeq(n), formatPlain, workers, &progress{}); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("n=%d workers=%d: %d bytes differ from the %d of a plain loop", n, workers, got.Len(), len(want))
			}
		}
	}
}

type failAfter struct {
	n   int
	err error
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n < len(p) {
		return 0, f.err
	}
	f.n -= len(p)
	return len(p), nil
}

// A write error stops the writing (the producer is not left blocked) and
// is returned.
func TestWriteOrderedError(t *testing.T) {
	errDisk := errors.New("disk full")
	for _, workers := range []int{1, 3} {
		w := bufio.NewWriterSize(&failAfter{n: 100_000, err: errDisk}, 4096)
		yielded := 0
		seq := func(yield func(neardup.Pair) bool) {
			for p := range pairsSeq(50 * pairBatch) {
				yielded++
				if !yield(p) {
					return
				}
			}
		}
		err := writeOrdered(w, seq, formatPlain, workers, &progress{})
		if !errors.Is(err, errDisk) {
			t.Fatalf("workers=%d: err = %v, want %v", workers, err, errDisk)
		}
		if yielded >= 50*pairBatch {
			t.Errorf("workers=%d: all %d pairs were produced after the error", workers, yielded)
		}
	}
}

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
