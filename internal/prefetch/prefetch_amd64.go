//go:build amd64 && !purego

package prefetch

import "unsafe"

// lines prefetches n >= 1 cache lines from p (PREFETCHT0).
//
//go:noescape
func lines(p unsafe.Pointer, n int)
