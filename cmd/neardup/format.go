package main

// Number formats and plain-text tables shared by the commands' output.

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/neardup/neardup/cmd/neardup/internal/human"
)

// plural and pick are human.Plural and human.Pick, as the commands'
// messages use them.
func plural[N ~int | ~int32 | ~int64 | ~uint64](n N, one, many string) string {
	return human.Plural(n, one, many)
}

func pick[N ~int | ~int32 | ~int64 | ~uint64](n N, one, many string) string {
	return human.Pick(n, one, many)
}

func ptr(v float64) *float64 { return &v }

func fmtSim(s float64) string { return strconv.FormatFloat(s, 'f', -1, 64) }

// fmtProb prints a probability with six significant figures where they
// matter: tiny ones in exponent form, ones close to 1 with enough decimals
// to tell them from 1.
func fmtProb(p float64) string {
	switch {
	case p == 0 || p == 1:
		return strconv.FormatFloat(p, 'f', 0, 64)
	case p < 1e-3:
		return strconv.FormatFloat(p, 'e', 3, 64)
	case p > 0.999999:
		return "1-" + strconv.FormatFloat(1-p, 'e', 2, 64)
	default:
		return strconv.FormatFloat(p, 'f', 6, 64)
	}
}

// printTable writes an aligned table: the first column left-aligned, the
// others right-aligned.
func printTable(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	line := func(cells []string) {
		// tabwriter right-aligns every cell; a trailing tab ends the last one.
		fmt.Fprint(tw, strings.Join(cells, "\t")+"\t\n")
	}
	line(header)
	for _, r := range rows {
		line(r)
	}
	return tw.Flush()
}
