package minhash

// signatureGeneric sets out[i] to the value of slot i for set, where slot i
// has constants a[i], b[i]; len(a) and len(b) must be at least len(out).
//
// The loops are interchanged: four slots' constants and running minima stay
// in registers while the set streams past, so each slot update is one
// multiply, one add and a compare-and-move, with no bounds checks.
//
// On amd64 the Go 1.26 register allocator still spills the minima and x
// inside the loop (16 live values for 14 registers); groups of 2 or 3, an
// inner function per group, unrolling over two elements and a branchy
// minimum were tried and none beat this form (about 1.1-1.3 slot updates/ns
// on the AMD EPYC test machine, against 5.9-6.4 for the AVX2 kernel).
// Architectures with more registers (arm64) should do better.
func signatureGeneric(out []uint32, a, b, set []uint64) {
	a, b = a[:len(out)], b[:len(out)]
	i := 0
	for ; i+4 <= len(out); i += 4 {
		a4, b4 := a[i:i+4:i+4], b[i:i+4:i+4]
		a0, a1, a2, a3 := a4[0], a4[1], a4[2], a4[3]
		b0, b1, b2, b3 := b4[0], b4[1], b4[2], b4[3]
		m0, m1, m2, m3 := ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)
		for _, x := range set {
			m0 = min(m0, a0*x+b0)
			m1 = min(m1, a1*x+b1)
			m2 = min(m2, a2*x+b2)
			m3 = min(m3, a3*x+b3)
		}
		o4 := out[i : i+4 : i+4]
		o4[0] = uint32(m0 >> 32)
		o4[1] = uint32(m1 >> 32)
		o4[2] = uint32(m2 >> 32)
		o4[3] = uint32(m3 >> 32)
	}
	for ; i < len(out); i++ {
		ai, bi := a[i], b[i]
		m := ^uint64(0)
		for _, x := range set {
			m = min(m, ai*x+bi)
		}
		out[i] = uint32(m >> 32)
	}
}
