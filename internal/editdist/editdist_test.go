package editdist

import (
	"math/rand/v2"
	"testing"
)

// reference is the textbook dynamic programme.
func reference(a, b []uint64) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func TestDistanceAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s Scratch
	lengths := []int{0, 1, 2, 5, 63, 64, 65, 100, 127, 128, 129, 200, 300}
	for it := 0; it < 3000; it++ {
		alpha := uint64(1 + rng.IntN(20))
		if rng.IntN(4) == 0 {
			alpha = 1 << 40
		}
		a := make([]uint64, lengths[rng.IntN(len(lengths))]+rng.IntN(3))
		for i := range a {
			a[i] = rng.Uint64N(alpha)
		}
		// b: an edited copy of a, or independent.
		var b []uint64
		if rng.IntN(2) == 0 {
			for _, x := range a {
				switch rng.IntN(10) {
				case 0: // delete
				case 1:
					b = append(b, rng.Uint64N(alpha), x)
				case 2:
					b = append(b, rng.Uint64N(alpha))
				default:
					b = append(b, x)
				}
			}
		} else {
			b = make([]uint64, lengths[rng.IntN(len(lengths))])
			for i := range b {
				b[i] = rng.Uint64N(alpha)
			}
		}
		want := reference(a, b)
		if got := s.Distance(a, b); got != want {
			t.Fatalf("|a|=%d |b|=%d alphabet %d: Distance = %d, want %d", len(a), len(b), alpha, got, want)
		}
		if got := s.Distance(b, a); got != want {
			t.Fatalf("not symmetric: %d vs %d", got, want)
		}
	}
}

func TestSimilarity(t *testing.T) {
	var s Scratch
	f := func(a, b []uint64, want float64) {
		t.Helper()
		if got := s.Similarity(a, b); got != want {
			t.Errorf("Similarity(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
	f(nil, nil, 1)
	f([]uint64{1, 2, 3, 4}, []uint64{1, 2, 3, 4}, 1)
	f([]uint64{1, 2, 3, 4}, []uint64{1, 9, 3, 4}, 0.75)
	f([]uint64{1, 2, 3, 4}, nil, 0)
	f([]uint64{1, 2, 3, 4}, []uint64{2, 3, 4}, 0.75)
}

func TestNoAllocations(t *testing.T) {
	var s Scratch
	a := make([]uint64, 300)
	b := make([]uint64, 280)
	for i := range a {
		a[i] = uint64(i * 7 % 50)
	}
	for i := range b {
		b[i] = uint64(i * 5 % 50)
	}
	s.Distance(a, b)
	if n := testing.AllocsPerRun(100, func() { s.Distance(a, b) }); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
}
