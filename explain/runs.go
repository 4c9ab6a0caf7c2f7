// Shared runs: the longest stretches of tokens two texts have in common,
// for showing people what makes two documents near-duplicates.

package explain

import (
	"cmp"
	"slices"
	"strings"
)

// Run is a run of tokens common to two texts: a[I:I+N] == b[J:J+N].
type Run struct{ I, J, N int }

// maxStarts bounds the occurrences of one n-gram of b that SharedRuns
// extends, so that a text repeating one phrase thousands of times cannot make
// it quadratic.
const maxStarts = 256

// SharedRuns returns up to top maximal runs of tokens common to a and b, at
// least minLen long, longest first (ties: earlier in a, then in b), leaving
// out runs whose text is that of, or inside, a run already listed. A run
// a[i:i+n] == b[j:j+n] is maximal when it cannot be extended on either side.
// The tokens are compared as strings (shingle.Shingler.AppendTokenStrings);
// a token is never the NUL byte alone, which joins them in keys.
func SharedRuns(a, b []string, minLen, top int) []Run {
	if top == 0 || len(a) < minLen || len(b) < minLen {
		return nil
	}
	key := func(t []string, i int) string { return strings.Join(t[i:i+minLen], "\x00") }
	starts := map[string][]int{}
	for j := 0; j+minLen <= len(b); j++ {
		k := key(b, j)
		if s := starts[k]; len(s) < maxStarts {
			starts[k] = append(s, j)
		}
	}
	var runs []Run
	for i := 0; i+minLen <= len(a); i++ {
		for _, j := range starts[key(a, i)] {
			if i > 0 && j > 0 && a[i-1] == b[j-1] {
				continue // not left-maximal: found from an earlier start
			}
			n := minLen
			for i+n < len(a) && j+n < len(b) && a[i+n] == b[j+n] {
				n++
			}
			runs = append(runs, Run{i, j, n})
		}
	}
	slices.SortFunc(runs, func(x, y Run) int {
		if c := cmp.Compare(y.N, x.N); c != 0 {
			return c
		}
		if c := cmp.Compare(x.I, y.I); c != 0 {
			return c
		}
		return cmp.Compare(x.J, y.J)
	})
	var out []Run
	var kept []string
	for _, r := range runs {
		k := "\x00" + strings.Join(a[r.I:r.I+r.N], "\x00") + "\x00"
		if slices.ContainsFunc(kept, func(s string) bool { return strings.Contains(s, k) }) {
			continue // the same text, or a part of a longer run already listed
		}
		kept = append(kept, k)
		out = append(out, r)
		if len(out) == top {
			break
		}
	}
	return out
}
