package shingle

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// bitmapPair returns two sets with about `common` shared elements and
// sizes na, nb (random 64-bit values: the bits are the top 10).
func bitmapPair(r *rand.Rand, na, nb, common int) (a, b []uint64) {
	seen := map[uint64]bool{}
	fresh := func() uint64 {
		for {
			x := r.Uint64()
			if !seen[x] {
				seen[x] = true
				return x
			}
		}
	}
	common = min(common, na, nb)
	for range common {
		x := fresh()
		a, b = append(a, x), append(b, x)
	}
	for len(a) < na {
		a = append(a, fresh())
	}
	for len(b) < nb {
		b = append(b, fresh())
	}
	return a, b
}

// TestMaxIntersectionBound checks that the bound is never below the exact
// intersection (a bound below it would reject true pairs), on sets from
// empty to larger than the bitmap, with every overlap.
func TestMaxIntersectionBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tight := 0
	for range 20000 {
		na, nb := r.IntN(1500), r.IntN(1500)
		if r.IntN(4) == 0 {
			na, nb = r.IntN(40), r.IntN(40)
		}
		a, b := bitmapPair(r, na, nb, r.IntN(min(na, nb)+1))
		var ba, bb Bitmap
		ba.Add(a)
		bb.Add(b)
		exact := bruteIntersection(a, b)
		got := MaxIntersection(&ba, &bb, na, nb)
		if got < exact {
			t.Fatalf("MaxIntersection = %d < |A ∩ B| = %d (sizes %d, %d)", got, exact, na, nb)
		}
		if got > min(na, nb) {
			t.Fatalf("MaxIntersection = %d > min size (sizes %d, %d)", got, na, nb)
		}
		if got == exact {
			tight++
		}
	}
	if tight == 0 {
		t.Fatal("the bound was never exact")
	}
}

// TestMaxIntersectionExact gives sets whose elements all have distinct top
// 10 bits: the bitmaps are then the sets themselves and the bound is the
// intersection. A bound computed from the wrong bits, or halved wrongly,
// differs here.
func TestMaxIntersectionExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		perm := r.Perm(BitmapBits)
		elem := func(k int) uint64 { return uint64(perm[k])<<54 | r.Uint64()>>10 }
		na, nb := r.IntN(300), r.IntN(300)
		common := r.IntN(min(na, nb) + 1)
		var a, b []uint64
		k := 0
		for range common {
			x := elem(k)
			k++
			a, b = append(a, x), append(b, x)
		}
		for len(a) < na {
			a = append(a, elem(k))
			k++
		}
		for len(b) < nb {
			b = append(b, elem(k))
			k++
		}
		var ba, bb Bitmap
		ba.Add(a)
		bb.Add(b)
		if got := MaxIntersection(&ba, &bb, na, nb); got != common {
			t.Fatalf("MaxIntersection = %d, want %d (sizes %d, %d)", got, common, na, nb)
		}
	}
}

// TestMaxIntersectionRejects checks that the bound is useful where it is
// used: pairs of 150-element sets sharing a third of their elements
// (Jaccard 0.2) are rejected at t = 0.5 nearly always.
func TestMaxIntersectionRejects(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	rejected := 0
	const n = 1000
	for range n {
		a, b := bitmapPair(r, 150, 150, 50)
		var ba, bb Bitmap
		ba.Add(a)
		bb.Add(b)
		if MaxIntersection(&ba, &bb, 150, 150) < MinOverlap(150, 150, 0.5) {
			rejected++
		}
	}
	if rejected < n*99/100 {
		t.Fatalf("rejected %d of %d pairs at Jaccard 0.2, want at least 99%%", rejected, n)
	}
}

func BenchmarkMaxIntersection(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	x, y := bitmapPair(r, 250, 250, 100)
	var bx, by Bitmap
	bx.Add(x)
	by.Add(y)
	s := 0
	for b.Loop() {
		s += MaxIntersection(&bx, &by, 250, 250)
	}
	_ = s
}

func ExampleMaxIntersection() {
	a := []uint64{1 << 54, 2 << 54, 3 << 54, 4 << 54}
	b := []uint64{3 << 54, 4 << 54, 5 << 54, 6 << 54}
	var ba, bb Bitmap
	ba.Add(a)
	bb.Add(b)
	// The bound is exact here (no two elements share a bit): 2 in common.
	fmt.Println(MaxIntersection(&ba, &bb, len(a), len(b)))
	// Output: 2
}

// BenchmarkBitmapAdd: a sorted set (one pass's), and the same elements
// in random order (two passes' first pass, which does not sort).
func BenchmarkBitmapAdd(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	set := randSetIn(r, 250, ^uint64(0))
	mixed := slices.Clone(set)
	r.Shuffle(len(mixed), func(i, j int) { mixed[i], mixed[j] = mixed[j], mixed[i] })
	for _, c := range []struct {
		name string
		set  []uint64
	}{{"sorted", set}, {"unsorted", mixed}} {
		b.Run(c.name, func(b *testing.B) {
			var bm Bitmap
			for b.Loop() {
				bm = Bitmap{}
				bm.Add(c.set)
			}
			_ = bm
		})
	}
}

// TestBitmapAddOrder checks that Add gives the same bitmap in any order and
// in pieces: the bit of every element set, no other.
func TestBitmapAddOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 500 {
		set := randSetIn(r, r.IntN(2000), ^uint64(0)>>uint(r.IntN(20)))
		var want Bitmap
		for _, x := range set {
			want[x>>54/64] |= 1 << (x >> 54 % 64)
		}
		var sorted, shuffled, pieces Bitmap
		sorted.Add(set)
		mixed := slices.Clone(set)
		r.Shuffle(len(mixed), func(i, j int) { mixed[i], mixed[j] = mixed[j], mixed[i] })
		shuffled.Add(mixed)
		cut := r.IntN(len(set) + 1)
		pieces.Add(set[cut:])
		pieces.Add(set[:cut])
		if sorted != want || shuffled != want || pieces != want {
			t.Fatalf("Add: sorted %v, shuffled %v, in pieces %v; want %v", sorted == want, shuffled == want, pieces == want, want)
		}
	}
}

// TestXorCount: the AVX-512 count of differing bits, where the CPU has
// it, equals the word-at-a-time count, on random bitmaps of every density
// and on bitmaps that differ in one bit anywhere.
func TestXorCount(t *testing.T) {
	if !haveXorCountAVX512 {
		t.Skip("no AVX-512 VPOPCNTDQ: only the portable count runs")
	}
	defer func(saved bool) { useXorCountAVX512 = saved }(useXorCountAVX512)
	r := rand.New(rand.NewPCG(3, 4))
	count := func(a, b *Bitmap, vec bool) int {
		useXorCountAVX512 = vec
		return xorCount(a, b)
	}
	var a, b Bitmap
	for i := range 2000 {
		keep := r.Uint64() // density: each word is masked by a random mask
		for k := range a {
			a[k] = r.Uint64() & keep
			b[k] = r.Uint64() & keep
		}
		if i%2 == 0 {
			b = a
			bit := r.IntN(BitmapBits)
			b[bit/64] ^= 1 << (bit % 64)
		}
		if got, want := count(&a, &b, true), count(&a, &b, false); got != want {
			t.Fatalf("bitmaps %x, %x: %d differing bits, want %d", a, b, got, want)
		}
	}
}

// TestMaxIntersections: the bounds of one bitmap against many equal
// MaxIntersection's, pair by pair, with each loop the CPU has (AVX-512,
// POPCNT) and a call per pair, for rows of every length up to 40 (the kernel
// prefetches 8 ahead) over bitmaps of every density, sizes from 0.
func TestMaxIntersections(t *testing.T) {
	defer func(v, p bool) { useXorCountAVX512, useMaxPOPCNT = v, p }(useXorCountAVX512, useMaxPOPCNT)
	r := rand.New(rand.NewPCG(5, 6))
	const n = 64
	bms := make([]Bitmap, n)
	sizes := make([]int32, n)
	for y := range bms {
		keep := r.Uint64()
		for k := range bms[y] {
			bms[y][k] = r.Uint64() & keep
		}
		sizes[y] = int32(r.IntN(2000))
	}
	type kernel struct{ vec, popcnt bool }
	for _, vec := range []kernel{{false, false}, {false, true}, {true, false}} {
		if vec.vec && !haveXorCountAVX512 || vec.popcnt && !haveMaxPOPCNT {
			t.Logf("kernel %+v: not on this CPU", vec)
			continue
		}
		useXorCountAVX512, useMaxPOPCNT = vec.vec, vec.popcnt
		for l := range 41 {
			for range 20 {
				a := &bms[r.IntN(n)]
				na := r.IntN(2000)
				ys := make([]int32, l)
				for i := range ys {
					ys[i] = int32(r.IntN(n))
				}
				out := make([]int32, l+1)
				out[l] = -7
				MaxIntersections(out, a, na, bms, sizes, ys)
				for i, y := range ys {
					if want := MaxIntersection(a, &bms[y], na, int(sizes[y])); int(out[i]) != want {
						t.Fatalf("kernel %v, row of %d, pair %d: bound %d, want %d", vec, l, i, out[i], want)
					}
				}
				if out[l] != -7 {
					t.Fatalf("kernel %v: wrote past the row", vec)
				}
			}
		}
		for _, bad := range []struct {
			ys    []int32
			sizes []int32
		}{{[]int32{3, n}, sizes}, {[]int32{-1}, sizes}, {[]int32{5}, sizes[:5]}, {[]int32{0}, nil}} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("kernel %v: ys %v with %d sizes did not panic", vec, bad.ys, len(bad.sizes))
					}
				}()
				MaxIntersections(make([]int32, 2), &bms[0], 5, bms, bad.sizes, bad.ys)
			}()
		}
	}
}

// BenchmarkMaxIntersections: one set's bounds against 64 others a call,
// the others' bitmaps spread over 128 MB (a 1M-document run's), their
// indexes ascending with gaps as a verifier's rows are: the loads come
// from memory, not from the cache. ns/op is per bound.
func BenchmarkMaxIntersections(b *testing.B) {
	const docs, row = 1 << 20, 64
	r := rand.New(rand.NewPCG(13, 14))
	bms := make([]Bitmap, docs)
	sizes := make([]int32, docs)
	for i := range bms {
		for k := range bms[i] {
			bms[i][k] = r.Uint64() & r.Uint64()
		}
		sizes[i] = 200 + r.Int32N(100)
	}
	rows := make([][]int32, 1024)
	for k := range rows {
		ys := make([]int32, row)
		for j := range ys {
			ys[j] = r.Int32N(docs)
		}
		slices.Sort(ys)
		rows[k] = ys
	}
	out := make([]int32, row)
	b.ResetTimer()
	k := 0
	for i := 0; i < b.N; i += row {
		x := rows[k%len(rows)][0]
		MaxIntersections(out, &bms[x], int(sizes[x]), bms, sizes, rows[k%len(rows)])
		k++
	}
}
