package shingle

import "math/bits"

// BitmapBits is the size of a Bitmap in bits.
const BitmapBits = 1024

// A Bitmap is a 1024-bit summary of a shingle set: the bit numbered by the
// top 10 bits of each element is set. Two sets' bitmaps bound their
// intersection from above (MaxIntersection), so a pair whose bound is
// below what the threshold needs is rejected exactly, in a few
// nanoseconds, without reading the sets. It is 128 bytes, two cache lines.
//
// A Bitmap is a value; the zero Bitmap is the empty set's.
type Bitmap [BitmapBits / 64]uint64

// Add sets the bits of the elements of set in b (any order, duplicates
// allowed). It does not allocate. It is fastest on a sorted set, whose
// elements fill the words in order: each word is then built in a register
// and read only when the next element moves to another.
func (b *Bitmap) Add(set []uint64) {
	prev, acc := uint64(0), b[0]
	for _, x := range set {
		k := x >> 54
		w := k / 64
		if w != prev {
			acc = b[w]
		}
		acc |= 1 << (k % 64)
		b[w] = acc
		prev = w
	}
}

// MaxIntersection returns an upper bound of |A ∩ B| for distinct sets A and
// B of sizes na and nb whose bitmaps are a and b: every bit set in one
// bitmap but not the other has an element of one set that is not in the
// other behind it, so |A Δ B| >= popcount(a XOR b) and
// |A ∩ B| = (na + nb - |A Δ B|) / 2 <= (na + nb - popcount(a XOR b)) / 2,
// and it returns that or min(na, nb), whichever is smaller. Elements of
// the symmetric difference that share a bit with another element make the
// bound loose, never wrong. It does not allocate.
func MaxIntersection(a, b *Bitmap, na, nb int) int {
	return min((na+nb-xorCount(a, b))/2, na, nb)
}

// MaxIntersections sets out[i] to MaxIntersection(a, &bms[y], na,
// int(sizes[y])) for y = ys[i], for every i < len(ys): the bounds of one
// set against many in one call, the differing bits counted by an
// assembly loop over the bitmaps, with the bitmaps ahead prefetched
// (AVX-512 where the CPU has VPOPCNTDQ, else POPCNT a word at a time), a
// call per pair in the portable build. It panics if out is
// shorter than ys or a ys[i] is out of range of bms or sizes. It does not
// allocate.
func MaxIntersections(out []int32, a *Bitmap, na int, bms []Bitmap, sizes []int32, ys []int32) {
	out = out[:len(ys)]
	if len(ys) == 0 {
		return
	}
	if useXorCountAVX512 || useMaxPOPCNT {
		limit := min(len(bms), len(sizes))
		kernel := maxIntersectionsPOPCNT
		if useXorCountAVX512 {
			kernel = maxIntersectionsAVX512
		}
		if limit == 0 || kernel(a, &bms[0], &sizes[0], &ys[0], len(ys), na, limit, &out[0]) < len(ys) {
			panic("shingle: MaxIntersections: index out of range")
		}
		return
	}
	for i, y := range ys {
		out[i] = int32(MaxIntersection(a, &bms[y], na, int(sizes[y])))
	}
}

// xorCount returns popcount(a XOR b): with AVX-512 VPOPCNTDQ where the
// CPU has it (the 1,024 bits in two vectors), else a word at a time.
func xorCount(a, b *Bitmap) int {
	if useXorCountAVX512 {
		return xorCountAVX512(a, b)
	}
	d := 0
	for k := range a {
		d += bits.OnesCount64(a[k] ^ b[k])
	}
	return d
}
