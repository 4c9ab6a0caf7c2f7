//go:build !amd64 || purego

package prefetch

import "unsafe"

// lines does nothing in this build.
func lines(p unsafe.Pointer, n int) {}
