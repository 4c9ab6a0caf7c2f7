package neardup

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestArenaHugePages: an arena's mapping asks for transparent huge pages
// (VmFlags "hg" in /proc/self/smaps) where the system leaves that to the
// program (transparent_hugepage/enabled "madvise").
func TestArenaHugePages(t *testing.T) {
	if mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || !bytes.Contains(mode, []byte("[madvise]")) {
		t.Skip("transparent huge pages not left to the program here")
	}
	a := newSigArena(32)
	if a == nil {
		t.Skip("no arena on this system")
	}
	a.chunk(0, 1)[:1][0] = 1
	defer a.release(0, arenaPage/4) // the arena's bytes off the memory limit's count again
	addr := uint64(uintptr(unsafe.Pointer(&a.u32[0])))
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := vmaRange(line); ok {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			if !strings.Contains(line, " hg") {
				t.Fatalf("arena mapping without huge pages: %s", line)
			}
			return
		}
	}
	t.Fatalf("arena mapping at %#x not found in /proc/self/smaps (%v)", addr, sc.Err())
}

// vmaRange parses the range of an smaps header line ("lo-hi perms ...").
func vmaRange(line string) (lo, hi uint64, ok bool) {
	r, _, found := strings.Cut(line, " ")
	if !found {
		return 0, 0, false
	}
	l, h, found := strings.Cut(r, "-")
	if !found {
		return 0, 0, false
	}
	lo, err1 := strconv.ParseUint(l, 16, 64)
	hi, err2 := strconv.ParseUint(h, 16, 64)
	return lo, hi, err1 == nil && err2 == nil
}
