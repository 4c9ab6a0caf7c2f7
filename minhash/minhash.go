// Package minhash computes fixed-size MinHash signatures of shingle sets.
//
// STUB: contract only; the implementation replaces the bodies.
package minhash

import "errors"

// DefaultSlots is the default signature size.
const DefaultSlots = 128

// Errors returned by the decoder.
var (
	ErrCorrupt  = errors.New("minhash: corrupt signature encoding")
	ErrVersion  = errors.New("minhash: unsupported signature encoding version")
	ErrMismatch = errors.New("minhash: signatures from different hashers")
)

// Hasher computes signatures with a fixed number of slots and seed. It is
// read-only after New, so it is safe for concurrent use.
type Hasher struct{}

// New returns a Hasher with the given number of slots (>= 1) and seed.
func New(slots int, seed uint64) (*Hasher, error) { panic("unimplemented") }

// Slots returns the number of slots in a signature.
func (h *Hasher) Slots() int { panic("unimplemented") }

// Seed returns the seed.
func (h *Hasher) Seed() uint64 { panic("unimplemented") }

// AppendSignature appends the Slots() values of the signature of set to dst.
// set is a set of 64-bit shingle hashes in any order (duplicates are harmless).
// It allocates nothing when dst has room.
func (h *Hasher) AppendSignature(dst []uint32, set []uint64) []uint32 { panic("unimplemented") }

// Estimate returns the fraction of slots in which a and b agree, an unbiased
// estimate of the Jaccard index of the sets they were computed from.
func Estimate(a, b []uint32) float64 { panic("unimplemented") }

// AppendEncoding appends the versioned binary encoding of sig (made by a
// Hasher with seed) to dst.
func AppendEncoding(dst []byte, seed uint64, sig []uint32) []byte { panic("unimplemented") }

// Decode decodes one encoding from b, appending the slots to dst. It returns
// the extended dst, the seed and the number of bytes consumed.
func Decode(dst []uint32, b []byte) (sig []uint32, seed uint64, n int, err error) {
	panic("unimplemented")
}
