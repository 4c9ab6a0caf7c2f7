//go:build !amd64 || purego

package shingle

// kernelScalar is the only intersection kernel in this build.
const kernelScalar = 0

// kernels lists the kernels this build can run: only the scalar merge.
var kernels = []int{kernelScalar}

// kernel selects the intersection kernel; tests set it.
var kernel = kernelScalar

// kernelName names a kernel in test output.
func kernelName(int) string { return "scalar" }

// intersectFast is Intersection's merge; this build has only the scalar one.
func intersectFast(a, b []uint64) int { return intersectMerge(a, b) }

// intersectFastAtLeast is intersectMergeAtLeast in this build.
func intersectFastAtLeast(a, b []uint64, need int) (int, bool) {
	return intersectMergeAtLeast(a, b, need)
}
