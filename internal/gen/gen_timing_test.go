package gen

import "testing"

func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	n, bytes := 0, 0
	for b.Loop() {
		err := Generate(Config{Docs: 10000, Seed: 1}, func(_ int, d Doc) error {
			n++
			bytes += len(d.Text)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(bytes / max(1, b.N)))
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "docs/s")
}
