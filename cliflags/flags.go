package cliflags

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

// ErrUsage marks errors in the command line. Every check of this package
// wraps it ("cliflags: usage: message"); programs test for it with
// errors.Is, print the message after the prefix and exit with their usage
// status.
var ErrUsage = errors.New("cliflags: usage")

// ErrText returns err's message without the text of the sentinel error it
// wraps first ("invalid options: "), so that messages read once.
func ErrText(err error) string {
	msg := err.Error()
	for _, s := range []error{neardup.ErrOptions, shingle.ErrInvalidOptions} {
		if errors.Is(err, s) {
			msg = strings.TrimPrefix(msg, s.Error()+": ")
		}
	}
	return msg
}

// Engine are the flags that become neardup.Options, shared by the commands
// that run the engine (dedup, eval, explain) so that the same flags mean
// the same run everywhere. The fields hold the flag values as parsed;
// Options checks and converts them.
type Engine struct {
	Params
	Verify     string // --verify
	Weight     string // --weight
	Refine     string // --refine
	Workers    int    // --workers
	MaxBucket  int    // --max-bucket
	Keep       string // --keep
	Cluster    string // --cluster
	MaxCluster int    // --max-cluster
	StrictIDs  bool   // --strict-ids
}

// Register adds the Params flags and the engine flags to fs, with their
// defaults.
func (f *Engine) Register(fs *flag.FlagSet) {
	f.Params.Register(fs)
	fs.StringVar(&f.Verify, "verify", "exact", "check candidates by exact Jaccard of the shingle sets, or by the signature estimate (less memory)")
	fs.StringVar(&f.Weight, "weight", "none", "idf: weight shingles by inverse document frequency (weighted Jaccard), so boilerplate counts less")
	fs.StringVar(&f.Refine, "refine", "none", "edit: add the edit similarity of token sequences to verified pairs (4th --pairs column) and cluster members")
	fs.IntVar(&f.Workers, "workers", 0, "worker goroutines (default: the number of CPUs)")
	fs.IntVar(&f.MaxBucket, "max-bucket", neardup.DefaultMaxBucket, "LSH buckets with more distinct documents compare their members' signatures in one block instead of verifying every pair; the result is the same (-1: no limit)")
	fs.StringVar(&f.Keep, "keep", "first", "which document of a cluster is kept: first|longest|shortest")
	fs.StringVar(&f.Cluster, "cluster", "star", "how pairs become clusters: star (every member verified against the kept document) or components (connected components, which chain)")
	fs.IntVar(&f.MaxCluster, "max-cluster", 0, "set clusters of more than N documents aside for review instead of deduplicating them (0: no limit)")
	fs.BoolVar(&f.StrictIDs, "strict-ids", false, "fail when two documents have the same id (default: warn and go on)")
}

// Options returns the engine options for shingling so, resolved (bands and
// rows chosen, so callers can report them); command line mistakes wrap
// ErrUsage and name the flag. An explicit value is never replaced by a
// default: --threshold 0 or --workers -1 is an error.
func (f *Engine) Options(so shingle.Options) (neardup.Options, error) {
	o := neardup.Options{
		Params: neardup.Params{Shingle: so, Slots: f.NumPerm, Seed: f.Seed, Threshold: f.Threshold, Recall: f.Recall,
			LSH: lsh.Params{Bands: f.Bands, Rows: f.Rows}},
		Workers: f.Workers, MaxBucket: f.MaxBucket, MaxCluster: f.MaxCluster, StrictIDs: f.StrictIDs,
	}
	var err error
	switch {
	case f.NumPerm < 1 || f.NumPerm > 1<<16:
		return o, fmt.Errorf("%w: --num-perm %d: want 1 to 65536", ErrUsage, f.NumPerm)
	case f.Seed == 0:
		return o, fmt.Errorf("%w: --seed 0 is reserved; use any other value", ErrUsage)
	case !(f.Threshold > 0 && f.Threshold <= 1):
		return o, fmt.Errorf("%w: --threshold %v: want a number in (0, 1]", ErrUsage, f.Threshold)
	case !(f.Recall > 0 && f.Recall < 1):
		return o, fmt.Errorf("%w: --recall %v: want a number in (0, 1)", ErrUsage, f.Recall)
	case (f.Bands == 0) != (f.Rows == 0):
		return o, fmt.Errorf("%w: --bands and --rows go together", ErrUsage)
	case f.Bands < 0 || f.Rows < 0:
		return o, fmt.Errorf("%w: --bands %d --rows %d: want positive numbers", ErrUsage, f.Bands, f.Rows)
	case f.Workers < 0:
		return o, fmt.Errorf("%w: --workers %d: want 0 (one per CPU) or more", ErrUsage, f.Workers)
	case f.MaxCluster < 0:
		return o, fmt.Errorf("%w: --max-cluster %d: want 0 (no limit) or more", ErrUsage, f.MaxCluster)
	}
	if o.Verify, err = neardup.ParseVerify(f.Verify); err != nil {
		return o, fmt.Errorf("%w: --verify %q: want exact or estimate", ErrUsage, f.Verify)
	}
	if o.Weight, err = neardup.ParseWeight(f.Weight); err != nil {
		return o, fmt.Errorf("%w: --weight %q: want none or idf", ErrUsage, f.Weight)
	}
	if o.Refine, err = neardup.ParseRefine(f.Refine); err != nil {
		return o, fmt.Errorf("%w: --refine %q: want none or edit", ErrUsage, f.Refine)
	}
	if o.Keep, err = neardup.ParseKeep(f.Keep); err != nil {
		return o, fmt.Errorf("%w: --keep %q: want first, longest or shortest", ErrUsage, f.Keep)
	}
	if o.Cluster, err = neardup.ParseClusterMode(f.Cluster); err != nil {
		return o, fmt.Errorf("%w: --cluster %q: want star or components", ErrUsage, f.Cluster)
	}
	switch {
	case f.Bands > 0 && f.Bands > f.NumPerm/f.Rows:
		return o, fmt.Errorf("%w: --bands %d x --rows %d = %d exceeds --num-perm %d", ErrUsage, f.Bands, f.Rows, f.Bands*f.Rows, f.NumPerm)
	case o.Weight == neardup.WeightIDF && o.Verify != neardup.VerifyExact:
		return o, fmt.Errorf("%w: --weight idf needs --verify exact (the shingle sets in memory)", ErrUsage)
	}
	r, err := o.Resolve()
	if err != nil {
		return o, fmt.Errorf("%w: %s", ErrUsage, ErrText(err))
	}
	return r, nil
}

// OptInt is an int flag.Value that remembers whether it was given, so that
// an explicit 0 can be refused while an absent flag takes a default chosen
// later (such as the shingle length of the mode). Its help shows no
// default. The zero value is an absent flag.
type OptInt struct {
	v   int
	set bool
}

// Value returns the flag's value and whether it was given; v is 0 when
// it was not.
func (o *OptInt) Value() (v int, given bool) { return o.v, o.set }

// String returns the value in decimal, or "" when the flag was not given.
func (o *OptInt) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.Itoa(o.v)
}

// Set parses a decimal whole number and marks the flag given.
func (o *OptInt) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("want a whole number")
	}
	o.v, o.set = v, true
	return nil
}

// Params are the flags that define an index's neardup.Params: the
// shingling (Input's --shingle, --ngram, --bag) and MinHash and LSH flags
// that dedup also takes, with the same names, defaults and checks, for the
// commands that create or open an index (index, serve).
type Params struct {
	NumPerm   int     // --num-perm
	Seed      uint64  // --seed
	Threshold float64 // --threshold
	Recall    float64 // --recall
	Bands     int     // --bands
	Rows      int     // --rows

	// Set holds the names of the flags of the whole flag set given
	// explicitly on the command line, after Given; nil before.
	Set map[string]bool
}

// Register adds the MinHash and LSH flags to fs, with their defaults.
func (f *Params) Register(fs *flag.FlagSet) {
	fs.IntVar(&f.NumPerm, "num-perm", 128, "MinHash signature slots")
	fs.Uint64Var(&f.Seed, "seed", neardup.DefaultSeed, "MinHash seed (same seed, same signatures on every machine)")
	fs.Float64Var(&f.Threshold, "threshold", neardup.DefaultThreshold, "Jaccard threshold t: pairs at or above it are near-duplicates")
	fs.Float64Var(&f.Recall, "recall", neardup.DefaultRecall, "chance that a pair exactly at t becomes an LSH candidate, used to choose bands and rows")
	fs.IntVar(&f.Bands, "bands", 0, "LSH bands (with --rows; overrides the choice from --threshold/--recall)")
	fs.IntVar(&f.Rows, "rows", 0, "LSH rows per band (with --bands)")
}

// Params returns the Params of the flags and shingling so, resolved;
// mistakes wrap ErrUsage and name the flag, as Engine.Options does.
func (f *Params) Params(so shingle.Options) (neardup.Params, error) {
	ef := Engine{Params: *f, Verify: "exact", Weight: "none", Refine: "none", Keep: "first", Cluster: "star"}
	o, err := ef.Options(so)
	if err != nil {
		return neardup.Params{}, err
	}
	return o.Params, nil
}

// Given records in Set which flags of fs were set on the command line, so
// that a command opening an existing index can tell "use the index's
// parameters" from "check them against these". Call it after parsing fs.
func (f *Params) Given(fs *flag.FlagSet) {
	f.Set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.Set[fl.Name] = true })
}

// Any reports whether any flag that defines Params (these and Input's
// shingling flags) was given, as recorded by Given.
func (f *Params) Any() bool {
	for _, n := range []string{"num-perm", "seed", "threshold", "recall", "bands", "rows", "shingle", "ngram", "bag", "normalize"} {
		if f.Set[n] {
			return true
		}
	}
	return false
}
