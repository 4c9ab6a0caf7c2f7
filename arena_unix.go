//go:build (linux || darwin || freebsd || netbsd || openbsd) && (amd64 || arm64 || riscv64 || ppc64le || s390x || loong64)

package neardup

import (
	"runtime"
	"syscall"
	"unsafe"

	"github.com/neardup/neardup/internal/hugepage"
)

// arenaBytes is the address space a sigArena reserves: 1 TiB, of which
// only what is written takes memory.
const arenaBytes = 1 << 40

// newSigArena reserves address space for the signatures of up to
// arenaBytes/(4*slots) documents, or returns nil if the system refuses
// (the caller then allocates per chunk). The mapping is released when the
// arena becomes unreachable.
func newSigArena(slots int) *sigArena {
	mem, err := syscall.Mmap(-1, 0, arenaBytes, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|mapNoReserve)
	if err != nil {
		return nil
	}
	// Written whole from the start (signatures, bitmaps, then the sets
	// of a second pass): 2 MiB pages take a fault each instead of 512.
	hugepage.Advise(mem)
	a := &sigArena{u32: unsafe.Slice((*uint32)(unsafe.Pointer(&mem[0])), len(mem)/4), slots: slots, held: new(arenaHeld)}
	runtime.AddCleanup(a, func(c arenaCleanup) {
		syscall.Munmap(c.mem)
		c.held.drop()
	}, arenaCleanup{mem, a.held})
	return a
}

// arenaCleanup is what an unreachable arena's cleanup needs.
type arenaCleanup struct {
	mem  []byte
	held *arenaHeld
}

// release returns the memory of the arena's values [from, to) to the
// system (the whole pages among them); they read as zero afterwards.
func (a *sigArena) release(from, to int) {
	const page = arenaPage
	lo := (uintptr(from)*4 + page - 1) &^ (page - 1)
	hi := uintptr(to) * 4 &^ (page - 1)
	if lo >= hi {
		return
	}
	base := uintptr(unsafe.Pointer(&a.u32[0]))
	syscall.Syscall(syscall.SYS_MADVISE, base+lo, hi-lo, syscall.MADV_DONTNEED)
	a.held.add(-int64(hi - lo))
}
