// Package minhash computes fixed-size MinHash signatures of shingle sets.
//
// Who uses it from outside: neardup.Sketcher signs through it, so a
// program that dedups or indexes does not call it; a library user takes it
// for signatures of shingle sets of their own (Hasher), to estimate a
// pair's Jaccard from two stored signatures (Estimate), or to store them
// in the versioned encoding (AppendEncoding, Decode).
//
// # Scheme
//
// A Hasher with k slots and seed s holds k independent hash functions, one
// per slot. Slot i uses multiply-add modulo 2^64:
//
//	v_i(x) = a_i*x + b_i   (wrapping uint64 arithmetic)
//
// The constants come from a splitmix64 stream started at s: for i = 0, 1,
// ..., k-1 in order, a_i = next() | 1 (forced odd) and then b_i = next(),
// where next is the reference splitmix64 step (state += 0x9e3779b97f4a7c15,
// then the 30/27/31 xor-shift-multiply finaliser). The value of slot i for a
// set X of 64-bit shingle hashes is the top 32 bits of min over x in X of
// v_i(x); for the empty set every slot is 0xFFFFFFFF. Signatures therefore
// depend only on (k, s, X): they are the same across runs, processes,
// machines and kernels, and the first k' slots of a k-slot signature equal
// the k'-slot signature with the same seed.
//
// Because every slot has its own hash function, slot agreements between two
// sets are independent, each with probability close to their Jaccard index,
// so LSH banding follows the S-curve 1-(1-s^r)^b even for short documents
// with fewer shingles than slots. (One-permutation hashing and its
// densifications correlate slots for short sets; this package does not use
// them.) The input hashes must already be well mixed 64-bit values, as made
// by a good string hash; the scheme adds no mixing of its own.
//
// # Speed
//
// A signature costs k*|X| slot updates. The pure-Go kernel keeps a group of
// slots' constants and running minima in registers while it streams over
// the set. On amd64 two assembly kernels compute the same values bit for
// bit (see kernel_amd64.s): with AVX-512 (F and DQ) the definition itself,
// 8 slots per register and 32 slots per pass over the set, about 30 slot
// updates/ns on the AMD EPYC test machine; else with AVX2, 8 slots per
// register from 32-bit multiplies, about 8.5 updates/ns. The fastest the
// CPU runs is chosen at start-up. Build with -tags purego to use only the
// pure-Go kernel.
//
// # Encoding
//
// AppendEncoding and Decode use a versioned binary form: the magic bytes
// "NDMH", a version byte (1), the slot count as a uvarint, the seed as 8
// bytes little-endian and then each slot as 4 bytes little-endian.
package minhash

import (
	"errors"
	"fmt"
	"slices"

	"github.com/neardup/neardup/internal/sentinel"
)

// DefaultSlots is the default signature size.
const DefaultSlots = 128

// Sentinel errors.
var (
	// ErrCorrupt is neardup.ErrCorrupt, which Decode wraps for an input
	// that is not a signature encoding (short, garbled, a bad magic).
	ErrCorrupt = sentinel.Corrupt
	// ErrVersion is neardup.ErrVersion, which Decode wraps for an encoding
	// of another version.
	ErrVersion = sentinel.Version
	// ErrMismatch: signatures of different lengths compared (Estimate's
	// panic wraps it).
	ErrMismatch = errors.New("minhash: signatures from different hashers")
)

// Hasher computes signatures with a fixed number of slots and seed. It is
// read-only after New, so it is safe for concurrent use.
type Hasher struct {
	seed uint64
	a, b []uint64 // per-slot constants, len == slots
	// vec holds the constants for the vector kernel, vecConsts uint32 per
	// group of vecGroup slots (see kernel_amd64.go); nil when unused.
	vec []uint32
}

// New returns a Hasher with the given number of slots (>= 1) and seed.
func New(slots int, seed uint64) (*Hasher, error) {
	if slots < 1 {
		return nil, fmt.Errorf("minhash: slots must be >= 1, got %d", slots)
	}
	h := &Hasher{
		seed: seed,
		a:    make([]uint64, slots),
		b:    make([]uint64, slots),
	}
	state := seed
	for i := range slots {
		h.a[i] = splitmix64(&state) | 1
		h.b[i] = splitmix64(&state)
	}
	h.vec = packVector(h.a, h.b)
	return h, nil
}

// splitmix64 advances *state and returns the next value of the splitmix64
// stream (Steele, Lea and Flood 2014; the reference constants).
func splitmix64(state *uint64) uint64 {
	*state += 0x9e3779b97f4a7c15
	z := *state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Slots returns the number of slots in a signature.
func (h *Hasher) Slots() int { return len(h.a) }

// Seed returns the seed.
func (h *Hasher) Seed() uint64 { return h.seed }

// AppendSignature appends the Slots() values of the signature of set to dst.
// set is a set of 64-bit shingle hashes in any order (duplicates are harmless).
// It allocates nothing when dst has room.
func (h *Hasher) AppendSignature(dst []uint32, set []uint64) []uint32 {
	n := len(dst)
	dst = slices.Grow(dst, len(h.a))[:n+len(h.a)]
	h.signature(dst[n:], set)
	return dst
}

// Estimate returns the fraction of slots in which a and b agree, an unbiased
// estimate of the Jaccard index of the sets they were computed from.
//
// a and b must come from Hashers with the same slots and seed; Estimate
// panics with an error wrapping ErrMismatch if their lengths differ. It
// returns 0 for two empty slices.
func Estimate(a, b []uint32) float64 {
	if len(a) != len(b) {
		panic(fmt.Errorf("%w: Estimate of %d and %d slots", ErrMismatch, len(a), len(b)))
	}
	if len(a) == 0 {
		return 0
	}
	return float64(countEqual(a, b)) / float64(len(a))
}

// countEqualGeneric returns the number of i with a[i] == b[i]; len(b) >=
// len(a). It is branch-free so that its speed does not depend on the
// similarity. countEqual (kernel_*.go) is the entry point.
func countEqualGeneric(a, b []uint32) int {
	b = b[:len(a)]
	var n0, n1, n2, n3 int
	i := 0
	for ; i+4 <= len(a); i += 4 {
		a4, b4 := a[i:i+4:i+4], b[i:i+4:i+4]
		n0 += eq(a4[0], b4[0])
		n1 += eq(a4[1], b4[1])
		n2 += eq(a4[2], b4[2])
		n3 += eq(a4[3], b4[3])
	}
	for ; i < len(a); i++ {
		n0 += eq(a[i], b[i])
	}
	return n0 + n1 + n2 + n3
}

// eq returns 1 if x == y and 0 otherwise, without a branch.
func eq(x, y uint32) int {
	// x^y is zero iff equal; (d-1)>>63 is 1 only for d == 0 (d < 2^32).
	d := uint64(x ^ y)
	return int((d - 1) >> 63)
}
