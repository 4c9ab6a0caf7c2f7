//go:build amd64 && !purego

package shingle

import "golang.org/x/sys/cpu"

// The intersection kernels: the scalar merge, blocks of four (AVX2) and
// blocks of eight (AVX-512).
const (
	kernelScalar = iota
	kernelAVX2
	kernelAVX512
)

// kernels lists the kernels this build and CPU can run, the fastest last.
var kernels = func() []int {
	k := []int{kernelScalar}
	if cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT {
		k = append(k, kernelAVX2)
		if cpu.X86.HasAVX512F {
			k = append(k, kernelAVX512)
		}
	}
	return k
}()

// kernel selects the intersection kernel. Tests set it to run each one.
var kernel = kernels[len(kernels)-1]

// kernelName names a kernel in test output.
func kernelName(k int) string {
	return [...]string{"scalar", "avx2", "avx512"}[k]
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
// AVX-512 blocks of eight (half the steps again); the tail goes to the
// scalar code.
func intersectFast(a, b []uint64) int {
	if kernel == kernelScalar || len(a) < 4 || len(b) < 4 {
		return intersectMerge(a, b)
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
	c, i, j := intersectBlocks(a, b, need)
	if c+min(len(a)-i, len(b)-j) < need {
		return c, false
	}
	c += intersectTail(a[i:], b[j:])
	return c, c >= need
}
