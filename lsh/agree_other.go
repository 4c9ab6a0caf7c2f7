//go:build !amd64 || purego

package lsh

// agreeRows is agreeRowsGeneric: no vector kernel in this build.
func agreeRows(dst []int32, masks []uint64, a, low []uint64, words, lo, hi, need int) ([]int32, []uint64) {
	return agreeRowsGeneric(dst, masks, a, low, words, lo, hi, need)
}

// haveAVX512, useAVX512, haveAVX2 and useAVX2 are false: no vector
// kernel in this build.
var haveAVX512, useAVX512, haveAVX2, useAVX2 = false, false, false, false

// equalBits is equalBitsGeneric: no vector kernel in this build.
func equalBits(eq []uint64, a, b []uint32) int { return equalBitsGeneric(eq, a, b) }

// equalPrefix reports false: no vector kernel in this build.
func equalPrefix(eq *[2]uint64, a, b []uint32, n int) bool { return false }

// equalRows is equalRowsGeneric: no vector kernel in this build.
func equalRows(out []uint64, a, comp []uint32, stride int, rows []entry) {
	equalRowsGeneric(out, a, comp, stride, rows)
}
