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

// TestGrow: Grow keeps the elements, makes room for n more, at least
// doubles the capacity when it allocates, and does not allocate when
// there is room.
func TestGrow(t *testing.T) {
	var s []int
	for i := range 100_000 {
		if len(s) == cap(s) {
			old := cap(s)
			s = Grow(s, 1)
			if cap(s) < max(2*old, 1) {
				t.Fatalf("at %d: capacity %d after %d, want at least double", i, cap(s), old)
			}
		}
		s = append(s, i)
	}
	for i, v := range s {
		if v != i {
			t.Fatalf("s[%d] = %d after growing", i, v)
		}
	}
	n, room, p := len(s), cap(s)-len(s), unsafe.SliceData(s)
	if s = Grow(s, room); cap(s)-len(s) != room || unsafe.SliceData(s) != p {
		t.Errorf("Grow with room allocated: room %d -> %d", room, cap(s)-len(s))
	}
	s = Grow(s, room+1)
	if cap(s)-len(s) < room+1 || len(s) != n || s[n-1] != n-1 {
		t.Errorf("Grow(s, %d): len %d, cap %d, last %d", room+1, len(s), cap(s), s[len(s)-1])
	}
}

// TestMake: Make gives n zero elements, and where the system leaves huge
// pages to the program an array of at least 4 Size bytes starts on a
// Size boundary (for elements whose size divides Size).
func TestMake(t *testing.T) {
	for _, n := range []int{0, 1, 1000, 4 * Size / 8, 4*Size/8 + 3, 9 * Size / 8} {
		s := Make[uint64](n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("Make(%d): len %d cap %d", n, len(s), cap(s))
		}
		for i, v := range s {
			if v != 0 {
				t.Fatalf("Make(%d)[%d] = %d", n, i, v)
			}
		}
		if n > 0 && n*8 >= 4*Size && chosen() {
			if p := uintptr(unsafe.Pointer(&s[0])); p%Size != 0 {
				t.Errorf("Make(%d) starts at %#x, not on a %d boundary", n, p, Size)
			}
		}
	}
	type odd [3]uint64 // 24 bytes
	s := Make[odd](Size)
	if len(s) != Size || cap(s) != Size {
		t.Fatalf("Make[odd]: len %d cap %d", len(s), cap(s))
	}
	if p := uintptr(unsafe.Pointer(&s[0])); chosen() && p%Size >= 24 {
		t.Errorf("Make[odd] starts at %#x, %d bytes past a boundary", p, p%Size)
	}
}
