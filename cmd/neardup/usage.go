package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cliflags"
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

// lazyRegexp returns a function that compiles expr on its first call.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// suggest is cliflags.Suggest.
func suggest(s string, names []string) string { return cliflags.Suggest(s, names) }
