package neardup

import (
	"math/rand/v2"
	"testing"
)

// TestFirstTable holds firstTable to a map on fingerprints with many
// repeats, neighbours in the same home slot and a full table.
func TestFirstTable(t *testing.T) {
	for _, n := range []int{1, 2, 7, 100, 5000} {
		for _, spread := range []uint64{1, 3, 1 << 62} {
			r := rand.New(rand.NewPCG(uint64(n), spread))
			fps := make([]uint64, n)
			for i := range fps {
				// Few distinct values, consecutive ones and 0.
				fps[i] = r.Uint64N(uint64(n)/2+1) * spread
			}
			tab := newFirstTable(n)
			ref := map[uint64]uint32{}
			for d, fp := range fps {
				if d+4 < n {
					tab.prefetch(fps[d+4])
				}
				got, ok := tab.firstOrAdd(fp, uint32(d))
				want, wok := ref[fp]
				if !wok {
					ref[fp] = uint32(d)
				}
				if ok != wok || got != want {
					t.Fatalf("n=%d spread=%d doc %d fp %d: got %d,%v want %d,%v", n, spread, d, fp, got, ok, want, wok)
				}
			}
		}
	}
	// Every fingerprint distinct, the table as full as it may be.
	n := 3000
	tab := newFirstTable(n)
	for d := range n {
		if _, ok := tab.firstOrAdd(uint64(d)<<40, uint32(d)); ok {
			t.Fatalf("doc %d found before it was added", d)
		}
	}
	for d := range n {
		if got, ok := tab.firstOrAdd(uint64(d)<<40, uint32(n)); !ok || got != uint32(d) {
			t.Fatalf("doc %d: got %d,%v", d, got, ok)
		}
	}
}
