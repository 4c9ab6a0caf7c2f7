// Package pipeline is neardup's dedup as Apache Beam pipelines: the
// engine's parts (package neardup: Sketcher, Verifier, Clusters; package
// lsh: the home-band and bucket rules) do every per-document and per-pair
// computation, and Beam moves the data between them, so that a run can
// spread over the workers of Flink, Spark or Dataflow and still give what
// `neardup dedup` gives on one machine.
//
// A run is several pipelines, driven by Run, which leave their results
// for the next in a work directory that every worker can reach:
//
//  1. Sketch and pair: read (each input file on one worker; a document's
//     sequence number is its file's place among the inputs and its record
//     number, so input order) -> shingle set and fingerprint -> identical
//     sets collapsed on their earliest document (GroupByKey on the
//     fingerprint) -> signatures and band keys of the distinct sets ->
//     GroupByKey on (band, key) -> candidate pairs by the engine's home-band
//     and bucket rules -> the sets joined back -> exact verification. The
//     same pipeline then makes the first rounds of connected components.
//  2. Components: large-star and small-star rounds (Kiveris et al., 2014)
//     over the verified pairs, each round two GroupByKeys, until every
//     component is a star around its smallest document. Each pipeline makes
//     Config.Rounds rounds and counts the nodes that break the star shape;
//     Run starts another until none does.
//  3. Clusters and outputs: documents and pairs grouped by component, the
//     engine's Clusters run on each component (star clustering in keep
//     order, as dedup does), and the outputs in dedup's formats.
//
// No step collects every document or every pair on one worker, except
// Beam's textio.Write of each final output file (one file, as dedup
// writes).
package pipeline

import (
	"context"
	"fmt"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/corpus"
)

// A sequence number is the file's index among the inputs, shifted by
// seqBits, plus the record's 1-based number in its file: input order, and
// the record to drop in an output is read straight from it.
const seqBits = 40

func seqOf(file, num int) int64 { return int64(file)<<seqBits | int64(num) }

func fileOf(seq int64) int { return int(seq >> seqBits) }

func numOf(seq int64) int { return int(seq & (1<<seqBits - 1)) }

// Doc is one input document: its sequence number, id and text length.
type Doc struct {
	Seq   int64
	ID    string
	Size  int64
	Empty bool // no shingles: never a near-duplicate
}

// Entry is a document's shingle set, keyed by its fingerprint.
type Entry struct {
	Seq int64
	Set []uint64
}

// Copy says that document Seq has the same shingle set as the earlier
// document Rep, the earliest with it.
type Copy struct{ Seq, Rep int64 }

// Signed is a distinct set (named by its earliest document) with its
// signature.
type Signed struct {
	Seq  int64
	Size int      // the number of shingles
	Set  []uint64 // nil under VerifyEstimate once signed
	Sig  []uint32
}

// Member is a distinct set in a band bucket, with the signature values of
// the bands up to and including that one.
type Member struct {
	Seq int64
	Sig []uint32
}

// Pair is a candidate pair, A < B. A pair of a chained bucket whose home
// band is that bucket's is kept only if the two share no small bucket in a
// later band, which takes both whole signatures: Chain is then 1 + the
// band and Large A's chained-bucket bitset (lsh.Params.ReportBand), and
// verification checks it; Chain is 0 otherwise.
type Pair struct {
	A, B  int64
	Chain int
	Large []uint64
}

// Half is a candidate pair with A's sketch joined.
type Half struct {
	A, B  int64
	Chain int
	Large []uint64
	Size  int
	Set   []uint64
	Sig   []uint32
}

// Edge is a verified pair of distinct sets, A < B, with its similarity
// (exact under VerifyExact).
type Edge struct {
	A, B    int64
	Jaccard float64
}

// Config is what the workers need: the engine's Params (encoded with
// Params.AppendBinary, so every worker signs alike), the run's knobs, the
// inputs and the work directory. It travels to the workers inside the
// DoFns, as JSON.
type Config struct {
	Params     []byte
	Verify     neardup.Verify
	MaxBucket  int // as Options.MaxBucket after Resolve: > 0, or -1 for no limit
	Keep       neardup.Keep
	Cluster    neardup.ClusterMode
	MaxCluster int

	// Files are the inputs (local paths, or URLs of a file system Beam
	// knows, such as gs:// or s3://), in order; Names are the inputs as
	// the user gave them, which prefix ids when there are several.
	Files  []string
	Names  []string
	Corpus corpus.Options

	// Work is a directory every worker can read and write: the runs'
	// intermediate files and the outputs before they are moved in place.
	Work string
	// Shards is the number of files each intermediate file set is cut into.
	Shards int
	// Rounds is the number of component rounds in one pipeline run.
	Rounds int

	lastStar int // the driver's: the run whose star edges are final
}

// NewConfig returns the Config of options o (resolved here) for inputs.
func NewConfig(o neardup.Options, inputs []string, co corpus.Options, work string) (Config, error) {
	o, err := o.Resolve()
	if err != nil {
		return Config{}, err
	}
	switch {
	case o.Weight != neardup.WeightNone:
		return Config{}, fmt.Errorf("%w: --weight idf is not supported by the Beam pipeline yet", neardup.ErrOptions)
	case o.Refine != neardup.RefineNone:
		return Config{}, fmt.Errorf("%w: --refine edit is not supported by the Beam pipeline yet", neardup.ErrOptions)
	case o.StrictIDs:
		// Run checks ids; nothing for the workers to know.
	}
	enc, err := o.Params.AppendBinary(nil)
	if err != nil {
		return Config{}, err
	}
	maxBucket := o.MaxBucket
	if maxBucket == 0 {
		maxBucket = neardup.DefaultMaxBucket
	}
	return Config{Params: enc, Verify: o.Verify, MaxBucket: maxBucket, Keep: o.Keep, Cluster: o.Cluster,
		MaxCluster: o.MaxCluster, Files: inputs, Names: inputs, Corpus: co, Work: work, Shards: 4, Rounds: 4}, nil
}

func (c Config) params() (neardup.Params, error) {
	var p neardup.Params
	err := p.UnmarshalBinary(c.Params)
	return p, err
}

// collect returns the values of a Beam iterator (a GroupByKey's values), a
// fresh zero value decoded into each time, so that no two share memory.
func collect[T any](next func(*T) bool) []T {
	var out []T
	for {
		var v T
		if !next(&v) {
			return out
		}
		out = append(out, v)
	}
}

// sketcher and verifier are the engine's parts for c's Params, made in
// each DoFn's Setup on the worker.
func (c Config) sketcher() (*neardup.Sketcher, error) {
	p, err := c.params()
	if err != nil {
		return nil, err
	}
	return neardup.NewSketcher(p)
}

func (c Config) verifier() (*neardup.Verifier, error) {
	p, err := c.params()
	if err != nil {
		return nil, err
	}
	return neardup.NewVerifier(p, c.Verify)
}

// star is the number of the star edge file set that holds the components.
func (c Config) star() int { return max(c.lastStar, 1) }

// path is the name of a file set of the work directory.
func (c Config) path(name string) string { return joinPath(c.Work, name) }

// Registration. Every emitter and iterator shape is registered with
// package register, and so is bucketFn, the DoFn called once for every
// (band, key) group: 35 times a document at the defaults, where
// register's generated caller saves the reflective call (about 400 ns,
// Beam measured). The other DoFns, called about once a document or less,
// are registered as types and called through reflection (beam.RegisterType),
// because each register.DoFnNxM instantiation adds 5-8 s of compilation:
// with all nineteen this package took 106 s to compile (twice in `go test`,
// once with its tests) and neardup-beam was 245 MB; with one, 9 s and 143
// MB, and the same time on Prism within its noise (docs/beam.md, Pitfalls).
func init() {
	beam.RegisterType(reflect.TypeFor[readFn]())
	register.Emitter1[Doc]()
	register.Emitter2[int64, Entry]()
	beam.RegisterType(reflect.TypeFor[collapseFn]())
	register.Iter1[Entry]()
	register.Emitter1[Signed]()
	register.Emitter1[Copy]()
	beam.RegisterType(reflect.TypeFor[bandFn]())
	register.Emitter2[int64, []uint32]()
	register.Emitter2[int64, Signed]()
	register.Emitter2[string, Member]()
	beam.RegisterType(reflect.TypeFor[chainedFn]())
	register.Emitter2[int64, int]()
	register.DoFn5x1[context.Context, string, func(*Member) bool, func(*int64, *int) bool, func(int64, Pair), error](&bucketFn{})
	register.Iter1[Member]()
	register.Iter2[int64, int]()
	register.Emitter2[int64, Pair]()
	beam.RegisterType(reflect.TypeFor[wholeFn]())
	register.Iter1[[]uint32]()
	register.Iter1[int]()
	beam.RegisterType(reflect.TypeFor[agreeFn]())
	beam.RegisterType(reflect.TypeFor[attachFn]())
	register.Iter1[Signed]()
	register.Iter1[Pair]()
	register.Emitter2[int64, Half]()
	beam.RegisterType(reflect.TypeFor[verifyFn]())
	register.Iter1[Half]()
	register.Emitter1[Edge]()
}
