package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/corpus"
)

// A compressed input is counted as compressedRatio times its size in the
// text bytes whose one-pass memory (neardup.OnePassMemory) is estimated.
const compressedRatio = 4

// memoryLimit is the value of --memory-limit: a size in bytes, 0 for none,
// or auto (-1): a share of the machine's memory.
type memoryLimit int64

const autoMemoryShare = 0.6

func (m *memoryLimit) String() string {
	switch {
	case *m < 0:
		return "auto"
	case *m == 0:
		return "none"
	}
	return humanBytes(int64(*m))
}

func (m *memoryLimit) Set(s string) error {
	switch s {
	case "auto":
		*m = -1
		return nil
	case "none", "0":
		*m = 0
		return nil
	}
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*m = memoryLimit(n)
	return nil
}

// parseSize parses a byte count with an optional unit: B, KB, MB, GB, TB
// (powers of 1000), KiB, MiB, GiB, TiB (powers of 1024), or K, M, G, T
// (powers of 1024).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	num, unit := t[:i], strings.ToUpper(strings.TrimSpace(t[i:]))
	mult := map[string]float64{"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
		"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40,
		"KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "TIB": 1 << 40}[unit]
	v, err := strconv.ParseFloat(num, 64)
	if mult == 0 || err != nil || v < 0 || math.IsInf(v*mult, 0) || v*mult >= 1<<62 {
		return 0, fmt.Errorf("size %q: want a number of bytes with an optional unit (e.g. 800MB, 8GiB)", s)
	}
	return int64(v * mult), nil
}

// physicalMemory returns MemTotal from /proc/meminfo, or 0 if unknown.
func physicalMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// resolve returns the limit in bytes (0: none).
func (m memoryLimit) resolve() int64 {
	if m < 0 {
		return int64(float64(physicalMemory()) * autoMemoryShare)
	}
	return int64(m)
}

// setGoMemoryLimit makes the limit, when there is one, the Go runtime's
// soft memory limit for the run (unless GOMEMLIMIT is set): the collector
// then works harder near the limit instead of letting the heap grow to
// twice what is live, which on a large run is what decides the peak. It
// returns a function that puts back the previous limit.
func setGoMemoryLimit(m memoryLimit) func() {
	limit := m.resolve()
	if limit <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(prev) }
}

// inputBytes estimates the text bytes of the inputs from their sizes on
// disk (compressed files counted compressedRatio times; standard input
// and what cannot be examined count 0).
func inputBytes(inputs []string) int64 {
	var total int64
	add := func(path string, size int64) {
		switch strings.ToLower(filepath.Ext(path)) {
		case ".gz", ".zst", ".zstd":
			size *= compressedRatio
		}
		total += size
	}
	for _, in := range inputs {
		if in == "-" {
			continue
		}
		fi, err := os.Stat(in)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			add(in, fi.Size())
			continue
		}
		filepath.WalkDir(in, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if i, err := d.Info(); err == nil {
					add(p, i.Size())
				}
			}
			return nil
		})
	}
	return total
}

// rereadAbove is the one-pass memory estimate above which the automatic
// limit takes two passes over inputs that are cheap to read again (see
// planPasses): about 100 MB of text. Measured on the generated benchmark
// corpora (bench/run.sh, 2026-11-26), two passes took the same time as one
// at 100k documents (154 MB: 0.83-0.87 s against 0.81-0.90 s) for a third
// of the memory (126 MB against 351 MB), and at 1M about 5% longer for
// 0.88 GB against 3.18 GB. Below it, the memory saved is too little to
// matter and one pass keeps the simpler path.
const rereadAbove = 256 << 20

// planPasses returns why dedup should run in two passes, or "" for one.
// The options must allow two (exact verification, no idf weights, no edit
// refinement). Then:
//   - an explicit limit (a size) takes two when one pass would need more
//     memory than it;
//   - the automatic limit takes two as well when the inputs are cheap to
//     read again (cheapToReread) and one pass would need more than
//     rereadAbove: the second pass reads back only the candidates' texts,
//     and the run holds signatures instead of every shingle set;
//   - none (0) always takes one.
//
// Standard input's size is not known in advance: it takes two passes
// (spooled to a temporary file) under an explicit limit, one under auto.
func planPasses(o neardup.Options, m memoryLimit, inputs []string, format corpus.Format) string {
	limit := m.resolve()
	if limit <= 0 || !o.CanTwoPass() {
		return ""
	}
	if m > 0 && slices.Contains(inputs, "-") {
		return fmt.Sprintf("standard input, whose size is not known in advance, under --memory-limit %s", humanBytes(limit))
	}
	need := neardup.OnePassMemory(inputBytes(inputs))
	if need > limit {
		return fmt.Sprintf("one pass would need about %s, over --memory-limit %s", humanBytes(need), humanBytes(limit))
	}
	if m < 0 && need > rereadAbove && cheapToReread(inputs, format) {
		return fmt.Sprintf("the inputs are plain files: one pass would hold every shingle set, about %s; --memory-limit none for one pass", humanBytes(need))
	}
	return ""
}

// cheapToReread reports whether every input is a regular file whose
// documents are read again at the cost of the first read: not standard
// input, a directory, a compressed file (a second decompression of the
// whole file) or Parquet (a second decoding of its pages).
func cheapToReread(inputs []string, format corpus.Format) bool {
	if format == corpus.Parquet || format == corpus.Dir || len(inputs) == 0 {
		return false
	}
	for _, in := range inputs {
		if in == "-" {
			return false
		}
		if fi, err := os.Stat(in); err != nil || !fi.Mode().IsRegular() {
			return false
		}
		switch strings.ToLower(filepath.Ext(in)) {
		case ".gz", ".zst", ".zstd", ".parquet":
			return false
		}
	}
	return true
}
