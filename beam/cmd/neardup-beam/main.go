// Command neardup-beam runs neardup's dedup as Apache Beam pipelines: on
// Prism in this process by default, or on Flink, Spark or Dataflow through
// Beam's runner flags. It takes dedup's flags and writes dedup's outputs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
	"github.com/neardup/neardup/internal/cliflags"
)

const usage = `Usage: neardup-beam [flags] INPUT...

Finds near-duplicate documents as neardup dedup does, as Apache Beam
pipelines: the same pairs, clusters and deduplicated corpus. An INPUT is a
file in any format dedup reads (local, or a gs:// or s3:// URL), or a local
directory. Flags come before the inputs.

With no --runner it runs on Prism inside this process, which is for tests
and small corpora. On a cluster, give Beam's runner flags (see docs/beam.md):
  --runner=flink --endpoint=HOST:8099 --environment_type=DOCKER ...
  --runner=spark --endpoint=HOST:8099 ...
  --runner=dataflow --project=P --region=R --staging_location=gs://... \
      --worker_binary=./neardup-beam-linux-amd64 --work=gs://bucket/tmp
and a --work directory every worker can reach.

Flags (besides Beam's):
`

func main() {
	var (
		in           cliflags.Input
		eng          cliflags.Engine
		pairs        string
		pairsCompact bool
		clusters     string
		output       string
		work         string
		keepWork     bool
		shards       int
		rounds       int
		quiet        bool
	)
	fs := flag.CommandLine
	in.Register(fs)
	eng.Register(fs)
	fs.StringVar(&pairs, "pairs", "", "write every near-duplicate pair as TSV: id_a, id_b, jaccard")
	fs.BoolVar(&pairsCompact, "pairs-compact", false, "--pairs lists identical copies as a star around the earliest copy, and pairs with other documents for the earliest copy only")
	fs.StringVar(&clusters, "clusters", "", "write clusters of two or more documents as JSONL")
	fs.StringVar(&output, "output", "", "write the corpus without duplicates, in the input's format (several inputs: a directory with one file per input)")
	fs.StringVar(&work, "work", "", "directory for the pipelines' intermediate files, reachable by every worker (default: a temporary local directory)")
	fs.BoolVar(&keepWork, "keep-work", false, "keep the work directory after the run")
	fs.IntVar(&shards, "shards", 16, "files per intermediate file set")
	fs.IntVar(&rounds, "rounds", 4, "connected-component rounds per pipeline")
	fs.BoolVar(&quiet, "quiet", false, "no summary on standard error")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	flag.Parse()
	// A worker process started by a runner never returns from Init.
	beam.Init()

	err := run(fs.Args(), &in, &eng, pipeline.Outputs{Pairs: pairs, PairsCompact: pairsCompact, Clusters: clusters, Output: output},
		work, keepWork, shards, rounds, quiet)
	if err != nil {
		fmt.Fprintln(os.Stderr, "neardup-beam:", err)
		if errors.Is(err, cliflags.ErrUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func run(inputs []string, in *cliflags.Input, eng *cliflags.Engine, out pipeline.Outputs, work string, keepWork bool, shards, rounds int, quiet bool) error {
	if len(inputs) == 0 {
		return fmt.Errorf("%w: no input given", cliflags.ErrUsage)
	}
	if out.Pairs == "" && out.Clusters == "" && out.Output == "" {
		return fmt.Errorf("%w: nothing to write: give --pairs, --clusters or --output", cliflags.ErrUsage)
	}
	co, so, err := in.Options()
	if err != nil {
		return err
	}
	o, err := eng.Options(so)
	if err != nil {
		return err
	}
	if shards < 1 || rounds < 1 {
		return fmt.Errorf("%w: --shards %d --rounds %d: want positive numbers", cliflags.ErrUsage, shards, rounds)
	}
	if work == "" {
		if work, err = os.MkdirTemp("", "neardup-beam-"); err != nil {
			return err
		}
		if !keepWork {
			defer os.RemoveAll(work)
		}
	} else if !strings.Contains(work, "://") {
		if err := os.MkdirAll(work, 0o755); err != nil {
			return err
		}
	}
	c, err := pipeline.NewConfig(o, inputs, co, work)
	if err != nil {
		return fmt.Errorf("%w: %s", cliflags.ErrUsage, cliflags.ErrText(err))
	}
	c.Shards, c.Rounds = shards, rounds
	if err := pipeline.CheckOutputs(c, out); err != nil {
		return fmt.Errorf("%w: %s", cliflags.ErrUsage, cliflags.ErrText(err))
	}
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var log io.Writer = os.Stderr
	if quiet {
		log = io.Discard
	}
	sum, err := pipeline.Run(ctx, c, out, o.StrictIDs, beamx.RunWithMetrics, log)
	if err != nil {
		return err
	}
	if !quiet {
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
