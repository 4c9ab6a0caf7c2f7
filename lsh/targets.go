package lsh

import (
	"fmt"
	"math"
)

// PerRows returns the parameters Choose(slots, t, recall) chooses among:
// for each r in 1..slots, the smallest b with b*r <= slots and
// Probability(t) >= recall, in ascending r (rows for which no b qualifies
// are left out). It returns nil when none qualifies and, like Choose, an
// error wrapping ErrInvalid for arguments out of range.
func PerRows(slots int, t, recall float64) ([]Params, error) {
	if _, err := Choose(slots, t, recall); err != nil && err != ErrNoParams {
		return nil, err
	}
	var ps []Params
	for r := 1; r <= slots; r++ {
		if b, ok := minBands(r, slots/r, t, recall); ok {
			ps = append(ps, Params{Bands: b, Rows: r})
		}
	}
	return ps, nil
}

// Miss returns 1 - p.Probability(s), the chance that a pair of Jaccard s
// shares no band, computed as (1-s^r)^b directly so that it keeps its
// relative precision when it is tiny.
func (p Params) Miss(s float64) float64 {
	if p.Bands < 1 || p.Rows < 1 || s <= 0 || math.IsNaN(s) {
		return 1
	}
	if s >= 1 {
		return 0
	}
	return math.Exp(float64(p.Bands) * math.Log1p(-math.Pow(s, float64(p.Rows))))
}

// Margin says how far p is inside two targets: at most maxFP chance of a
// candidate at similarity low, and at least minRecall chance at high. It
// is the smaller of the two log ratios of each error to its budget,
//
//	min( ln(maxFP / P(low)),  ln((1-minRecall) / (1-P(high))) ),
//
// so a margin of ln 2 means both errors are at most half their budgets,
// and p meets both targets if and only if the margin is >= 0 (up to
// rounding; ChooseTargets tests the targets themselves). An error that is
// exactly 0 has an infinite margin.
func Margin(p Params, low, maxFP, high, minRecall float64) float64 {
	fp := math.Log(maxFP) - math.Log(p.Probability(low))
	fn := math.Log1p(-minRecall) - math.Log(p.Miss(high))
	return min(fp, fn)
}

// TargetsPerRows returns, for each r in 1..slots for which some b with
// b*r <= slots meets both targets (Probability(low) <= maxFP and
// Probability(high) >= minRecall), the qualifying b with the largest
// Margin (ties: fewer bands), in ascending r. It returns nil when no
// (b, r) meets both.
//
// Errors: slots < 1, low or high outside (0, 1), low >= high, or maxFP or
// minRecall outside (0, 1) give an error wrapping ErrInvalid.
func TargetsPerRows(slots int, low, maxFP, high, minRecall float64) ([]Params, error) {
	if err := checkTargets(slots, low, maxFP, high, minRecall); err != nil {
		return nil, err
	}
	var ps []Params
	for r := 1; r <= slots; r++ {
		best, bestM := Params{}, math.Inf(-1)
		// P grows with b at both points, so the b meeting both targets
		// form an interval: from the first meeting the recall to the last
		// keeping under maxFP.
		for b := 1; b <= slots/r; b++ {
			p := Params{Bands: b, Rows: r}
			if p.Probability(low) > maxFP {
				break
			}
			if p.Probability(high) < minRecall {
				continue
			}
			if m := Margin(p, low, maxFP, high, minRecall); m > bestM {
				best, bestM = p, m
			}
		}
		if best.Bands > 0 {
			ps = append(ps, best)
		}
	}
	return ps, nil
}

// ChooseTargets returns the (b, r) with b*r <= slots that meets two
// targets, at most maxFP chance of becoming a candidate for a pair of
// Jaccard low and at least minRecall for a pair of Jaccard high, with the
// most room to spare: the largest Margin, that is the one whose worse error
// is smallest relative to its budget. Exact ties (within a relative 1e-12)
// go to fewer bands, then fewer rows. For example ChooseTargets(128, 0.05,
// 0.005, 0.5, 0.99) is 36 bands of 3 rows: P(0.05) = 1-(1-0.05^3)^36 =
// 0.00449 and P(0.5) = 1-(7/8)^36 = 0.99183, both about 10% inside their
// budgets; only 35..40 bands of 3 rows meet both targets at all.
//
// Errors as TargetsPerRows, and ErrNoParams when no (b, r) meets both.
func ChooseTargets(slots int, low, maxFP, high, minRecall float64) (Params, error) {
	ps, err := TargetsPerRows(slots, low, maxFP, high, minRecall)
	if err != nil {
		return Params{}, err
	}
	best, bestM := Params{}, math.Inf(-1)
	for _, p := range ps {
		m := Margin(p, low, maxFP, high, minRecall)
		switch {
		case best.Bands == 0, m > bestM+1e-12*math.Abs(bestM):
			best, bestM = p, m
		case m >= bestM-1e-12*math.Abs(bestM) && p.Bands < best.Bands:
			best, bestM = p, max(m, bestM)
		}
	}
	if best.Bands == 0 {
		return Params{}, fmt.Errorf("%w: no bands and rows within %d slots give P(%v) <= %v and P(%v) >= %v",
			ErrNoParams, slots, low, maxFP, high, minRecall)
	}
	return best, nil
}

func checkTargets(slots int, low, maxFP, high, minRecall float64) error {
	switch {
	case slots < 1:
		return fmt.Errorf("%w: targets: slots %d < 1", ErrInvalid, slots)
	case !(low > 0 && low < 1), !(high > 0 && high < 1):
		return fmt.Errorf("%w: targets: similarities %v and %v must be in (0, 1)", ErrInvalid, low, high)
	case !(low < high):
		return fmt.Errorf("%w: targets: low similarity %v not below high %v", ErrInvalid, low, high)
	case !(maxFP > 0 && maxFP < 1):
		return fmt.Errorf("%w: targets: false-candidate chance %v not in (0, 1)", ErrInvalid, maxFP)
	case !(minRecall > 0 && minRecall < 1):
		return fmt.Errorf("%w: targets: recall %v not in (0, 1)", ErrInvalid, minRecall)
	}
	return nil
}
