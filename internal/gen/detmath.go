package gen

import "math"

// The generator's output must be bit-identical on every machine, so nothing
// that decides a word may come from math.Exp, math.Log or math.Pow: they have
// assembly versions on some architectures, and the compiler may fuse a*b+c
// into one FMA instruction on arm64, ppc64, s390x, riscv64 and amd64 with
// GOAMD64=v3. The functions below use only +, -, *, / (correctly rounded
// everywhere) and wrap every product in an explicit float64 conversion, which
// the Go specification says rounds and so forbids fusion. Accuracy is a few
// ulps, which is plenty; what matters is that it is the same few ulps
// everywhere.

const ln2 = 0.693147180559945309417232121458176568

// detLog returns ln(x) for finite x > 0.
func detLog(x float64) float64 {
	m, e := math.Frexp(x) // x = m·2^e, m in [0.5, 1): exact bit manipulation
	// ln m = 2·atanh(z) = 2·(z + z³/3 + z⁵/5 + ...), z = (m-1)/(m+1) in (-1/3, 0].
	z := (m - 1) / (m + 1)
	z2 := float64(z * z)
	term := z
	sum := 0.0
	for k := 1; k < 64; k += 2 {
		sum += term / float64(k)
		term = float64(term * z2)
	}
	return float64(2*sum) + float64(float64(e)*ln2)
}

// detExp returns e^x for |x| < 700.
func detExp(x float64) float64 {
	// x = k·ln2 + r with |r| <= ln2/2; e^x = 2^k·e^r.
	// Cody-Waite: ln2Hi has trailing zero bits, so k·ln2Hi is exact.
	const (
		ln2Hi = 6.93147180369123816490e-01
		ln2Lo = 1.90821492927058770002e-10
	)
	k := math.Floor(x/ln2 + 0.5) // Floor is exact
	r := (x - float64(k*ln2Hi)) - float64(k*ln2Lo)
	sum, term := 1.0, 1.0
	for n := 1; n < 24; n++ {
		term = float64(term*r) / float64(n)
		sum += term
	}
	return math.Ldexp(sum, int(k)) // exact scaling by a power of two
}
