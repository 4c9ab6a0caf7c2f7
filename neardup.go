// Package neardup finds near-duplicate documents.
//
// A document is cut into shingles (package shingle), each shingle set gets a
// MinHash signature (package minhash), LSH banding over the signatures
// proposes candidate pairs (package lsh), every candidate is verified with the
// exact Jaccard index of the two shingle sets (or, on request, with the
// signature estimate), and verified pairs are grouped into clusters (package
// cluster).
//
// # The engine as parts
//
// Every front end (the batch below, the commands, an online index, a
// distributed pipeline) is built from the same parts, so that a pair is a
// near-duplicate in one of them exactly when it is in the others:
//
//   - Params: what defines a sketch and a stored index (shingling, slots,
//     seed, weighting, bands and rows, threshold); encoded, hashed and
//     checked for compatibility. Options add the knobs of one run.
//   - Sketcher and Sketch: text to shingle set, Fingerprint, signature and
//     band keys, safe for concurrent use.
//   - Verifier: the length filter, the signature pre-filter and the exact,
//     weighted or estimated Jaccard of a candidate pair.
//   - lsh.Params.ReportBand, lsh.BucketPairs and lsh.Table: the rules that
//     make candidate generation reproducible outside a batch.
//   - Clusters: star clusters or connected components of verified pairs, in
//     keep order, over documents named by explicit sequence numbers.
//
// Batch is the batch engine built from them: Add every document, then Run.
// Documents whose shingle sets are identical are recognised up front and
// checked once, so a corpus with ten thousand copies of one text costs ten
// thousand set comparisons, not fifty million.
package neardup

import (
	"context"
	"runtime"
)

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
	return 0, fieldError("Verify", s, "want exact or estimate")
}

// String returns v's name as ParseVerify reads it: "exact" or "estimate".
func (v Verify) String() string {
	if v == VerifyEstimate {
		return "estimate"
	}
	return "exact"
}

// Refine adds a second measure to verified pairs.
type Refine uint8

const (
	// RefineNone, the default, gives verified pairs and members their
	// Jaccard only.
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
	return 0, fieldError("Refine", s, "want none or edit")
}

// String returns r's name as ParseRefine reads it: "none" or "edit".
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
	return 0, fieldError("Weight", s, "want none or idf")
}

// String returns w's name as ParseWeight reads it: "none" or "idf".
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
	return 0, fieldError("Keep", s, "want first, longest or shortest")
}

// String returns k's name as ParseKeep reads it: "first", "longest" or
// "shortest".
func (k Keep) String() string {
	switch k {
	case KeepLongest:
		return "longest"
	case KeepShortest:
		return "shortest"
	}
	return "first"
}

// Options configure a Batch: the Params that define what is computed per
// document and per pair, and the knobs of one run, which change how the work
// is done or what is kept, never a similarity.
//
// The zero value of every field means its default; an explicit value outside
// a field's range is an error wrapping ErrOptions, never silently replaced.
type Options struct {
	Params
	// Verify says how candidates are checked: VerifyExact (the default)
	// or VerifyEstimate, which keeps no shingle sets.
	Verify Verify
	// Workers is the number of goroutines; 0 means runtime.GOMAXPROCS(0).
	Workers int
	// MaxBucket bounds the pairs one LSH bucket of distinct sets hands to
	// verification one by one: a larger bucket is chained (lsh.BucketPairs)
	// and compares its members' signatures in one block instead
	// (lsh.AgreeingPairs, with Verifier.MinAgreement), keeping only the
	// pairs that agree on enough slots to pass verification. It changes
	// the work, not the result: the pairs, clusters and counts are those
	// of the search with no limit.
	// 0 means DefaultMaxBucket; negative means no limit.
	MaxBucket int
	// Keep chooses the representative of each cluster.
	Keep Keep
	// Refine adds a second measure to verified pairs.
	Refine Refine
	// Cluster says how verified pairs become clusters: ClusterStar (the
	// zero value: every member verified against its representative) or
	// ClusterComponents (connected components, which chain); see
	// ClusterMode for why star is the default.
	Cluster ClusterMode
	// MaxCluster sets aside clusters of more than MaxCluster documents for
	// review: they are reported with Cluster.Review set and none of their
	// documents is marked in Result.Dup. 0 means no limit.
	MaxCluster int
	// StrictIDs makes Run fail with ErrDuplicateID when two documents
	// were added with one id. Without it duplicate ids are counted in
	// Stats.DuplicateIDs and listed in Result.DuplicateIDs.
	StrictIDs bool
	// Reread, when not nil, runs the batch in two passes if Verify is
	// VerifyExact, Weight is WeightNone and Refine is RefineNone (else it
	// is not used). While documents are added, the batch keeps of each
	// only its set's size, fingerprints and signature, not the set; after
	// LSH and the signature pre-filter, Run reads again (through Reread)
	// just the documents of the remaining candidate pairs, in input
	// order, and verifies each pair exactly as soon as its later document
	// is read. Results are the same as in one pass; the memory grows with
	// the signatures and the held pairs, and with the sets still awaited
	// by a later document, not with every set. Under ClusterStar each set
	// is dropped once its last pair is verified (the clusters take their
	// Jaccards from the pairs) and Result.Similarity of two different sets
	// is then NaN; under ClusterComponents the sets read again are kept,
	// and Similarity is NaN for a document outside the candidate pairs.
	// Stats.Passes says which mode ran.
	Reread Rereader
	// OnPairs, when not nil, is called by Run once, on Run's goroutine, as
	// soon as the pairs are final and before the clusters are built, with
	// the Result that Run will return: a caller can write the pairs while
	// Run groups them (at 10M documents the clusters took about 2 s of
	// the writing's 15). From then on, from any goroutine, Result.Pairs
	// (not to be modified), the Result's AllPairs, PairLister, Canonical
	// and Similarity, and every field of Result.Stats but the cluster
	// counts (Clusters, Duplicates, LargestCluster, BelowClusters, Review,
	// ReviewDocs) and Group may be read. Clusters, Dup and those counts
	// are set when Run returns. Run does not wait for work OnPairs starts.
	OnPairs func(*Result)

	// resolvedAs is o.key() when Resolve returned o, so that resolving
	// resolved options again (a command's, then NewBatch's) is one
	// comparison; any field changed since makes them resolved anew.
	resolvedAs optionsKey
}

// optionsKey is the comparable part of Options: what Resolve checks and
// fills in. A resolved key is never zero (Workers >= 1).
type optionsKey struct {
	p                         Params
	verify                    Verify
	workers, maxBucket, maxCl int
	keep                      Keep
	refine                    Refine
	cluster                   ClusterMode
}

func (o *Options) key() optionsKey {
	return optionsKey{o.Params, o.Verify, o.Workers, o.MaxBucket, o.MaxCluster, o.Keep, o.Refine, o.Cluster}
}

// Rereader reads a batch's documents again for the second pass
// (Options.Reread).
type Rereader interface {
	// Reread calls fn, in Add order, with the text of each document d (its
	// Add index) for which want(d) is true, the same text that was added.
	// text is valid only during the call. Reread returns fn's first error,
	// or its own (ctx's error when cancelled).
	Reread(ctx context.Context, want func(d int) bool, fn func(d int, text []byte) error) error
}

// twoPass reports whether a batch with resolved options o runs in two
// passes.
func (o *Options) twoPass() bool { return o.Reread != nil && o.CanTwoPass() }

// CanTwoPass reports whether o's modes allow the two-pass run of
// Options.Reread: exact verification, no idf weights, no edit refinement
// (the others need every set, every token list, or only signatures). A
// Batch with these modes and Reread set runs in two passes; a front end
// deciding whether to offer Reread (a memory limit) asks this first.
func (o *Options) CanTwoPass() bool {
	return o.Verify == VerifyExact && o.Weight == WeightNone && o.Refine == RefineNone
}

// OnePassPerByte is the peak memory of a one-pass run per byte of input
// text, with a margin: measured on the generated benchmark corpora
// (bench/run.sh, 100k and 1M documents), a run holding every document's
// shingle set peaks at 1.9-2.4 times the input's bytes.
const OnePassPerByte = 2.5

// OnePassMemory estimates the peak memory in bytes of a one-pass run over
// textBytes bytes of text (OnePassPerByte per byte), the figure a memory
// limit is compared with to choose two passes (Options.Reread).
func OnePassMemory(textBytes int64) int64 {
	return int64(OnePassPerByte * float64(textBytes))
}

// resolve returns o with defaults filled in, or an error wrapping
// ErrOptions.
func (o Options) resolve() (Options, error) {
	if o.resolvedAs != (optionsKey{}) && o.resolvedAs == o.key() {
		return o, nil
	}
	p, err := o.Params.Resolve()
	if err != nil {
		return o, err
	}
	o.Params = p
	switch {
	case o.Workers < 0:
		return o, fieldError("Workers", o.Workers, "want 0 (one per CPU) or more")
	case o.Workers == 0:
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.MaxBucket == 0 {
		o.MaxBucket = DefaultMaxBucket
	}
	if o.MaxCluster < 0 {
		return o, fieldError("MaxCluster", o.MaxCluster, "want 0 (no limit) or more")
	}
	if o.Verify > VerifyEstimate {
		return o, fieldError("Verify", uint8(o.Verify), "want VerifyExact or VerifyEstimate")
	}
	if o.Keep > KeepShortest {
		return o, fieldError("Keep", uint8(o.Keep), "want KeepFirst, KeepLongest or KeepShortest")
	}
	if o.Refine > RefineEdit {
		return o, fieldError("Refine", uint8(o.Refine), "want RefineNone or RefineEdit")
	}
	if o.Weight == WeightIDF && o.Verify != VerifyExact {
		return o, &FieldError{Field: "Weight", Value: "idf", Reason: "needs Verify exact (the shingle sets in memory)"}
	}
	if o.Cluster > ClusterComponents {
		return o, fieldError("Cluster", uint8(o.Cluster), "want ClusterStar or ClusterComponents")
	}
	o.resolvedAs = o.key()
	return o, nil
}

// Resolve returns o with every default filled in (Params resolved, Workers
// and MaxBucket set), or a *FieldError (wrapping ErrOptions) naming the
// first field outside its range. A run resolves its options once: the
// result remembers it was resolved, so that NewBatch given it checks one
// comparison instead of resolving again (a field changed since is
// resolved anew).
func (o Options) Resolve() (Options, error) { return o.resolve() }
