package neardup

import (
	"math"
	"slices"

	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/shingle"
)

// PrefilterMiss bounds the chance that the signature pre-filter of a
// Verifier drops a pair whose similarity is at least the threshold.
const PrefilterMiss = 1e-6

// Verifier checks candidate pairs and measures similarities, the one place
// where that is decided: Batch, explain, eval, an index and a distributed
// pipeline all call it, so a pair is a near-duplicate in one of them exactly
// when it is in all of them.
//
// A Verifier is read-only after NewVerifier and safe for concurrent use. Its
// methods do not allocate.
type Verifier struct {
	t        float64
	mode     Verify
	weighted bool
	slots    int
	minAgree float64 // signature pre-filter: least agreement (a fraction) a pair at t shows
	// need[n] is shingle.MinOverlap(n/2, n-n/2, t) for the size sums n
	// of most pairs (bitmaps only): see minOverlap.
	need []int32
}

// needSums is the size sums whose shingle.MinOverlap the Verifier keeps
// (16 KB): pairs of sets up to about 2,000 shingles each.
const needSums = 4096

// NewVerifier returns the Verifier for sketches made under p (resolved
// first) and checked by mode, or an error wrapping ErrOptions (also when
// WeightIDF is asked with VerifyEstimate).
func NewVerifier(p Params, mode Verify) (*Verifier, error) {
	o, err := Options{Params: p, Verify: mode}.resolve()
	if err != nil {
		return nil, err
	}
	return newVerifier(o.Params, mode), nil
}

// newVerifier is NewVerifier for p and mode resolved together (a Batch's
// options, resolved once).
func newVerifier(p Params, mode Verify) *Verifier {
	v := &Verifier{
		t:        p.Threshold,
		mode:     mode,
		weighted: p.Weight == WeightIDF,
		slots:    p.Slots,
		minAgree: float64(minAgreement(p.Slots, p.Threshold, PrefilterMiss)) / float64(p.Slots),
	}
	if v.bitmaps() {
		v.need = make([]int32, needSums)
		for n := range v.need {
			v.need[n] = int32(shingle.MinOverlap(n/2, n-n/2, v.t))
		}
	}
	return v
}

// minOverlap is shingle.MinOverlap(na, nb, t), from the table when it
// holds na+nb and the answer is at most min(na, nb). MinOverlap's search
// depends on the sum alone until it passes min(na, nb) (its start and the
// test o/(na+nb-o) >= t do), so an entry computed with the smaller side
// n/2 is every pair's answer with that sum when it is at most the pair's
// smaller side. Otherwise (no overlap reaches t: pairs the length filter
// rejects) MinOverlap itself answers.
func (v *Verifier) minOverlap(na, nb int) int {
	if n := na + nb; n >= 0 && n < len(v.need) {
		if o := int(v.need[n]); o <= min(na, nb) {
			return o
		}
	}
	return shingle.MinOverlap(na, nb, v.t)
}

// Threshold returns the threshold t.
func (v *Verifier) Threshold() float64 { return v.t }

// Exact reports whether the similarities Verify and Similarity return are
// exact (VerifyExact): the Jaccard index of the shingle sets, or their
// weighted Jaccard index under WeightIDF.
func (v *Verifier) Exact() bool { return v.mode == VerifyExact }

// Verify returns the similarity of two candidate documents and whether it
// reaches the threshold: Prefilter, then Confirm. The similarity is exact
// under VerifyExact (the value is then exactly Similarity's) and the
// signature estimate under VerifyEstimate; when ok is false it may be 0
// rather than the similarity, since Verify stops as soon as the pair cannot
// reach the threshold. Empty documents never match. The sketches need their
// signatures, and under VerifyExact their sets (and weights under
// WeightIDF).
func (v *Verifier) Verify(a, b *Sketch) (float64, bool) {
	if !v.Prefilter(a, b) {
		return 0, false
	}
	return v.Confirm(a, b)
}

// Prefilter reports whether a candidate pair may reach the threshold,
// looking only at what a sketch holds besides its set: the length filter
// (J <= min/max of the set sizes, or of the weight sums under WeightIDF)
// and the signature pre-filter (a pair at exactly the threshold agrees on
// fewer slots than this with probability under PrefilterMiss). A pair it
// rejects is not a near-duplicate; a caller that keeps sets apart from
// signatures (a store, a distributed join) fetches sets only for the pairs
// it passes, then calls Confirm. It reads Size, WeightSum and Signature.
func (v *Verifier) Prefilter(a, b *Sketch) bool {
	if !v.LengthOK(a, b) {
		return false
	}
	if v.mode == VerifyEstimate {
		return true // the estimate is the verdict: Confirm
	}
	return v.signaturesOK(a.Signature, b.Signature)
}

// signaturesOK is Prefilter's test of the signatures alone, for a caller
// that has tested the lengths (LengthOK) another way; not under
// VerifyEstimate.
func (v *Verifier) signaturesOK(a, b []uint32) bool {
	return minhash.Estimate(a, b) >= v.minAgree
}

// AgreementOK is Prefilter's signature test on a count: whether two
// documents whose signatures agree on agree of the Params.Slots slots may
// reach the threshold. agree may be an upper bound of the true count (as
// counted on truncated slot values, which can agree where the full values
// differ, never the other way): the test then rejects no pair Prefilter
// accepts. Under VerifyEstimate it is always true.
func (v *Verifier) AgreementOK(agree int) bool {
	if v.mode == VerifyEstimate {
		return true
	}
	return float64(agree)/float64(v.slots) >= v.minAgree
}

// MinAgreement returns the least number of the Params.Slots slots on
// which the signatures of a pair Verify accepts agree: Prefilter rejects
// every pair that agrees on fewer (under VerifyEstimate, Confirm does),
// whatever their sets. lsh.Candidates.MinAgree takes it, so that a large
// LSH bucket compares its members' signatures in one block instead of
// listing every pair, and loses none that Verify would accept.
func (v *Verifier) MinAgreement() int {
	for a := 0; a <= v.slots; a++ {
		if v.mode == VerifyEstimate {
			if float64(a)/float64(v.slots) >= v.t {
				return a
			}
			continue
		}
		if v.AgreementOK(a) {
			return a
		}
	}
	return v.slots
}

// LengthOK is the first test of Prefilter, the length filter alone: false
// when either document is empty or when their sizes (weight sums under
// WeightIDF) are too far apart for the pair to reach the threshold
// (J <= min/max). It reads only Size and WeightSum, so a store that keeps
// sizes in memory rejects such candidates without reading anything.
func (v *Verifier) LengthOK(a, b *Sketch) bool {
	if a.Empty() || b.Empty() {
		return false
	}
	if v.mode == VerifyEstimate {
		return true
	}
	if v.weighted {
		return min(a.WeightSum, b.WeightSum) >= v.t*max(a.WeightSum, b.WeightSum)
	}
	return v.sizesOK(a.Size, b.Size)
}

// sizesOK is LengthOK's test on the set sizes (exact, unweighted
// verification) of two non-empty sets.
func (v *Verifier) sizesOK(na, nb int) bool {
	x, y := float64(na), float64(nb)
	return min(x, y) >= v.t*max(x, y)
}

// bitmaps reports whether Confirm computes the exact, unweighted Jaccard,
// which shingle.MaxIntersection of the sets' bitmaps bounds: a pair whose
// bound is below shingle.MinOverlap cannot reach the threshold.
func (v *Verifier) bitmaps() bool { return v.mode == VerifyExact && !v.weighted }

// sizesBitmapsOK reports whether a pair whose sets have sizes na and nb
// and bitmaps ba and bb may reach the threshold under exact, unweighted
// verification (bitmaps): LengthOK's test from the sizes alone, then the
// bitmaps' bound. False only when the pair cannot. The batch asks it
// first of its candidates, before it builds their sketches.
func (v *Verifier) sizesBitmapsOK(na, nb int, ba, bb *shingle.Bitmap) bool {
	return na > 0 && nb > 0 && v.sizesOK(na, nb) &&
		shingle.MaxIntersection(ba, bb, na, nb) >= v.minOverlap(na, nb)
}

// sizesBitmapsRow sets ok[i] to sizesBitmapsOK(na, int(sizes[y]), ba,
// &bms[y]) for y = ys[i], for every i < len(ys): one document against
// many, the bitmaps' bounds in one call (shingle.MaxIntersections; in a
// large bucket a call per pair was most of the test's time). bound is
// scratch, grown as needed and returned.
func (v *Verifier) sizesBitmapsRow(ok []bool, na int, ba *shingle.Bitmap, ys, sizes []int32, bms []shingle.Bitmap, bound []int32) []int32 {
	bound = slices.Grow(bound[:0], len(ys))[:len(ys)]
	if na <= 0 {
		clear(ok[:len(ys)])
		return bound
	}
	shingle.MaxIntersections(bound, ba, na, bms, sizes, ys)
	// The loop in integers, the length filter as a range of sizes and
	// the least overlap from the table (the bound is at most min(na, nb),
	// so the table's entry decides even where minOverlap would go past
	// it): sizesBitmapsOK written out, at 10M documents 755 million
	// times (the float tests and the call were 8-10 s of CPU).
	lo, hi := v.sizeRange(na)
	need := v.need
	for i, y := range ys {
		nb := int(sizes[y])
		pass := false
		if n := na + nb; nb >= lo && nb <= hi && uint(n) < uint(len(need)) {
			pass = int(bound[i]) >= int(need[n])
		} else if nb > 0 && v.sizesOK(na, nb) {
			pass = int(bound[i]) >= v.minOverlap(na, nb)
		}
		ok[i] = pass
	}
	return bound
}

// sizeRange returns the sizes nb >= 1 for which sizesOK(na, nb) holds:
// those in [lo, hi] (none when lo > hi). sizesOK's test is monotone on
// each side of na, so the edges are found with sizesOK itself, from just
// past them.
func (v *Verifier) sizeRange(na int) (lo, hi int) {
	if !(v.t > 0) {
		return 1, math.MaxInt32
	}
	lo = max(int(v.t*float64(na))-2, 1)
	for lo <= na && !v.sizesOK(na, lo) {
		lo++
	}
	hi = int(min(float64(na)/v.t+2, math.MaxInt32))
	for hi >= na && !v.sizesOK(na, hi) {
		hi--
	}
	if hi < na {
		return na + 1, na // t > 1: no size passes
	}
	return lo, hi
}

// Confirm returns the similarity of a pair that passed Prefilter and
// whether it reaches the threshold: the exact Jaccard of the sets
// (shingle.JaccardWithOverlap with the least overlap from the Verifier's
// table, JaccardAtLeast's answer; it gives up early: the value is 0 when
// ok is false) or their weighted Jaccard under WeightIDF, or the signature
// estimate under VerifyEstimate.
func (v *Verifier) Confirm(a, b *Sketch) (float64, bool) {
	switch {
	case v.mode == VerifyEstimate:
		est := minhash.Estimate(a.Signature, b.Signature)
		return est, est >= v.t
	case v.weighted:
		j := minhash.WeightedJaccard(a.Set, a.Weights, b.Set, b.Weights)
		return j, j >= v.t
	}
	return shingle.JaccardWithOverlap(a.Set, b.Set, v.minOverlap(len(a.Set), len(b.Set)))
}

// Similarity returns the similarity of two documents whatever its value,
// with no filter: 1 for identical non-empty sets (equal fingerprints and
// sets), the exact or weighted Jaccard under VerifyExact, the signature
// estimate under VerifyEstimate (1 when the fingerprints are equal), and 0
// when either document is empty.
func (v *Verifier) Similarity(a, b *Sketch) float64 {
	if a.Empty() || b.Empty() {
		return 0
	}
	if a.Fingerprint == b.Fingerprint && a.Size == b.Size && (v.mode == VerifyEstimate || equalSets(a.Set, b.Set)) {
		return 1
	}
	switch {
	case v.mode == VerifyEstimate:
		return minhash.Estimate(a.Signature, b.Signature)
	case v.weighted:
		return minhash.WeightedJaccard(a.Set, a.Weights, b.Set, b.Weights)
	}
	return shingle.Jaccard(a.Set, b.Set)
}

func equalSets(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// minAgreement returns the largest m such that a pair of Jaccard t (or more)
// agrees on fewer than m of k independent slots with probability at most
// miss: the binomial lower tail P(Bin(k, t) < m) <= miss.
func minAgreement(k int, t, miss float64) int {
	if t >= 1 {
		return k
	}
	// P(X = x) for X ~ Bin(k, t), accumulated from x = 0 in log space.
	lt, l1t := math.Log(t), math.Log1p(-t)
	cdf := 0.0
	for m := 0; m <= k; m++ {
		lg, _ := math.Lgamma(float64(k + 1))
		la, _ := math.Lgamma(float64(m + 1))
		lb, _ := math.Lgamma(float64(k - m + 1))
		cdf += math.Exp(lg - la - lb + float64(m)*lt + float64(k-m)*l1t)
		if cdf > miss {
			return m
		}
	}
	return k
}
