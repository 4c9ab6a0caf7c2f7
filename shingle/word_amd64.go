//go:build amd64 && !purego

package shingle

import "golang.org/x/sys/cpu"

// haveMasksAVX512 reports whether the CPU (and the OS) can run
// alnumMasksAVX512 (AVX-512BW: byte compares into mask registers).
var haveMasksAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW

// alnumMasksAVX512 stores to out[k] the mask of ASCII letters and digits
// of the 64-byte block p[64k:64k+64] (bit i for byte i), for k < blocks,
// as alnum64 computes it, and reports true; it reports false at the first
// block with a byte >= 0x80 (the masks from there on are not stored).
//
//go:noescape
func alnumMasksAVX512(p *byte, blocks int, out *uint64) bool

// haveMasksAVX2 reports whether the CPU can run alnumMasksAVX2.
var haveMasksAVX2 = cpu.X86.HasAVX2

// alnumMasksAVX2 is alnumMasksAVX512 with AVX2 (32 bytes a register): the
// same masks, stores and result.
//
//go:noescape
func alnumMasksAVX2(p *byte, blocks int, out *uint64) bool

// haveWordAsm reports whether the CPU can run wordHashes3 (BMI1's ANDN,
// TZCNT and BLSR, BMI2's MULX, BZHI and SHRX).
var haveWordAsm = cpu.X86.HasBMI1 && cpu.X86.HasBMI2

// wordHashes3 is appendASCIIRun's loop for N = 3, from masks (alnumMasks
// of text, blocks of them): with the chain's state a1, b1, count
// (grams') at the start, it writes the 3-gram hashes of text[:n] to out,
// which has room for n/2+1, and returns how many, and the chain's state
// at the end. n must be at least 8.
//
//go:noescape
func wordHashes3(text *byte, n int, masks *uint64, blocks int, out *uint64, a1, b1 uint64, count int) (written int, a1Out, b1Out uint64, countOut int)
