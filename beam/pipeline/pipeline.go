// Package pipeline is neardup's dedup as an Apache Beam pipeline: the
// engine's parts (package neardup: Sketcher, Verifier; package lsh: the
// home-band and bucket rules) do every per-document and per-pair
// computation, and Beam moves the data between them, so that the run
// can spread over the workers of Flink, Spark or Dataflow.
//
// This first stage computes the verified pairs: read -> sketch (set,
// signature, band keys) -> GroupByKey on (band, key) -> candidate pairs by
// the home-band rule -> the sets joined back (two CoGroupByKeys) -> exact
// verification. Still to come (see the issue): collapsing identical sets
// first, components and star clusters, and the outputs in dedup's formats.
package pipeline

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/lsh"
)

// Doc is one input document, numbered in input order (files in the order
// given, records in file order) from 0.
type Doc struct {
	Seq  int64
	ID   string
	Text []byte
}

// Signed is a document's sketch.
type Signed struct {
	Seq int64
	ID  string
	Set []uint64
	Sig []uint32
}

// Member is a document in a band bucket.
type Member struct {
	Seq int64
	Sig []uint32
}

// Pair is a candidate pair, A < B.
type Pair struct{ A, B int64 }

// Half is a candidate pair with A's sketch joined.
type Half struct {
	A, B int64
	IDA  string
	Set  []uint64
	Sig  []uint32
}

// Verified is a near-duplicate pair with its exact similarity.
type Verified struct {
	A, B     int64
	IDA, IDB string
	Jaccard  float64
}

func init() {
	register.DoFn2x1[[]byte, func(Doc), error](&readFn{})
	register.Emitter1[Doc]()
	register.DoFn3x1[Doc, func(int64, Signed), func(string, Member), error](&sketchFn{})
	register.Emitter2[int64, Signed]()
	register.Emitter2[string, Member]()
	register.DoFn3x1[string, func(*Member) bool, func(int64, Pair), error](&bucketFn{})
	register.Iter1[Member]()
	register.Emitter2[int64, Pair]()
	register.DoFn4x0[int64, func(*Signed) bool, func(*Pair) bool, func(int64, Half)](&attachFn{})
	register.Iter1[Signed]()
	register.Iter1[Pair]()
	register.Emitter2[int64, Half]()
	register.DoFn4x1[int64, func(*Signed) bool, func(*Half) bool, func(Verified), error](&verifyFn{})
	register.Iter1[Half]()
	register.Emitter1[Verified]()
}

// Config is what the workers need: the engine's Params (encoded with
// Params.AppendBinary, so every worker signs alike), the verification
// mode, the bucket limit and how to read the inputs.
type Config struct {
	Params    []byte
	Verify    neardup.Verify
	MaxBucket int
	Files     []string
	Format    corpus.Format
	Text      []string
	IDField   string
}

// NewConfig resolves p and encodes it.
func NewConfig(p neardup.Params, verify neardup.Verify, maxBucket int, files []string) (Config, error) {
	sk, err := neardup.NewSketcher(p)
	if err != nil {
		return Config{}, err
	}
	enc, err := sk.Params().AppendBinary(nil)
	if err != nil {
		return Config{}, err
	}
	return Config{Params: enc, Verify: verify, MaxBucket: maxBucket, Files: files}, nil
}

func (c Config) params() (neardup.Params, error) {
	var p neardup.Params
	err := p.UnmarshalBinary(c.Params)
	return p, err
}

// Pairs adds the stages that compute the verified pairs to the pipeline.
func Pairs(s beam.Scope, c Config) beam.PCollection {
	s = s.Scope("neardup")
	docs := beam.ParDo(s.Scope("read"), &readFn{C: c}, beam.Impulse(s))
	signed, members := beam.ParDo2(s.Scope("sketch"), &sketchFn{C: c}, docs)
	pairs := beam.ParDo(s.Scope("candidates"), &bucketFn{C: c}, beam.GroupByKey(s, members))
	halves := beam.ParDo(s.Scope("join A"), &attachFn{}, beam.CoGroupByKey(s, signed, pairs))
	return beam.ParDo(s.Scope("verify"), &verifyFn{C: c}, beam.CoGroupByKey(s, signed, halves))
}

// readFn reads every input, in order, on one worker (so that sequence
// numbers follow the input order).
type readFn struct{ C Config }

func (f *readFn) ProcessElement(_ []byte, emit func(Doc)) error {
	var seq int64
	for _, path := range f.C.Files {
		r, err := corpus.Open(path, corpus.Options{Format: f.C.Format, TextFields: f.C.Text, IDField: f.C.IDField})
		if err != nil {
			return err
		}
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				r.Close()
				return err
			}
			id := rec.ID
			if id == "" {
				id = fmt.Sprint(rec.Num)
			}
			emit(Doc{Seq: seq, ID: id, Text: slices.Clone(rec.Text)})
			seq++
		}
		if err := r.Close(); err != nil {
			return err
		}
	}
	return nil
}

// sketchFn sketches a document: its set and signature by sequence number,
// and one bucket entry per band, keyed by the band and its key.
type sketchFn struct {
	C  Config
	sk *neardup.Sketcher
}

func (f *sketchFn) Setup() error {
	p, err := f.C.params()
	if err != nil {
		return err
	}
	f.sk, err = neardup.NewSketcher(p)
	return err
}

func (f *sketchFn) ProcessElement(d Doc, signed func(int64, Signed), bucket func(string, Member)) error {
	var s neardup.Sketch
	f.sk.Sketch(&s, d.Text, nil)
	if s.Empty() {
		return nil // no shingles: nobody's near-duplicate
	}
	signed(d.Seq, Signed{Seq: d.Seq, ID: d.ID, Set: s.Set, Sig: s.Signature})
	for band, key := range f.sk.AppendBandKeys(nil, s.Signature) {
		bucket(bucketKey(band, key), Member{Seq: d.Seq, Sig: s.Signature})
	}
	return nil
}

// bucketKey is the GroupByKey key of (band, key): 2 + 8 bytes, big-endian.
func bucketKey(band int, key uint64) string {
	var b [10]byte
	binary.BigEndian.PutUint16(b[:], uint16(band))
	binary.BigEndian.PutUint64(b[2:], key)
	return string(b[:])
}

// bucketFn turns a (band, key) group into candidate pairs: the members in
// sequence order, split into true buckets (equal band values, not just
// equal keys), paired by lsh.BucketPairs, each pair kept only in its home
// band, as the batch does.
type bucketFn struct {
	C    Config
	lp   lsh.Params
	rows int
}

func (f *bucketFn) Setup() error {
	p, err := f.C.params()
	if err != nil {
		return err
	}
	f.lp, f.rows = p.LSH, p.LSH.Rows
	return nil
}

func (f *bucketFn) ProcessElement(key string, next func(*Member) bool, emit func(int64, Pair)) error {
	band := int(binary.BigEndian.Uint16([]byte(key)))
	var ms []Member
	var m Member
	for next(&m) {
		ms = append(ms, m)
		m = Member{}
	}
	values := func(x Member) []uint32 { return x.Sig[band*f.rows : (band+1)*f.rows] }
	slices.SortFunc(ms, func(a, b Member) int {
		if c := slices.Compare(values(a), values(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.Seq, b.Seq)
	})
	for lo := 0; lo < len(ms); {
		hi := lo + 1
		for hi < len(ms) && slices.Equal(values(ms[hi]), values(ms[lo])) {
			hi++
		}
		b := ms[lo:hi]
		lsh.BucketPairs(len(b), f.C.MaxBucket, func(x, y int) bool {
			if f.lp.HomeBand(b[x].Sig, b[y].Sig) == band {
				emit(b[x].Seq, Pair{A: b[x].Seq, B: b[y].Seq})
			}
			return true
		})
		lo = hi
	}
	return nil
}

// attachFn joins A's sketch to its candidate pairs and keys them by B.
type attachFn struct{}

func (attachFn) ProcessElement(seq int64, signed func(*Signed) bool, pairs func(*Pair) bool, emit func(int64, Half)) {
	var s Signed
	if !signed(&s) {
		return
	}
	var p Pair
	for pairs(&p) {
		emit(p.B, Half{A: p.A, B: p.B, IDA: s.ID, Set: s.Set, Sig: s.Sig})
	}
}

// verifyFn joins B's sketch and verifies each pair with the engine's
// Verifier.
type verifyFn struct {
	C Config
	v *neardup.Verifier
}

func (f *verifyFn) Setup() error {
	p, err := f.C.params()
	if err != nil {
		return err
	}
	f.v, err = neardup.NewVerifier(p, f.C.Verify)
	return err
}

func (f *verifyFn) ProcessElement(seq int64, signed func(*Signed) bool, halves func(*Half) bool, emit func(Verified)) error {
	var s Signed
	if !signed(&s) {
		return nil
	}
	b := neardup.Sketch{Set: s.Set, Size: len(s.Set), Signature: s.Sig}
	var h Half
	for halves(&h) {
		a := neardup.Sketch{Set: h.Set, Size: len(h.Set), Signature: h.Sig}
		if j, ok := f.v.Verify(&a, &b); ok {
			emit(Verified{A: h.A, B: h.B, IDA: h.IDA, IDB: s.ID, Jaccard: j})
		}
	}
	return nil
}
