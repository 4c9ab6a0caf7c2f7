package idf

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

var (
	sinkTable *Table
	sinkW     []float64
)

// BenchmarkCompute: 100k sets of 250 (25M occurrences), as the brief's
// reference corpus; reports bytes per distinct hash of the finished table.
func BenchmarkCompute(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("sets=%d", n), func(b *testing.B) {
			if n > 10_000 && testing.Short() {
				b.Skip("short")
			}
			sets := corpus(rand.New(rand.NewPCG(9, 10)), n, 250, 50_000)
			var occ int
			for _, s := range sets {
				occ += len(s)
			}
			b.SetBytes(int64(8 * occ))
			b.ReportAllocs()
			for b.Loop() {
				sinkTable = Compute(sets)
			}
			tab := sinkTable
			bytes := 8*len(tab.entries) + 4*len(tab.index) + 8*len(tab.weights)
			b.ReportMetric(float64(bytes)/float64(tab.Len()), "B/distinct")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(occ), "ns/occurrence")
		})
	}
}

func BenchmarkAppendWeights(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("sets=%d", n), func(b *testing.B) {
			sets := corpus(rand.New(rand.NewPCG(11, 12)), n, 250, 50_000)
			tab := Compute(sets)
			dst := make([]float64, 0, 300)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				dst = tab.AppendWeights(dst[:0], sets[i])
				i = (i + 7919) % len(sets) // a scattered walk, like a real batch
			}
			sinkW = dst
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/250, "ns/lookup")
		})
	}
}
