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

// TestLogGolden pins Log bit for bit: idf weights and weighted MinHash
// signatures are stored, so Log must give these values on every platform
// and Go release. (They equal math.Log's on amd64.)
func TestLogGolden(t *testing.T) {
	for _, c := range []struct {
		x    float64
		bits uint64
	}{
		{0x1p-1022, 0xc086232bdd7abcd2},
		{1e-300, 0xc085963447f87fb5},
		{0x1p-53, 0xc0425e4f7b2737fa},
		{0.1, 0xc0026bb1bbb55515},
		{0.5, 0xbfe62e42fefa39ef},
		{math.Sqrt2 / 2, 0xbfd62e42fefa39ee},
		{1 - 0x1p-53, 0xbca0000000000000},
		{1, 0},
		{1 + 0x1p-52, 0x3cafffffffffffff},
		{1.5, 0x3fd9f323ecbf984c},
		{math.Sqrt2, 0x3fd62e42fefa39f0},
		{2, 0x3fe62e42fefa39ef},
		{math.E, 0x3ff0000000000000},
		{10, 0x40026bb1bbb55516},
		{12345.678, 0x4022d79559791e31},
		{1e300, 0x4085963447f87fb5},
		{math.MaxFloat64, 0x40862e42fefa39ef},
	} {
		if got := Log(c.x); math.Float64bits(got) != c.bits {
			t.Errorf("Log(%v) = %v (%#016x), want %v (%#016x)", c.x, got, math.Float64bits(got), math.Float64frombits(c.bits), c.bits)
		}
	}
}

func TestExp(t *testing.T) {
	for _, x := range []float64{-700, -20, -1.1, -0.3, 0, 1e-10, 0.7, 1, 5.5, 20, 700} {
		if got, want := Exp(x), math.Exp(x); math.Abs(got-want) > 1e-14*want {
			t.Errorf("Exp(%g) = %.17g, want %.17g", x, got, want)
		}
	}
}

func TestLogAtanh(t *testing.T) {
	for _, x := range []float64{1e-300, 0.001, 0.5, 1, 2, 3, 10, 250, 12345.678, 1e6, 1 << 40, 1e300} {
		if got, want := LogAtanh(x), math.Log(x); math.Abs(got-want) > 1e-14*math.Max(1, math.Abs(want)) {
			t.Errorf("LogAtanh(%g) = %.17g, want %.17g", x, got, want)
		}
	}
}
