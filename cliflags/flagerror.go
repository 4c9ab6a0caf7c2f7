package cliflags

import (
	"flag"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Texts of the errors of flag.FlagSet.Parse, compiled on first use, not
// at every start.
var (
	flagUndefined = lazyRegexp(`^flag provided but not defined: -+(.*)$`)
	flagNeedsArg  = lazyRegexp(`^flag needs an argument: -+(.*)$`)
	flagBadValue  = lazyRegexp(`^invalid (?:boolean )?value (".*") for (?:flag )?-+([^:]+): (.*)$`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// UndefinedFlag returns the name of the flag an error of flag.FlagSet.Parse
// says is not defined, if it says so.
func UndefinedFlag(err error) (string, bool) {
	if m := flagUndefined().FindStringSubmatch(err.Error()); m != nil {
		return m[1], true
	}
	return "", false
}

// FlagError rewrites an error of fs.Parse as a usage error (wrapping
// ErrUsage) that names the flag as the help does (--name), suggests the
// closest flag for an unknown one, and says what a bad value should look
// like. The suggestion is looked for in each list of candidates in turn,
// the first that has one winning; with none given, among fs's flags.
func FlagError(fs *flag.FlagSet, err error, candidates ...[]string) error {
	s := err.Error()
	if name, ok := UndefinedFlag(err); ok {
		if len(candidates) == 0 {
			var names []string
			fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
			candidates = [][]string{names}
		}
		msg := "flag provided but not defined: --" + name
		for _, names := range candidates {
			if g := Suggest(name, names); g != "" {
				msg += " (did you mean --" + g + "?)"
				break
			}
		}
		return fmt.Errorf("%w: %s", ErrUsage, msg)
	}
	if m := flagNeedsArg().FindStringSubmatch(s); m != nil {
		return fmt.Errorf("%w: --%s needs a value", ErrUsage, m[1])
	}
	if m := flagBadValue().FindStringSubmatch(s); m != nil {
		want := m[3]
		if f := fs.Lookup(m[2]); f != nil {
			if g, ok := f.Value.(flag.Getter); ok {
				switch g.Get().(type) {
				case float64:
					want = "want a number"
				case int, int64, uint, uint64:
					want = "want a whole number"
				case bool:
					want = "want true or false"
				case time.Duration:
					want = "want a duration such as 30s or 5m"
				}
			}
		}
		return fmt.Errorf("%w: --%s %s: %s", ErrUsage, m[2], m[1], want)
	}
	return fmt.Errorf("%w: %v", ErrUsage, err)
}

// Suggest returns the name among names closest to the misspelt s, or ""
// when none is close: at most one edit (insertion, deletion, substitution
// or transposition of adjacent letters) for names of up to 4 letters, two
// for longer ones; failing that, the only name that s is a prefix of.
func Suggest(s string, names []string) string {
	s = strings.ToLower(s)
	limit := 2
	if len(s) <= 4 {
		limit = 1
	}
	if len(s) <= 1 {
		limit = 0
	}
	best, bestD := "", limit+1
	for _, n := range names {
		if d := editDistance(s, strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	if best != "" || len(s) < 2 {
		return best
	}
	only := ""
	for _, n := range names {
		if strings.HasPrefix(strings.ToLower(n), s) {
			if only != "" && only != n {
				return ""
			}
			only = n
		}
	}
	return only
}

// editDistance is the optimal string alignment distance between a and b,
// in bytes: the Levenshtein distance with transpositions of adjacent bytes
// counted as one edit.
func editDistance(a, b string) int {
	// d[i][j] is the distance between a[:i] and b[:j]; three rows suffice.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
