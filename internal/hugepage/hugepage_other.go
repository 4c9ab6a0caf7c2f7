//go:build !linux

package hugepage

// advise does nothing: huge page advice is Linux's.
func advise(lo, hi uintptr, on bool) {}

// chosen reports false: huge page advice is Linux's.
func chosen() bool { return false }
