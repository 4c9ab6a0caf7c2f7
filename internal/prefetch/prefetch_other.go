//go:build !amd64 || purego

package prefetch

import "unsafe"

// strided does nothing in this build.
func strided(p unsafe.Pointer, stride uintptr, n int) {}
