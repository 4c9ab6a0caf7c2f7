//go:build !linux

package hugepage

// advise does nothing: huge page advice is Linux's.
func advise(lo, hi uintptr, on bool) {}
