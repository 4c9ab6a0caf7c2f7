// Package detmath holds floating-point functions whose results are the same
// bit for bit on every platform and Go release, for values that are part of
// neardup's stored or reported results.
package detmath

import "math"

// Constants of fdlibm's e_log.c, as in math.Log.
const (
	ln2Hi = 6.93147180369123816490e-01 // 3fe62e42 fee00000
	ln2Lo = 1.90821492927058770002e-10 // 3dea39ef 35793c76
	lg1   = 6.666666666666735130e-01   // 3FE55555 55555593
	lg2   = 3.999999999940941908e-01   // 3FD99999 9997FA04
	lg3   = 2.857142874366239149e-01   // 3FD24924 94229359
	lg4   = 2.222219843214978396e-01   // 3FCC71C5 1D8E78AF
	lg5   = 1.818357216161805012e-01   // 3FC74664 96CB03DE
	lg6   = 1.531383769920937332e-01   // 3FC39A09 D078C69F
	lg7   = 1.479819860511658591e-01   // 3FC2F112 DF3E5244
)

// Log returns ln(x) for a normal, positive, finite x with fdlibm's
// algorithm (error < 1 ulp; equal to math.Log on amd64). Each product is
// converted explicitly, which the Go spec defines as a rounding that forbids
// fusing it into an FMA, so the result is the same on every platform: idf
// weights and weighted MinHash signatures must not depend on the machine.
func Log(x float64) float64 {
	b := math.Float64bits(x)
	e := int(b>>52&0x7ff) - 1023
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52) // [1, 2)
	if m >= math.Sqrt2 {
		m *= 0.5
		e++
	}
	f := m - 1 // exact
	k := float64(e)
	s := f / (2 + f)
	s2 := float64(s * s)
	s4 := float64(s2 * s2)
	t1 := float64(s2 * (lg1 + float64(s4*(lg3+float64(s4*(lg5+float64(s4*lg7)))))))
	t2 := float64(s4 * (lg2 + float64(s4*(lg4+float64(s4*lg6)))))
	r := t1 + t2
	hfsq := float64(float64(0.5*f) * f)
	return float64(k*ln2Hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(k*ln2Lo))) - f)
}

// Exp returns e^x for |x| < 700, with the same care as Log: only +, -,
// *, / and exact scalings, each product rounded by an explicit
// conversion, so the result is the same on every platform. Accuracy is a
// few ulps. The corpus generators use it for their Zipf weights.
func Exp(x float64) float64 {
	// x = k·ln2 + r with |r| <= ln2/2; e^x = 2^k·e^r. Cody-Waite: ln2Hi has
	// trailing zero bits, so k·ln2Hi is exact.
	const ln2 = 0.693147180559945309417232121458176568
	k := math.Floor(x/ln2 + 0.5) // Floor is exact
	r := (x - float64(k*ln2Hi)) - float64(k*ln2Lo)
	sum, term := 1.0, 1.0
	for n := 1; n < 24; n++ {
		term = float64(term*r) / float64(n)
		sum += term
	}
	return math.Ldexp(sum, int(k)) // exact scaling by a power of two
}

// LogAtanh returns ln(x) for finite x > 0 by the series 2·atanh(z), z =
// (m-1)/(m+1), with the same care as Log. It is the corpus generators'
// logarithm, kept beside Log rather than replaced by it because generated
// corpora must stay the same byte for byte from one release to the next:
// the two differ in the last bit for some x, and that is enough to change
// a word of a generated document (gencorpus -n 50000 -seed 7 does).
func LogAtanh(x float64) float64 {
	const ln2 = 0.693147180559945309417232121458176568
	m, e := math.Frexp(x) // x = m·2^e, m in [0.5, 1): exact bit manipulation
	// ln m = 2·atanh(z) = 2·(z + z³/3 + z⁵/5 + ...), z in (-1/3, 0].
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
