package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // the run failed: bad input, unwritable output, ...
	exitUsage = 2 // the command line is wrong
)

// errUsage marks errors in the command line.
var errUsage = errors.New("usage")

// env is what a command sees of the process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	stderrTTY      bool
}

type command struct {
	name, summary string
	run           func(ctx context.Context, e *env, args []string) error
}

var commands = []command{
	{"dedup", "find near-duplicate pairs and clusters, write a deduplicated corpus", runDedup},
	{"tune", "choose LSH bands and rows for a threshold or two target points", runTune},
	{"analyze", "exact Jaccard histograms per shingle length on a sample", runAnalyze},
	{"eval", "LSH against an exact all-pairs join: recall and precision per similarity", runEval},
	{"explain", "why two documents are (or are not) in one cluster", runExplain},
	{"version", "print the version", runVersion},
}

const usageText = `neardup finds near-duplicate documents: shingles, MinHash, LSH banding,
exact Jaccard verification and clusters, in one pass over a corpus.

Usage:
  neardup <command> [flags] [inputs]

Commands:
%s
Run "neardup <command> -h" for a command's flags.
`

func usage(w io.Writer) {
	var b strings.Builder
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, usageText, b.String())
}

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, stderrTTY: isTerminal(stderr)}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name := args[0]
	if name == "help" || name == "-h" || name == "--help" {
		if len(args) > 1 {
			return run(ctx, []string{args[1], "-h"}, stdin, stdout, stderr)
		}
		usage(stdout)
		return exitOK
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		err := c.run(ctx, e, args[1:])
		switch {
		case err == nil:
			return exitOK
		case errors.Is(err, flag.ErrHelp):
			return exitOK
		case errors.Is(err, errUsage):
			fmt.Fprintf(stderr, "neardup %s: %v\n", name, err)
			return exitUsage
		case errors.Is(err, context.Canceled):
			fmt.Fprintf(stderr, "neardup %s: interrupted\n", name)
			return exitError
		default:
			fmt.Fprintf(stderr, "neardup %s: %v\n", name, err)
			return exitError
		}
	}
	fmt.Fprintf(stderr, "neardup: unknown command %q\n\n", name)
	usage(stderr)
	return exitUsage
}

func runVersion(ctx context.Context, e *env, args []string) error {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				v += " " + s.Value
			}
		}
	}
	fmt.Fprintf(e.stdout, "neardup %s\n", v)
	return nil
}

// parseInterspersed parses flags that may come before, between or after the
// positional arguments, and returns the positional arguments. "--" ends the
// flags; "-" is a positional argument (standard input).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && termIsTerminal(int(f.Fd()))
}
