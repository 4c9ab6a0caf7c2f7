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
