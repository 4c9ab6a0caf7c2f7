package sample

import (
	"math"
	"slices"
	"testing"
)

// draw returns the stream indexes sampled from a stream of n items.
func draw(k, n int, seed uint64) []int {
	r := New(k, seed)
	slots := make([]int, k)
	for i := 0; i < n; i++ {
		if s := r.Next(); s >= 0 {
			slots[s] = i
		}
	}
	slots = slots[:r.Len()]
	slices.Sort(slots)
	return slots
}

func TestSmallStreamIsWhole(t *testing.T) {
	for _, n := range []int{0, 1, 5, 10} {
		got := draw(10, n, 7)
		if len(got) != n {
			t.Fatalf("n=%d: sample of %d", n, len(got))
		}
		for i, x := range got {
			if x != i {
				t.Fatalf("n=%d: sample %v, want the whole stream", n, got)
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	a, b := draw(50, 10000, 3), draw(50, 10000, 3)
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different samples")
	}
	if c := draw(50, 10000, 4); slices.Equal(a, c) {
		t.Fatal("different seeds, same sample")
	}
	if len(slices.Compact(slices.Clone(a))) != 50 {
		t.Fatalf("sample %v: want 50 distinct items", a)
	}
}

// Golden: the sample must not change across Go versions or machines.
func TestGolden(t *testing.T) {
	if got := draw(5, 1000, 1); !slices.Equal(got, golden) {
		t.Fatalf("draw(5, 1000, 1) = %v, want %v", got, golden)
	}
}

var golden = []int{409, 423, 505, 757, 996}

// Every item of the stream is sampled with probability k/n.
func TestUniform(t *testing.T) {
	const k, n, runs = 10, 100, 20000
	var hits [n]int
	for s := range runs {
		for _, x := range draw(k, n, uint64(s)+1) {
			hits[x]++
		}
	}
	want := float64(runs) * k / n
	sd := math.Sqrt(want * (1 - float64(k)/n))
	for i, h := range hits {
		if math.Abs(float64(h)-want) > 5*sd {
			t.Errorf("item %d sampled %d times, want %.0f ± %.0f", i, h, want, 5*sd)
		}
	}
}

func TestNextAllocs(t *testing.T) {
	r := New(10, 1)
	if a := testing.AllocsPerRun(1000, func() { r.Next() }); a != 0 {
		t.Fatalf("Next allocates %v times", a)
	}
}
