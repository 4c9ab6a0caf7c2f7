package prefetch

import (
	"slices"
	"testing"
)

// TestUint64s: a prefetch changes nothing, whatever the length (empty,
// one element, not a whole line, more than maxLines lines), and does not
// allocate.
func TestUint64s(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 255, 256, 257, 10000} {
		s := make([]uint64, n)
		for i := range s {
			s[i] = uint64(i * i)
		}
		want := slices.Clone(s)
		Uint64s(s)
		Uint64s(s[n/2:])
		if !slices.Equal(s, want) {
			t.Fatalf("n=%d: the slice changed", n)
		}
		if a := testing.AllocsPerRun(10, func() { Uint64s(s) }); a != 0 {
			t.Fatalf("n=%d: %v allocations", n, a)
		}
		s32 := make([]uint32, n)
		for i := range s32 {
			s32[i] = uint32(i * 7)
		}
		want32 := slices.Clone(s32)
		Uint32s(s32)
		Uint32s(s32[n/3:])
		if !slices.Equal(s32, want32) {
			t.Fatalf("n=%d: the uint32 slice changed", n)
		}
	}
	Uint64s(nil)
	Uint32s(nil)
	h := [][]uint64{{1, 2}}
	Line(&h[0])
	if len(h[0]) != 2 || h[0][1] != 2 {
		t.Fatal("Line changed what it prefetched")
	}
}
