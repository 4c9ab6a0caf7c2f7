package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/neardup/neardup/cliflags"
)

// Exit codes. A run stopped by a signal exits 128 plus the signal number
// (130 for SIGINT, 143 for SIGTERM), see signalError.
const (
	exitOK    = 0
	exitError = 1 // the run failed: bad input, unwritable output, ...
	exitUsage = 2 // the command line is wrong
)

// errSilent ends a command with exit status 1 when it has already said
// what went wrong.
var errSilent = errors.New("failed")

// errUsage marks errors in the command line: wrap it ("%w: message"), and
// run prints the message alone, then a pointer to the command's help.
var errUsage = cliflags.ErrUsage

// env is what a command sees of the process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	stderrTTY      bool
	cmd            string // the command's name, for warnings
}

// warnf prints a warning, one line on standard error: "neardup CMD:
// warning: ...". On a terminal it first clears a progress line.
func (e *env) warnf(format string, args ...any) {
	prefix := "neardup"
	if e.cmd != "" {
		prefix += " " + e.cmd
	}
	if e.stderrTTY {
		prefix = "\r\x1b[K" + prefix
	}
	fmt.Fprintf(e.stderr, prefix+": warning: "+format+"\n", args...)
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
	{"index", "a persistent index: create, build, add, query, remove, stats", runIndex},
	{"serve", "serve an index over HTTP: check-and-insert, query, metrics", runServe},
	{"version", "print the version", runVersion},
}

const usageText = `neardup finds near-duplicate documents: shingles, MinHash, LSH banding,
exact Jaccard verification and clusters, in one pass over a corpus.

Usage:
  neardup <command> [flags] [inputs]

Commands:
%s
Run "neardup <command> --help" (or "neardup help <command>") for a
command's flags, "neardup --version" for the version.
`

func usage(w io.Writer) {
	var b strings.Builder
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, usageText, b.String())
}

func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// run executes one command line and returns the exit code. Help asked for
// goes to stdout; errors go to stderr, a usage error as one line and a
// pointer to the help.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	in := newCancelReader(ctx, stdin)
	defer in.close()
	e := &env{stdin: in, stdout: stdout, stderr: stderr, stderrTTY: isTerminal(stderr)}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) == 1 {
			usage(stdout)
			return exitOK
		}
		if args[1] == "help" {
			usage(stdout)
			return exitOK
		}
		name, args = args[1], []string{args[1], "--help"}
	case "-version", "--version":
		name, args = "version", append([]string{"version"}, args[1:]...)
	}
	c := lookup(name)
	if c == nil {
		printUsageError(stderr, "", unknownCommand(name))
		return exitUsage
	}
	e.cmd = name
	return exitCode(ctx, stderr, name, c.run(ctx, e, args[1:]))
}

// unknownCommand is the usage error for a first argument that names no
// command, with the closest command or top-level flag.
func unknownCommand(name string) error {
	if flagName, ok := strings.CutPrefix(name, "-"); ok {
		flagName = strings.TrimPrefix(flagName, "-")
		msg := "flag provided but not defined: --" + flagName
		if g := suggest(flagName, []string{"help", "version"}); g != "" {
			msg += " (did you mean --" + g + "?)"
		}
		return fmt.Errorf("%w: %s", errUsage, msg)
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	msg := fmt.Sprintf("unknown command %q", name)
	if g := suggest(name, append(names, "help")); g != "" {
		msg += " (did you mean " + g + "?)"
	}
	return fmt.Errorf("%w: %s", errUsage, msg)
}

// exitCode prints err, if any, and returns the exit code of command name.
func exitCode(ctx context.Context, stderr io.Writer, name string, err error) int {
	if se := stoppedBy(ctx); se != nil && err != nil {
		// The command has returned, its temporary files removed and the
		// outputs that were there before left as they were. A command
		// that finished anyway (its outputs all in place before the
		// signal was seen) exits as it would have: 130 or 143 always
		// means that nothing was changed.
		if !errors.As(err, new(*signalError)) { // a server stopped as asked says nothing
			fmt.Fprintf(stderr, "neardup %s: %v\n", name, se)
		}
		return se.exitCode()
	}
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errSilent):
		return exitError
	case errors.Is(err, errUsage):
		printUsageError(stderr, name, err)
		return exitUsage
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "neardup %s: interrupted\n", name)
		return exitError
	default:
		fmt.Fprintf(stderr, "neardup %s: %s\n", name, message(err))
		return exitError
	}
}

const versionUsage = `Usage: neardup version

Prints the version of neardup (module version, VCS revision when built from
a checkout) and of the Go toolchain that built it.
`

func runVersion(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "version", versionUsage)
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, rest[0])
	}
	fmt.Fprintln(e.stdout, versionString())
	return nil
}

// versionString is "neardup VERSION [REVISION[+dirty]] (GO, OS/ARCH)", the
// revision only when VERSION does not already hold it.
func versionString() string {
	v := "(devel)"
	var rev string
	var modified bool
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && !strings.Contains(v, rev) {
		v += " " + rev
		if modified {
			v += "+dirty"
		}
	}
	return fmt.Sprintf("neardup %s (%s, %s/%s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// parseInterspersed parses flags that may come before, between or after the
// positional arguments, and returns the positional arguments. "--" ends the
// flags; "-" is a positional argument (standard input). -h and --help print
// the help to fs.Output() and return flag.ErrHelp; other errors are usage
// errors (see flagError) and print nothing.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	out := fs.Output()
	fs.SetOutput(io.Discard) // the flag package prints errors and the whole help
	defer fs.SetOutput(out)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(out)
				fs.Usage()
				return nil, err
			}
			return nil, cliflags.FlagError(fs, err)
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
