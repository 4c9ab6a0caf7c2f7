package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/shingle"
)

// FuzzParseSize: --memory-limit's sizes: a size is a count of bytes in
// [0, 2⁶²), or an error naming the text; never a panic.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"800MB", "8GiB", "1.5G", "4 kib", "NaN", "nanGB", "Inf", "-0", "1e400", "0x10", " 2 TB ", "5000000T"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSize(s)
		if err != nil {
			if !strings.Contains(err.Error(), "size") {
				t.Fatalf("parseSize(%q): error %v", s, err)
			}
			return
		}
		if n < 0 || n >= 1<<62 {
			t.Fatalf("parseSize(%q) = %d", s, n)
		}
	})
}

func TestParseSizeRefuses(t *testing.T) {
	for _, s := range []string{"NaN", "nan", "NaNGB", "Inf", "-1", "-0.5KB", "1e400", "5000000T", "5XB", "", "GB"} {
		if n, err := parseSize(s); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", s, n)
		}
	}
}

// FuzzParseLengths: analyze's --lengths: sorted, distinct lengths from 1
// to shingle.MaxN, every one named by the text, or an error.
func FuzzParseLengths(f *testing.F) {
	for _, s := range []string{"1-7", "2,3,5", "1-3,5", "", "7-1", "0", "3-", "-3", " 2 - 4 , 9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ls, err := parseLengths(s)
		checkList(t, "parseLengths", s, ls, err, func(n int) bool { return n >= 1 && n <= shingle.MaxN })
	})
}

// FuzzParseCutoffs: analyze's cut-offs: sorted, distinct values in
// (0, 1], or an error.
func FuzzParseCutoffs(f *testing.F) {
	for _, s := range []string{"0.5,0.8", "1", "0", "NaN", "0.9, 0.9,0.1", ",", "2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := parseCutoffs(s)
		checkList(t, "parseCutoffs", s, cs, err, func(c float64) bool { return c > 0 && c <= 1 })
	})
}

// checkList fails t unless a list parser's result for s is an error or
// sorted, distinct values that all satisfy in.
func checkList[T int | float64](t *testing.T, name, s string, got []T, err error, in func(T) bool) {
	t.Helper()
	if err != nil {
		return
	}
	if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Fatalf("%s(%q) = %v: not sorted and distinct", name, s, got)
	}
	for _, v := range got {
		if !in(v) {
			t.Fatalf("%s(%q) = %v: %v out of range", name, s, got, v)
		}
	}
}
