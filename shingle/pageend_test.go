//go:build linux

package shingle

import (
	"slices"
	"syscall"
	"testing"
)

// TestASCIIPathPageEnd: the ASCII paths read nothing past the end of the
// text. Each text ends on the last byte of a page followed by one that
// cannot be read (a read there faults the test), with every length from
// 1 to 300 and a token or a separator last, and gives the general path's
// hashes with every kernel this CPU has.
func TestASCIIPathPageEnd(t *testing.T) {
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	defer func(a, m, w bool) { useASCIIPath, useMasksAVX512, useWordAsm = a, m, w }(useASCIIPath, useMasksAVX512, useWordAsm)
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
				for _, k := range [][2]bool{{false, false}, {haveMasksAVX512, haveWordAsm}} {
					useMasksAVX512, useWordAsm = k[0], k[1]
					if got := s.appendWord(nil, text); !slices.Equal(got, general) {
						t.Fatalf("n=%d N=%d kernels %v: %x, want %x", n, ng, k, got, general)
					}
				}
			}
		}
	}
}
