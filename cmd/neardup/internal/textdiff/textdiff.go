// Package textdiff finds the word-level differences between two texts, for
// showing two near-duplicate documents side by side.
//
// Words are maximal runs of non-space characters, compared exactly (case and
// punctuation included), except that each character of text written without
// spaces (Chinese, Japanese, Thai...: shingle.IsWide) is a word of its own. The alignment is a shortest edit script found by
// Myers' O(ND) algorithm in its linear-space form (the forward and reverse
// searches meet at a middle snake and each half is solved recursively), with
// common prefixes and suffixes stripped first. The work is bounded: texts are
// cut to a number of words, and a sub-problem whose search exceeds the
// remaining budget is reported as all changed rather than searched further.
package textdiff

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/neardup/neardup/shingle"
)

// DefaultMaxWords is the number of words of each text Diff compares when
// maxWords <= 0.
const DefaultMaxWords = 2000

// maxSteps bounds the snake-extension steps of one Diff call (about 4 times
// a fully different pair of DefaultMaxWords texts, a few milliseconds).
const maxSteps = 1 << 24

// Span is a run of text, unchanged or changed.
type Span struct {
	Text    string
	Changed bool
}

// Result is the difference between texts a and b: A is a as spans (Changed:
// deleted or replaced in b), B is b as spans (Changed: inserted or
// replacing). Concatenating the spans of A gives a, cut after MaxWords words
// if TruncatedA; likewise for B.
type Result struct {
	A, B                   []Span
	TruncatedA, TruncatedB bool
	// Common is the number of words of a (after truncation) matched in b.
	Common int
	// Coarse reports that the step budget ran out and some region was
	// marked changed without being aligned word by word.
	Coarse bool
}

// Diff compares the first maxWords words of a and b (DefaultMaxWords if
// maxWords <= 0). It never fails; the work is O((N+M)·D) in time, capped,
// and O(N+M) in memory.
func Diff(a, b string, maxWords int) Result {
	if maxWords <= 0 {
		maxWords = DefaultMaxWords
	}
	ta, truncA := tokenize(a, maxWords)
	tb, truncB := tokenize(b, maxWords)

	// Intern words so that comparisons are integer compares.
	ids := make(map[string]uint32, len(ta)+len(tb))
	intern := func(ts []token) []uint32 {
		out := make([]uint32, len(ts))
		for i, t := range ts {
			id, ok := ids[t.word]
			if !ok {
				id = uint32(len(ids))
				ids[t.word] = id
			}
			out[i] = id
		}
		return out
	}
	m := &myers{a: intern(ta), b: intern(tb), budget: maxSteps}
	m.changedA = make([]bool, len(m.a))
	m.changedB = make([]bool, len(m.b))
	m.diff(0, len(m.a), 0, len(m.b))

	r := Result{TruncatedA: truncA, TruncatedB: truncB, Coarse: m.budget < 0}
	r.A = spans(ta, m.changedA)
	r.B = spans(tb, m.changedB)
	for i, c := range m.changedA {
		// The trailing white space of a (a token with no word) is not a
		// word, even when b ends with white space too.
		if !c && ta[i].word != "" {
			r.Common++
		}
	}
	return r
}

// token is a word and the white space before it.
type token struct {
	space, word string
}

// tokenize splits s into at most max words, the text after the last word
// (trailing space) kept only when nothing was cut.
func tokenize(s string, max int) (ts []token, truncated bool) {
	i := 0
	for i < len(s) {
		start := i
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsSpace(r) {
				break
			}
			i += n
		}
		if i == len(s) {
			ts = append(ts, token{space: s[start:]})
			break
		}
		if len(ts) == max {
			return ts, true
		}
		w := i
		r0, n0 := utf8.DecodeRuneInString(s[i:])
		i += n0
		if shingle.IsWide(r0) {
			// Chinese, Japanese, Thai...: each character (with its marks)
			// is a word, as they have no spaces to cut at.
			for i < len(s) {
				r, n := utf8.DecodeRuneInString(s[i:])
				if !unicode.Is(unicode.M, r) {
					break
				}
				i += n
			}
		} else {
			for i < len(s) {
				r, n := utf8.DecodeRuneInString(s[i:])
				if unicode.IsSpace(r) || shingle.IsWide(r) {
					break
				}
				i += n
			}
		}
		ts = append(ts, token{space: s[start:w], word: s[w:i]})
	}
	// A trailing space-only token has no word: it takes part in the
	// alignment as an empty word (two texts ending in white space match
	// there) but is not counted in Result.Common, and its span is never
	// marked changed.
	return ts, false
}

// spans merges tokens into runs. The space between two changed words is part
// of the changed run; the space before a changed run is not.
func spans(ts []token, changed []bool) []Span {
	var out []Span
	var sb strings.Builder
	cur := false
	emit := func(text string, c bool) {
		if text == "" {
			return
		}
		if c != cur && sb.Len() > 0 {
			out = append(out, Span{Text: sb.String(), Changed: cur})
			sb.Reset()
		}
		cur = c
		sb.WriteString(text)
	}
	for i, t := range ts {
		c := i < len(changed) && changed[i]
		if t.word == "" { // trailing space
			emit(t.space, false)
			continue
		}
		prevChanged := i > 0 && changed[i-1]
		emit(t.space, c && prevChanged)
		emit(t.word, c)
	}
	if sb.Len() > 0 {
		out = append(out, Span{Text: sb.String(), Changed: cur})
	}
	return out
}

// myers marks the words of a and b that are not in a longest common
// subsequence found by the linear-space variant of Myers' algorithm.
type myers struct {
	a, b               []uint32
	changedA, changedB []bool
	budget             int // snake steps left; negative once exhausted
	v1, v2             []int
}

// diff aligns a[alo:ahi] with b[blo:bhi].
func (m *myers) diff(alo, ahi, blo, bhi int) {
	// Common prefix and suffix.
	for alo < ahi && blo < bhi && m.a[alo] == m.b[blo] {
		alo++
		blo++
	}
	for alo < ahi && blo < bhi && m.a[ahi-1] == m.b[bhi-1] {
		ahi--
		bhi--
	}
	if alo == ahi || blo == bhi || m.budget < 0 {
		m.mark(alo, ahi, blo, bhi)
		return
	}
	x, y, ok := m.bisect(alo, ahi, blo, bhi)
	if !ok || (x == alo && y == blo) || (x == ahi && y == bhi) {
		m.mark(alo, ahi, blo, bhi)
		return
	}
	m.diff(alo, x, blo, y)
	m.diff(x, ahi, y, bhi)
}

func (m *myers) mark(alo, ahi, blo, bhi int) {
	for i := alo; i < ahi; i++ {
		m.changedA[i] = true
	}
	for j := blo; j < bhi; j++ {
		m.changedB[j] = true
	}
}

// bisect finds the middle snake of a[alo:ahi] and b[blo:bhi] (both non-empty,
// differing in their first and last elements) and returns a split point
// strictly inside the problem, or ok == false if the budget ran out.
func (m *myers) bisect(alo, ahi, blo, bhi int) (x, y int, ok bool) {
	a, b := m.a[alo:ahi], m.b[blo:bhi]
	n, mm := len(a), len(b)
	maxD := (n + mm + 1) / 2
	off := maxD + 1
	size := 2*maxD + 3
	if cap(m.v1) < size {
		m.v1 = make([]int, size)
		m.v2 = make([]int, size)
	}
	v1, v2 := m.v1[:size], m.v2[:size]
	for i := range v1 {
		v1[i], v2[i] = -1, -1
	}
	v1[off+1], v2[off+1] = 0, 0
	delta := n - mm
	front := delta%2 != 0
	k1start, k1end, k2start, k2end := 0, 0, 0, 0
	for d := 0; d < maxD; d++ {
		if m.budget < 0 {
			return 0, 0, false
		}
		// Forward path.
		for k1 := -d + k1start; k1 <= d-k1end; k1 += 2 {
			i := off + k1
			var x1 int
			if k1 == -d || (k1 != d && v1[i-1] < v1[i+1]) {
				x1 = v1[i+1]
			} else {
				x1 = v1[i-1] + 1
			}
			y1 := x1 - k1
			for x1 < n && y1 < mm && a[x1] == b[y1] {
				x1++
				y1++
				m.budget--
			}
			m.budget--
			v1[i] = x1
			switch {
			case x1 > n:
				k1end += 2
			case y1 > mm:
				k1start += 2
			case front:
				j := off + delta - k1
				if j >= 0 && j < size && v2[j] != -1 {
					if x2 := n - v2[j]; x1 >= x2 {
						return alo + x1, blo + y1, true
					}
				}
			}
		}
		// Reverse path.
		for k2 := -d + k2start; k2 <= d-k2end; k2 += 2 {
			i := off + k2
			var x2 int
			if k2 == -d || (k2 != d && v2[i-1] < v2[i+1]) {
				x2 = v2[i+1]
			} else {
				x2 = v2[i-1] + 1
			}
			y2 := x2 - k2
			for x2 < n && y2 < mm && a[n-x2-1] == b[mm-y2-1] {
				x2++
				y2++
				m.budget--
			}
			m.budget--
			v2[i] = x2
			switch {
			case x2 > n:
				k2end += 2
			case y2 > mm:
				k2start += 2
			case !front:
				j := off + delta - k2
				if j >= 0 && j < size && v1[j] != -1 {
					x1 := v1[j]
					y1 := off + x1 - j
					if x1 >= n-x2 {
						return alo + x1, blo + y1, true
					}
				}
			}
		}
	}
	// No overlap: cannot happen for non-empty inputs, but stay safe.
	return 0, 0, false
}
