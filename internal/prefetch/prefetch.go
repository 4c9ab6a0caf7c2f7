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

// Line prefetches the cache line that holds *p: for a slice header or a
// struct whose address is known before its contents are needed.
func Line[T any](p *T) { lines(unsafe.Pointer(p), 1) }
