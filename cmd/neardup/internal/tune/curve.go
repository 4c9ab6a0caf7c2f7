// The measured S-curve: the exact pairs of a set collection above a
// similarity, binned by Jaccard, and how many of each bin banding makes
// candidates. It hands on one CurveBin per bin that holds pairs.

package tune

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/allpairs"
	"github.com/neardup/neardup/internal/pairscore"
	"github.com/neardup/neardup/internal/parallel"
	"github.com/neardup/neardup/lsh"
)

// CurveBins is the number of bins of the measured S-curve, of width
// 1/CurveBins over [0, 1].
const CurveBins = 20

// CurveBin is one bin [Lo, Lo+1/CurveBins) of the measured S-curve (the
// last includes 1).
type CurveBin struct {
	Lo         float64
	Pairs      int     // exact pairs in the bin
	SumJ       float64 // the sum of their Jaccard
	Candidates int64   // of them, LSH candidates
}

// Curve bins the exact pairs of non-empty sets with Jaccard >= from and
// measures the fraction of each bin that LSH makes a candidate pair: the
// signatures of every non-empty set under params, lsh.Candidates.Run with
// no bucket limit, no verification. ranked is sets ranked for allpairs
// (allpairs.Rank). It returns the bins that hold pairs, in order.
// banding, if not nil, is called once as banding starts, with the number
// of bands; the counter it returns, if not nil, is incremented as each band
// is finished (from the workers' goroutines). The errors are neardup.NewSketcher's and ctx's.
func Curve(ctx context.Context, sets [][]uint64, ranked *allpairs.Ranked, from float64, params neardup.Params, workers int, banding func(bands int) *atomic.Int64) ([]CurveBin, error) {
	p := params.LSH
	const nb = CurveBins
	var bins [nb]CurveBin
	for k := range bins {
		bins[k].Lo = 0.05 * float64(k)
	}
	binOf := func(j float64) int { return min(nb-1, int(j/0.05+1e-9)) }
	var mu sync.Mutex
	pairs := map[uint64]int32{} // pair of signature ids -> bin
	ids := make([]int, 0, len(sets))
	sigID := make([]int, len(sets))
	for i, s := range sets {
		sigID[i] = -1
		if len(s) > 0 {
			sigID[i] = len(ids)
			ids = append(ids, i)
		}
	}
	ranked.Join(from, workers, func(i, j int, jac float64) {
		if sigID[i] < 0 || sigID[j] < 0 {
			return
		}
		k := binOf(jac)
		mu.Lock()
		pairs[pairscore.Key(sigID[i], sigID[j])] = int32(k)
		bins[k].Pairs++
		bins[k].SumJ += jac
		mu.Unlock()
	})
	sk, err := neardup.NewSketcher(params)
	if err != nil {
		return nil, err
	}
	slots := params.Slots
	// Each chunk's signatures are appended in place into sigs.
	sigs := make([]uint32, len(ids)*slots)
	parallel.For(len(ids), workers, 256, func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			sk.AppendSignature(sigs[k*slots:k*slots], sets[ids[k]])
		}
	})
	counts := make([][nb]int64, max(1, workers))
	var bandsDone *atomic.Int64
	if banding != nil {
		bandsDone = banding(p.Bands)
	}
	c := &lsh.Candidates{Params: p, Slots: slots, Sigs: sigs, Workers: workers, MaxBucket: 0, BandsDone: bandsDone}
	if _, err := c.Run(ctx, func(w int, i, j uint32) {
		if k, ok := pairs[pairscore.Key(int(i), int(j))]; ok {
			counts[w][k]++
		}
	}); err != nil {
		return nil, err
	}
	var out []CurveBin
	for k, bin := range bins {
		for _, cw := range counts {
			bin.Candidates += cw[k]
		}
		if bin.Pairs > 0 {
			out = append(out, bin)
		}
	}
	return out, nil
}
