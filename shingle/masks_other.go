//go:build !amd64 || purego

package shingle

// haveMasksAVX512 is false: no vector kernel in this build.
const haveMasksAVX512 = false

// alnumMasksAVX512 is never called in this build.
func alnumMasksAVX512(p *byte, blocks int, out *uint64) bool {
	panic("shingle: alnumMasksAVX512 without the kernel")
}
