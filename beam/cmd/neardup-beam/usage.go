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
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/cliflags"
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

// Texts of the errors of flag.FlagSet.Parse.
var (
	flagUndefined = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	flagNeedsArg  = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	flagBadValue  = regexp.MustCompile(`^invalid (?:boolean )?value (".*") for (?:flag )?-+([^:]+): (.*)$`)
)

// flagError rewrites an error of fs.Parse as neardup's commands do: the
// flag named --name, the closest flag for an unknown one (or why it is
// not supported), and what a bad value should look like.
func flagError(fs *flag.FlagSet, err error, listed []string) error {
	s := err.Error()
	if m := flagUndefined.FindStringSubmatch(s); m != nil {
		if _, no := unsupported[m[1]]; no {
			return unsupportedError(m[1])
		}
		msg := "flag provided but not defined: --" + m[1]
		// The flags the help lists first, then any other of Beam's.
		g := suggest(m[1], listed)
		if g == "" {
			var all []string
			fs.VisitAll(func(f *flag.Flag) {
				if _, no := unsupported[f.Name]; !no {
					all = append(all, f.Name)
				}
			})
			g = suggest(m[1], all)
		}
		if g != "" {
			msg += " (did you mean --" + g + "?)"
		}
		return fmt.Errorf("%w: %s", cliflags.ErrUsage, msg)
	}
	if m := flagNeedsArg.FindStringSubmatch(s); m != nil {
		return fmt.Errorf("%w: --%s needs a value", cliflags.ErrUsage, m[1])
	}
	if m := flagBadValue.FindStringSubmatch(s); m != nil {
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
		return fmt.Errorf("%w: --%s %s: %s", cliflags.ErrUsage, m[2], m[1], want)
	}
	return fmt.Errorf("%w: %v", cliflags.ErrUsage, err)
}

// suggest returns the name among names closest to the misspelt s, or ""
// when none is close, as neardup does: at most one edit (an insertion,
// deletion or substitution, or two adjacent letters swapped) for names of
// up to 4 letters, two for longer ones; failing that, the only name that
// starts with s.
func suggest(s string, names []string) string {
	s = strings.ToLower(s)
	limit := 2
	switch {
	case len(s) <= 1:
		limit = 0
	case len(s) <= 4:
		limit = 1
	}
	best, bestD := "", limit+1
	for _, n := range names {
		if d := osaDistance(s, strings.ToLower(n)); d < bestD {
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

// osaDistance is the optimal string alignment distance between a and b in
// bytes: Levenshtein's, with a swap of adjacent bytes one edit.
func osaDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
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
