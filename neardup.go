// Package neardup finds near-duplicate documents in a corpus.
//
// A document is cut into shingles (package shingle), each shingle set gets a
// MinHash signature (package minhash), LSH banding over the signatures
// proposes candidate pairs (package lsh), every candidate is verified with the
// exact Jaccard index of the two shingle sets (or, on request, with the
// signature estimate), and verified pairs are grouped into clusters with
// union-find (package cluster).
//
// Batch is the batch engine: Add every document, then Run. Documents whose
// shingle sets are identical are recognised up front and checked once, so a
// corpus with ten thousand copies of one text costs ten thousand set
// comparisons, not fifty million.
package neardup

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/shingle"
)

// Defaults used where Options leave a field zero.
const (
	DefaultThreshold = 0.5
	DefaultRecall    = 0.99
	DefaultSeed      = 1
	DefaultMaxBucket = 2000
)

// ErrOptions is wrapped by the errors Options.Validate returns.
var ErrOptions = errors.New("neardup: invalid options")

// Verify says how candidate pairs are checked.
type Verify uint8

const (
	// VerifyExact computes the exact Jaccard index of the shingle sets. Every
	// reported similarity is then exact (64-bit hash collisions aside).
	VerifyExact Verify = iota
	// VerifyEstimate uses the MinHash estimate and keeps no shingle sets in
	// memory, for corpora whose shingles do not fit. Reported similarities
	// are estimates with standard error sqrt(J(1-J)/slots).
	VerifyEstimate
)

// ParseVerify parses "exact" or "estimate".
func ParseVerify(s string) (Verify, error) {
	switch s {
	case "exact":
		return VerifyExact, nil
	case "estimate":
		return VerifyEstimate, nil
	}
	return 0, fmt.Errorf("%w: verify %q: want exact or estimate", ErrOptions, s)
}

func (v Verify) String() string {
	if v == VerifyEstimate {
		return "estimate"
	}
	return "exact"
}

// Refine adds a second measure to verified pairs.
type Refine uint8

const (
	RefineNone Refine = iota
	// RefineEdit computes, for every verified pair and every cluster member
	// against its representative, the edit similarity of the documents'
	// token sequences (Pair.Edit, Member.Edit). Batch then keeps each
	// document's first MaxEditTokens tokens in memory (8 bytes a token).
	RefineEdit
)

// MaxEditTokens bounds the tokens per document that edit similarity looks
// at, so that one pair costs at most about (MaxEditTokens/64)*MaxEditTokens
// word operations (a few milliseconds).
const MaxEditTokens = 10000

// ParseRefine parses "none" or "edit".
func ParseRefine(s string) (Refine, error) {
	switch s {
	case "none", "":
		return RefineNone, nil
	case "edit":
		return RefineEdit, nil
	}
	return 0, fmt.Errorf("%w: refine %q: want none or edit", ErrOptions, s)
}

func (r Refine) String() string {
	if r == RefineEdit {
		return "edit"
	}
	return "none"
}

// Weight says how shingles count in the similarity.
type Weight uint8

const (
	// WeightNone: every shingle counts the same (plain Jaccard).
	WeightNone Weight = iota
	// WeightIDF: a shingle s counts w(s) = ln((N+1)/(df(s)+1)) + 1, N the
	// number of distinct non-empty shingle sets and df(s) how many contain
	// s, and similarity is the weighted Jaccard Σ_{A∩B} w / Σ_{A∪B} w, so
	// boilerplate shared by many documents counts for less. Signatures are
	// weighted MinHash (minhash.Hasher.AppendWeightedSignature), whose slot
	// agreement estimates the weighted Jaccard, so the S-curve and the
	// choice of bands and rows apply unchanged. Needs VerifyExact.
	WeightIDF
)

// ParseWeight parses "none" or "idf".
func ParseWeight(s string) (Weight, error) {
	switch s {
	case "none", "":
		return WeightNone, nil
	case "idf":
		return WeightIDF, nil
	}
	return 0, fmt.Errorf("%w: weight %q: want none or idf", ErrOptions, s)
}

func (w Weight) String() string {
	if w == WeightIDF {
		return "idf"
	}
	return "none"
}

// Keep says which document of a cluster is its representative, the one a
// deduplicated corpus keeps.
type Keep uint8

const (
	KeepFirst    Keep = iota // the earliest in input order
	KeepLongest              // the longest text in bytes; ties go to the earliest
	KeepShortest             // the shortest text in bytes; ties go to the earliest
)

// ParseKeep parses "first", "longest" or "shortest".
func ParseKeep(s string) (Keep, error) {
	switch s {
	case "first":
		return KeepFirst, nil
	case "longest":
		return KeepLongest, nil
	case "shortest":
		return KeepShortest, nil
	}
	return 0, fmt.Errorf("%w: keep %q: want first, longest or shortest", ErrOptions, s)
}

func (k Keep) String() string {
	switch k {
	case KeepLongest:
		return "longest"
	case KeepShortest:
		return "shortest"
	}
	return "first"
}

// Options configure a Batch. The zero value of every field means its default.
type Options struct {
	Shingle   shingle.Options
	Slots     int        // MinHash slots; default minhash.DefaultSlots
	Seed      uint64     // MinHash seed; 0 means DefaultSeed
	Threshold float64    // Jaccard threshold t in (0, 1]; default DefaultThreshold
	Recall    float64    // chance that a pair exactly at t becomes a candidate; default DefaultRecall
	Params    lsh.Params // bands and rows; zero: chosen by lsh.Choose from Threshold and Recall
	Verify    Verify
	Workers   int // goroutines; default runtime.GOMAXPROCS(0)
	// MaxBucket bounds the all-pairs work in one LSH bucket of distinct
	// sets; larger buckets are joined as a chain (see lsh.Candidates).
	// Default DefaultMaxBucket; negative means no limit.
	MaxBucket int
	Keep      Keep
	Refine    Refine
	Weight    Weight
	// Cluster says how verified pairs become clusters: ClusterStar (the
	// zero value: every member verified against its representative) or
	// ClusterComponents (connected components, which chain); see
	// ClusterMode for why star is the default.
	Cluster ClusterMode
	// MaxCluster sets aside clusters of more than MaxCluster documents for
	// review: they are reported with Cluster.Review set and none of their
	// documents is marked in Result.Dup. 0 (or negative) means no limit.
	MaxCluster int
}

// withDefaults returns o with defaults filled in, or an error wrapping
// ErrOptions.
func (o Options) withDefaults() (Options, error) {
	if o.Shingle.N == 0 {
		if o.Shingle.Mode == shingle.Char {
			o.Shingle.N = shingle.DefaultCharN
		} else {
			o.Shingle.N = shingle.DefaultWordN
		}
	}
	if o.Shingle.N < 1 || o.Shingle.N > 1000 {
		return o, fmt.Errorf("%w: shingle length %d: want 1 to 1000", ErrOptions, o.Shingle.N)
	}
	if o.Slots == 0 {
		o.Slots = minhash.DefaultSlots
	}
	if o.Slots < 1 || o.Slots > 1<<16 {
		return o, fmt.Errorf("%w: %d slots: want 1 to 65536", ErrOptions, o.Slots)
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
	}
	if !(o.Threshold > 0 && o.Threshold <= 1) {
		return o, fmt.Errorf("%w: threshold %v: want a number in (0, 1]", ErrOptions, o.Threshold)
	}
	if o.Recall == 0 {
		o.Recall = DefaultRecall
	}
	if !(o.Recall > 0 && o.Recall < 1) {
		return o, fmt.Errorf("%w: recall %v: want a number in (0, 1)", ErrOptions, o.Recall)
	}
	switch {
	case o.Params == (lsh.Params{}):
		p, err := lsh.Choose(o.Slots, o.Threshold, o.Recall)
		if err != nil {
			return o, fmt.Errorf("%w: %v (use more slots, a lower recall, or set bands and rows)", ErrOptions, err)
		}
		o.Params = p
	case o.Params.Bands < 1 || o.Params.Rows < 1:
		return o, fmt.Errorf("%w: bands %d, rows %d: give both, each at least 1", ErrOptions, o.Params.Bands, o.Params.Rows)
	case o.Params.Bands*o.Params.Rows > o.Slots:
		return o, fmt.Errorf("%w: %d bands x %d rows = %d exceeds %d slots", ErrOptions,
			o.Params.Bands, o.Params.Rows, o.Params.Bands*o.Params.Rows, o.Slots)
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.MaxBucket == 0 {
		o.MaxBucket = DefaultMaxBucket
	}
	if o.Verify > VerifyEstimate {
		return o, fmt.Errorf("%w: verify mode %d", ErrOptions, o.Verify)
	}
	if o.Keep > KeepShortest {
		return o, fmt.Errorf("%w: keep policy %d", ErrOptions, o.Keep)
	}
	if o.Refine > RefineEdit {
		return o, fmt.Errorf("%w: refine mode %d", ErrOptions, o.Refine)
	}
	if o.Weight > WeightIDF {
		return o, fmt.Errorf("%w: weight mode %d", ErrOptions, o.Weight)
	}
	if o.Weight == WeightIDF && o.Verify != VerifyExact {
		return o, fmt.Errorf("%w: idf weights need exact verification (the shingle sets in memory)", ErrOptions)
	}
	if o.Cluster > ClusterComponents {
		return o, fmt.Errorf("%w: cluster mode %d", ErrOptions, o.Cluster)
	}
	return o, nil
}

// Validate reports whether o can be used, and the bands and rows it resolves to.
func (o Options) Validate() (lsh.Params, error) {
	d, err := o.withDefaults()
	return d.Params, err
}
