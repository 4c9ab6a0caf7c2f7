package tune

import (
	"math"
	"testing"

	"github.com/neardup/neardup/lsh"
)

// TestSteepest checks Steepest against the largest finite difference of
// P(s) on a fine grid.
func TestSteepest(t *testing.T) {
	for _, p := range []lsh.Params{{Bands: 20, Rows: 5}, {Bands: 9, Rows: 13}, {Bands: 64, Rows: 2}, {Bands: 1, Rows: 4}, {Bands: 30, Rows: 1}} {
		const n = 100000
		best, at := -1.0, 0.0
		for k := range n {
			s := float64(k) / n
			if d := p.Probability(s+1.0/n) - p.Probability(s); d > best {
				best, at = d, s+0.5/n
			}
		}
		if got := Steepest(p); math.Abs(got-at) > 2e-3 {
			t.Errorf("%v: Steepest %g, the grid's steepest %g", p, got, at)
		}
		// At ThresholdApprox, s^r = 1/b.
		if thr := ThresholdApprox(p); math.Abs(math.Pow(thr, float64(p.Rows))*float64(p.Bands)-1) > 1e-12 {
			t.Errorf("%v: ThresholdApprox %g: s^r*b = %g, want 1", p, thr, math.Pow(thr, float64(p.Rows))*float64(p.Bands))
		}
	}
}
