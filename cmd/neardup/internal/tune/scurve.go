// Two landmarks of an S-curve P(s) = 1-(1-s^r)^b that tune's table shows
// beside lsh's figures.

package tune

import (
	"math"

	"github.com/neardup/neardup/lsh"
)

// ThresholdApprox returns (1/b)^(1/r), the usual approximation of the
// similarity where the S-curve of p rises.
func ThresholdApprox(p lsh.Params) float64 {
	return math.Pow(1/float64(p.Bands), 1/float64(p.Rows))
}

// Steepest returns where the S-curve of p is steepest,
// ((1-1/r)/(b-1/r))^(1/r): 0 for one row (P is concave, steepest at 0).
func Steepest(p lsh.Params) float64 {
	r, b := float64(p.Rows), float64(p.Bands)
	if p.Rows <= 1 {
		return 0
	}
	return math.Pow((1-1/r)/(b-1/r), 1/r)
}
