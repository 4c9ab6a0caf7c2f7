package main

import (
	"flag"
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/shingle"
)

// newFlagSet returns a flag set for a command whose -h prints usage and
// then the flags, on the command's standard error.
func newFlagSet(e *env, name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseArgs parses args with fs (flags anywhere, see parseInterspersed) and
// returns the positional arguments; with fewer than min of them it prints
// the usage and returns a usage error saying what is missing.
func parseArgs(fs *flag.FlagSet, args []string, min int, missing string) ([]string, error) {
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) < min {
		fs.Usage()
		return nil, fmt.Errorf("%w: %s", errUsage, missing)
	}
	return pos, nil
}

// engineFlags are the flags that become neardup.Options, shared by the
// commands that run the engine (dedup, eval, explain) so that the same
// flags mean the same run everywhere.
type engineFlags struct {
	numPerm    int
	seed       uint64
	threshold  float64
	recall     float64
	bands      int
	rows       int
	verify     string
	weight     string
	refine     string
	workers    int
	maxBucket  int
	keep       string
	cluster    string
	maxCluster int
}

func (f *engineFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.numPerm, "num-perm", 128, "MinHash signature slots")
	fs.Uint64Var(&f.seed, "seed", neardup.DefaultSeed, "MinHash seed (same seed, same signatures on every machine)")
	fs.Float64Var(&f.threshold, "threshold", neardup.DefaultThreshold, "Jaccard threshold t: pairs at or above it are duplicates")
	fs.Float64Var(&f.recall, "recall", neardup.DefaultRecall, "chance that a pair exactly at t becomes an LSH candidate, used to choose bands and rows")
	fs.IntVar(&f.bands, "bands", 0, "LSH bands (with --rows; overrides the choice from --threshold/--recall)")
	fs.IntVar(&f.rows, "rows", 0, "LSH rows per band (with --bands)")
	fs.StringVar(&f.verify, "verify", "exact", "check candidates by exact Jaccard of the shingle sets, or by the signature estimate (less memory)")
	fs.StringVar(&f.weight, "weight", "none", "idf: weight shingles by inverse document frequency (weighted Jaccard), so boilerplate counts less")
	fs.StringVar(&f.refine, "refine", "none", "edit: add the edit similarity of token sequences to verified pairs (4th --pairs column) and cluster members")
	fs.IntVar(&f.workers, "workers", 0, "worker goroutines (default: the number of CPUs)")
	fs.IntVar(&f.maxBucket, "max-bucket", neardup.DefaultMaxBucket, "LSH buckets with more distinct documents are joined as a chain instead of all pairs (-1: no limit)")
	fs.StringVar(&f.keep, "keep", "first", "which document of a cluster is kept: first|longest|shortest")
	fs.StringVar(&f.cluster, "cluster", "star", "how pairs become clusters: star (every member verified against the kept document) or components (connected components, which chain)")
	fs.IntVar(&f.maxCluster, "max-cluster", 0, "set clusters of more than N documents aside for review instead of deduplicating them (0: no limit)")
}

// options returns the engine options for shingling so, validated; command
// line mistakes wrap errUsage.
func (f *engineFlags) options(so shingle.Options) (neardup.Options, error) {
	o := neardup.Options{Shingle: so, Slots: f.numPerm, Seed: f.seed, Threshold: f.threshold, Recall: f.recall,
		Workers: f.workers, MaxBucket: f.maxBucket, MaxCluster: f.maxCluster, Params: lsh.Params{Bands: f.bands, Rows: f.rows}}
	var err error
	switch {
	case f.numPerm < 1:
		return o, fmt.Errorf("%w: --num-perm %d: want at least 1", errUsage, f.numPerm)
	case f.seed == 0:
		return o, fmt.Errorf("%w: --seed 0 is reserved; use any other value", errUsage)
	case (f.bands == 0) != (f.rows == 0):
		return o, fmt.Errorf("%w: --bands and --rows go together", errUsage)
	case f.maxCluster < 0:
		return o, fmt.Errorf("%w: --max-cluster %d: want 0 (no limit) or more", errUsage, f.maxCluster)
	}
	if o.Verify, err = neardup.ParseVerify(f.verify); err != nil {
		return o, fmt.Errorf("%w: --verify: %v", errUsage, err)
	}
	if o.Weight, err = neardup.ParseWeight(f.weight); err != nil {
		return o, fmt.Errorf("%w: --weight: %v", errUsage, err)
	}
	if o.Refine, err = neardup.ParseRefine(f.refine); err != nil {
		return o, fmt.Errorf("%w: --refine: %v", errUsage, err)
	}
	if o.Keep, err = neardup.ParseKeep(f.keep); err != nil {
		return o, fmt.Errorf("%w: --keep: %v", errUsage, err)
	}
	if o.Cluster, err = neardup.ParseClusterMode(f.cluster); err != nil {
		return o, fmt.Errorf("%w: --cluster: %v", errUsage, err)
	}
	p, err := o.Validate()
	if err != nil {
		return o, fmt.Errorf("%w: %v", errUsage, err)
	}
	o.Params = p // the chosen bands and rows, so callers can report them
	return o, nil
}
