//go:build amd64 && !purego

package shingle

import (
	"slices"

	"golang.org/x/sys/cpu"
)

// The intersection kernels: the scalar merge, blocks of four (AVX2) and
// blocks of eight (AVX-512).
const (
	kernelScalar = iota
	kernelAVX2
	kernelAVX512
	kernelVP2
)

// kernels lists the kernels this build and CPU can run, the fastest last.
var kernels = func() []int {
	k := []int{kernelScalar}
	if cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT {
		k = append(k, kernelAVX2)
		if cpu.X86.HasAVX512F {
			k = append(k, kernelAVX512)
			if hasVP2Intersect() && cpu.X86.HasBMI2 && cpu.X86.HasAVX512DQ {
				k = append(k, kernelVP2)
			}
		}
	}
	return k
}()

// kernel selects the intersection kernel. Tests set it to run each one.
var kernel = kernels[len(kernels)-1]

// kernelName names a kernel in test output.
func kernelName(k int) string {
	return [...]string{"scalar", "avx2", "avx512", "vp2intersect"}[k]
}

// intersectBlocksAVX2 counts the common elements of a and b block by block
// (4 elements each) while both have a full block left, and returns the
// count and the positions i, j where it stopped: the blocks at a[i:] and
// b[j:] have not been compared with each other yet. It stops early once
// count+min(len(a)-i, len(b)-j) < need, which bounds the final count from
// above; need <= 0 never stops it.
//
//go:noescape
func intersectBlocksAVX2(a, b []uint64, need int) (count, i, j int)

// intersectBlocksAVX512 is intersectBlocksAVX2 with blocks of eight
// elements: it stops when either side has fewer than eight left.
//
//go:noescape
func intersectBlocksAVX512(a, b []uint64, need int) (count, i, j int)

// intersect2VP2 counts the common elements of a1 and b1 and of a2 and
// b2 (each sorted and duplicate-free, each empty or of at least eight
// elements: the last block of a slice is read as its last eight), the
// two merges run at once, and returns their sum with ok true; or, once
// the sum cannot reach need, the count so far (below need) with ok false.
// need <= 0 never stops it. It needs AVX512_VP2INTERSECT, BMI2 and
// AVX512DQ.
//
//go:noescape
func intersect2VP2(a1, b1, a2, b2 []uint64, need int) (count int, ok bool)

// halvesMin is the least number of elements each side of each half must
// have for intersectVP2 to run two merges.
const halvesMin = 16

// intersectVP2 is intersectFastAtLeast with VP2INTERSECT, where need <= 0
// asks for the whole count. Sets of 32 elements or more are cut in two
// independent merges: a's elements below its middle one, v, with b's below
// v, and the rest with the rest (the two halves of a common element are on
// the same side of v), run at once by intersect2VP2. Each merge's loop is
// bound by the latency of its advance (a load that waits for the advance
// before it), not by its compares, so the two take about the time of one.
// When b's split leaves a half of b shorter than halvesMin (or the sets
// are small), a and b are one merge; sets of fewer than eight elements go
// to the scalar merge.
func intersectVP2(a, b []uint64, need int) (int, bool) {
	if len(a) < 8 || len(b) < 8 {
		return intersectMergeAtLeast(a, b, need)
	}
	if len(a) >= 2*halvesMin && len(b) >= 2*halvesMin {
		ha := len(a) / 2
		// slices.BinarySearch branches, mispredicted about half the time
		// on hash values, yet it beats a branch-free search: the
		// predicted path starts the next levels' loads early, where a
		// branch-free step waits for each (on 4,096 pairs of 200-300
		// element sets out of cache, 16 ns against 43 a search, in a
		// throwaway benchmark on 2026-11-27).
		if hb, _ := slices.BinarySearch(b, a[ha]); hb >= halvesMin && len(b)-hb >= halvesMin {
			c, ok := intersect2VP2(a[:ha], b[:hb], a[ha:], b[hb:], need)
			return c, ok && c >= need
		}
	}
	c, ok := intersect2VP2(a, b, nil, nil, need)
	return c, ok && c >= need
}

// cpuid returns the registers of CPUID leaf and sub-leaf sub.
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// hasVP2Intersect reports whether the CPU has AVX512_VP2INTERSECT (CPUID
// leaf 7 EDX bit 8), which golang.org/x/sys/cpu does not report, and is
// an AMD one: the instruction is fast on this project's AMD EPYC (the two
// merges at once run in about half the time of the AVX-512 kernel),
// while the one Intel family with it (Tiger Lake) is reported to run it
// in microcode, slower than the compares it replaces (not measured here).
// Only asked once AVX-512 is known to be enabled by the OS
// (cpu.X86.HasAVX512F).
func hasVP2Intersect() bool {
	_, b, c, d := cpuid(0, 0)
	amd := b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163 // "AuthenticAMD"
	_, _, _, d7 := cpuid(7, 0)
	return amd && d7&(1<<8) != 0
}

// intersectBlocks runs the selected vector kernel(s) from the start of a
// and b: the AVX-512 kernel, then the AVX2 kernel on what is left while
// both sides have four elements. It returns the count and the positions
// where the scalar tail starts, with intersectBlocksAVX2's contract.
func intersectBlocks(a, b []uint64, need int) (count, i, j int) {
	if kernel == kernelAVX512 && len(a) >= 8 && len(b) >= 8 {
		count, i, j = intersectBlocksAVX512(a, b, need)
		if count+min(len(a)-i, len(b)-j) < need {
			return count, i, j
		}
	}
	if len(a)-i >= 4 && len(b)-j >= 4 {
		c, di, dj := intersectBlocksAVX2(a[i:], b[j:], need-count)
		count, i, j = count+c, i+di, j+dj
	}
	return count, i, j
}

// intersectFast is Intersection's merge: with AVX2, blocks of four are
// compared all-against-all (about 3x faster than the scalar merge, whose
// speed is bound by the load-compare-advance dependency of each step), with
// AVX-512 blocks of eight (half the steps again), the tail going to the
// scalar code; with VP2INTERSECT, intersectVP2 to the end.
func intersectFast(a, b []uint64) int {
	if kernel == kernelScalar || len(a) < 4 || len(b) < 4 {
		return intersectMerge(a, b)
	}
	if kernel == kernelVP2 {
		c, _ := intersectVP2(a, b, 0)
		return c
	}
	c, i, j := intersectBlocks(a, b, 0)
	return c + intersectTail(a[i:], b[j:])
}

// intersectFastAtLeast is intersectFast that gives up, reporting false,
// once fewer than need common elements remain possible. It decides that
// on the kernel's stopping point itself, so the kernel's own early stop
// only chooses where the scalar tail starts, never the verdict.
func intersectFastAtLeast(a, b []uint64, need int) (int, bool) {
	if kernel == kernelScalar || len(a) < 4 || len(b) < 4 {
		return intersectMergeAtLeast(a, b, need)
	}
	if kernel == kernelVP2 {
		return intersectVP2(a, b, need)
	}
	c, i, j := intersectBlocks(a, b, need)
	if c+min(len(a)-i, len(b)-j) < need {
		return c, false
	}
	c += intersectTail(a[i:], b[j:])
	return c, c >= need
}

// intersectTail counts the common elements of what is left of two slices
// after the vector kernel stopped; one of them has fewer than 4 elements.
func intersectTail(a, b []uint64) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) == 0 {
		return 0
	}
	return intersectGallop(a, b)
}
