package analyze

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"

	"github.com/neardup/neardup/cmd/neardup/internal/sample"
	"github.com/neardup/neardup/internal/gen"
	"github.com/neardup/neardup/shingle"
)

// testDocs returns n generated ads with some near copies, and two documents
// without a token among them.
func testDocs(t *testing.T, n int) (ids []string, texts []string) {
	t.Helper()
	err := gen.GenerateAds(gen.Config{Docs: n, Seed: 3}, func(i int, d gen.Doc) error {
		ids, texts = append(ids, d.ID), append(texts, d.Text)
		if i == 5 {
			ids, texts = append(ids, "none-1", "none-2"), append(texts, " ... !!! ", "")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids, texts
}

// TestSampler checks the sample against a plain reservoir over the
// non-empty documents, and that the text is copied.
func TestSampler(t *testing.T) {
	ids, texts := testDocs(t, 200)
	for _, k := range []int{0, 1, 2, 50, 199, 200, 500} {
		s, err := NewSampler(k, 9, false)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 0, 4096)
		for i := range ids {
			buf = append(buf[:0], texts[i]...)
			if err := s.Add(ids[i], buf); err != nil {
				t.Fatal(err)
			}
			clear(buf[:cap(buf)])
		}
		got := s.Sample()

		// Reference: the reservoir's slots filled by hand, then sorted.
		r := sample.New(k, 9)
		var want []Doc
		empty, seen := 0, 0
		for i := range ids {
			if strings.IndexFunc(texts[i], func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
				empty++
				continue
			}
			seen++
			switch slot := r.Next(); {
			case slot == len(want):
				want = append(want, Doc{Num: seen - 1, ID: ids[i], Text: []byte(texts[i])})
			case slot >= 0:
				want[slot] = Doc{Num: seen - 1, ID: ids[i], Text: []byte(texts[i])}
			}
		}
		sort.Slice(want, func(a, b int) bool { return want[a].Num < want[b].Num })
		if got.Seen != seen || got.Empty != empty || got.Empty < 2 {
			t.Errorf("k=%d: seen %d empty %d, want %d %d", k, got.Seen, got.Empty, seen, empty)
		}
		if len(got.Docs) != len(want) {
			t.Fatalf("k=%d: %d documents, want %d", k, len(got.Docs), len(want))
		}
		for i := range want {
			g, w := got.Docs[i], want[i]
			if g.Num != w.Num || g.ID != w.ID || string(g.Text) != string(w.Text) {
				t.Fatalf("k=%d: doc %d = %d %s %.20q, want %d %s %.20q", k, i, g.Num, g.ID, g.Text, w.Num, w.ID, w.Text)
			}
		}
	}
}

// TestPairs checks Pairs against the Jaccard of every pair computed one by
// one, on several worker counts, lengths and cutoffs.
func TestPairs(t *testing.T) {
	ids, texts := testDocs(t, 120)
	s, err := NewSampler(1000, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ids {
		s.Add(ids[i], []byte(texts[i]))
	}
	smp := s.Sample()
	cutoffs := []float64{0.05, 0.3, 0.5, 0.8}
	for _, l := range []Length{{shingle.Word, 1}, {shingle.Word, 3}, {shingle.Char, 5}} {
		sh, err := shingle.New(shingle.Options{Mode: l.Mode, N: l.N})
		if err != nil {
			t.Fatal(err)
		}
		// Reference.
		var hist [NumBins]int64
		atLeast := make([]int64, len(cutoffs))
		var all []Example
		sets := make([][]uint64, len(smp.Docs))
		total := 0
		for i, d := range smp.Docs {
			sets[i] = sh.AppendSet(nil, d.Text)
			total += len(sets[i])
		}
		for i := range sets {
			for j := i + 1; j < len(sets); j++ {
				jac := shingle.Jaccard(sets[i], sets[j])
				hist[min(NumBins-1, int(math.Floor(jac*NumBins+1e-9)))]++
				for c, cut := range cutoffs {
					if jac >= cut {
						atLeast[c]++
					}
				}
				all = append(all, Example{A: i, B: j, Jaccard: jac})
			}
		}
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/%d", l, workers), func(t *testing.T) {
				var rows atomic.Int64
				r, err := Pairs(context.Background(), smp, sh, l, cutoffs, 3, workers, func() { rows.Add(1) })
				if err != nil {
					t.Fatal(err)
				}
				n := int64(len(smp.Docs))
				if r.Length != l || r.Pairs != n*(n-1)/2 || rows.Load() != n-1 {
					t.Errorf("length %v pairs %d rows %d, want %v %d %d", r.Length, r.Pairs, rows.Load(), l, n*(n-1)/2, n-1)
				}
				if r.Hist != hist {
					t.Errorf("histogram %v, want %v", r.Hist, hist)
				}
				if !slices.Equal(r.AtLeast, atLeast) {
					t.Errorf("at least %v, want %v", r.AtLeast, atLeast)
				}
				if want := float64(total) / float64(n); r.MeanSet != want {
					t.Errorf("mean set %v, want %v", r.MeanSet, want)
				}
				for c, cut := range cutoffs {
					want := slices.Clone(all)
					for i := range want {
						want[i].Dist = math.Abs(want[i].Jaccard - cut)
					}
					slices.SortFunc(want, func(p, q Example) int {
						if p.closer(q) {
							return -1
						}
						return 1
					})
					if !slices.Equal(r.Examples[c], want[:3]) {
						t.Errorf("cutoff %g: examples %v, want %v", cut, r.Examples[c], want[:3])
					}
				}
			})
		}
	}
}

func TestPairsCancelled(t *testing.T) {
	ids, texts := testDocs(t, 50)
	s, _ := NewSampler(100, 1, false)
	for i := range ids {
		s.Add(ids[i], []byte(texts[i]))
	}
	sh, _ := shingle.New(shingle.Options{Mode: shingle.Word, N: 2})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Pairs(ctx, s.Sample(), sh, Length{shingle.Word, 2}, []float64{0.5}, 1, 2, nil); err == nil {
		t.Error("no error from a cancelled context")
	}
}
