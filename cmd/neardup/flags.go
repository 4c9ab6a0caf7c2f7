package main

import (
	"flag"
	"fmt"
)

// newFlagSet returns a flag set for a command whose -h and --help print
// usage and then the flags on the command's standard output. The flag
// package prints nothing else: parseInterspersed turns its errors into
// usage errors that run prints.
func newFlagSet(e *env, name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stdout)
	fs.Usage = func() { printHelp(fs, usage) }
	return fs
}

// parseArgs parses args with fs (flags anywhere, see parseInterspersed) and
// returns the positional arguments; with fewer than min of them it returns
// a usage error saying what is missing.
func parseArgs(fs *flag.FlagSet, args []string, min int, missing string) ([]string, error) {
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) < min {
		return nil, fmt.Errorf("%w: %s", errUsage, missing)
	}
	return pos, nil
}
