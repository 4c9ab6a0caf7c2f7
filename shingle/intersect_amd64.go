//go:build amd64 && !purego

package shingle

import "golang.org/x/sys/cpu"

// useAVX2 selects the AVX2 intersection kernel. Tests flip it to run both
// kernels.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT

// haveAVX2 reports whether this build and CPU can run the AVX2 kernel.
var haveAVX2 = useAVX2

// intersectBlocksAVX2 counts the common elements of a and b block by block
// (4 elements each) while both have a full block left, and returns the
// count and the positions i, j where it stopped: the blocks at a[i:] and
// b[j:] have not been compared with each other yet. It stops early once
// count+min(len(a)-i, len(b)-j) < need, which bounds the final count from
// above; need <= 0 never stops it.
//
//go:noescape
func intersectBlocksAVX2(a, b []uint64, need int) (count, i, j int)

// intersectFast is Intersection's merge: with AVX2, blocks of four are
// compared all-against-all (about 3x faster than the scalar merge, whose
// speed is bound by the load-compare-advance dependency of each step); the
// tail goes to the scalar code.
func intersectFast(a, b []uint64) int {
	if !useAVX2 || len(a) < 4 || len(b) < 4 {
		return intersectMerge(a, b)
	}
	c, i, j := intersectBlocksAVX2(a, b, 0)
	return c + intersectTail(a[i:], b[j:])
}

// intersectFastAtLeast is intersectFast that gives up, reporting false,
// once fewer than need common elements remain possible. It decides that
// on the kernel's stopping point itself, so the kernel's own early stop
// only chooses where the scalar tail starts, never the verdict.
func intersectFastAtLeast(a, b []uint64, need int) (int, bool) {
	if !useAVX2 || len(a) < 4 || len(b) < 4 {
		return intersectMergeAtLeast(a, b, need)
	}
	c, i, j := intersectBlocksAVX2(a, b, need)
	if c+min(len(a)-i, len(b)-j) < need {
		return c, false
	}
	c += intersectTail(a[i:], b[j:])
	return c, c >= need
}
