package allpairs

import (
	"context"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup/shingle"
)

// How All counts the elements two sets have in common.
const (
	methodAuto     = iota // the cheaper of the two for the sets given
	methodMerge           // shingle.Intersection of every pair: (n-1) x the total set size
	methodPostings        // for each set, walk the postings of its elements: sum of df^2/2
)

// allMethod is methodAuto; tests set the others to check both.
var allMethod = methodAuto

// All calls fn(worker, i, j, inter) for every pair i < j of sets with inter =
// |sets[i] ∩ sets[j]|, pairs that share nothing included: the exhaustive
// count behind a similarity histogram of a sample (the analyze and tune
// commands), where Join would skip the pairs below a threshold. The sets
// are sorted, duplicate-free hash slices and are not modified.
//
// Rows (one i against every j > i) are shared out among workers goroutines
// (<= 0 means 1); worker in [0, workers) identifies the caller so that fn
// can keep per-worker state without locks. Calls for one row come from one
// goroutine in ascending j. All returns ctx's error, having stopped within
// a row, when ctx is cancelled.
//
// It makes n(n-1)/2 calls and counts intersections either by merging every
// pair or, when the sets' elements are frequent enough for that to be
// cheaper, by walking for each set the postings of its elements. Memory is
// O(total set size) for the postings and O(n) per worker; nothing is
// allocated per pair.
func All(ctx context.Context, sets [][]uint64, workers int, fn func(worker, i, j, inter int)) error {
	n := len(sets)
	workers = max(workers, 1)
	var post *postings
	if allMethod == methodPostings || allMethod == methodAuto && postingsCheaper(sets) {
		post = newPostings(sets)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		var counts []int32
		if post != nil {
			counts = make([]int32, n)
		}
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n-1 || ctx.Err() != nil {
					return
				}
				a := sets[i]
				if post == nil {
					for j := i + 1; j < n; j++ {
						fn(w, i, j, shingle.Intersection(a, sets[j]))
					}
					continue
				}
				// Count, for every j > i, the elements of i that j has:
				// the postings of i's elements after i.
				for k := post.off[i]; k < post.off[i+1]; k++ {
					for _, j := range post.after(k) {
						counts[j]++
					}
				}
				for j := i + 1; j < n; j++ {
					fn(w, i, j, int(counts[j]))
					counts[j] = 0
				}
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// postingsCheaper reports whether counting through postings should beat
// merging every pair, from the elements' document frequencies.
func postingsCheaper(sets [][]uint64) bool {
	var sorted []uint64
	for _, s := range sets {
		sorted = append(sorted, s...)
	}
	slices.Sort(sorted)
	var sq int64
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		sq += int64(j-i) * int64(j-i-1) / 2
		i = j
	}
	// A posting step (a scattered increment) costs about four merge
	// steps (AVX2, sequential), measured on job ads.
	return 4*sq < int64(max(len(sets)-1, 0))*int64(len(sorted))
}

// postings lists, for every element occurrence k (set i's occurrences are
// off[i]:off[i+1]), the sets after i that have the element.
type postings struct {
	off   []int
	docs  []int32 // sets per distinct element, ascending, concatenated
	end   []int32 // per occurrence: end of its element's sets in docs
	start []int32 // per occurrence: its own position in docs
}

func newPostings(sets [][]uint64) *postings {
	off := make([]int, len(sets)+1)
	for i, s := range sets {
		off[i+1] = off[i] + len(s)
	}
	total := off[len(sets)]
	// Dense element ids in order of first occurrence, from an open
	// addressing table with 1.5 slots an occurrence (linear probing; slot
	// value id+1, 0 for empty; 18 bytes an occurrence): a Go map here was
	// a quarter of an analyze run's CPU.
	size := uint64(total + total/2 + 1)
	keys := make([]uint64, size)
	vals := make([]int32, size)
	occ := make([]int32, 0, total) // dense element id per occurrence
	var df []int32
	for _, s := range sets {
		for _, h := range s {
			k, _ := bits.Mul64(h*0x9e3779b97f4a7c15, size) // in [0, size)
			for vals[k] != 0 && keys[k] != h {
				if k++; k == size {
					k = 0
				}
			}
			if vals[k] == 0 {
				keys[k], vals[k] = h, int32(len(df))+1
				df = append(df, 0)
			}
			id := vals[k] - 1
			occ = append(occ, id)
			df[id]++
		}
	}
	keys, vals = nil, nil
	first := make([]int32, len(df)+1) // start of each element's sets
	for id, c := range df {
		first[id+1] = first[id] + c
	}
	fill := slices.Clone(first[:len(df)])
	p := &postings{off: off, docs: make([]int32, total), end: make([]int32, total), start: make([]int32, total)}
	for i := range sets {
		for k := off[i]; k < off[i+1]; k++ {
			id := occ[k]
			p.start[k] = fill[id]
			p.docs[fill[id]] = int32(i)
			fill[id]++
			p.end[k] = first[id+1]
		}
	}
	return p
}

// after returns the sets after the one of occurrence k that have its element.
func (p *postings) after(k int) []int32 { return p.docs[p.start[k]+1 : p.end[k]] }
