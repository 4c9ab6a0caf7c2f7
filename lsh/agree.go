package lsh

import "math/bits"

// agreeRowsGeneric appends to dst the y in [lo, hi) whose packed row
// low[y*words:(y+1)*words] has at least need bytes equal to a's
// (agreeLow), and to masks their byte-equality bits (lowMasks).
func agreeRowsGeneric(dst []int32, masks []uint64, a, low []uint64, words, lo, hi, need int) ([]int32, []uint64) {
	mw := maskWords(words)
	for y := lo; y < hi; y++ {
		row := low[y*words : (y+1)*words]
		if agreeLow(a, row) >= need {
			dst = append(dst, int32(y))
			n := len(masks)
			masks = append(masks, make([]uint64, mw)...)
			lowMasks(masks[n:], a, row)
		}
	}
	return dst, masks
}

// maskWords returns the number of words of byte-equality bits of rows of
// words packed words: one bit a byte.
func maskWords(words int) int { return (words + 7) / 8 }

// lowMasks sets bit k%64 of dst[k/64] where byte k of a and b (len(b) >=
// len(a), packed as packLow packs them, byte k in byte k%8 of word k/8)
// is equal, and clears the others; len(dst) is maskWords(len(a)).
func lowMasks(dst, a, b []uint64) {
	const lo7 = 0x7f7f7f7f7f7f7f7f
	b = b[:len(a)]
	clear(dst)
	for k := range a {
		x := a[k] ^ b[k]
		// High bit of each byte set where the byte of x is zero
		// (agreeLow), then the eight high bits gathered into one byte:
		// bit 8i times bit 7(8-i) of the constant lands on bit 56+i, and
		// no two products share a bit, so nothing carries.
		t := ^((x&lo7 + lo7) | x | lo7) >> 7
		dst[k/8] |= (t * 0x0102040810204080 >> 56) << (8 * (k % 8))
	}
}

// agreeLow returns the number of equal bytes of a and b (len(b) >=
// len(a)): an upper bound of the slots on which the two signatures packLow
// packed agree (padding bytes of a partial last word count as equal).
func agreeLow(a, b []uint64) int {
	const lo7 = 0x7f7f7f7f7f7f7f7f
	b = b[:len(a)]
	n := 0
	for k := range a {
		x := a[k] ^ b[k]
		// High bit of each byte set where the byte of x is zero.
		t := ^((x&lo7 + lo7) | x | lo7)
		n += bits.OnesCount64(t)
	}
	return n
}

// equalRowsGeneric sets out[k] (len(out) == len(rows)) to the equality
// bits of a (at most 64 values) and the first len(a) values of row
// rows[k].id of comp, rows of stride values (row i at comp[i*stride:]):
// bit e set where the two e-th values are equal. It reads no value of a
// row past len(a).
func equalRowsGeneric(out []uint64, a, comp []uint32, stride int, rows []entry) {
	n := len(a)
	for k, e := range rows {
		row := comp[int(e.id)*stride:][:n]
		var m uint64
		for v := range n {
			if a[v] == row[v] {
				m |= 1 << v
			}
		}
		out[k] = m
	}
}
