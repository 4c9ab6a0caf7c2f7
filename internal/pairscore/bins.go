package pairscore

import "math"

// BinWidth is the width of the similarity bins of RecallBins.
const BinWidth = 0.05

// Bin is one bin [Lo, Hi) of true pairs by exact Jaccard (the last bin
// includes Hi = 1).
type Bin struct {
	Lo, Hi float64
	Pairs  int // true pairs in the bin
	Found  int // of those, the ones counted as found
}

// RecallBins bins the true pairs (Key -> exact Jaccard, every one >= t, t
// in (0, 1]) in bins of BinWidth from t to 1 (at least one; the last may be
// narrower) and counts in each the pairs r counts as found (Reported.Found).
// It returns the bins and the number found in all.
func RecallBins(truth map[uint64]float64, t float64, r *Reported) ([]Bin, int) {
	nb := max(1, int(math.Ceil((1-t)/BinWidth-1e-9)))
	bins := make([]Bin, nb)
	for k := range bins {
		lo := t + BinWidth*float64(k)
		bins[k] = Bin{Lo: lo, Hi: min(1, lo+BinWidth)}
	}
	found := 0
	for k, jac := range truth {
		bin := &bins[min(nb-1, max(0, int((jac-t)/BinWidth+1e-9)))]
		bin.Pairs++
		if r.Found(Split(k)) {
			bin.Found++
			found++
		}
	}
	return bins, found
}
