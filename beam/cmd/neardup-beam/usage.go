package main

// The command line as neardup's commands read it: flags anywhere, usage
// errors that name the flag as the help does (--name), with the closest
// flag for a misspelt one, and a help that lists what works.

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cliflags"
	"github.com/neardup/neardup/shingle"
)

const usageText = `Usage: neardup-beam [flags] INPUT...

Finds near-duplicate documents as neardup dedup does, as Apache Beam
pipelines: the same pairs, clusters and deduplicated corpus. An INPUT is a
file in any format dedup reads (local, or a gs:// URL), or a local
directory. Flags may come before or after the inputs ("--" ends them).

With no --runner it runs on Prism inside this process, which is for tests
and small corpora. On a cluster, give Beam's runner flags (below; docs/beam.md
has whole commands) and a --work directory every worker can reach.

Examples:
  neardup-beam --pairs pairs.tsv --clusters clusters.jsonl ads.jsonl
  neardup-beam --runner=flink --endpoint=localhost:8099 --environment_type=DOCKER \
      --environment_config=apache/beam_go_sdk:2.77.0 --worker_binary=./neardup-beam \
      --work=/shared/work --clusters /shared/clusters.jsonl /shared/corpus/*.jsonl.zst

Not supported (neardup dedup has them): --weight, --refine, --workers,
--stats, --report, --memory-limit, --cpuprofile, --memprofile.

Flags:
`

// beamUsage is the short list of Beam's runner flags. Beam's other flags
// (flag.CommandLine holds about a hundred) are accepted and not listed.
const beamUsage = `
Beam's runner flags (the most used; Beam's other options are accepted too):
  --runner NAME
    	prism (the default: in this process), flink, spark, dataflow or universal
  --endpoint HOST:PORT
    	the job server of Flink, Spark or a universal runner
  --environment_type TYPE
    	how workers run the pipeline: LOOPBACK (in this process; Prism's default), DOCKER, PROCESS or EXTERNAL
  --environment_config CONFIG
    	DOCKER: the SDK image (apache/beam_go_sdk:2.77.0); PROCESS: {"command": "BOOT PROGRAM"}
  --worker_binary FILE
    	this binary built for the workers' platform (GOOS=linux GOARCH=amd64), not stripped
  --job_name NAME, --parallelism N (Flink), --experiments LIST
  Dataflow: --project, --region, --staging_location, --temp_location, --num_workers,
    --max_num_workers, --worker_machine_type, --service_account_email, --network, --subnetwork
`

// unsupported are the flags neardup-beam refuses, with why: dedup's that
// the pipeline does not implement (not defined, or defined by
// cliflags.Engine and not copied to the command line), and Beam's that
// would return before a pipeline ends, whose files the next one reads.
var unsupported = map[string]string{
	"weight":            "neardup dedup has it",
	"refine":            "neardup dedup has it",
	"workers":           "the runner chooses the workers",
	"stats":             "neardup dedup has it",
	"report":            "neardup dedup has it",
	"memory-limit":      "neardup dedup has it",
	"cpuprofile":        "neardup dedup has it",
	"memprofile":        "neardup dedup has it",
	"async":             "each pipeline must end before the next one reads its files",
	"execute_async":     "each pipeline must end before the next one reads its files",
	"dry_run":           "each pipeline must run for the next one to read its files",
	"template_location": "each pipeline must run for the next one to read its files",
}

// unsupportedError is the usage error for giving flag name.
func unsupportedError(name string) error {
	return fmt.Errorf("%w: --%s is not supported by neardup-beam (%s)", cliflags.ErrUsage, name, unsupported[name])
}

// checkUnsupported returns the usage error for the first unsupported flag
// fs defines that was given (Beam's; dedup's are not defined).
func checkUnsupported(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if _, no := unsupported[f.Name]; no && err == nil {
			err = unsupportedError(f.Name)
		}
	})
	return err
}

// printHelp prints the usage text, the flags of own (registered, not
// parsed) that are supported, spelt with two dashes as the errors spell
// them, and Beam's runner flags.
func printHelp(w io.Writer, own *flag.FlagSet) {
	listed := flag.NewFlagSet(own.Name(), flag.ContinueOnError)
	own.VisitAll(func(f *flag.Flag) {
		if _, no := unsupported[f.Name]; !no {
			listed.Var(f.Value, f.Name, f.Usage)
			listed.Lookup(f.Name).DefValue = f.DefValue // not what flags given before --help set
		}
	})
	var b bytes.Buffer
	listed.SetOutput(&b)
	listed.PrintDefaults()
	fmt.Fprint(w, usageText)
	w.Write(regexp.MustCompile(`(?m)^(  )-\b`).ReplaceAll(b.Bytes(), []byte("$1--")))
	fmt.Fprint(w, beamUsage)
}

// beamListed are the Beam flags the help names.
var beamListed = []string{"runner", "endpoint", "environment_type", "environment_config", "worker_binary",
	"job_name", "parallelism", "experiments", "project", "region", "staging_location", "temp_location",
	"num_workers", "max_num_workers", "worker_machine_type", "service_account_email", "network", "subnetwork"}

// parseArgs parses flags that may come before, between or after the
// inputs and returns the inputs, as neardup's commands do: "--" ends the
// flags, "-" is an input. -h and --help return flag.ErrHelp; other errors
// are usage errors (flagError), which suggest a flag of listed first. The
// flag package prints nothing.
func parseArgs(fs *flag.FlagSet, args, listed []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, flagError(fs, err, listed)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagError rewrites an error of fs.Parse as neardup's commands do
// (cliflags.FlagError), saying why a flag of dedup's is not supported,
// and suggesting the flags the help lists first, then any other of Beam's.
func flagError(fs *flag.FlagSet, err error, listed []string) error {
	if name, ok := cliflags.UndefinedFlag(err); ok {
		if _, no := unsupported[name]; no {
			return unsupportedError(name)
		}
	}
	var all []string
	fs.VisitAll(func(f *flag.Flag) {
		if _, no := unsupported[f.Name]; !no {
			all = append(all, f.Name)
		}
	})
	return cliflags.FlagError(fs, err, listed, all)
}

// message is err's text as printed after "neardup-beam: ", without the
// markers neardup leaves out too: "usage: ", the invalid-options texts,
// and "neardup: " prefixes.
func message(err error) string {
	s := err.Error()
	for _, p := range []string{cliflags.ErrUsage.Error() + ": ", neardup.ErrOptions.Error() + ": ", shingle.ErrInvalidOptions.Error() + ": ", "neardup: "} {
		for strings.HasPrefix(s, p) {
			s = s[len(p):]
		}
		s = strings.ReplaceAll(s, ": "+p, ": ")
	}
	return s
}

// dofnFailed is the line of a Beam error that names the DoFn whose error
// follows.
var dofnFailed = regexp.MustCompile(`^DoFn\[.*\] failed:$`)

// pipelineCause returns the cause of a failed pipeline as one line. A
// runner's error holds the failed bundle's plan and chain of causes
// ("caused by:"), the DoFn's own error last: that error's first line.
func pipelineCause(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, "caused by:"); i >= 0 {
		s = s[i+len("caused by:"):]
	}
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	for len(lines) > 1 && (dofnFailed.MatchString(lines[0]) || strings.HasSuffix(lines[0], " failed:")) {
		lines = lines[1:]
	}
	if len(lines) == 0 {
		return strings.TrimSpace(err.Error())
	}
	return lines[0]
}
