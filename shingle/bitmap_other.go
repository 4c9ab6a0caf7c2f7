//go:build !amd64 || purego

package shingle

// haveXorCountAVX512 is false: no vector kernel in this build.
const haveXorCountAVX512 = false

// useXorCountAVX512 stays false in this build (tests only read it).
var useXorCountAVX512 = false

// xorCountAVX512 is never called in this build.
func xorCountAVX512(a, b *Bitmap) int { panic("shingle: xorCountAVX512 without the kernel") }

// maxIntersectionsAVX512 is never called in this build.
func maxIntersectionsAVX512(a, bms *Bitmap, sizes, ys *int32, n, na, limit int, out *int32) int {
	panic("shingle: maxIntersectionsAVX512 without the kernel")
}

// haveMaxPOPCNT and useMaxPOPCNT are false: no kernel in this build.
var haveMaxPOPCNT, useMaxPOPCNT = false, false

// maxIntersectionsPOPCNT is never called in this build.
func maxIntersectionsPOPCNT(a, bms *Bitmap, sizes, ys *int32, n, na, limit int, out *int32) int {
	panic("shingle: maxIntersectionsPOPCNT without the kernel")
}
