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
	Uint32sEvery(nil, 4, 4)
	h := [][]uint64{{1, 2}}
	Line(&h[0])
	if len(h[0]) != 2 || h[0][1] != 2 {
		t.Fatal("Line changed what it prefetched")
	}
}

// TestUint32sEvery: a strided prefetch changes nothing and stays within
// the slice, whatever the stride and count (a page of guard after the
// slice would show a read past it only as a fault, which a prefetch never
// raises, so this checks the count's bound through its arithmetic), and
// does not allocate.
func TestUint32sEvery(t *testing.T) {
	for _, n := range []int{1, 2, 15, 16, 17, 1000, 4096} {
		s := make([]uint32, n)
		for i := range s {
			s[i] = uint32(i * 3)
		}
		want := slices.Clone(s)
		for _, stride := range []int{-1, 0, 1, 3, 16, 128, 5000} {
			for _, k := range []int{-1, 0, 1, 8, 100} {
				Uint32sEvery(s, stride, k)
				Uint32sEvery(s[n/2:], stride, k)
			}
		}
		if !slices.Equal(s, want) {
			t.Fatalf("n=%d: the slice changed", n)
		}
		if a := testing.AllocsPerRun(10, func() { Uint32sEvery(s, 128, 8) }); a != 0 {
			t.Fatalf("n=%d: %v allocations", n, a)
		}
	}
}
