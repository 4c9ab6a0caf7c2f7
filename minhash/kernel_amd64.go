//go:build amd64 && !purego

package minhash

import "golang.org/x/sys/cpu"

// The AVX2 kernel (kernel_amd64.s) handles slots in groups of vecGroup,
// reading vecConsts uint32 of constants per group from Hasher.vec.
const (
	vecGroup  = 8
	vecConsts = 5 * vecGroup
)

// haveAVX2 reports whether this build has an AVX2 kernel the CPU can run.
var haveAVX2 = cpu.X86.HasAVX2

// useAVX2 selects the AVX2 kernels. Tests flip it to run both kernels.
// countEqual also needs POPCNT, which every AVX2 CPU has; checked anyway.
var useAVX2 = haveAVX2 && cpu.X86.HasPOPCNT

// haveAVX512 reports whether the CPU (and the OS, which must save the ZMM
// registers: x/sys/cpu checks) can run the AVX-512 signature kernel.
var haveAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// useAVX512 selects the AVX-512 signature kernel over the AVX2 one. Tests
// flip it to run every kernel.
var useAVX512 = haveAVX512

// minhashAVX512 computes groups*8 slots of the signature of set into out,
// slot i from the constants a[i], b[i] (see kernel_amd64.s).
//
//go:noescape
func minhashAVX512(a, b *uint64, groups int, set []uint64, out *uint32)

// minhashAVX2 computes groups*8 slots of the signature of set into out,
// reading 40 uint32 of constants per group from consts (see packVector).
//
//go:noescape
func minhashAVX2(consts *uint32, groups int, set []uint64, out *uint32)

// packVector lays out the constants of the full groups of 8 slots for
// minhashAVX2. Per group, five 32-byte vectors (j = 0..7 is the slot within
// the group, lo and hi the 32-bit halves):
//
//	0: lo(a_j) as 8 dwords            vpmuludq (even slots) and vpmulld
//	1: lo(a_2j+1) as 4 qwords         vpmuludq (odd slots)
//	2: hi(a_j) as 8 dwords            vpmulld
//	3: b_2j as 4 qwords               added to the even products
//	4: b_2j+1 as 4 qwords             added to the odd products
func packVector(a, b []uint64) []uint32 {
	groups := len(a) / vecGroup
	if groups == 0 {
		return nil
	}
	v := make([]uint32, groups*vecConsts)
	for g := range groups {
		a8, b8 := a[g*vecGroup:(g+1)*vecGroup], b[g*vecGroup:(g+1)*vecGroup]
		c := v[g*vecConsts : (g+1)*vecConsts]
		for j := range vecGroup {
			c[j] = uint32(a8[j])
			c[16+j] = uint32(a8[j] >> 32)
		}
		for j := range vecGroup / 2 {
			c[8+2*j] = uint32(a8[2*j+1])
			c[24+2*j], c[24+2*j+1] = uint32(b8[2*j]), uint32(b8[2*j]>>32)
			c[32+2*j], c[32+2*j+1] = uint32(b8[2*j+1]), uint32(b8[2*j+1]>>32)
		}
	}
	return v
}

// signature sets out (len(out) == h.Slots()) to the signature of set.
func (h *Hasher) signature(out []uint32, set []uint64) {
	if useAVX512 && len(out) >= 8 {
		groups := len(out) / 8
		minhashAVX512(&h.a[0], &h.b[0], groups, set, &out[0])
		if done := groups * 8; done < len(out) {
			signatureGeneric(out[done:], h.a[done:], h.b[done:], set)
		}
		return
	}
	if useAVX2 && len(h.vec) > 0 {
		groups := len(h.vec) / vecConsts
		minhashAVX2(&h.vec[0], groups, set, &out[0])
		done := groups * vecGroup
		if done < len(out) {
			signatureGeneric(out[done:], h.a[done:], h.b[done:], set)
		}
		return
	}
	signatureGeneric(out, h.a, h.b, set)
}

// countEqualAVX2 returns the number of i < 8*blocks with a[i] == b[i].
//
//go:noescape
func countEqualAVX2(a, b *uint32, blocks int) int

// countEqual returns the number of i with a[i] == b[i]; len(b) >= len(a).
// The AVX2 path compares 8 slots per instruction (VPCMPEQD, VMOVMSKPS,
// POPCNT): about 8x faster than the generic loop for 128 slots, which
// matters because every LSH candidate is estimated before it is verified.
func countEqual(a, b []uint32) int {
	n := len(a)
	if !useAVX2 || n < 8 {
		return countEqualGeneric(a, b)
	}
	b = b[:n]
	blocks := n / 8
	c := countEqualAVX2(&a[0], &b[0], blocks)
	if done := blocks * 8; done < n {
		c += countEqualGeneric(a[done:], b[done:])
	}
	return c
}
