package neardup

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"

	"github.com/neardup/neardup/internal/rule"
	"github.com/neardup/neardup/internal/wire"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/shingle"
)

// SketchVersion numbers the definitions a sketch depends on: the shingle
// hashes (package shingle's contract), Fingerprint, the MinHash scheme
// (package minhash) and the band keys (lsh.Params.BandKey). It changes
// whenever any of them changes, so that an index built with other
// definitions is refused (ErrVersion) instead of being misread. Golden
// tests pin every one of them.
//
// Version 2 (2026-11-23): letters of scripts written without spaces (Han,
// kana, Thai, Lao, Khmer, Myanmar) are each a word token, combining marks
// belong to the token before them, and Char mode drops white space
// between two wide characters. Sketches of text with none of those are
// those of version 1, but an index of version 1 is refused: rebuild it.
const SketchVersion = 2

// Defaults for fields left zero.
const (
	DefaultThreshold = 0.5
	DefaultRecall    = 0.99
	DefaultSeed      = 1
	DefaultMaxBucket = 2000
)

// Params define how a document becomes a sketch and when two documents are
// near-duplicates: the shingling, the MinHash slots and seed, the weighting,
// the LSH bands and rows, and the threshold. They are what a stored index is
// made with: two runs or two processes with equal Params compute equal
// sketches and report the same pairs. The run knobs that do not change what
// is computed per document (workers, bucket limits, which document to keep,
// clustering) are in Options.
//
// A zero field means its default; an explicit value outside its range is
// an error (Resolve). AppendBinary and UnmarshalBinary encode resolved
// Params, Hash identifies them, Compatible checks a stored value against a
// requested one.
type Params struct {
	Shingle   shingle.Options
	Slots     int     // MinHash slots; default minhash.DefaultSlots
	Seed      uint64  // MinHash seed; 0 means DefaultSeed
	Weight    Weight  // WeightNone or WeightIDF
	Threshold float64 // Jaccard threshold t in (0, 1]; default DefaultThreshold
	// Recall is the chance that a pair exactly at Threshold becomes an LSH
	// candidate; it chooses LSH (lsh.Choose) when LSH is zero. Default
	// DefaultRecall.
	Recall float64
	// LSH are the bands and rows; zero: chosen from Threshold and Recall.
	LSH lsh.Params
}

// Resolve returns p with defaults in place of zero fields and LSH chosen
// when it is zero, or a *FieldError (wrapping ErrOptions) naming the first
// field outside its range. Resolving resolved Params returns them
// unchanged. It is the one statement of the ranges of Params: the
// constructors that take Params resolve them with it, and front ends map
// its FieldError to their own names (package cliflags: to flags).
func (p Params) Resolve() (Params, error) {
	if p.Shingle.Mode != shingle.Word && p.Shingle.Mode != shingle.Char {
		return p, fieldError("Shingle.Mode", uint8(p.Shingle.Mode), "want word or char")
	}
	if p.Shingle.N == 0 {
		p.Shingle.N = defaultN(p.Shingle.Mode)
	}
	if p.Shingle.N < 1 || p.Shingle.N > shingle.MaxN {
		return p, fieldError("Shingle.N", p.Shingle.N, fmt.Sprintf("want a length from 1 to %d", shingle.MaxN))
	}
	if p.Slots == 0 {
		p.Slots = minhash.DefaultSlots
	}
	if !rule.Slots(p.Slots) {
		return p, fieldError("Slots", p.Slots, "want "+rule.SlotsWant)
	}
	if p.Seed == 0 {
		p.Seed = DefaultSeed
	}
	if p.Weight > WeightIDF {
		return p, fieldError("Weight", uint8(p.Weight), "want none or idf")
	}
	if p.Threshold == 0 {
		p.Threshold = DefaultThreshold
	}
	if !rule.Threshold(p.Threshold) {
		return p, fieldError("Threshold", p.Threshold, "want "+rule.ThresholdWant)
	}
	if p.Recall == 0 {
		p.Recall = DefaultRecall
	}
	if !rule.Recall(p.Recall) {
		return p, fieldError("Recall", p.Recall, "want "+rule.RecallWant)
	}
	switch {
	case p.LSH == (lsh.Params{}):
		l, err := lsh.Choose(p.Slots, p.Threshold, p.Recall)
		if err != nil {
			return p, &FieldError{Field: "LSH", Reason: fmt.Sprintf("%v (use more slots, a lower recall, or set bands and rows)", err), Err: err}
		}
		p.LSH = l
	case p.LSH.Bands < 1 || p.LSH.Rows < 1:
		return p, &FieldError{Field: "LSH", Value: lshString(p.LSH), Reason: "want bands and rows both, each at least 1"}
	case p.LSH.Bands > p.Slots/p.LSH.Rows:
		return p, &FieldError{Field: "LSH", Value: lshString(p.LSH), Reason: fmt.Sprintf("want bands x rows at most the %d slots", p.Slots)}
	}
	return p, nil
}

// lshString shows bands and rows as "35x3".
func lshString(l lsh.Params) string { return fmt.Sprintf("%dx%d", l.Bands, l.Rows) }

func defaultN(m shingle.Mode) int {
	if m == shingle.Char {
		return shingle.DefaultCharN
	}
	return shingle.DefaultWordN
}

// String describes p, e.g. "word 3-grams, 128 slots, seed 1, 35 bands x 3
// rows, threshold 0.5". Zero fields are shown as they are.
func (p Params) String() string {
	s := shingleString(p.Shingle)
	s += fmt.Sprintf(", %d slots, seed %d, %d bands x %d rows, threshold %g", p.Slots, p.Seed, p.LSH.Bands, p.LSH.Rows, p.Threshold)
	if p.Weight != WeightNone {
		s += ", weight " + p.Weight.String()
	}
	return s
}

// Compatible returns nil when documents sketched under p and under q can be
// compared: equal shingling, slots, seed, weighting, bands, rows and
// threshold once both are resolved (Recall only chooses bands and rows, so
// it may differ). Otherwise it returns an error wrapping ErrIncompatible
// that names the first difference as "q vs p", or the error of resolving
// either.
func (p Params) Compatible(q Params) error {
	p, err := p.Resolve()
	if err != nil {
		return err
	}
	if q, err = q.Resolve(); err != nil {
		return err
	}
	diff := func(what string, a, b any) error {
		return fmt.Errorf("%w: %s %v vs %v", ErrIncompatible, what, b, a)
	}
	switch {
	case p.Shingle != q.Shingle:
		return diff("shingles", shingleString(p.Shingle), shingleString(q.Shingle))
	case p.Slots != q.Slots:
		return diff("slots", p.Slots, q.Slots)
	case p.Seed != q.Seed:
		return diff("seed", p.Seed, q.Seed)
	case p.Weight != q.Weight:
		return diff("weight", p.Weight, q.Weight)
	case p.Threshold != q.Threshold:
		return diff("threshold", p.Threshold, q.Threshold)
	case p.LSH != q.LSH:
		return diff("bands x rows", lshString(p.LSH), lshString(q.LSH))
	}
	return nil
}

func shingleString(o shingle.Options) string {
	s := fmt.Sprintf("%s %d-grams", o.Mode, o.N)
	if o.Bag {
		s += " (bag)"
	}
	if o.NFKC {
		s += " (NFKC)"
	}
	return s
}

// The encoding: magic, encoding version, SketchVersion, then the fields.
const (
	paramsMagic   = "NDPA"
	paramsVersion = 1
)

// AppendBinary appends the encoding of p, resolved, to b (it implements
// encoding.BinaryAppender). The encoding is the magic "NDPA", the encoding
// version (1) and SketchVersion as bytes, then the shingle mode, length
// (uvarint) and flags (1: bag, 2: NFKC), the slots (uvarint), the seed (8 bytes little
// endian), the weight mode, the threshold and the recall (IEEE 754 bits, 8
// bytes little endian each), bands and rows (uvarints). It returns the
// error of Resolve, if any, and b unchanged.
func (p Params) AppendBinary(b []byte) ([]byte, error) {
	p, err := p.Resolve()
	if err != nil {
		return b, err
	}
	b = append(b, paramsMagic...)
	b = append(b, paramsVersion, SketchVersion, byte(p.Shingle.Mode))
	b = binary.AppendUvarint(b, uint64(p.Shingle.N))
	flags := byte(0)
	if p.Shingle.Bag {
		flags |= 1
	}
	if p.Shingle.NFKC {
		flags |= 2
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(p.Slots))
	b = binary.LittleEndian.AppendUint64(b, p.Seed)
	b = append(b, byte(p.Weight))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(p.Threshold))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(p.Recall))
	b = binary.AppendUvarint(b, uint64(p.LSH.Bands))
	b = binary.AppendUvarint(b, uint64(p.LSH.Rows))
	return b, nil
}

// MarshalBinary returns AppendBinary(nil).
func (p Params) MarshalBinary() ([]byte, error) { return p.AppendBinary(nil) }

// UnmarshalBinary decodes an encoding made by AppendBinary into p. The data
// must be exactly one encoding. It returns an error wrapping ErrCorrupt for
// data that is not one, ErrVersion for another encoding version or
// SketchVersion (the sketches stored with it would be computed differently
// today), and ErrOptions for decoded values out of range; p is then
// unchanged.
func (p *Params) UnmarshalBinary(data []byte) error {
	d := wire.Decoder{B: data}
	if len(data) < len(paramsMagic)+2 || string(data[:len(paramsMagic)]) != paramsMagic {
		return fmt.Errorf("%w: not a neardup parameter encoding", ErrCorrupt)
	}
	d.B = d.B[len(paramsMagic):]
	if v := d.Byte(); v != paramsVersion {
		return fmt.Errorf("%w: parameter encoding version %d, this build reads %d", ErrVersion, v, paramsVersion)
	}
	if v := d.Byte(); v != SketchVersion {
		return fmt.Errorf("%w: sketch version %d, this build computes version %d", ErrVersion, v, SketchVersion)
	}
	var q Params
	q.Shingle.Mode = shingle.Mode(d.Byte())
	q.Shingle.N = d.Int(1 << 31)
	if f := d.Byte(); f <= 3 {
		q.Shingle.Bag, q.Shingle.NFKC = f&1 != 0, f&2 != 0
	} else {
		d.Fail()
	}
	q.Slots = d.Int(1 << 31)
	q.Seed = d.Uint64()
	q.Weight = Weight(d.Byte())
	q.Threshold = math.Float64frombits(d.Uint64())
	q.Recall = math.Float64frombits(d.Uint64())
	q.LSH.Bands = d.Int(1 << 31)
	q.LSH.Rows = d.Int(1 << 31)
	if d.Bad || len(d.B) != 0 {
		return fmt.Errorf("%w: parameter encoding of %d bytes", ErrCorrupt, len(data))
	}
	// Every field was written resolved, so none may be zero.
	if q.Shingle.N == 0 || q.Slots == 0 || q.Seed == 0 || q.Threshold == 0 || q.Recall == 0 || q.LSH.Bands == 0 || q.LSH.Rows == 0 {
		return fmt.Errorf("%w: parameter encoding with a zero field", ErrCorrupt)
	}
	r, err := q.Resolve()
	if err != nil {
		return err
	}
	*p = r
	return nil
}

// Hash returns a 64-bit identifier of the resolved p: the FNV-1a hash of its
// encoding, 0 when p does not resolve. Equal Params have equal hashes on
// every machine.
func (p Params) Hash() uint64 {
	b, err := p.AppendBinary(nil)
	if err != nil {
		return 0
	}
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}
