//go:build amd64 && !purego

package prefetch

import "unsafe"

// strided prefetches n >= 1 cache lines, those holding p, p+stride, ...
// (PREFETCHT0).
//
//go:noescape
func strided(p unsafe.Pointer, stride uintptr, n int)
