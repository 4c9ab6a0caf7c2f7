package tune

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/allpairs"
	"github.com/neardup/neardup/internal/gen"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/shingle"
)

// testSets returns the word 3-shingle sets of n generated ads (with near
// copies), an empty one and a duplicate among them.
func testSets(t *testing.T, n int) [][]uint64 {
	t.Helper()
	sh, err := shingle.New(shingle.Options{Mode: shingle.Word, N: 3})
	if err != nil {
		t.Fatal(err)
	}
	var sets [][]uint64
	err = gen.GenerateAds(gen.Config{Docs: n, Seed: 5}, func(i int, d gen.Doc) error {
		sets = append(sets, sh.AppendSetString(nil, d.Text))
		if i == 3 {
			sets = append(sets, nil, slices.Clone(sets[0]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sets
}

// TestSampleHist checks the pair count and Expected against P(J) summed
// over every pair one by one.
func TestSampleHist(t *testing.T) {
	sets := testSets(t, 150)
	var pairs int64
	var sumP = map[lsh.Params]float64{}
	params := []lsh.Params{{Bands: 20, Rows: 5}, {Bands: 9, Rows: 13}, {Bands: 64, Rows: 2}}
	for i := range sets {
		for j := i + 1; j < len(sets); j++ {
			if len(sets[i]) == 0 || len(sets[j]) == 0 || slices.Equal(sets[i], sets[j]) {
				continue
			}
			pairs++
			jac := shingle.Jaccard(sets[i], sets[j])
			for _, p := range params {
				sumP[p] += p.Probability(jac)
			}
		}
	}
	n := float64(len(sets))
	for _, workers := range []int{0, 1, 3} {
		var rows atomic.Int64
		h, err := SampleHist(context.Background(), sets, workers, func() { rows.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
		if h.Docs != len(sets) || h.Pairs != pairs || rows.Load() != int64(len(sets)-1) {
			t.Errorf("workers %d: docs %d pairs %d rows %d, want %d %d %d", workers, h.Docs, h.Pairs, rows.Load(), len(sets), pairs, len(sets)-1)
		}
		for _, p := range params {
			meanP := sumP[p] / (n * (n - 1) / 2)
			for _, N := range []int64{0, 1000000} {
				per, total := h.Expected(p, N)
				wantN := n
				if N > 0 {
					wantN = float64(N)
				}
				wantPer, wantTotal := meanP*(wantN-1), meanP*wantN*(wantN-1)/2
				if math.Abs(per-wantPer) > 1e-4*wantPer || math.Abs(total-wantTotal) > 1e-4*wantTotal || wantPer == 0 {
					t.Errorf("workers %d %v N %d: expected %g per doc, %g in all; want %g, %g", workers, p, N, per, total, wantPer, wantTotal)
				}
			}
		}
	}
	if per, total := (&Hist{Docs: 1}).Expected(params[0], 10); per != 0 || total != 0 {
		t.Errorf("one document: %g %g, want 0 0", per, total)
	}
}

// TestCurve checks the bins against the Jaccard of every pair and a band
// comparison of their signatures one by one.
func TestCurve(t *testing.T) {
	sets := testSets(t, 150)
	for _, lp := range []lsh.Params{{Bands: 20, Rows: 5}, {Bands: 8, Rows: 3}} {
		params := neardup.Params{Shingle: shingle.Options{Mode: shingle.Word, N: 3}, Slots: 128, LSH: lp, Threshold: 0.5}
		sk, err := neardup.NewSketcher(params)
		if err != nil {
			t.Fatal(err)
		}
		sigs := make([][]uint32, len(sets))
		for i, s := range sets {
			sigs[i] = sk.AppendSignature(nil, s)
		}
		const from = 0.2
		var want [CurveBins]CurveBin
		for i := range sets {
			for j := i + 1; j < len(sets); j++ {
				if len(sets[i]) == 0 || len(sets[j]) == 0 {
					continue
				}
				jac := shingle.Jaccard(sets[i], sets[j])
				if jac < from {
					continue
				}
				b := &want[min(CurveBins-1, int(math.Floor(jac*CurveBins+1e-9)))]
				b.Pairs++
				b.SumJ += jac
				for band := range lp.Bands {
					r := lp.Rows
					if slices.Equal(sigs[i][band*r:(band+1)*r], sigs[j][band*r:(band+1)*r]) {
						b.Candidates++
						break
					}
				}
			}
		}
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%v/%d", lp, workers), func(t *testing.T) {
				var bands atomic.Int64
				got, err := Curve(context.Background(), sets, allpairs.Rank(sets, workers), from, params, workers, func(n int) *atomic.Int64 {
					if n != lp.Bands {
						t.Errorf("banding(%d), want %d", n, lp.Bands)
					}
					return &bands
				})
				if err != nil {
					t.Fatal(err)
				}
				if bands.Load() != int64(lp.Bands) {
					t.Errorf("%d bands done, want %d", bands.Load(), lp.Bands)
				}
				k := 0
				for i, w := range want {
					if w.Pairs == 0 {
						continue
					}
					w.Lo = 0.05 * float64(i)
					if k >= len(got) {
						t.Fatalf("%d bins, want more", len(got))
					}
					g := got[k]
					k++
					if g.Lo != w.Lo || g.Pairs != w.Pairs || g.Candidates != w.Candidates || math.Abs(g.SumJ-w.SumJ) > 1e-9 {
						t.Errorf("bin %d: %+v, want %+v", i, g, w)
					}
				}
				if k != len(got) {
					t.Errorf("%d bins, want %d", len(got), k)
				}
			})
		}
	}
}
