// Package prefetch asks the processor to start loading memory that will be
// read soon, so that the wait for it overlaps other work. A prefetch is
// only a hint: it never faults, changes no memory and no result, and on
// builds without an assembly version (other architectures, the purego
// tag) it does nothing.
package prefetch

import "unsafe"

// maxLines bounds the cache lines one call prefetches: the hardware
// prefetcher follows a sequential read once it has started.
const maxLines = 32

// Uint64s prefetches the start of s (up to maxLines cache lines of 64
// bytes, 256 elements) into every cache level. It does not allocate and
// does nothing for an empty s.
func Uint64s(s []uint64) {
	if len(s) == 0 {
		return
	}
	lines(unsafe.Pointer(&s[0]), min((len(s)+7)/8, maxLines))
}

// Uint32s is Uint64s for a slice of uint32 (up to 512 elements).
func Uint32s(s []uint32) {
	if len(s) == 0 {
		return
	}
	lines(unsafe.Pointer(&s[0]), min((len(s)+15)/16, maxLines))
}

// lines prefetches n >= 1 consecutive cache lines from p.
func lines(p unsafe.Pointer, n int) { strided(p, 64, n) }

// Line prefetches the cache line that holds *p: for a slice header or a
// struct whose address is known before its contents are needed.
func Line[T any](p *T) { lines(unsafe.Pointer(p), 1) }

// Uint32sEvery prefetches the cache lines that hold s[0], s[stride],
// s[2*stride], ..., up to n of them and only those within s: one call for
// a column of records (a field of every stride-th element) that the
// hardware prefetcher, which loses a stride at each page, does not follow.
// It does nothing when stride < 1 or n < 1, and does not allocate.
func Uint32sEvery(s []uint32, stride, n int) {
	if stride < 1 || n < 1 || len(s) == 0 {
		return
	}
	n = min(n, (len(s)-1)/stride+1)
	strided(unsafe.Pointer(&s[0]), uintptr(stride)*4, n)
}
