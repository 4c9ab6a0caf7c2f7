//go:build !amd64 || purego

package minhash

// haveAVX2 reports whether this build has an AVX2 kernel the CPU can run.
const haveAVX2 = false

// useAVX2 selects the AVX2 kernel; it is always false in this build.
var useAVX2 = false

// haveAVX512 reports whether this build has an AVX-512 kernel the CPU can
// run.
const haveAVX512 = false

// useAVX512 selects the AVX-512 kernel; it is always false in this build.
var useAVX512 = false

// packVector returns nil: this build has no vector kernel.
func packVector(a, b []uint64) []uint32 { return nil }

// signature sets out (len(out) == h.Slots()) to the signature of set.
func (h *Hasher) signature(out []uint32, set []uint64) {
	signatureGeneric(out, h.a, h.b, set)
}

// countEqual returns the number of i with a[i] == b[i]; len(b) >= len(a).
func countEqual(a, b []uint32) int { return countEqualGeneric(a, b) }
