package minhash

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

var sinkSig []uint32
var sinkFloat float64

// BenchmarkAppendSignature reports, besides ns/op and input MB/s, the
// throughput in slot updates (slots x set elements) per nanosecond.
func BenchmarkAppendSignature(b *testing.B) {
	kernels := []struct {
		name         string
		avx2, avx512 bool
	}{{"generic", false, false}, {"avx2", true, false}, {"avx512", true, true}}
	for _, k := range kernels {
		if k.avx2 && !haveAVX2 || k.avx512 && !haveAVX512 {
			continue
		}
		for _, n := range []int{10, 250, 2500} {
			b.Run(fmt.Sprintf("kernel=%s/set=%d", k.name, n), func(b *testing.B) {
				saved2, saved512 := useAVX2, useAVX512
				defer func() { useAVX2, useAVX512 = saved2, saved512 }()
				useAVX2, useAVX512 = k.avx2, k.avx512
				h := mustNew(b, DefaultSlots, 1)
				r := rand.New(rand.NewPCG(1, 1))
				set := make([]uint64, n)
				for i := range set {
					set[i] = r.Uint64()
				}
				dst := make([]uint32, 0, DefaultSlots)
				b.SetBytes(int64(8 * n))
				b.ReportAllocs()
				for b.Loop() {
					dst = h.AppendSignature(dst[:0], set)
				}
				sinkSig = dst
				updates := float64(DefaultSlots*n) * float64(b.N)
				b.ReportMetric(updates/float64(b.Elapsed().Nanoseconds()), "updates/ns")
			})
		}
	}
}

func BenchmarkEstimate(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	x, y := make([]uint32, DefaultSlots), make([]uint32, DefaultSlots)
	for i := range x {
		x[i] = r.Uint32()
		y[i] = x[i]
		if r.IntN(2) == 0 {
			y[i]++
		}
	}
	b.ReportAllocs()
	var s float64
	for b.Loop() {
		s += Estimate(x, y)
	}
	sinkFloat = s
}

func BenchmarkAppendWeightedSignature(b *testing.B) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, n := range []int{16, 64, 250, 1000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			h := mustNew(b, DefaultSlots, 1)
			set := randomSet(r, n)
			w := randomWeights(r, n, 1, 12)
			dst := make([]uint32, 0, DefaultSlots)
			b.ReportAllocs()
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				dst = h.AppendWeightedSignature(dst[:0], set, w)
			}
			sinkSig = dst
		})
	}
}

func BenchmarkWeightedJaccard(b *testing.B) {
	r := rand.New(rand.NewPCG(19, 20))
	x, wx, y, wy, _ := weightedPair(r, 200, 50, 50, 1, 12)
	x, wx, y, wy = sorted(x, wx, y, wy, 0)
	b.ReportAllocs()
	for b.Loop() {
		sinkFloat = WeightedJaccard(x, wx, y, wy)
	}
}
