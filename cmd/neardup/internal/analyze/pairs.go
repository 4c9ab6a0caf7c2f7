// All pairs of a sample for one shingle length: the exact Jaccard of every
// pair, counted per histogram bin and per cutoff, and the pairs nearest each
// cutoff kept as examples. It hands on one Result per length.

package analyze

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/neardup/neardup/allpairs"
	"github.com/neardup/neardup/shingle"
)

// NumBins is the number of histogram bins, of width 1/NumBins: bin k holds
// the pairs with k/NumBins <= J < (k+1)/NumBins (the last bin also J = 1),
// computed on the exact intersection and union sizes, not on a rounded
// float.
const NumBins = 20

// Length is one shingle mode and length to analyze.
type Length struct {
	Mode shingle.Mode
	N    int
}

// String returns the mode and length, as "word 3".
func (l Length) String() string { return fmt.Sprintf("%s %d", l.Mode, l.N) }

// Example is a pair of sample documents (A < B, indexes into Sample.Docs)
// and its Jaccard; Dist is its distance to a cutoff.
type Example struct {
	A, B    int
	Jaccard float64
	Dist    float64
}

// closer orders examples by distance to the cutoff, then by the pair.
func (p Example) closer(q Example) bool {
	if p.Dist != q.Dist {
		return p.Dist < q.Dist
	}
	if p.A != q.A {
		return p.A < q.A
	}
	return p.B < q.B
}

// nearest keeps the k pairs closest to one cutoff, sorted, closest first.
type nearest struct {
	k     int
	pairs []Example
}

func (n *nearest) offer(p Example) {
	if len(n.pairs) == n.k {
		if n.k == 0 || !p.closer(n.pairs[n.k-1]) {
			return
		}
		n.pairs = n.pairs[:n.k-1]
	}
	i := len(n.pairs)
	for i > 0 && p.closer(n.pairs[i-1]) {
		i--
	}
	n.pairs = slices.Insert(n.pairs, i, p)
}

// partial is what one worker found.
type partial struct {
	cutoffs []float64
	hist    [NumBins]int64
	atLeast []int64
	near    []nearest
}

// add counts the pair (i, j) of sample documents, i < j, with inter shingles
// in common and set sizes adding up to sizes.
func (p *partial) add(i, j, inter, sizes int) {
	union := sizes - inter // > 0: no set is empty
	bin := NumBins * inter / union
	if bin == NumBins {
		bin--
	}
	p.hist[bin]++
	jac := float64(inter) / float64(union) // as shingle.Jaccard
	for c, cut := range p.cutoffs {
		if jac < cut {
			break // cutoffs are sorted
		}
		p.atLeast[c]++
	}
	for c := range p.near {
		nr := &p.near[c]
		d := math.Abs(jac - p.cutoffs[c])
		if len(nr.pairs) < nr.k || nr.k > 0 && d <= nr.pairs[len(nr.pairs)-1].Dist {
			nr.offer(Example{A: i, B: j, Jaccard: jac, Dist: d})
		}
	}
}

// Result is the analysis of a sample for one shingle length.
type Result struct {
	Length   Length
	Pairs    int64          // n(n-1)/2 for n documents
	Hist     [NumBins]int64 // pairs per bin
	AtLeast  []int64        // per cutoff: pairs with Jaccard >= cutoff
	Examples [][]Example    // per cutoff: the pairs closest to it, closest first
	MeanSet  float64        // mean set size
}

// Pairs shingles every document of smp once with sh (whose mode and length
// are l) and computes the exact Jaccard of all pairs (allpairs.All) on the
// given number of workers. cutoffs must be sorted ascending; examples is
// the number of pairs kept per cutoff. rowDone, if not nil, is called once
// per finished row of the pair matrix (len(smp.Docs)-1 calls in all), from
// the workers' goroutines at once: it must be safe for concurrent use.
// Each worker counts into its own histogram; nothing is allocated per pair.
// smp must hold at least 2 documents, none empty. The error is ctx's.
func Pairs(ctx context.Context, smp *Sample, sh *shingle.Shingler, l Length, cutoffs []float64, examples, workers int, rowDone func()) (*Result, error) {
	n := len(smp.Docs)
	sets := make([][]uint64, n)
	total := 0
	for i, d := range smp.Docs {
		sets[i] = sh.AppendSet(nil, d.Text)
		total += len(sets[i])
	}
	parts := make([]partial, workers)
	for w := range parts {
		p := &parts[w]
		p.cutoffs = cutoffs
		p.atLeast = make([]int64, len(cutoffs))
		p.near = make([]nearest, len(cutoffs))
		for c := range p.near {
			p.near[c] = nearest{k: examples, pairs: make([]Example, 0, examples+1)}
		}
	}
	err := allpairs.All(ctx, sets, workers, func(w, i, j, inter int) {
		parts[w].add(i, j, inter, len(sets[i])+len(sets[j]))
		if j == n-1 && rowDone != nil {
			rowDone() // row i done
		}
	})
	if err != nil {
		return nil, err
	}
	r := &Result{Length: l, Pairs: int64(n) * int64(n-1) / 2, AtLeast: make([]int64, len(cutoffs)),
		Examples: make([][]Example, len(cutoffs)), MeanSet: float64(total) / float64(n)}
	for c := range cutoffs {
		all := nearest{k: examples}
		for w := range parts {
			r.AtLeast[c] += parts[w].atLeast[c]
			for _, p := range parts[w].near[c].pairs {
				all.offer(p)
			}
		}
		r.Examples[c] = all.pairs
	}
	for w := range parts {
		for b, v := range parts[w].hist {
			r.Hist[b] += v
		}
	}
	return r, nil
}
