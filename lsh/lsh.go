// Package lsh implements banding over MinHash signatures: the S-curve, the
// choice of bands and rows, band keys and candidate generation.
//
// Who uses it from outside: the batch (neardup.Batch) and the index run
// it for themselves; a library user takes it to choose bands and rows for
// a threshold and recall (Choose, the S-curve of Params), to keep band
// keys of their own in a Table (MemTable, or a Table over their own store)
// and look candidates up, as ExampleSketcher in package neardup does, or
// to run the batch's candidate search over signatures they hold
// (Candidates).
//
// A MinHash signature has Slots uint32 values. Banding with Params{b, r}
// looks at b bands of r consecutive slots each (band j is slots
// [j*r, (j+1)*r), so b*r <= Slots); two documents are a candidate pair when
// they agree on all r slots of at least one band. For a pair of Jaccard
// similarity s that happens with probability P(s) = 1-(1-s^r)^b, the
// S-curve.
package lsh

import (
	"errors"
	"fmt"
	"github.com/neardup/neardup/internal/rule"
	"math"

	"github.com/neardup/neardup/internal/sentinel"
)

// ErrNoParams is returned by Choose when no (bands, rows) within the slots reaches the recall.
var ErrNoParams = errors.New("lsh: no bands and rows reach the requested recall")

// ErrInvalid is wrapped by the errors Choose and Candidates.Run return for
// arguments outside their documented ranges. It is neardup.ErrInvalid.
var ErrInvalid = sentinel.Invalid

// Params are b bands of r rows each.
type Params struct {
	Bands, Rows int
}

// Probability returns the chance 1-(1-s^r)^b that a pair of Jaccard s agrees on at least one band.
//
// It is computed as -expm1(b*log1p(-s^r)), which keeps full relative
// precision both where P is tiny (s^r tiny: the 1 - (1 - ...) form would
// cancel to 0) and where P is close to 1. s <= 0 gives 0, s >= 1 gives 1,
// and Params with Bands or Rows < 1 (no band at all) give 0.
func (p Params) Probability(s float64) float64 {
	if p.Bands < 1 || p.Rows < 1 || s <= 0 || math.IsNaN(s) {
		return 0
	}
	if s >= 1 {
		return 1
	}
	q := math.Pow(s, float64(p.Rows)) // chance one band agrees
	return -math.Expm1(float64(p.Bands) * math.Log1p(-q))
}

// FalseCandidateRate returns the objective Choose minimises: the mean of
// Probability over similarities uniform on [0, t),
//
//	F(t) = (1/t) * ∫_0^t P(s) ds,
//
// that is, the chance that a pair drawn uniformly from below the threshold
// still becomes a candidate. It is 0 for t <= 0 and integrates over [0, 1]
// for t > 1. The integral is evaluated by adaptive Simpson quadrature to a
// relative accuracy of about 1e-11.
func FalseCandidateRate(p Params, t float64) float64 {
	if !(t > 0) {
		return 0
	}
	t = min(t, 1)
	return integrate(p.Probability, 0, t) / t
}

// integrate returns ∫_a^b f by adaptive Simpson quadrature to a relative
// accuracy of about 1e-11. The interval is first cut into 16 panels so that
// the steep part of a sharp S-curve cannot be skipped by a lucky coarse
// estimate; the panels' coarse sum sets the absolute tolerance.
func integrate(f func(float64) float64, a, b float64) float64 {
	const panels = 16
	var x, fx [2*panels + 1]float64
	for k := range x {
		x[k] = a + (b-a)*float64(k)/(2*panels)
		fx[k] = f(x[k])
	}
	var whole [panels]float64
	est := 0.0
	for k := range panels {
		whole[k] = (x[2*k+2] - x[2*k]) / 6 * (fx[2*k] + 4*fx[2*k+1] + fx[2*k+2])
		est += whole[k]
	}
	if est == 0 {
		return 0
	}
	tol := 1e-12 * math.Abs(est) / panels
	sum := 0.0
	for k := range panels {
		sum += simpson(f, x[2*k], x[2*k+2], fx[2*k], fx[2*k+1], fx[2*k+2], whole[k], tol, 40)
	}
	return sum
}

func simpson(f func(float64) float64, a, b, fa, fm, fb, whole, tol float64, depth int) float64 {
	m := (a + b) / 2
	lm, rm := (a+m)/2, (m+b)/2
	flm, frm := f(lm), f(rm)
	left := (m - a) / 6 * (fa + 4*flm + fm)
	right := (b - m) / 6 * (fm + 4*frm + fb)
	d := left + right - whole
	if depth <= 0 || math.Abs(d) <= 15*tol {
		return left + right + d/15 // Richardson extrapolation
	}
	return simpson(f, a, m, fa, flm, fm, left, tol/2, depth-1) +
		simpson(f, m, b, fm, frm, fb, right, tol/2, depth-1)
}

// Choose returns, among the (b, r) with b*r <= slots whose Probability(t) >= recall,
// the one with the fewest expected false candidates (documented objective).
//
// Objective. "Expected false candidates" is FalseCandidateRate(p, t): the
// probability that a pair whose similarity is uniform on [0, t) becomes a
// candidate, (1/t)∫_0^t P(s) ds. Among the parameters that meet the recall
// constraint P(t) >= recall, Choose returns the one minimising it; exact
// ties (within a relative 1e-12) go to fewer bands, which is less work per
// document. Because P grows with b for fixed r, only the smallest qualifying
// b of each r can win, so Choose checks at most slots candidates.
//
// Why not datasketch's optimiser. datasketch (MinHashLSH) minimises a
// weighted sum of the false-positive area ∫_0^t P and the false-negative
// area ∫_t^1 (1-P), with no constraint on P(t). That balances the two
// areas, which puts the steep part of the S-curve at the threshold: for
// t=0.5 and 128 slots it picks b=25, r=5 with P(0.5) = 0.55, and over
// t in [0.3, 0.9] its choices find only about 31-64% of the pairs lying
// exactly at t. neardup instead treats recall at the threshold as a hard
// requirement (a near-duplicate at exactly t should be found with
// probability >= recall, typically 0.99) and spends what remains of the
// slots on precision. For example Choose(128, 0.5, 0.99) is b=35, r=3 with
// P(0.5) = 1-(7/8)^35 ≈ 0.9907.
//
// Errors: slots < 1, t outside (0, 1] or recall outside (0, 1) give an
// error wrapping ErrInvalid; ErrNoParams when no b*r <= slots reaches the
// recall.
func Choose(slots int, t, recall float64) (Params, error) {
	if slots < 1 {
		return Params{}, fmt.Errorf("%w: Choose: slots %d < 1", ErrInvalid, slots)
	}
	if !rule.Threshold(t) {
		return Params{}, fmt.Errorf("%w: Choose: threshold %v not in (0, 1]", ErrInvalid, t)
	}
	if !rule.Recall(recall) {
		return Params{}, fmt.Errorf("%w: Choose: recall %v not in (0, 1)", ErrInvalid, recall)
	}
	best, bestF := Params{}, math.Inf(1)
	for r := 1; r <= slots; r++ {
		b, ok := minBands(r, slots/r, t, recall)
		if !ok {
			continue
		}
		p := Params{Bands: b, Rows: r}
		f := FalseCandidateRate(p, t)
		switch {
		case f < bestF*(1-1e-12):
			best, bestF = p, f
		case f <= bestF*(1+1e-12) && p.Bands < best.Bands:
			best, bestF = p, min(f, bestF)
		}
	}
	if best.Bands == 0 {
		return Params{}, ErrNoParams
	}
	return best, nil
}

// minBands returns the smallest b in [1, maxB] with P(t) >= recall for r
// rows, and whether there is one.
func minBands(r, maxB int, t, recall float64) (int, bool) {
	if maxB < 1 {
		return 0, false
	}
	// 1-(1-q)^b >= recall  <=>  b >= log(1-recall)/log(1-q); start from the
	// closed form and correct by a step or two for rounding.
	q := math.Pow(t, float64(r))
	est := math.Ceil(math.Log1p(-recall) / math.Log1p(-q)) // +Inf when q underflows to 0
	if !(est <= float64(maxB)+1) {
		return 0, false
	}
	b := max(1, int(est))
	for b > 1 && (Params{b - 1, r}).Probability(t) >= recall {
		b--
	}
	for b <= maxB && (Params{b, r}).Probability(t) < recall {
		b++
	}
	return b, b <= maxB
}
