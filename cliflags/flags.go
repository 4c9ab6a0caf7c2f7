package cliflags

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/rule"
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
// default: --threshold 0 or --workers -1 is an error. The ranges are the
// engine's (neardup.Options.Resolve, resolved once here): its
// *neardup.FieldError is said again with the flag's name (FlagOf).
func (f *Engine) Options(so shingle.Options) (neardup.Options, error) {
	o := neardup.Options{
		Params:  f.Params.params(so),
		Workers: f.Workers, MaxBucket: f.MaxBucket, MaxCluster: f.MaxCluster, StrictIDs: f.StrictIDs,
	}
	if err := f.Params.explicitZero(); err != nil {
		return o, err
	}
	var err error
	if o.Verify, err = neardup.ParseVerify(f.Verify); err != nil {
		return o, f.usage(err)
	}
	if o.Weight, err = neardup.ParseWeight(f.Weight); err != nil {
		return o, f.usage(err)
	}
	if o.Refine, err = neardup.ParseRefine(f.Refine); err != nil {
		return o, f.usage(err)
	}
	if o.Keep, err = neardup.ParseKeep(f.Keep); err != nil {
		return o, f.usage(err)
	}
	if o.Cluster, err = neardup.ParseClusterMode(f.Cluster); err != nil {
		return o, f.usage(err)
	}
	r, err := o.Resolve()
	if err != nil {
		return o, f.usage(err)
	}
	return r, nil
}

// flagOf maps the fields of neardup.Options to the flags that set them.
// LSH (bands and rows together) is said by usage with both flags.
var flagOf = map[string]string{
	"Shingle.Mode": "shingle", "Shingle.N": "ngram", "Slots": "num-perm", "Seed": "seed",
	"Weight": "weight", "Threshold": "threshold", "Recall": "recall", "Verify": "verify",
	"Workers": "workers", "MaxBucket": "max-bucket", "Keep": "keep", "Refine": "refine",
	"Cluster": "cluster", "MaxCluster": "max-cluster",
	"Shingle.Bag": "bag", "Shingle.NFKC": "normalize", "LSH.Bands": "bands", "LSH.Rows": "rows",
}

// FlagOf returns the name of the flag (without dashes) that sets the
// neardup.Options field named field (a neardup.FieldError's Field), or ""
// when no one flag does (LSH: --bands and --rows).
func FlagOf(field string) string { return flagOf[field] }

// usage says err, an error of the engine, in the words of the command
// line: a *neardup.FieldError with the flag's name in place of the field's
// ("--threshold 2: want a number in (0, 1]"); others as they are, without
// the sentinel's text. Either way the result wraps ErrUsage.
func (f *Engine) usage(err error) error { return f.Params.usage(err) }

func (f *Params) usage(err error) error {
	var fe *neardup.FieldError
	if !errors.As(err, &fe) {
		return fmt.Errorf("%w: %s", ErrUsage, ErrText(err))
	}
	reason := strings.NewReplacer("Verify exact", "--verify exact").Replace(fe.Reason)
	switch name := FlagOf(fe.Field); {
	case fe.Field == "LSH" && fe.Value == "":
		return fmt.Errorf("%w: --num-perm %d, --threshold %v, --recall %v: %s", ErrUsage, f.NumPerm, f.Threshold, f.Recall, reason)
	case fe.Field == "LSH":
		return fmt.Errorf("%w: --bands %d --rows %d: %s", ErrUsage, f.Bands, f.Rows, reason)
	case name == "":
		return fmt.Errorf("%w: %s", ErrUsage, ErrText(err))
	default:
		return fmt.Errorf("%w: --%s %s: %s", ErrUsage, name, strings.Trim(fe.Value, `"`), reason)
	}
}

// explicitZero refuses the flags whose 0 the engine would take for its
// default: given on the command line it is a mistake, said with the
// engine's range for the field (package rule).
func (f *Params) explicitZero() error {
	var field, want string
	switch {
	case f.Seed == 0:
		return fmt.Errorf("%w: --seed 0 is reserved; use any other value", ErrUsage)
	case f.NumPerm == 0:
		field, want = "Slots", rule.SlotsWant
	case f.Threshold == 0:
		field, want = "Threshold", rule.ThresholdWant
	case f.Recall == 0:
		field, want = "Recall", rule.RecallWant
	default:
		return nil
	}
	return f.usage(&neardup.FieldError{Field: field, Value: "0", Reason: "want " + want})
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
	if err := f.explicitZero(); err != nil {
		return neardup.Params{}, err
	}
	p, err := f.params(so).Resolve()
	if err != nil {
		return neardup.Params{}, f.usage(err)
	}
	return p, nil
}

// params returns the Params of the flags as given, unresolved.
func (f *Params) params(so shingle.Options) neardup.Params {
	return neardup.Params{Shingle: so, Slots: f.NumPerm, Seed: f.Seed, Threshold: f.Threshold, Recall: f.Recall,
		LSH: lsh.Params{Bands: f.Bands, Rows: f.Rows}}
}

// Given records in Set which flags of fs were set on the command line, so
// that a command opening an existing index can tell "use the index's
// parameters" from "check them against these". Call it after parsing fs.
func (f *Params) Given(fs *flag.FlagSet) {
	f.Set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.Set[fl.Name] = true })
}

// GivenFields returns the neardup.Params fields (as FlagOf names them) of
// the flags recorded by Given, in no particular order: what a command
// opening an existing index asks of it explicitly (index.OpenAsked).
func (f *Params) GivenFields() []string {
	var fields []string
	for field, name := range flagOf {
		if f.Set[name] && paramsFlag[name] {
			fields = append(fields, field)
		}
	}
	return fields
}

// paramsFlag are the flags that define Params: these and Input's
// shingling flags.
var paramsFlag = map[string]bool{"num-perm": true, "seed": true, "threshold": true, "recall": true, "bands": true, "rows": true,
	"shingle": true, "ngram": true, "bag": true, "normalize": true}
