package editdist

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkDistance250(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]uint64, 250)
	for i := range x {
		x[i] = rng.Uint64N(5000)
	}
	y := append([]uint64(nil), x...)
	for i := 0; i < 25; i++ {
		y[rng.IntN(len(y))] = rng.Uint64N(5000)
	}
	var s Scratch
	b.ReportAllocs()
	for b.Loop() {
		s.Distance(x, y)
	}
}
