package pairscore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// canonicalSlow is Canonical by comparing every pair of sets.
func canonicalSlow(sets [][]uint64) []int {
	canon := make([]int, len(sets))
	for i, s := range sets {
		canon[i] = i
		if len(s) == 0 {
			continue
		}
		for j := range i {
			if slices.Equal(sets[j], s) {
				canon[i] = j
				break
			}
		}
	}
	return canon
}

// randomSets draws n sorted sets from a few shapes, so that copies (and
// empty sets) are common.
func randomSets(r *rand.Rand, n int) [][]uint64 {
	shapes := [][]uint64{nil, {1}, {1, 2}, {2, 3}, {1, 2, 3}, {1 << 40}, {5, 1 << 33}}
	sets := make([][]uint64, n)
	for i := range sets {
		sets[i] = slices.Clone(shapes[r.IntN(len(shapes))])
	}
	return sets
}

func TestCanonicalAgainstSlow(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		sets := randomSets(r, r.IntN(30))
		if got, want := Canonical(sets), canonicalSlow(sets); !slices.Equal(got, want) {
			t.Fatalf("trial %d: Canonical(%v) = %v, want %v", trial, sets, got, want)
		}
	}
	// Sets that differ only in the high bytes of a hash are not copies.
	if got := Canonical([][]uint64{{1}, {1 << 32}, {1}}); !slices.Equal(got, []int{0, 1, 0}) {
		t.Fatalf("Canonical = %v, want [0 1 0]", got)
	}
}

// foundSlow is the rule of Found spelled out over a list of reported pairs:
// a true pair is found when its documents are copies of one another, or
// when some reported pair joins i (or i's earliest copy) to j (or j's).
func foundSlow(reported [][2]int, canon []int, i, j int) bool {
	if canon[i] == canon[j] {
		return true
	}
	for _, p := range reported {
		for _, q := range [][2]int{{i, j}, {canon[i], canon[j]}} {
			if p == q || p == [2]int{q[1], q[0]} {
				return true
			}
		}
	}
	return false
}

func TestScoreAgainstSlow(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		n := 2 + r.IntN(20)
		canon := canonicalSlow(randomSets(r, n))
		var list [][2]int
		rep := NewReported(func(i int) int { return canon[i] }, 0)
		var s Score
		truth := map[[2]int]bool{}
		for range r.IntN(3 * n) {
			i, j := r.IntN(n), r.IntN(n)
			if i == j {
				continue
			}
			if r.IntN(2) == 0 {
				truth[[2]int{min(i, j), max(i, j)}] = true
			}
			if r.IntN(2) == 0 && rep.Add(i, j) {
				list = append(list, [2]int{i, j})
				s.Reported++
				if truth[[2]int{min(i, j), max(i, j)}] {
					s.Correct++
				}
			}
		}
		found := 0
		for p := range truth {
			s.Exact++
			want := foundSlow(list, canon, p[0], p[1])
			if got := rep.Found(p[1], p[0]); got != want {
				t.Fatalf("trial %d: Found(%d, %d) = %v, want %v (canon %v, reported %v)", trial, p[1], p[0], got, want, canon, list)
			}
			if want {
				s.Found++
				found++
			}
		}
		if s.Exact > 0 && s.Recall() != float64(found)/float64(len(truth)) {
			t.Fatalf("trial %d: recall %v, want %d/%d", trial, s.Recall(), found, len(truth))
		}
	}
}

func TestRatesOfEmptyScore(t *testing.T) {
	s := Score{}
	if s.Recall() != 1 || s.Precision() != 1 {
		t.Fatalf("empty score: recall %v precision %v, want 1 and 1", s.Recall(), s.Precision())
	}
	s = Score{Exact: 4, Found: 3, Reported: 5, Correct: 2}
	if s.Recall() != 0.75 || s.Precision() != 0.4 {
		t.Fatalf("recall %v precision %v, want 0.75 and 0.4", s.Recall(), s.Precision())
	}
}

func TestKey(t *testing.T) {
	for _, p := range [][2]int{{0, 1}, {7, 3}, {1<<32 - 1, 5}} {
		k := Key(p[0], p[1])
		if k != Key(p[1], p[0]) {
			t.Fatalf("Key(%d, %d) != Key(%d, %d)", p[0], p[1], p[1], p[0])
		}
		if i, j := Split(k); i != min(p[0], p[1]) || j != max(p[0], p[1]) {
			t.Fatalf("Split(Key(%d, %d)) = %d, %d", p[0], p[1], i, j)
		}
	}
}

// A copy of a reported document is found through the earliest copy.
func ExampleReported_Found() {
	sets := [][]uint64{{1, 2}, {3, 4}, {1, 2}} // 2 is a copy of 0
	canon := Canonical(sets)
	rep := NewReported(func(i int) int { return canon[i] }, 1)
	rep.Add(0, 1)
	s := Score{Exact: 3, Reported: 1, Correct: 1}
	for _, p := range [][2]int{{0, 1}, {1, 2}, {0, 2}} {
		if rep.Found(p[0], p[1]) {
			s.Found++
		}
	}
	fmt.Println(canon, s.Recall(), s.Precision())
	// Output: [0 1 0] 1 1
}
