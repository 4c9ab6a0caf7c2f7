// Command neardup-beam runs neardup's dedup as Apache Beam pipelines: on
// Prism in this process by default, or on Flink, Spark or Dataflow through
// Beam's runner flags. It takes dedup's flags and writes dedup's outputs.
//
// Its command line behaves as neardup's: flags before or after the
// inputs, usage mistakes as one line and a pointer to --help (exit 2),
// failures as one line (exit 1), and Beam's own log only with --verbose.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/neardup/neardup/beam/pipeline"
	"github.com/neardup/neardup/cliflags"
)

// Exit codes, as neardup's.
const (
	exitOK    = 0
	exitError = 1 // the run failed: a missing input, a failed pipeline, ...
	exitUsage = 2 // the command line is wrong
)

// flags are neardup-beam's own flags (Beam's are package variables of
// Beam's packages, registered on flag.CommandLine).
type flags struct {
	in         cliflags.Input
	eng        cliflags.Engine
	out        pipeline.Outputs
	work       string
	keepWork   bool
	shards     int
	rounds     int
	quiet      bool
	noProgress bool
	verbose    bool
}

// register adds neardup-beam's flags, dedup's included, to fs, which
// is a set of their own: the help lists them from it.
func (f *flags) register(fs *flag.FlagSet) {
	f.in.Register(fs)
	f.eng.Register(fs)
	fs.StringVar(&f.out.Pairs, "pairs", "", "write every near-duplicate pair as TSV: id_a, id_b, jaccard")
	fs.BoolVar(&f.out.PairsCompact, "pairs-compact", false, "--pairs lists identical copies as a star around the earliest copy, and pairs with other documents for the earliest copy only")
	fs.StringVar(&f.out.Clusters, "clusters", "", "write clusters of two or more documents as JSONL")
	fs.StringVar(&f.out.Output, "output", "", "write the corpus without duplicates, in the input's format (several inputs: a directory with one file per input)")
	fs.StringVar(&f.work, "work", "", "directory for the pipelines' intermediate files, reachable by every worker (default: a temporary local directory)")
	fs.BoolVar(&f.keepWork, "keep-work", false, "keep the work directory after the run")
	fs.IntVar(&f.shards, "shards", 16, "files per intermediate file set")
	fs.IntVar(&f.rounds, "rounds", 4, "connected-component rounds per pipeline")
	fs.BoolVar(&f.quiet, "quiet", false, "no summary on standard error")
	fs.BoolVar(&f.noProgress, "no-progress", false, "no progress line (the pipeline running) even on a terminal")
	fs.BoolVar(&f.verbose, "verbose", false, "Beam's own log on standard error (job server, workers, every file read and written; on a cluster the job's id), each pipeline as it starts, and a failed pipeline's whole error")
}

func main() {
	var f flags
	own := flag.NewFlagSet("neardup-beam", flag.ContinueOnError)
	f.register(own)
	// Beam reads its flags from flag.CommandLine (the runner, and every
	// flag given, passed on to the workers), so the command line is
	// parsed there, with neardup-beam's flags added, except those the
	// pipeline does not support: they are errors that say so.
	fs := flag.CommandLine
	fs.Init("neardup-beam", flag.ContinueOnError)
	var listed []string // the flags the help lists, suggested first
	own.VisitAll(func(fl *flag.Flag) {
		if _, no := unsupported[fl.Name]; !no {
			fs.Var(fl.Value, fl.Name, fl.Usage)
			listed = append(listed, fl.Name)
		}
	})
	inputs, err := parseArgs(fs, os.Args[1:], append(listed, beamListed...))
	if errors.Is(err, flag.ErrHelp) {
		printHelp(os.Stdout, own)
		os.Exit(exitOK)
	}
	if err != nil {
		os.Exit(report(os.Stderr, err, false))
	}
	// A worker process started by a runner never returns from Init.
	beam.Init()
	// Init has set slog's default logger, which Beam, Prism and the
	// standard log package write to, to Beam's text handler at Info on
	// standard error: keep it only when asked for.
	if !f.verbose {
		slog.SetDefault(slog.New(slog.DiscardHandler))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = run(ctx, inputs, &f)
	stop()
	os.Exit(report(os.Stderr, err, f.verbose))
}

// report prints err, if any, as neardup does (a usage error as one line
// and a pointer to the help) and returns the exit code.
func report(w io.Writer, err error, verbose bool) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, cliflags.ErrUsage) {
		fmt.Fprintf(w, "neardup-beam: %s\nRun 'neardup-beam --help' for usage.\n", message(err))
		return exitUsage
	}
	var pe *pipeline.PipelineError
	if errors.As(err, &pe) && !verbose {
		fmt.Fprintf(w, "neardup-beam: %s (pipeline %q failed; --verbose shows Beam's log and the whole error)\n", pipelineCause(pe.Err), pe.Name)
		return exitError
	}
	fmt.Fprintf(w, "neardup-beam: %s\n", message(err))
	return exitError
}

func run(ctx context.Context, inputs []string, f *flags) error {
	if err := checkUnsupported(flag.CommandLine); err != nil {
		return err
	}
	if len(inputs) == 0 {
		return fmt.Errorf("%w: no input given", cliflags.ErrUsage)
	}
	out := f.out
	if out.Pairs == "" && out.Clusters == "" && out.Output == "" {
		return fmt.Errorf("%w: nothing to write: give --pairs, --clusters or --output", cliflags.ErrUsage)
	}
	co, so, err := f.in.Options()
	if err != nil {
		return err
	}
	o, err := f.eng.Options(so)
	if err != nil {
		return err
	}
	if f.shards < 1 || f.rounds < 1 {
		return fmt.Errorf("%w: --shards %d --rounds %d: want positive numbers", cliflags.ErrUsage, f.shards, f.rounds)
	}
	for _, p := range []struct{ flag, path string }{{"--work", f.work}, {"--pairs", out.Pairs}, {"--clusters", out.Clusters}, {"--output", out.Output}} {
		if err := pipeline.CheckScheme(p.path); err != nil {
			return fmt.Errorf("%w: %s %v", cliflags.ErrUsage, p.flag, err)
		}
	}
	c, err := pipeline.NewConfig(o, inputs, co, "")
	if err != nil {
		return fmt.Errorf("%w: %s", cliflags.ErrUsage, cliflags.ErrText(err))
	}
	c.Shards, c.Rounds = f.shards, f.rounds
	if err := pipeline.CheckOutputs(c, out); err != nil {
		return fmt.Errorf("%w: %s", cliflags.ErrUsage, cliflags.ErrText(err))
	}
	// The inputs, before any pipeline: a missing file is one line.
	if err := pipeline.CheckInputs(inputs); err != nil {
		if errors.Is(err, pipeline.ErrScheme) {
			return fmt.Errorf("%w: %v", cliflags.ErrUsage, err)
		}
		return err
	}
	work := f.work
	if work == "" {
		if work, err = os.MkdirTemp("", "neardup-beam-"); err != nil {
			return err
		}
		if !f.keepWork {
			defer os.RemoveAll(work)
		}
	} else if !strings.Contains(work, "://") {
		if err := os.MkdirAll(work, 0o755); err != nil {
			return err
		}
	}
	c.Work = work
	// Beam's loopback environment (the default on Prism) leaves an empty
	// placeholder file in the temporary directory for every pipeline it
	// submits (runnerlib.Execute, "beamloopbackworker-*", Beam 2.77; a run
	// submits several): the run's temporary files go to a directory of
	// its own, removed at the end.
	restore, err := privateTempDir()
	if err != nil {
		return err
	}
	defer restore()
	// The pipelines as they start: lines with --verbose, a line that
	// changes on a terminal, else nothing.
	var log io.Writer = io.Discard
	switch {
	case f.quiet:
	case f.verbose:
		log = os.Stderr
	case !f.noProgress && isTerminal(os.Stderr):
		p := startProgress(os.Stderr)
		defer p.stop()
		log = p
	}
	sum, err := pipeline.Run(ctx, c, out, o.StrictIDs, beamx.RunWithMetrics, log)
	if err != nil {
		if ctx.Err() != nil {
			return errors.New("interrupted")
		}
		return err
	}
	if p, ok := log.(*progress); ok {
		p.stop()
	}
	if !f.quiet {
		printSummary(os.Stderr, sum)
	}
	return nil
}

func printSummary(w io.Writer, s *pipeline.Summary) {
	names := make([]string, 0, len(s.Counters))
	for k := range s.Counters {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(w, "  %-26s %d\n", k, s.Counters[k])
	}
	fmt.Fprintf(w, "  %-26s %d\n", "largest_cluster", s.Largest)
	fmt.Fprintf(w, "  %-26s %d\n", "component_rounds", s.Rounds)
	total := 0.0
	for _, t := range s.Seconds {
		total += t
	}
	fmt.Fprintf(w, "  %-26s %d (%.1f s)\n", "pipelines", s.Pipelines, total)
}

// privateTempDir points the process's temporary directory (TMPDIR) at a
// new directory under the current one and returns a func that removes it
// and puts TMPDIR back.
func privateTempDir() (restore func(), err error) {
	dir, err := os.MkdirTemp("", "neardup-beam-tmp-")
	if err != nil {
		return nil, err
	}
	old, had := os.LookupEnv("TMPDIR")
	if err := os.Setenv("TMPDIR", dir); err != nil {
		os.Remove(dir)
		return nil, err
	}
	return func() {
		if had {
			os.Setenv("TMPDIR", old)
		} else {
			os.Unsetenv("TMPDIR")
		}
		os.RemoveAll(dir)
	}, nil
}
