package neardup

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// noReread is a Rereader that is never called: it only makes Options
// select two passes.
type noReread struct{}

func (noReread) Reread(context.Context, func(int) bool, func(int, []byte) error) error {
	panic("not called")
}

// collapseRef is collapse's definition, on one goroutine with a Go map:
// each non-empty set is compared with the first document of its
// fingerprint (same size, then same second hash in two passes or same set
// in one); a set that differs from it is a distinct set and is not
// recorded.
func collapseRef(counts []int32, fps, fps2 []uint64, sets [][]uint64) (rep []uint32, uniqOf []int32, uniq []uint32, ucount []int32, st Stats) {
	n := len(counts)
	first := map[uint64]uint32{}
	rep, uniqOf = make([]uint32, n), make([]int32, n)
	for d := range n {
		rep[d], uniqOf[d] = uint32(d), -1
		st.Shingles += int64(counts[d])
		if counts[d] == 0 {
			st.Empty++
			continue
		}
		if e, ok := first[fps[d]]; ok {
			same := counts[e] == counts[d]
			if fps2 != nil {
				same = same && fps2[e] == fps2[d]
			} else {
				same = same && slices.Equal(sets[e], sets[d])
			}
			if same {
				rep[d], uniqOf[d] = e, uniqOf[e]
				st.Identical++
				continue
			}
		} else {
			first[fps[d]] = uint32(d)
		}
		uniqOf[d] = int32(len(uniq))
		uniq = append(uniq, uint32(d))
		ucount = append(ucount, counts[d])
	}
	st.Distinct = len(uniq)
	return
}

// TestCollapse holds collapse to collapseRef, in two passes (the second
// set hashes decide) and in one (the sets do), on documents drawn from few
// fingerprints, second hashes and sets, so that equal fingerprints hide
// both copies and distinct sets, with empty documents, in chunks of random
// sizes (two cuttings of each corpus).
func TestCollapse(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, twoPass := range []bool{true, false} {
		for _, n := range []int{0, 1, 50, 3000} {
			counts := make([]int32, n)
			fps, fps2 := make([]uint64, n), make([]uint64, n)
			sets := make([][]uint64, n)
			for d := range n {
				if rng.IntN(10) == 0 {
					continue // empty
				}
				counts[d] = int32(1 + rng.IntN(2))
				// Few fingerprints, some of them equal for different
				// second hashes or sets; low values too (not hashed).
				fps[d] = uint64(rng.IntN(n/40 + 2))
				if rng.IntN(2) == 0 {
					fps[d] = rng.Uint64()
				}
				fps2[d] = uint64(rng.IntN(2))
				sets[d] = make([]uint64, counts[d])
				for k := range sets[d] {
					sets[d][k] = uint64(rng.IntN(2))
				}
			}
			var want views
			var wantSt Stats
			if twoPass {
				want.rep, want.uniqOf, want.uniq, want.ucount, wantSt = collapseRef(counts, fps, fps2, nil)
			} else {
				want.rep, want.uniqOf, want.uniq, want.ucount, wantSt = collapseRef(counts, fps, nil, sets)
			}
			if n == 3000 && (wantSt.Identical < 100 || wantSt.Distinct < 100) {
				t.Fatalf("%d identical, %d distinct: the corpus tests too little", wantSt.Identical, wantSt.Distinct)
			}
			for range 2 {
				wantSt := wantSt // plus the chunks' invalid documents
				o := Options{Verify: VerifyExact}
				o.Slots = 4
				if twoPass {
					o.Reread = noReread{}
				}
				b := &Batch{o: o, ids: make([]string, n)}
				for start := 0; start < n; {
					m := min(1+rng.IntN(400), n-start)
					c := &chunk{start: start, counts: counts[start : start+m], fps: fps[start : start+m], invalid: rng.IntN(2)}
					wantSt.InvalidUTF8 += c.invalid
					if twoPass {
						c.fps2 = fps2[start : start+m]
					} else {
						for _, s := range sets[start : start+m] {
							c.sets = append(c.sets, s...)
							c.setEnds = append(c.setEnds, int32(len(c.sets)))
						}
					}
					b.chunks = append(b.chunks, c)
					start += m
				}
				var st Stats
				v := b.collapse(&st)
				if !slices.Equal(v.rep, want.rep) || !slices.Equal(v.uniqOf, want.uniqOf) ||
					!slices.Equal(v.uniq, want.uniq) || !slices.Equal(v.ucount, want.ucount) {
					t.Fatalf("twoPass=%v n=%d: rep, uniqOf, uniq or ucount differ from the reference", twoPass, n)
				}
				if st != wantSt {
					t.Fatalf("twoPass=%v n=%d: stats %+v, want %+v", twoPass, n, st, wantSt)
				}
				if !twoPass {
					for d := range n {
						if !slices.Equal(v.sets[d], sets[d]) {
							t.Fatalf("twoPass=%v n=%d: set %d is %v, want %v", twoPass, n, d, v.sets[d], sets[d])
						}
					}
				}
			}
		}
	}
}
