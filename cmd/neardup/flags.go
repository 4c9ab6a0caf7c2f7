package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/shingle"
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

// engineFlags are the flags that become neardup.Options, shared by the
// commands that run the engine (dedup, eval, explain) so that the same
// flags mean the same run everywhere.
type engineFlags struct {
	paramsFlags
	verify     string
	weight     string
	refine     string
	workers    int
	maxBucket  int
	keep       string
	cluster    string
	maxCluster int
	strictIDs  bool
}

func (f *engineFlags) register(fs *flag.FlagSet) {
	f.paramsFlags.register(fs)
	fs.StringVar(&f.verify, "verify", "exact", "check candidates by exact Jaccard of the shingle sets, or by the signature estimate (less memory)")
	fs.StringVar(&f.weight, "weight", "none", "idf: weight shingles by inverse document frequency (weighted Jaccard), so boilerplate counts less")
	fs.StringVar(&f.refine, "refine", "none", "edit: add the edit similarity of token sequences to verified pairs (4th --pairs column) and cluster members")
	fs.IntVar(&f.workers, "workers", 0, "worker goroutines (default: the number of CPUs)")
	fs.IntVar(&f.maxBucket, "max-bucket", neardup.DefaultMaxBucket, "LSH buckets with more distinct documents are joined as a chain instead of all pairs (-1: no limit)")
	fs.StringVar(&f.keep, "keep", "first", "which document of a cluster is kept: first|longest|shortest")
	fs.StringVar(&f.cluster, "cluster", "star", "how pairs become clusters: star (every member verified against the kept document) or components (connected components, which chain)")
	fs.IntVar(&f.maxCluster, "max-cluster", 0, "set clusters of more than N documents aside for review instead of deduplicating them (0: no limit)")
	fs.BoolVar(&f.strictIDs, "strict-ids", false, "fail when two documents have the same id (default: warn and go on)")
}

// options returns the engine options for shingling so, resolved (bands and
// rows chosen, so callers can report them); command line mistakes wrap
// errUsage and name the flag. An explicit value is never replaced by a
// default: --threshold 0 or --workers -1 is an error.
func (f *engineFlags) options(so shingle.Options) (neardup.Options, error) {
	o := neardup.Options{
		Params: neardup.Params{Shingle: so, Slots: f.numPerm, Seed: f.seed, Threshold: f.threshold, Recall: f.recall,
			LSH: lsh.Params{Bands: f.bands, Rows: f.rows}},
		Workers: f.workers, MaxBucket: f.maxBucket, MaxCluster: f.maxCluster, StrictIDs: f.strictIDs,
	}
	var err error
	switch {
	case f.numPerm < 1 || f.numPerm > 1<<16:
		return o, fmt.Errorf("%w: --num-perm %d: want 1 to 65536", errUsage, f.numPerm)
	case f.seed == 0:
		return o, fmt.Errorf("%w: --seed 0 is reserved; use any other value", errUsage)
	case !(f.threshold > 0 && f.threshold <= 1):
		return o, fmt.Errorf("%w: --threshold %v: want a number in (0, 1]", errUsage, f.threshold)
	case !(f.recall > 0 && f.recall < 1):
		return o, fmt.Errorf("%w: --recall %v: want a number in (0, 1)", errUsage, f.recall)
	case (f.bands == 0) != (f.rows == 0):
		return o, fmt.Errorf("%w: --bands and --rows go together", errUsage)
	case f.bands < 0 || f.rows < 0:
		return o, fmt.Errorf("%w: --bands %d --rows %d: want positive numbers", errUsage, f.bands, f.rows)
	case f.workers < 0:
		return o, fmt.Errorf("%w: --workers %d: want 0 (one per CPU) or more", errUsage, f.workers)
	case f.maxCluster < 0:
		return o, fmt.Errorf("%w: --max-cluster %d: want 0 (no limit) or more", errUsage, f.maxCluster)
	}
	if o.Verify, err = neardup.ParseVerify(f.verify); err != nil {
		return o, fmt.Errorf("%w: --verify %q: want exact or estimate", errUsage, f.verify)
	}
	if o.Weight, err = neardup.ParseWeight(f.weight); err != nil {
		return o, fmt.Errorf("%w: --weight %q: want none or idf", errUsage, f.weight)
	}
	if o.Refine, err = neardup.ParseRefine(f.refine); err != nil {
		return o, fmt.Errorf("%w: --refine %q: want none or edit", errUsage, f.refine)
	}
	if o.Keep, err = neardup.ParseKeep(f.keep); err != nil {
		return o, fmt.Errorf("%w: --keep %q: want first, longest or shortest", errUsage, f.keep)
	}
	if o.Cluster, err = neardup.ParseClusterMode(f.cluster); err != nil {
		return o, fmt.Errorf("%w: --cluster %q: want star or components", errUsage, f.cluster)
	}
	switch {
	case f.bands > 0 && f.bands > f.numPerm/f.rows:
		return o, fmt.Errorf("%w: --bands %d x --rows %d = %d exceeds --num-perm %d", errUsage, f.bands, f.rows, f.bands*f.rows, f.numPerm)
	case o.Weight == neardup.WeightIDF && o.Verify != neardup.VerifyExact:
		return o, fmt.Errorf("%w: --weight idf needs --verify exact (the shingle sets in memory)", errUsage)
	}
	r, err := o.Resolve()
	if err != nil {
		return o, fmt.Errorf("%w: %s", errUsage, errText(err))
	}
	return r, nil
}

// optInt is an int flag that remembers whether it was given, so that an
// explicit 0 can be refused while an absent flag takes a default chosen
// later (such as the shingle length of the mode). Its help shows no default.
type optInt struct {
	v   int
	set bool
}

func (o *optInt) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.Itoa(o.v)
}

func (o *optInt) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("want a whole number")
	}
	o.v, o.set = v, true
	return nil
}

// errText returns err's message without the text of the sentinel error it
// wraps first ("invalid options: "), so that messages read once.
func errText(err error) string {
	msg := err.Error()
	for _, s := range []error{neardup.ErrOptions, shingle.ErrInvalidOptions} {
		if errors.Is(err, s) {
			msg = strings.TrimPrefix(msg, s.Error()+": ")
		}
	}
	return msg
}

// paramsFlags are the flags that define an index's neardup.Params: the
// shingling (shingleFlags' --shingle, --ngram, --bag) and MinHash and LSH
// flags that dedup also takes, with the same names, defaults and checks,
// for the commands that create or open an index (index, serve).
type paramsFlags struct {
	numPerm   int
	seed      uint64
	threshold float64
	recall    float64
	bands     int
	rows      int
	set       map[string]bool // flags given explicitly, after parsing (see given)
}

func (f *paramsFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.numPerm, "num-perm", 128, "MinHash signature slots")
	fs.Uint64Var(&f.seed, "seed", neardup.DefaultSeed, "MinHash seed (same seed, same signatures on every machine)")
	fs.Float64Var(&f.threshold, "threshold", neardup.DefaultThreshold, "Jaccard threshold t: pairs at or above it are near-duplicates")
	fs.Float64Var(&f.recall, "recall", neardup.DefaultRecall, "chance that a pair exactly at t becomes an LSH candidate, used to choose bands and rows")
	fs.IntVar(&f.bands, "bands", 0, "LSH bands (with --rows; overrides the choice from --threshold/--recall)")
	fs.IntVar(&f.rows, "rows", 0, "LSH rows per band (with --bands)")
}

// params returns the Params of the flags and shingling so, resolved;
// mistakes wrap errUsage and name the flag, as engineFlags.options does.
func (f *paramsFlags) params(so shingle.Options) (neardup.Params, error) {
	ef := engineFlags{paramsFlags: *f, verify: "exact", weight: "none", refine: "none", keep: "first", cluster: "star"}
	o, err := ef.options(so)
	if err != nil {
		return neardup.Params{}, err
	}
	return o.Params, nil
}

// given records which flags of fs were set on the command line, so that a
// command opening an existing index can tell "use the index's parameters"
// from "check them against these".
func (f *paramsFlags) given(fs *flag.FlagSet) {
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
}

// any reports whether any flag that defines Params was given.
func (f *paramsFlags) any() bool {
	for _, n := range []string{"num-perm", "seed", "threshold", "recall", "bands", "rows", "shingle", "ngram", "bag"} {
		if f.set[n] {
			return true
		}
	}
	return false
}
