package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/shingle"
)

// message is the text of err as run prints it after "neardup CMD: ": the
// "usage" marker, and the texts of the invalid-options errors and the
// "neardup: " prefixes that would repeat what that line says, are left out.
func message(err error) string {
	s := err.Error()
	for _, p := range []string{errUsage.Error() + ": ", neardup.ErrOptions.Error() + ": ", shingle.ErrInvalidOptions.Error() + ": ", "neardup: "} {
		s = dropSegment(s, p)
	}
	return s
}

// dropSegment removes p where it starts s or follows ": " in s.
func dropSegment(s, p string) string {
	for strings.HasPrefix(s, p) {
		s = s[len(p):]
	}
	for strings.Contains(s, ": "+p) {
		s = strings.ReplaceAll(s, ": "+p, ": ")
	}
	return s
}

// printUsageError prints a usage error as one line and a pointer to the
// help of cmd ("" for neardup itself).
func printUsageError(w io.Writer, cmd string, err error) {
	prefix, help := "neardup", "neardup --help"
	if cmd != "" {
		prefix, help = "neardup "+cmd, "neardup "+cmd+" --help"
	}
	fmt.Fprintf(w, "%s: %s\nRun '%s' for usage.\n", prefix, message(err), help)
}

// printHelp prints the usage text of fs, then its flags spelt with two
// dashes as the usage texts and error messages spell them, to fs.Output().
func printHelp(fs *flag.FlagSet, usage string) {
	var b bytes.Buffer
	out := fs.Output()
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(out)
	fmt.Fprint(out, usage)
	out.Write(flagLine().ReplaceAll(b.Bytes(), []byte("$1--")))
}

// The regular expressions are compiled on first use, not at every start.
var flagLine = lazyRegexp(`(?m)^(  )-\b`)

// Texts of the errors of flag.FlagSet.Parse.
var (
	flagUndefined = lazyRegexp(`^flag provided but not defined: -+(.*)$`)
	flagNeedsArg  = lazyRegexp(`^flag needs an argument: -+(.*)$`)
	flagBadValue  = lazyRegexp(`^invalid (?:boolean )?value (".*") for (?:flag )?-+([^:]+): (.*)$`)
)

// lazyRegexp returns a function that compiles expr on its first call.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// flagError rewrites an error of fs.Parse as a usage error that names the
// flag as the help does (--name), suggests the closest defined flag for an
// unknown one, and says what a bad value should look like.
func flagError(fs *flag.FlagSet, err error) error {
	s := err.Error()
	if m := flagUndefined().FindStringSubmatch(s); m != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		msg := "flag provided but not defined: --" + m[1]
		if g := suggest(m[1], names); g != "" {
			msg += " (did you mean --" + g + "?)"
		}
		return fmt.Errorf("%w: %s", errUsage, msg)
	}
	if m := flagNeedsArg().FindStringSubmatch(s); m != nil {
		return fmt.Errorf("%w: --%s needs a value", errUsage, m[1])
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
		return fmt.Errorf("%w: --%s %s: %s", errUsage, m[2], m[1], want)
	}
	return fmt.Errorf("%w: %v", errUsage, err)
}

// suggest returns the name among names closest to the misspelt s, or ""
// when none is close: at most one edit (insertion, deletion, substitution
// or transposition of adjacent letters) for names of up to 4 letters, two
// for longer ones; failing that, the only name that s is a prefix of.
func suggest(s string, names []string) string {
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
	if best != "" {
		return best
	}
	if len(s) < 2 {
		return ""
	}
	var prefixed []string
	for _, n := range names {
		if strings.HasPrefix(strings.ToLower(n), s) {
			prefixed = append(prefixed, n)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return ""
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
