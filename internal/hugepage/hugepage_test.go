package hugepage

import (
	"testing"
	"unsafe"
)

// TestBlocks: the advised range is exactly the whole Size-aligned blocks
// inside the backing array, up to its capacity, and nothing for arrays
// holding no whole block.
func TestBlocks(t *testing.T) {
	buf := make([]byte, 5*Size)
	base := uintptr(unsafe.Pointer(&buf[0]))
	first := (base + Size - 1) &^ (Size - 1) // first aligned address inside buf
	k := int(first - base)
	for _, c := range []struct {
		name   string
		s      []byte
		lo, hi uintptr
		ok     bool
	}{
		{"aligned, two blocks", buf[k : k+2*Size : k+2*Size], first, first + 2*Size, true},
		{"one byte short of two", buf[k : k+2*Size-1 : k+2*Size-1], first, first + Size, true},
		{"capacity counts", buf[k : k+1 : k+2*Size], first, first + 2*Size, true},
		{"starts one byte in", buf[k+1 : k+3*Size : k+3*Size], first + Size, first + 3*Size, true},
		{"less than a block", buf[k+1 : k+Size+1 : k+Size+1], 0, 0, false},
		{"empty", buf[:0:0], 0, 0, false},
		{"nil", nil, 0, 0, false},
	} {
		lo, hi, ok := blocks(c.s)
		if ok != c.ok || ok && (lo != c.lo || hi != c.hi) {
			t.Errorf("%s: blocks = %#x, %#x, %v; want %#x, %#x, %v", c.name, lo, hi, ok, c.lo, c.hi, c.ok)
		}
	}
	// Element sizes other than 1: the end is cap*size bytes on.
	u := unsafe.Slice((*uint64)(unsafe.Add(unsafe.Pointer(&buf[0]), k)), Size/8*2)
	if lo, hi, ok := blocks(u); !ok || lo != first || hi != first+2*Size {
		t.Errorf("uint64s: blocks = %#x, %#x, %v", lo, hi, ok)
	}
	// Advise and Done change no data.
	for i := range buf {
		buf[i] = byte(i)
	}
	Advise(buf)
	Done(buf)
	for i := range buf {
		if buf[i] != byte(i) {
			t.Fatalf("byte %d changed", i)
		}
	}
}
