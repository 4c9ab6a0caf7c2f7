package dedupout_test

import (
	"bytes"
	"fmt"
	"iter"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/neardup/neardup/internal/dedupout"
)

// appendLines is the sequential reference of the pairs writers: a line
// a pair, AppendPair's bytes and with edit the fourth column.
func appendLines(dst []byte, ids []string, ps []dedupout.Pair, edit bool) []byte {
	for _, p := range ps {
		dst = dedupout.AppendPair(dst, ids[p.A], ids[p.B], p.Jaccard)
		if edit {
			dst = append(dst, '\t')
			dst = strconv.AppendFloat(dst, p.Edit, 'f', 6, 64)
		}
		dst = append(dst, '\n')
	}
	return dst
}

// The parallel writers write the reference's bytes on random ids (short
// and long, some to escape: with slots and without) and random listings
// (runs of one Jaccard, documents of no pairs and of many), for any
// number of workers, with and without the edit column, and report every
// pair to Progress.
func TestWritePairsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := range 40 {
		nd := 1 + rng.IntN(3000)
		ids := make([]string, nd)
		idLen := []int{4, 12, 30}[round%3]
		for d := range ids {
			b := make([]byte, rng.IntN(idLen+1))
			for k := range b {
				b[k] = "abc\t\\\n\rxyz0123456789"[rng.IntN(20)]
			}
			ids[d] = string(b)
		}
		// Pairs sorted by A, as the engine lists them; per document.
		byDoc := make([][]dedupout.Pair, nd)
		var all []dedupout.Pair
		jac := 0.5
		for a := range nd {
			for range rng.IntN([]int{1, 4, 40}[round%3]) {
				if rng.IntN(3) == 0 {
					jac = float64(rng.IntN(1_000_001)) / 1e6
				}
				p := dedupout.Pair{A: a, B: rng.IntN(nd), Jaccard: jac, Edit: rng.Float64()}
				byDoc[a] = append(byDoc[a], p)
				all = append(all, p)
			}
		}
		seq := func(lo, hi int) iter.Seq[dedupout.Pair] {
			return func(yield func(dedupout.Pair) bool) {
				for _, ps := range byDoc[lo:hi] {
					for _, p := range ps {
						if !yield(p) {
							return
						}
					}
				}
			}
		}
		edit := round%2 == 1
		want := appendLines(nil, ids, all, edit)
		for _, workers := range []int{1, 3} {
			var reported int64
			o := dedupout.PairsOptions{Edit: edit, Workers: workers, Progress: func(n int64) { reported += n }}
			var got bytes.Buffer
			if err := dedupout.WritePairs(&got, ids, all, o); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) || reported != int64(len(all)) {
				t.Fatalf("round %d, WritePairs, %d workers: %d bytes (%d pairs reported), want %d (%d)", round, workers, got.Len(), reported, len(want), len(all))
			}
			got.Reset()
			reported = 0
			// An estimate of the number of pairs serves.
			if err := dedupout.WritePairRanges(&got, ids, nd, len(all)/2+rng.IntN(len(all)+1), seq, o); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) || reported != int64(len(all)) {
				t.Fatalf("round %d, WritePairRanges, %d workers: %d bytes (%d pairs reported), want %d (%d)", round, workers, got.Len(), reported, len(want), len(all))
			}
		}
	}
}

// A type of Pair's fields, such as the engine's pair type, is written as
// it is.
type enginePair struct {
	A, B    int
	Jaccard float64
	Edit    float64
}

func ExampleWritePairs() {
	ids := []string{"a.jsonl:1", "a.jsonl:2", "id\twith a tab"}
	ps := []enginePair{{A: 0, B: 1, Jaccard: 0.75}, {A: 0, B: 2, Jaccard: 1}}
	if err := dedupout.WritePairs(os.Stdout, ids, ps, dedupout.PairsOptions{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// a.jsonl:1	a.jsonl:2	0.750000
	// a.jsonl:1	id\twith a tab	1.000000
}
