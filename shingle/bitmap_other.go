//go:build !amd64 || purego

package shingle

// No vector kernel in this build.
const haveXorCountAVX512, useXorCountAVX512 = false, false

// xorCountAVX512 is never called in this build.
func xorCountAVX512(a, b *Bitmap) int { panic("shingle: xorCountAVX512 without the kernel") }
