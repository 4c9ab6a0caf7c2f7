package dedupout

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// checkNumber fails t unless AppendNumber(x) is strconv's 'f', 6 text.
func checkNumber(t *testing.T, x float64) {
	t.Helper()
	want := strconv.FormatFloat(x, 'f', 6, 64)
	if got := string(AppendNumber(nil, x)); got != want {
		t.Fatalf("AppendNumber(%v = %b) = %q, want %q", x, x, got, want)
	}
}

// TestAppendNumber compares AppendNumber with strconv on every Jaccard
// of two sets of up to 1,500 elements (c/u), on the values next to each
// six-decimal number and to each half-way point between two (a few ulps
// either side, where the fast path must defer to strconv), on random
// values in [0, 1] and on values outside it.
func TestAppendNumber(t *testing.T) {
	for u := 1; u <= 1500; u++ {
		for c := 0; c <= u; c++ {
			checkNumber(t, float64(c)/float64(u))
		}
	}
	for k := 0; k <= 1000000; k++ {
		for _, v := range []float64{float64(k) / 1e6, (float64(k) + 0.5) / 1e6} {
			x := v
			for range 2 {
				x = math.Nextafter(x, -1)
			}
			for range 5 {
				if x >= 0 && x <= 1 {
					checkNumber(t, x)
				}
				x = math.Nextafter(x, 2)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000000 {
		checkNumber(t, r.Float64())
	}
	for _, x := range []float64{0, math.Copysign(0, -1), 1, math.Nextafter(1, 2), -1e-9, 1.5, 2, 1e300, -0.3,
		math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64, 5e-7, 4.999999999e-7} {
		checkNumber(t, x)
	}
}

func FuzzAppendNumber(f *testing.F) {
	for _, x := range []float64{0, 0.5, 1, 2.0 / 3, 0.0000005, 0.1234565} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		checkNumber(t, x)
		if x >= 0 && x <= 1 {
			checkNumber(t, x/7) // fractions of the fuzzed value too
		}
	})
}

var sink []byte

func BenchmarkAppendPair(b *testing.B) {
	buf := make([]byte, 0, 64)
	for b.Loop() {
		sink = AppendPair(buf[:0], "3/d01234567", "7/d07654321", 0.5714285714285714)
	}
}

func BenchmarkAppendNumber(b *testing.B) {
	buf := make([]byte, 0, 64)
	for _, c := range []struct {
		name string
		fn   func([]byte, float64) []byte
	}{
		{"fast", AppendNumber},
		{"strconv", func(dst []byte, x float64) []byte { return strconv.AppendFloat(dst, x, 'f', 6, 64) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				sink = c.fn(buf[:0], 0.5714285714285714)
			}
		})
	}
}

// NumberCache appends what AppendNumber appends, over runs of repeated
// values and changes between values whose texts are equal or differ only
// in sign (0 and -0) or length.
func TestNumberCache(t *testing.T) {
	vals := []float64{0.5, 0.5, 0.25, 0.5, 0, math.Copysign(0, -1), math.Copysign(0, -1), 0, 1e300, 1e300, 1,
		math.NaN(), math.NaN(), 0.1234565, 0.1234565, 0.1234566, 2.0 / 3, 2.0 / 3}
	r := rand.New(rand.NewPCG(3, 4))
	for range 10000 {
		x := float64(r.IntN(5)) / 7
		for range r.IntN(4) {
			vals = append(vals, x)
		}
	}
	var c NumberCache
	var got, want []byte
	for _, x := range vals {
		got = c.Append(got, x)
		got = append(got, '\n')
		want = AppendNumber(want, x)
		want = append(want, '\n')
	}
	if string(got) != string(want) {
		t.Fatalf("NumberCache differs from AppendNumber over %d values", len(vals))
	}
	if n := testing.AllocsPerRun(100, func() { sink = c.Append(sink[:0], 0.75) }); n != 0 {
		t.Errorf("Append of a repeated value allocates %v times", n)
	}
}
