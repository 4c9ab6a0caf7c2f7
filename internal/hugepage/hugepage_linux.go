package hugepage

import "syscall"

// advise calls madvise on [lo, hi): MADV_HUGEPAGE if on, MADV_NOHUGEPAGE
// if not. Errors (a kernel without transparent huge pages) are ignored.
func advise(lo, hi uintptr, on bool) {
	advice := syscall.MADV_NOHUGEPAGE
	if on {
		advice = syscall.MADV_HUGEPAGE
	}
	syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, uintptr(advice))
}
