package lsh

import (
	"math/bits"
	"slices"
)

// The rules below are what makes a candidate search reproducible outside one
// process: Candidates.Run applies them to a batch in memory, and an online
// index or a distributed pipeline applies the same functions to buckets it
// holds elsewhere, so all of them report the same pairs.

// AppendBandKeys appends the p.Bands band keys of sig to dst (key j is
// p.BandKey(sig, j)) and returns the extended slice. It allocates nothing
// when dst has room for p.Bands more values, and panics, like BandKey, if
// sig is shorter than p.Bands*p.Rows.
func (p Params) AppendBandKeys(dst []uint64, sig []uint32) []uint64 {
	r := p.Rows
	_ = sig[p.Bands*r-1] // one bounds check for every band
	for band := range p.Bands {
		dst = append(dst, bandKey(sig[band*r:(band+1)*r], band))
	}
	return dst
}

// HomeBand returns the home band of the signatures a and b: the first band
// (0-based) on which all Rows slots of the two agree, or -1 when no band
// agrees. Candidates.Run reports a pair in its home band only, so a pair
// that shares many buckets is reported once without a set of seen pairs;
// callers holding buckets elsewhere (an index, a GroupByKey) keep a pair
// found in band j when HomeBand is j.
//
// Only the first Bands*Rows values of a and b are read; a slice shorter than
// that is compared as far as it goes. HomeBand does not allocate.
func (p Params) HomeBand(a, b []uint32) int {
	_, home := p.bands(a, b, nil)
	return home
}

// ReportBand returns the band in which Candidates.Run reports the pair of
// signatures a and b when some of their buckets are chained (see
// BucketPairs): the first band on which the two agree and whose bucket is
// not chained, or, when every bucket they share is chained, their home band
// (HomeBand); -1 when no band agrees. large is the chained-bucket bitset of
// either document (bit band%64 of large[band/64] set when the document's
// bucket in that band has more than MaxBucket members; on a band where two
// documents agree they share the bucket, so the bit is the same for both);
// a nil or short large means no chained bucket, and ReportBand is HomeBand.
//
// So every pair that shares a bucket of at most MaxBucket members in some
// band is reported, once, in the first such band, and a pair that shares only
// chained buckets is reported in its home band if it is a neighbour in that
// bucket's chain or (Candidates.MinAgree) its signatures agree on MinAgree
// slots. A caller holding buckets elsewhere keeps a pair found in band j,
// among the pairs BucketPairs and AgreeingPairs give for its bucket, when
// ReportBand is j. ReportBand does not allocate.
func (p Params) ReportBand(a, b []uint32, large []uint64) int {
	small, home := p.bands(a, b, large)
	if small >= 0 {
		return small
	}
	return home
}

// bands returns the first band on which a and b agree whose bit in large is
// clear (small) and the first band on which they agree (home), -1 for none;
// it stops at small. It reads the first Bands*Rows values, or as far as
// both slices go, and does not allocate.
func (p Params) bands(a, b []uint32, large []uint64) (small, home int) {
	r := p.Rows
	if p.Bands < 1 || r < 1 {
		return -1, -1
	}
	n := min(len(a), len(b), p.Bands*r)
	a, b = a[:n], b[:n]
	home = -1
	for k, band := 0, 0; k+r <= n; k, band = k+r, band+1 {
		// The rows' differences or-ed together, one branch a band: a
		// branch a row (stopping at the first difference) was
		// mispredicted most of the time, near-duplicates agreeing on a
		// row about as often as not (BenchmarkRunNear -9%).
		x, y := a[k:k+r:k+r], b[k:k+r:k+r]
		d := uint32(0)
		for i := range x {
			d |= x[i] ^ y[i]
		}
		if d != 0 {
			continue
		}
		if home < 0 {
			home = band
		}
		if band/64 >= len(large) || large[band/64]&(1<<(band%64)) == 0 {
			return band, home
		}
	}
	return -1, home
}

// Chained reports whether a bucket of m members exceeds maxBucket and is
// therefore joined as a chain rather than all pairs (see BucketPairs).
// maxBucket <= 0 means no limit.
func Chained(m, maxBucket int) bool { return maxBucket > 0 && m > maxBucket }

// BucketPairs calls fn(x, y), x < y, for the pairs a bucket of m members
// contributes, the members being numbered 0..m-1 in ascending document
// order (ascending id or sequence number): every pair when the bucket has at
// most maxBucket members (or maxBucket <= 0), otherwise the chain (0,1),
// (1,2), ..., (m-2,m-1). It stops early when fn returns false.
//
// The chain keeps the work linear in a bucket of thousands of near-identical
// documents and still connects all of them, so connected components are the
// same as with every pair (see Candidates.Run); AgreeingPairs adds the
// other pairs of a chained bucket whose signatures agree enough. An online
// index that appends documents in ascending order applies the chain rule to
// a new member as BucketPartners does.
func BucketPairs(m, maxBucket int, fn func(x, y int) bool) {
	if Chained(m, maxBucket) {
		for k := 0; k+1 < m; k++ {
			if !fn(k, k+1) {
				return
			}
		}
		return
	}
	for x := 0; x+1 < m; x++ {
		for y := x + 1; y < m; y++ {
			if !fn(x, y) {
				return
			}
		}
	}
}

// keepRow is a caller's test of the pairs of a chained bucket's member
// x with the members ys (ascending, all after x), asked before the pairs'
// report bands and full comparisons, which it spares the pairs it
// rejects: it sets every ok[i] (len(ok) == len(ys)) to whether pair (x,
// ys[i]) goes on. It must answer from each pair alone and must not
// modify ys. Asked about a member's pairs together, it can start loading
// what it reads about the later ones while it tests the first (see
// deferred.PairsWhere).
type keepRow func(x int, ys []int32, ok []bool)

// AgreeingPairs calls fn(x, y), x+1 < y, for the pairs a chained bucket
// (Chained) of m members contributes besides its chain when
// Candidates.MinAgree is minAgree > 0: the pairs whose signatures agree on
// at least minAgree values. The members are numbered as in BucketPairs,
// and sig(x) is member x's whole signature (all of the same length). As
// for the chain's pairs, a caller keeps such a pair found in band j when
// Params.ReportBand is j. It stops early when fn returns false.
//
// It compares compact copies of the signatures (the low byte of each value,
// eight to a word, then the full values of the pairs that pass): m(m-1)/2
// comparisons of a few nanoseconds, in 8*ceil(len/8) bytes per member that
// it allocates. It does nothing when minAgree <= 0 or m < 3.
func AgreeingPairs(m, minAgree int, sig func(x int) []uint32, fn func(x, y int) bool) {
	agreeingPairs(m, minAgree, sig, nil, nil, fn)
}

// agreeingPairs is AgreeingPairs, with keep, if not nil, asked first about
// the pairs of each member x that pass the comparison of the low bytes,
// all at once (keepRow: a pair it rejects goes no further), then drop, if
// not nil, about each pair left: it is handed the pair's byte-equality
// bits (bit k%64 of low[k/64] set where slot k's low bytes agree; reused
// for the next pair), and a pair it drops is not compared in full.
func agreeingPairs(m, minAgree int, sig func(x int) []uint32, keep keepRow, drop func(x, y int, low []uint64) bool, fn func(x, y int) bool) {
	if minAgree <= 0 || m < 3 {
		return
	}
	slots := len(sig(0))
	if minAgree > slots {
		return
	}
	words := (slots + 7) / 8
	low := make([]uint64, m*words)
	for x := range m {
		packLow(low[x*words:(x+1)*words], sig(x))
	}
	mw := maskWords(words)
	eq := make([]uint64, (slots+63)/64)
	var pass []int32
	var masks []uint64
	var ok []bool
	for x := range m {
		pass, masks = agreeRows(pass[:0], masks[:0], low[x*words:(x+1)*words], low, words, x+2, m, minAgree)
		if keep != nil {
			ok = slices.Grow(ok[:0], len(pass))[:len(pass)]
			keep(x, pass, ok)
		}
		for i, y := range pass {
			if keep != nil && !ok[i] {
				continue
			}
			if drop != nil && drop(x, int(y), masks[i*mw:(i+1)*mw]) {
				continue
			}
			if equalBits(eq, sig(x), sig(int(y))) >= minAgree && !fn(x, int(y)) {
				return
			}
		}
	}
}

// equalBitsGeneric sets bit k%64 of eq[k/64] where a[k] == b[k] (len(b) >=
// len(a), len(eq)*64 >= len(a)), clears the others, and returns how many
// are set. It does not branch on the values. equalBits is the entry point
// (agree_*.go).
func equalBitsGeneric(eq []uint64, a, b []uint32) int {
	b = b[:len(a)]
	n := 0
	for w := range eq {
		lo, hi := w*64, min(w*64+64, len(a))
		var bitsW uint64
		for k := lo; k < hi; k++ {
			d := a[k] ^ b[k]
			// 1 when d == 0: (d | -d) has its top bit set for d != 0.
			bitsW |= (uint64((d|-d)>>31) ^ 1) << (k - lo)
		}
		eq[w] = bitsW
		n += bits.OnesCount64(bitsW)
	}
	return n
}

// bandBits finds the bands on which two signatures agree from bits set
// where their slots do (runs): the bits of the first slot of each band.
type bandBits struct {
	p      Params
	starts []uint64 // bit b*Rows set for every band b
}

// newBandBits returns the bandBits of p for signatures of slots values,
// or ok false when p has more than 64 bands or rows, or does not fit.
func (p Params) newBandBits(slots int) (bb bandBits, ok bool) {
	if p.Bands > 64 || p.Rows > 64 || p.Bands < 1 || p.Rows < 1 || p.Bands*p.Rows > slots {
		return bandBits{}, false
	}
	words := (slots + 63) / 64
	bb = bandBits{p: p, starts: make([]uint64, words)}
	for b := range p.Bands {
		k := b * p.Rows
		bb.starts[k/64] |= 1 << (k % 64)
	}
	return bb, true
}

// runs returns word w of the bits eq AND-ed with themselves shifted by
// 1..Rows-1: bit k is set when bits k..k+Rows-1 of eq all are.
func (bb *bandBits) runs(eq []uint64, w int) uint64 {
	t, next := eq[w], uint64(0)
	if w+1 < len(eq) {
		next = eq[w+1] // looked up once, not once a row
	}
	for i := 1; i < bb.p.Rows; i++ {
		t &= eq[w]>>i | next<<(64-i)
	}
	return t
}

// forbid sets dst (len(bb.starts) words) to the band starts of the bands
// on which a pair of the chained bucket of band, one of whose members has
// the chained-bucket bitset large, must not agree for band to be its
// report band (ReportBand): every band before band, and every band whose
// bucket is not chained. large has band's own bit set (its bucket is
// chained), so band itself is not among them.
func (bb *bandBits) forbid(dst []uint64, band int, large []uint64) {
	var l uint64
	if len(large) > 0 {
		l = large[0]
	}
	f := uint64(1)<<band - 1 | ^l
	copy(dst, bb.starts)
	for k := range bb.p.Bands {
		if f&(1<<k) == 0 {
			s := k * bb.p.Rows
			dst[s/64] &^= 1 << (s % 64)
		}
	}
}

// agreesBefore reports whether two signatures whose equality bits are eq
// (at least their first band*Rows bits; bits past them are not read for
// this answer) agree on a band before band whose bit in large is clear (a
// short or nil large: no bit set). It is bands' small >= 0 on the first
// band*Rows values, from bits: one comparison of the whole prefix instead
// of a loop and a branch a band. bb must have at most two words.
func (bb *bandBits) agreesBefore(eq *[2]uint64, band int, large []uint64) bool {
	r := bb.p.Rows
	n := band * r // the starts of bands before band are below n
	for w := 0; w < len(bb.starts) && w*64 < n; w++ {
		t := bb.runs(eq[:], w) & bb.starts[w]
		if rem := n - w*64; rem < 64 {
			t &= 1<<rem - 1
		}
		if t == 0 {
			continue
		}
		if len(large) == 0 {
			return true
		}
		for t != 0 {
			k := (w*64 + bits.TrailingZeros64(t)) / r
			t &= t - 1
			if large[0]&(1<<k) == 0 {
				return true
			}
		}
	}
	return false
}

// anyAgrees reports whether a and b agree on all Rows values of a band
// whose start is set in bands (as forbid sets it). low holds bits that
// are set at least where a and b agree (the byte-equality bits of their
// packed low bytes, lowMasks), so only the bands all of whose low bytes
// agree are compared.
func (bb *bandBits) anyAgrees(low, bands []uint64, a, b []uint32) bool {
	r := bb.p.Rows
	for w := range bands {
		t := bb.runs(low, w) & bands[w]
		for t != 0 {
			k := w*64 + bits.TrailingZeros64(t)
			t &= t - 1
			if slices.Equal(a[k:k+r], b[k:k+r]) {
				return true
			}
		}
	}
	return false
}

// BucketPartners returns the members a new document joins when it enters a
// bucket as its last member in ascending order, the bucket then having m
// members in all (the new one at position m-1): the positions [lo, m-1) it
// pairs with under BucketPairs' rule. That is every earlier member, or only
// the one before it when the bucket is chained.
func BucketPartners(m, maxBucket int) (lo, hi int) {
	if m < 2 {
		return 0, 0
	}
	if Chained(m, maxBucket) {
		return m - 2, m - 1
	}
	return 0, m - 1
}
