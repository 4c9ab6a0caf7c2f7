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
