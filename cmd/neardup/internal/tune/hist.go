// Package tune holds what "neardup tune" and "neardup eval" compute about
// LSH parameters on real data, apart from the formulas of package lsh: the
// distribution of the exact Jaccard of all pairs of a sample, from which the
// expected number of candidates of any (bands, rows) follows (Hist), and the
// measured S-curve, the fraction of exact pairs per similarity bin that
// banding makes candidates (Curve). It does no I/O; the commands print.
package tune

import (
	"context"

	"github.com/neardup/neardup/allpairs"
	"github.com/neardup/neardup/lsh"
)

// histBins is the number of fine bins of a Hist.
const histBins = 1 << 14

// Hist is the distribution of the exact Jaccard of all pairs of a sample,
// in fine bins that keep the sum of their values, so that a sum of P(J)
// over the pairs is evaluated at each bin's mean J. A Hist is not modified
// after SampleHist returns it: it is safe for concurrent reads.
type Hist struct {
	Docs  int   // sampled documents
	Pairs int64 // pairs counted: neither empty, sets not identical
	count []int64
	sum   []float64
}

func newHist() Hist {
	return Hist{count: make([]int64, histBins+1), sum: make([]float64, histBins+1)}
}

// SampleHist computes the exact Jaccard of all pairs of sets (allpairs.All,
// on workers goroutines; 0 or less means 1) into a Hist. Pairs with an
// empty set or identical sets are left out (identical sets are merged
// before LSH). rowDone, if not nil, is called once per finished row of the
// pair matrix (len(sets)-1 calls), from the workers at once: it must be
// safe for concurrent use. Each worker counts into its own histogram;
// nothing is allocated per pair. The error is ctx's.
func SampleHist(ctx context.Context, sets [][]uint64, workers int, rowDone func()) (*Hist, error) {
	workers = max(workers, 1)
	h := newHist()
	h.Docs = len(sets)
	// Per-worker histograms, merged at the end: nothing shared per pair.
	parts := make([]Hist, workers)
	for w := range parts {
		parts[w] = newHist()
	}
	err := allpairs.All(ctx, sets, workers, func(w, i, j, inter int) {
		if j == len(sets)-1 && rowDone != nil {
			rowDone() // row i done
		}
		a, b := sets[i], sets[j]
		if len(a) == 0 || len(b) == 0 {
			return
		}
		union := len(a) + len(b) - inter
		if inter == union {
			return // identical sets: merged before LSH
		}
		p := &parts[w]
		p.Pairs++
		if inter == 0 {
			return // P(0) = 0: nothing to add
		}
		jac := float64(inter) / float64(union)
		k := int(jac * histBins)
		p.count[k]++
		p.sum[k] += jac
	})
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		for k := range p.count {
			h.count[k] += p.count[k]
			h.sum[k] += p.sum[k]
		}
		h.Pairs += p.Pairs
	}
	return &h, nil
}

// Expected returns the expected number of LSH candidates per document for
// p, and the total, in a corpus of corpusDocs documents (0: the sample's
// size), assuming the sample's pairs are typical of the corpus's. Both are
// 0 for a sample of fewer than 2 documents.
func (h *Hist) Expected(p lsh.Params, corpusDocs int64) (perDoc, total float64) {
	if h.Docs < 2 {
		return 0, 0
	}
	sum := 0.0
	for i, c := range h.count {
		if c > 0 {
			sum += float64(c) * p.Probability(h.sum[i]/float64(c))
		}
	}
	n := float64(h.Docs)
	meanP := sum / (n * (n - 1) / 2) // over all pairs of the sample
	N := n
	if corpusDocs > 0 {
		N = float64(corpusDocs)
	}
	return meanP * (N - 1), meanP * N * (N - 1) / 2
}
