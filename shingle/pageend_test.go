//go:build linux

package shingle

import (
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
	"unsafe"
)

// TestASCIIPathPageEnd: the ASCII paths read nothing past the end of the
// text. Each text ends on the last byte of a page followed by one that
// cannot be read (a read there faults the test), with every length from
// 1 to 300 and a token or a separator last, and gives the general path's
// hashes with every kernel this CPU has.
func TestASCIIPathPageEnd(t *testing.T) {
	mem := guardedPage(t)
	page := len(mem)
	defer func(a bool, m maskKernel, w bool) { useASCIIPath, useMasks, useWordAsm = a, m, w }(useASCIIPath, useMasks, useWordAsm)
	const words = "Alpha beta2 GAMMA delta epsilonic zeta eta theta-iota kappa lambda mu"
	for n := 1; n <= 300; n++ {
		for _, last := range []byte{'x', ' '} {
			text := mem[page-n : page : page]
			for i := range text {
				text[i] = words[i%len(words)]
			}
			text[n-1] = last
			for ng := 1; ng <= 4; ng++ {
				s := mustNew(t, Options{Mode: Word, N: ng})
				useASCIIPath = false
				general := s.appendWord(nil, text)
				useASCIIPath = true
				for _, m := range maskKernels() {
					for _, w := range []bool{false, haveWordAsm} {
						useMasks, useWordAsm = m, w
						if got := s.appendWord(nil, text); !slices.Equal(got, general) {
							t.Fatalf("n=%d N=%d masks %v asm %v: %x, want %x", n, ng, m, w, got, general)
						}
					}
				}
			}
		}
	}
}

// TestIntersectionPageEdges: the intersection kernels read nothing outside
// the two sets. One set lies at the end of a readable page followed by one
// that cannot be read, or at the start of one after such a page (a read
// there faults the test), with every length up to 80 against sets of
// several lengths sharing some of its elements, and every kernel this
// CPU has gives bruteIntersection's count.
func TestIntersectionPageEdges(t *testing.T) {
	mem := guardedPage(t)
	words := unsafe.Slice((*uint64)(unsafe.Pointer(&mem[0])), len(mem)/8)
	saved := kernel
	defer func() { kernel = saved }()
	rng := rand.New(rand.NewPCG(9, 10))
	for n := 0; n <= 80; n++ {
		for _, atEnd := range []bool{true, false} {
			a := words[:n:n]
			if atEnd {
				a = words[len(words)-n:]
			}
			for i := range a {
				a[i] = uint64(3*i + 1)
			}
			for _, m := range []int{1, 7, 8, 20, 40, 90} {
				b := make([]uint64, 0, m)
				for v := uint64(0); len(b) < m; v++ {
					if rng.IntN(2) == 0 {
						b = append(b, v)
					}
				}
				want := bruteIntersection(a, b)
				for _, k := range kernels {
					kernel = k
					if got := Intersection(a, b); got != want {
						t.Fatalf("%s n=%d (at the end %v) m=%d: %d, want %d", kernelName(k), n, atEnd, m, got, want)
					}
					if got, ok := intersectFastAtLeast(b, a, want); !ok || got != want {
						t.Fatalf("%s n=%d (at the end %v) m=%d, swapped: (%d, %v), want %d", kernelName(k), n, atEnd, m, got, ok, want)
					}
				}
			}
		}
	}
}

// guardedPage returns a readable, writable page between two that cannot
// be read, so that a read just before or just after it faults the test;
// it is unmapped when the test ends. The test is skipped if the system
// refuses the mapping.
func guardedPage(t *testing.T) []byte {
	t.Helper()
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 3*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Skip("mmap:", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	for _, guard := range [][]byte{mem[:page], mem[2*page:]} {
		if err := syscall.Mprotect(guard, syscall.PROT_NONE); err != nil {
			t.Skip("mprotect:", err)
		}
	}
	return mem[page : 2*page : 2*page]
}
