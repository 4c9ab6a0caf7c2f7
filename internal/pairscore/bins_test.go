package pairscore

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRecallBins checks the bins against a search for the last bin whose
// Lo the Jaccard reaches, on random pairs and on bin edges.
func TestRecallBins(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, th := range []float64{0.5, 0.8, 0.77, 0.99, 1} {
		truth := map[uint64]float64{}
		for i := range 300 {
			jac := th + (1-th)*rng.Float64()
			switch i % 5 {
			case 0:
				jac = 1
			case 1:
				jac = th
			case 2: // an edge: a fraction u/v at or above th
				v := 20 + rng.IntN(200)
				u := v - rng.IntN(v-int(th*float64(v))+1)
				if float64(u)/float64(v) >= th {
					jac = float64(u) / float64(v)
				}
			}
			truth[Key(i, i+1+rng.IntN(50))] = jac
		}
		canon := func(i int) int { return i - i%7 } // groups of 7 copies
		r := NewReported(canon, 0)
		for k := range truth {
			if i, j := Split(k); rng.IntN(3) == 0 {
				r.Add(i, j)
			}
		}
		bins, found := RecallBins(truth, th, r)
		if len(bins) < 1 || bins[0].Lo != th || bins[len(bins)-1].Hi != 1 {
			t.Fatalf("t=%g: bins %+v", th, bins)
		}
		want := make([]Bin, len(bins))
		wantFound := 0
		for k, jac := range truth {
			b := 0
			for b+1 < len(bins) && bins[b+1].Lo <= jac+1e-9 {
				b++
			}
			want[b].Pairs++
			i, j := Split(k)
			if canon(i) == canon(j) || r.Has(i, j) || r.Has(canon(i), canon(j)) {
				want[b].Found++
				wantFound++
			}
		}
		for b := range bins {
			if bins[b].Pairs != want[b].Pairs || bins[b].Found != want[b].Found {
				t.Errorf("t=%g bin %d [%g, %g): %d pairs %d found, want %d %d", th, b, bins[b].Lo, bins[b].Hi, bins[b].Pairs, bins[b].Found, want[b].Pairs, want[b].Found)
			}
			if b > 0 && math.Abs(bins[b].Lo-bins[b-1].Hi) > 1e-12 {
				t.Errorf("t=%g: bin %d starts at %g, the one before ends at %g", th, b, bins[b].Lo, bins[b-1].Hi)
			}
		}
		if found != wantFound {
			t.Errorf("t=%g: found %d, want %d", th, found, wantFound)
		}
	}
}
