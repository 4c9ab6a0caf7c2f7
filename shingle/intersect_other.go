//go:build !amd64 || purego

package shingle

// useAVX2 is always false in this build: there is no vector kernel.
var useAVX2 = false

// haveAVX2 reports whether this build and CPU can run the AVX2 kernel.
const haveAVX2 = false

// intersectFast is Intersection's merge; this build has only the scalar one.
func intersectFast(a, b []uint64) int { return intersectMerge(a, b) }

// intersectFastAtLeast is intersectMergeAtLeast in this build.
func intersectFastAtLeast(a, b []uint64, need int) (int, bool) {
	return intersectMergeAtLeast(a, b, need)
}
