//go:build !amd64 || purego

package shingle

// haveMasksAVX512 is false: no vector kernel in this build.
const haveMasksAVX512 = false

// alnumMasksAVX512 is never called in this build.
func alnumMasksAVX512(p *byte, blocks int, out *uint64) bool {
	panic("shingle: alnumMasksAVX512 without the kernel")
}

// haveMasksAVX2 is false: no vector kernel in this build.
const haveMasksAVX2 = false

// alnumMasksAVX2 is never called in this build.
func alnumMasksAVX2(p *byte, blocks int, out *uint64) bool {
	panic("shingle: alnumMasksAVX2 without the kernel")
}

// haveWordAsm is false: no assembly in this build.
const haveWordAsm = false

// wordHashes3 is never called in this build.
func wordHashes3(text *byte, n int, masks *uint64, blocks int, out *uint64, a1, b1 uint64, count int) (written int, a1Out, b1Out uint64, countOut int) {
	panic("shingle: wordHashes3 without the kernel")
}
