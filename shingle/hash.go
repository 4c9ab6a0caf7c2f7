package shingle

import (
	"encoding/binary"
	"math/bits"
)

// Hash constants. They are part of the definition in the package
// documentation: changing any of them changes every shingle hash.
const (
	k0 = 0xa0761d6478bd642f // seed of the byte-string hash H
	k1 = 0xe7037ed1a0b428db // multiplier for 8-byte chunks in H
	k2 = 0x8ebc6af09c88c6e3 // multiplier for the length finaliser of H
	k3 = 0x589965cc75374cc3 // seed of the word-shingle chain
	k4 = 0x1d8e4e27c47d124f // multiplier of the word-shingle chain
	k5 = 0x9e3779b97f4a7c15 // bag: occurrence multiplier
	k6 = 0xbf58476d1ce4e5b9 // bag: mixer multiplier
)

// lowASCII turns ASCII letters and digits into their lower-case form when
// OR-ed into a chunk of such bytes: 'A'..'Z' gain bit 5 and become 'a'..'z';
// 'a'..'z' and '0'..'9' already have it.
const lowASCII = 0x2020202020202020

// mum returns the high and low halves of the 128-bit product a*b, XOR-ed.
func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// hashBytes returns H(p) as defined in the package documentation.
// It is the plain definition; the fast paths below must agree with it.
func hashBytes(p []byte) uint64 {
	h := uint64(k0)
	n := len(p)
	for len(p) >= 8 {
		h = mum(h^binary.LittleEndian.Uint64(p), k1)
		p = p[8:]
	}
	if len(p) > 0 {
		var w uint64
		for i := len(p) - 1; i >= 0; i-- {
			w = w<<8 | uint64(p[i])
		}
		h = mum(h^w, k1)
	}
	return mum(h^uint64(n), k2)
}

// hashPadded returns H(buf[a:b]). It may read up to 7 bytes past b, so
// buf must have at least b+8 bytes; what it reads there is masked off.
func hashPadded(buf []byte, a, b int) uint64 {
	h := uint64(k0)
	n := b - a
	for ; b-a >= 8; a += 8 {
		h = mum(h^binary.LittleEndian.Uint64(buf[a:]), k1)
	}
	if r := b - a; r > 0 {
		w := binary.LittleEndian.Uint64(buf[a:]) & (1<<(8*uint(r)) - 1)
		h = mum(h^w, k1)
	}
	return mum(h^uint64(n), k2)
}

// chain returns the word-shingle hash of the token hashes ts.
func chain(ts []uint64) uint64 {
	s := uint64(k3)
	for _, t := range ts {
		s = mum(s^t, k4)
	}
	return s
}

// bagHash returns the element for occurrence j >= 1 of a shingle hashing
// to h in bag mode. Occurrence 0 is h itself.
func bagHash(h uint64, j int) uint64 {
	return mum(h^(uint64(j)*k5), k6)
}
