//go:build amd64 && !purego

package shingle

import "golang.org/x/sys/cpu"

// haveXorCountAVX512 reports whether the CPU can run xorCountAVX512
// (AVX-512 VPOPCNTDQ).
var haveXorCountAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VPOPCNTDQ

// useXorCountAVX512 selects the kernel in MaxIntersection; tests flip it.
var useXorCountAVX512 = haveXorCountAVX512

// xorCountAVX512 returns popcount(a XOR b).
//
//go:noescape
func xorCountAVX512(a, b *Bitmap) int

// maxIntersectionsAVX512 sets out[i] to MaxIntersection(a, &bms[y], na,
// int(sizes[y])) for y = ys[i], i < n, stopping at the first y that is
// not below limit; it returns how many it set. bms and sizes are the
// first elements of arrays of at least limit elements.
//
//go:noescape
func maxIntersectionsAVX512(a, bms *Bitmap, sizes, ys *int32, n, na, limit int, out *int32) int

// haveMaxPOPCNT reports whether the CPU can run maxIntersectionsPOPCNT.
var haveMaxPOPCNT = cpu.X86.HasPOPCNT

// useMaxPOPCNT selects maxIntersectionsPOPCNT in MaxIntersections where
// the AVX-512 kernel is off; tests flip it.
var useMaxPOPCNT = haveMaxPOPCNT

// maxIntersectionsPOPCNT is maxIntersectionsAVX512 with scalar POPCNT.
//
//go:noescape
func maxIntersectionsPOPCNT(a, bms *Bitmap, sizes, ys *int32, n, na, limit int, out *int32) int
