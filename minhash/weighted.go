package minhash

// Weighted MinHash for sets with one global positive weight per element.
//
// # Definition
//
// Every element s has one weight w(s) > 0, the same in every set (for
// example an idf.Table weight). The weighted Jaccard index of A and B is
//
//	J_w(A, B) = Σ_{s∈A∩B} w(s) / Σ_{s∈A∪B} w(s)
//
// and equals the plain Jaccard index when all weights are equal.
//
// # Scheme (exponential race)
//
// Slot i reuses the slot's multiply-add hash v_i(s) = a_i*s + b_i of
// AppendSignature. Its top 53 bits give t_i(s) = (v_i(s)>>11) * 2^-53 in
// [0, 1), and
//
//	e_i(s) = -ln(1 - t_i(s)) / w(s)
//
// is an exponential variable with rate w(s). The slot value is
// hi32(v_i(s*)) for the element s* with the smallest e_i (ties, which need
// equal 64-bit products, go to the smaller v_i). The minimum of independent
// exponentials falls on s with probability w(s)/Σw, so the argmin over A∪B
// lies in A∩B with probability J_w(A, B); then it is the argmin of both A and
// B and their slots agree, otherwise they agree only on a 32-bit collision.
// Slots use independent hash functions, so agreements are independent across
// slots and LSH banding follows 1-(1-J_w^r)^b as for plain signatures.
//
// Because -ln(1-t) is increasing in t, equal weights give the argmin of v_i,
// so a weighted signature with all weights equal is the plain signature of
// the same set, bit for bit.
//
// # Speed
//
// The logarithm is computed only for elements that can still win: since
// -ln(1-t) >= t, an element with t > best*w(s) (plus a 2^-30 relative margin
// that covers every rounding) cannot beat the current minimum "best". Most
// elements fail that test even with the set's largest weight in place of
// w(s), which, turned into a bound on v_i(s), costs one integer
// comparison an element (and four slots share one pass over the set); the
// rest get the exact test, a conversion, a multiply and a compare. In a
// random order only about ln|X|+1 elements per slot pass it (the running
// records), so a 250-element set needs ~7 logarithms per slot, not 250.
//
// # Determinism
//
// The logarithm is fdlibm's (the algorithm of math.Log, < 1 ulp error) with
// every product explicitly rounded, so no platform may fuse it into an FMA:
// signatures are the same bit for bit on every architecture. math.Log itself
// is not used because the compiler may fuse its multiply-adds on arm64,
// ppc64le, s390x and riscv64.

import (
	"fmt"
	"math"
	"slices"

	"github.com/neardup/neardup/internal/detmath"
)

// AppendWeightedSignature appends the Slots() values of the weighted MinHash
// signature of set to dst (see the scheme above): in each slot two sets agree
// with probability J_w, their weighted Jaccard index, independently of the
// other slots. weights[j] is the weight of set[j]; it must be the element's
// one global weight, the same in every set, for that guarantee to hold.
//
// set may be in any order and may hold duplicates (with equal weights). An
// element whose weight is not > 0 (0, negative or NaN) is ignored, which is
// the limit of J_w as its weight goes to 0; weights must not be +Inf for the
// guarantee to hold. A set with no element of positive weight has every slot
// 0xFFFFFFFF, as the empty set in AppendSignature. With all weights equal the
// result equals AppendSignature's.
//
// AppendWeightedSignature panics if len(weights) != len(set). It allocates
// nothing when dst has room, and is safe for concurrent use.
func (h *Hasher) AppendWeightedSignature(dst []uint32, set []uint64, weights []float64) []uint32 {
	if len(weights) != len(set) {
		panic(fmt.Sprintf("minhash: AppendWeightedSignature with %d weights for %d elements", len(weights), len(set)))
	}
	n := len(dst)
	dst = slices.Grow(dst, len(h.a))[:n+len(h.a)]
	weightedSignature(dst[n:], h.a, h.b, set, weights)
	return dst
}

// skipScale is 2^53 * (1 + 2^-30), exact. The skip test compares the
// integer k = v>>11 with best*skipScale*w: k*2^-53 > best*w*(1+2^-30) even
// after the two roundings of the right side (each < 2^-53 relative), so
// -ln(1-t)/w, computed with < 2^-51 relative error and >= t/w, is strictly
// above best, and the element would have lost (ties included).
const skipScale = 0x1p53 * (1 + 0x1p-30)

// weightedSignature sets out[i] to the weighted value of slot i, where slot
// i has constants a[i], b[i]; len(weights) == len(set).
//
// Most elements are skipped by an integer comparison of each slot's v with
// a bound from the largest weight (see skipBound), four slots in one pass
// over a set of quadsFrom elements or more (else, and for the last slots,
// one at a time); the few left get the exact skip test, about six
// instructions, and the rarer candidates (running records) the logarithm
// (race.enter).
func weightedSignature(out []uint32, a, b, set []uint64, weights []float64) {
	a, b = a[:len(out)], b[:len(out)]
	weights = weights[:len(set)]
	wmax := 0.0 // the largest positive weight (+Inf included, NaN not)
	for _, w := range weights {
		if w > wmax {
			wmax = w
		}
	}
	i := 0
	for ; i+4 <= len(out) && weightedQuads && len(set) >= quadsFrom; i += 4 {
		weightedSlots4((*[4]uint32)(out[i:]), (*[4]uint64)(a[i:]), (*[4]uint64)(b[i:]), set, weights, wmax)
	}
	for ; i < len(out); i++ {
		out[i] = weightedSlot(a[i], b[i], set, weights, wmax)
	}
}

// weightedQuads selects weightedSlots4 for groups of four slots; tests
// turn it off to compare with weightedSlot.
var weightedQuads = true

// quadsFrom is the set size from which four slots at a time pay: below it
// most elements are offered (the first few of a set beat the bound), and
// the four races' state costs more than the pass saves
// (BenchmarkAppendWeightedSignature: n = 16 20.9-22.4 µs against
// 15.6-19.7 one at a time, n = 64 about the same).
const quadsFrom = 64

// race is one slot's state: the winner so far and the bounds that skip
// elements that cannot beat it.
type race struct {
	best float64 // e of the current winner
	thr  float64 // best * skipScale
	bv   uint64  // its v
	vmax uint64  // skipBound(thr, wmax)
	wmax float64 // the set's largest positive weight
}

func newRace(wmax float64) race {
	return race{best: math.Inf(1), thr: math.Inf(1), bv: ^uint64(0), vmax: ^uint64(0), wmax: wmax}
}

// may is the exact skip test: false when an element with k = v>>11 and
// weight w cannot win (-ln(1-t) >= t) or has no positive weight. With
// thr = +Inf and w = 0 the product is NaN and the first test fails, so
// such elements reach the second.
func (r *race) may(k, w float64) bool { return !(k > r.thr*w) && w > 0 }

// enter makes the element with this v, k = v>>11 and weight w > 0 the
// winner if its e beats the current one's.
func (r *race) enter(v uint64, k, w float64) {
	if e := negLog1m(k) / w; e < r.best || (e == r.best && v < r.bv) {
		r.best, r.bv = e, v
		r.thr = e * skipScale
		r.vmax = skipBound(r.thr, r.wmax)
	}
}

// weightedSlot returns the value of the slot with constants a, b.
func weightedSlot(a, b uint64, set []uint64, weights []float64, wmax float64) uint32 {
	r := newRace(wmax)
	weights = weights[:len(set)]
	for j := 0; j < len(set); j++ {
		// Elements whose v is above vmax cannot win: a loop of their
		// own, with no call in it, so that its values stay in registers.
		vmax := r.vmax
		for j < len(set) && a*set[j]+b > vmax {
			j++
		}
		if j == len(set) {
			break
		}
		v := a*set[j] + b
		if k := float64(int64(v >> 11)); r.may(k, weights[j]) { // k exact: < 2^53
			r.enter(v, k, weights[j])
		}
	}
	return uint32(r.bv >> 32)
}

// weightedSlots4 is weightedSlot for four slots in one pass over the set:
// each element is loaded once for the four, whose bound tests are
// independent work, and the loop stops only where one of them may win.
func weightedSlots4(out *[4]uint32, a, b *[4]uint64, set []uint64, weights []float64, wmax float64) {
	rs := [4]race{newRace(wmax), newRace(wmax), newRace(wmax), newRace(wmax)}
	a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
	b0, b1, b2, b3 := b[0], b[1], b[2], b[3]
	weights = weights[:len(set)]
	for j := 0; j < len(set); j++ {
		m0, m1, m2, m3 := rs[0].vmax, rs[1].vmax, rs[2].vmax, rs[3].vmax
		for ; j < len(set); j++ {
			x := set[j]
			if a0*x+b0 <= m0 || a1*x+b1 <= m1 || a2*x+b2 <= m2 || a3*x+b3 <= m3 {
				break
			}
		}
		if j == len(set) {
			break
		}
		x, w := set[j], weights[j]
		for s := range rs {
			v := a[s]*x + b[s]
			if k := float64(int64(v >> 11)); v <= rs[s].vmax && rs[s].may(k, w) {
				rs[s].enter(v, k, w)
			}
		}
	}
	for s := range rs {
		out[s] = uint32(rs[s].bv >> 32)
	}
}

// skipBound returns the v above which an element cannot win whatever its
// weight, when the exact skip test is k > thr*w with k = v>>11 and w <=
// wmax: with K = thr*wmax (rounded; rounding is monotonic, so K >= the
// rounded thr*w of every w <= wmax), k > floor(K) means k > K >= thr*w,
// and k > floor(K) is v > floor(K)<<11 | 0x7ff. Elements with no positive
// weight, which the bound may skip too, never win. When K is not below
// 2^53 (or is NaN: thr = 0 and wmax = +Inf) nothing is skipped.
func skipBound(thr, wmax float64) uint64 {
	K := thr * wmax
	if !(K < 0x1p53) {
		return ^uint64(0)
	}
	return uint64(K)<<11 | 0x7ff
}

// negLog1m returns -ln(1 - k*2^-53) for an integer-valued k in [0, 2^53):
// the exponential variable of rate 1 for the uniform t = k*2^-53. 1-t is
// computed exactly, so the result keeps full relative precision for small t.
func negLog1m(k float64) float64 {
	return -detmath.Log((0x1p53 - k) * 0x1p-53)
}

// WeightedJaccard returns the weighted Jaccard index of the sorted,
// duplicate-free sets a and b, whose elements have the weights wa and wb
// (parallel slices; len(wa) == len(a), len(wb) == len(b), weights >= 0):
//
//	Σ_{s∈a∩b} min(wa(s), wb(s)) / (Σ_{s∈a∩b} max(wa(s), wb(s)) + Σ_{s∈a\b} wa(s) + Σ_{s∈b\a} wb(s))
//
// With global weights (wa(s) == wb(s) for shared s) this is J_w(a, b), the
// probability that weighted signatures agree in a slot; with differing
// weights it is the generalized (Σmin/Σmax) Jaccard, which the signatures do
// not estimate. It returns 0 when the denominator is 0 (two empty sets). It
// is symmetric, deterministic (sums in merge order) and does not allocate;
// it panics if the weight slices are shorter than the sets.
func WeightedJaccard(a []uint64, wa []float64, b []uint64, wb []float64) float64 {
	wa, wb = wa[:len(a)], wb[:len(b)]
	var inter, union float64
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		switch {
		case x < y:
			union += wa[i]
			i++
		case x > y:
			union += wb[j]
			j++
		default:
			lo, hi := wa[i], wb[j]
			if lo > hi {
				lo, hi = hi, lo
			}
			inter += lo
			union += hi
			i++
			j++
		}
	}
	for ; i < len(a); i++ {
		union += wa[i]
	}
	for ; j < len(b); j++ {
		union += wb[j]
	}
	if union == 0 {
		return 0
	}
	return inter / union
}
