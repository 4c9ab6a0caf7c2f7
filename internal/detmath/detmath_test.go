package detmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLogMatchesMathLog checks Log against math.Log: within 1 ulp
// everywhere, over random values and edges.
func TestLogMatchesMathLog(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	vals := []float64{1, 2, math.E, 0.5, math.Sqrt2, math.Nextafter(math.Sqrt2, 0), 1e-300, 1e300, math.MaxFloat64, 0x1p-1022}
	for range 200000 {
		vals = append(vals, math.Float64frombits(rng.Uint64N(0x7fefffffffffffff-0x0010000000000000)+0x0010000000000000))
	}
	for _, x := range vals {
		got, want := Log(x), math.Log(x)
		if got != want && math.Abs(got-want) > math.Abs(math.Nextafter(want, math.Inf(1))-want) {
			t.Fatalf("Log(%v) = %v, math.Log %v", x, got, want)
		}
	}
}
