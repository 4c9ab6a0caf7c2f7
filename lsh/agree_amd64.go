//go:build amd64 && !purego

package lsh

import (
	"math/bits"
	"slices"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// haveAVX512 reports whether the CPU (and the OS) can run the AVX-512BW
// byte-comparison kernel.
var haveAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasPOPCNT

// useAVX512 selects the AVX-512 kernel of agreeRows. Tests flip it to run
// both.
var useAVX512 = haveAVX512

// haveAVX2 reports whether the CPU can run the AVX2 kernels
// (equalRowsAVX2, agreeRowsAVX2, equalMasksAVX2; POPCNT too, which every
// AVX2 CPU has).
var haveAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT

// useAVX2 selects the AVX2 kernels where the AVX-512 ones are off. Tests
// flip it to run every kernel.
var useAVX2 = haveAVX2

// agreeRowsAVX512 compares a (chunks*8 words) with n rows of as many words
// from rows on, and writes to out the index (first for the first row) of every
// row with at least need equal bytes, and to masks the chunks words of
// that row's byte-equality bits (bit k%64 of word k/64 set where byte k
// is equal); it returns how many rows it wrote. out has room for n
// indexes and masks for n*chunks words.
//
//go:noescape
func agreeRowsAVX512(a, rows *uint64, chunks, n, need int, out *int32, masks *uint64, first int) int

// agreeRows appends to dst the y in [lo, hi) whose packed row
// low[y*words:(y+1)*words] has at least need bytes equal to a's
// (agreeLow), and to masks their byte-equality bits (lowMasks), with the
// AVX-512 kernel (else the AVX2 one) when the rows are whole 64-byte
// chunks.
func agreeRows(dst []int32, masks []uint64, a, low []uint64, words, lo, hi, need int) ([]int32, []uint64) {
	if !(useAVX512 || useAVX2) || words%8 != 0 || hi <= lo {
		return agreeRowsGeneric(dst, masks, a, low, words, lo, hi, need)
	}
	_ = low[hi*words-1]
	_ = a[words-1]
	chunks := words / 8
	n, nm := len(dst), len(masks)
	dst = slices.Grow(dst, hi-lo)[:n+hi-lo]
	masks = slices.Grow(masks, (hi-lo)*chunks)[:nm+(hi-lo)*chunks]
	kernel := agreeRowsAVX2
	if useAVX512 {
		kernel = agreeRowsAVX512
	}
	k := kernel(&a[0], &low[lo*words], chunks, hi-lo, need, &dst[n], &masks[nm], lo)
	return dst[:n+k], masks[:nm+k*chunks]
}

// equalMasksAVX512 stores to out[g] the 16-bit mask of the lanes where
// a[16g:16g+16] and b[16g:16g+16] are equal, for g < groups.
//
//go:noescape
func equalMasksAVX512(a, b *uint32, groups int, out *uint16)

// equalMasksAVX2 stores to out[g] the 8-bit mask of the lanes where
// a[8g:8g+8] and b[8g:8g+8] are equal, for g < groups.
//
//go:noescape
func equalMasksAVX2(a, b *uint32, groups int, out *uint8)

// equalBits sets bit k%64 of eq[k/64] where a[k] == b[k] (len(b) >=
// len(a), len(eq)*64 >= len(a)), clears the others, and returns how many
// are set: with the AVX-512 kernel (else the AVX2 one) when len(a) is a
// multiple of 64.
func equalBits(eq []uint64, a, b []uint32) int {
	if !(useAVX512 || useAVX2) || len(a)%64 != 0 || len(a) == 0 {
		return equalBitsGeneric(eq, a, b)
	}
	b = b[:len(a)]
	eq = eq[:len(a)/64]
	// eq's words, little-endian, are the 16-bit (8-bit) masks in order.
	if useAVX512 {
		equalMasksAVX512(&a[0], &b[0], len(a)/16, (*uint16)(unsafe.Pointer(&eq[0])))
	} else {
		equalMasksAVX2(&a[0], &b[0], len(a)/8, (*uint8)(unsafe.Pointer(&eq[0])))
	}
	n := 0
	for _, w := range eq {
		n += bits.OnesCount64(w)
	}
	return n
}

// equalPrefix sets eq to the equality bits of the first n values of a and
// b (bit k%64 of eq[k/64] set where a[k] == b[k]), with the AVX-512 kernel,
// and reports true; bits from n to the next multiple of 16 may be set too.
// It reports false, eq untouched, when the kernel is off, n is 0 or over
// 128, or a or b is shorter than n rounded up to 16 values (the kernel
// reads whole groups of 16).
func equalPrefix(eq *[2]uint64, a, b []uint32, n int) bool {
	g := (n + 15) / 16
	if !useAVX512 || n <= 0 || n > 128 || len(a) < g*16 || len(b) < g*16 {
		return false
	}
	eq[0], eq[1] = equalPrefixAVX512(&a[0], &b[0], g)
	return true
}

// equalPrefixAVX512 returns the equality bits of the first groups*16
// values of a and b, groups <= 8: bit k of lo for k < 64, bit k-64 of hi
// above.
//
//go:noescape
func equalPrefixAVX512(a, b *uint32, groups int) (lo, hi uint64)

// equalRows is equalRowsGeneric, with the AVX-512 kernel when it is on,
// else the AVX2 one. The kernels read whole vectors of a row (64 and 32
// bytes, as many as a's values need; AVX-512 under a lane mask, AVX2 with
// the bits past len(a) cleared after), so comp must hold 64 values past
// its last row's start (Run allocates them).
func equalRows(out []uint64, a, comp []uint32, stride int, rows []entry) {
	if !(useAVX512 || useAVX2) || len(rows) == 0 || len(a) == 0 || len(a) > 64 {
		equalRowsGeneric(out, a, comp, stride, rows)
		return
	}
	_ = out[len(rows)-1]
	n := len(a)
	lanes := ^uint64(0)
	if n < 64 {
		lanes = 1<<n - 1
	}
	// The kernels read a's values in whole vectors too: a row of comp has
	// room past its values (comp's padding), a slice apart from it may
	// not, and is copied (the copy and its clearing were a quarter of
	// equalRows's time at 1M documents when every call made them).
	pa := &a[0]
	if cap(a) < (n+15)&^15 {
		var first [64]uint32
		copy(first[:], a)
		pa = &first[0]
	}
	if useAVX512 {
		equalRowsAVX512(pa, &comp[0], &rows[0].id, len(rows), 4*stride, lanes, (n+15)/16, &out[0])
		return
	}
	equalRowsAVX2(pa, &comp[0], &rows[0].id, len(rows), 4*stride, lanes, (n+7)/8, &out[0])
}

// equalRowsAVX512 stores to out[k], for k < n, the equality bits of the
// 32-bit values of a (64 of them) and of the row at comp + id*rowBytes
// bytes, id the uint32 at ids + 16*k bytes (entry.id): bit v from value v
// where bit v of lanes is set. It reads the first vecs (1-4) vectors of
// 16 values of each row.
//
//go:noescape
func equalRowsAVX512(a, comp *uint32, ids *uint32, n, rowBytes int, lanes uint64, vecs int, out *uint64)

// equalRowsAVX2 is equalRowsAVX512 with AVX2: the same bits, from the
// first vecs (1-8) vectors of 8 values of each row.
//
//go:noescape
func equalRowsAVX2(a, comp *uint32, ids *uint32, n, rowBytes int, lanes uint64, vecs int, out *uint64)

// agreeRowsAVX2 is agreeRowsAVX512 with AVX2: the same rows and masks.
//
//go:noescape
func agreeRowsAVX2(a, rows *uint64, chunks, n, need int, out *int32, masks *uint64, first int) int
