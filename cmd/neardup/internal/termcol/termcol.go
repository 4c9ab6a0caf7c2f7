// Package termcol lays text out in columns of a terminal: the cells a
// character takes (two for East Asian wide characters, none for combining
// marks), and wrapping, padding and clipping text to a width in cells. It
// is what "neardup analyze" draws its side-by-side examples with. The
// functions are pure and safe for concurrent use.
package termcol

import (
	"strings"
	"unicode"

	eaw "golang.org/x/text/width" // East Asian width
)

// Cells is the width of r on a terminal: 2 for East Asian wide and
// full-width characters (Chinese, Japanese, Korean), 0 for combining marks,
// else 1.
func Cells(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case unicode.Is(unicode.M, r):
		return 0
	}
	switch eaw.LookupRune(r).Kind() {
	case eaw.EastAsianWide, eaw.EastAsianFullwidth:
		return 2
	}
	return 1
}

// Width is the width of rs on a terminal: the sum of their Cells.
func Width(rs []rune) int {
	n := 0
	for _, r := range rs {
		n += Cells(r)
	}
	return n
}

// Wrap folds white space and control characters and cuts text into lines
// of at most width terminal cells, at spaces when it can, and between any
// two characters of a word wider than a line (text in Chinese or Japanese
// has no spaces to cut at).
func Wrap(text string, width int) []string {
	words := strings.FieldsFunc(text, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
	var lines []string
	var line []rune
	lineCells := 0
	for _, w := range words {
		rw := []rune(w)
		wc := Width(rw)
		switch {
		case len(line) > 0 && lineCells+1+wc <= width:
			line = append(append(line, ' '), rw...)
			lineCells += 1 + wc
			continue
		case len(line) > 0:
			lines, line, lineCells = append(lines, string(line)), line[:0], 0
		}
		if wc <= width {
			line, lineCells = append(line, rw...), wc
			continue
		}
		// A word longer than a line: cut it where the cells run out.
		for _, r := range rw {
			if c := Cells(r); lineCells+c > width && len(line) > 0 {
				lines, line, lineCells = append(lines, string(line)), line[:0], 0
			}
			line = append(line, r)
			lineCells += Cells(r)
		}
	}
	if len(line) > 0 {
		lines = append(lines, string(line))
	}
	return lines
}

// Pad fills s with spaces to width terminal cells.
func Pad(s string, width int) string {
	return s + strings.Repeat(" ", max(0, width-Width([]rune(s))))
}

// Clip cuts s to width terminal cells, marking the cut with "…".
func Clip(s string, width int) string {
	r := []rune(s)
	if Width(r) <= width {
		return s
	}
	n := 0
	for i, c := range r {
		if n+Cells(c) > width-1 {
			return string(r[:i]) + "…"
		}
		n += Cells(c)
	}
	return s
}
