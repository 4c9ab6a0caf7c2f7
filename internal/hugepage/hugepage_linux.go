package hugepage

import (
	"bytes"
	"os"
	"sync"
	"syscall"
)

// chosen reports whether the system leaves huge pages to the program
// (transparent_hugepage/enabled is "madvise"): under "always" every
// large enough range gets them anyway, and Done's MADV_NOHUGEPAGE would
// take them away; under "never" the advice does nothing.
var chosen = sync.OnceValue(func() bool {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && bytes.Contains(mode, []byte("[madvise]"))
})

// advise calls madvise on [lo, hi): MADV_HUGEPAGE if on, MADV_NOHUGEPAGE
// if not, when the system leaves the choice to the program. Errors (a
// kernel without transparent huge pages) are ignored.
func advise(lo, hi uintptr, on bool) {
	if !chosen() {
		return
	}
	advice := syscall.MADV_NOHUGEPAGE
	if on {
		advice = syscall.MADV_HUGEPAGE
	}
	syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, uintptr(advice))
}
