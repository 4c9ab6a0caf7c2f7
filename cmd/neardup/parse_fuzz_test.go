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
		if err != nil {
			return
		}
		if !slices.IsSorted(ls) || len(slices.Compact(slices.Clone(ls))) != len(ls) {
			t.Fatalf("parseLengths(%q) = %v: not sorted and distinct", s, ls)
		}
		for _, n := range ls {
			if n < 1 || n > shingle.MaxN {
				t.Fatalf("parseLengths(%q) = %v", s, ls)
			}
		}
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
		if err != nil {
			return
		}
		if !slices.IsSorted(cs) || len(slices.Compact(slices.Clone(cs))) != len(cs) {
			t.Fatalf("parseCutoffs(%q) = %v: not sorted and distinct", s, cs)
		}
		for _, c := range cs {
			if !(c > 0 && c <= 1) {
				t.Fatalf("parseCutoffs(%q) = %v", s, cs)
			}
		}
	})
}
