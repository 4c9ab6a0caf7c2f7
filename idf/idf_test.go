package idf

import (
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
)

// refDF counts document frequencies with a map, deduplicating each set.
func refDF(sets [][]uint64) map[uint64]int {
	df := map[uint64]int{}
	for _, s := range sets {
		seen := map[uint64]bool{}
		for _, x := range s {
			if !seen[x] {
				seen[x] = true
				df[x]++
			}
		}
	}
	return df
}

// corpus returns n sorted, duplicate-free sets of about size hashes: a
// fraction shared from a pool of boilerplate (Zipf-like popularity, so df
// spans 1..n), the rest unique.
func corpus(r *rand.Rand, n, size, pool int) [][]uint64 {
	common := make([]uint64, pool)
	for i := range common {
		common[i] = r.Uint64()
	}
	sets := make([][]uint64, n)
	for i := range sets {
		s := make([]uint64, 0, size)
		for range size {
			if r.IntN(5) == 0 {
				// Index ~ pool^u: low indexes are popular.
				j := int(math.Pow(float64(pool), r.Float64())) - 1
				s = append(s, common[j])
			} else {
				s = append(s, r.Uint64())
			}
		}
		slices.Sort(s)
		sets[i] = slices.Compact(s)
	}
	return sets
}

func TestComputeMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	f := func(name string, sets [][]uint64) {
		t.Helper()
		saved, procs := parallelFrom, runtime.GOMAXPROCS(0)
		parallelFrom = math.MaxInt
		tab := Compute(sets) // one worker
		parallelFrom = saved
		// Shared among 1, 2, 3 and 5 goroutines, whatever the corpus's
		// size: the same table as one worker's.
		for _, n := range []int{1, 2, 3, 5} {
			parallelFrom = 0
			runtime.GOMAXPROCS(n)
			shared := Compute(sets)
			parallelFrom = saved
			runtime.GOMAXPROCS(procs)
			if !reflect.DeepEqual(shared, tab) {
				t.Fatalf("%s: the table of %d workers differs from one worker's", name, n)
			}
		}
		ref := refDF(sets)
		if tab.N() != len(sets) || tab.Len() != len(ref) {
			t.Fatalf("%s: N %d Len %d, want %d %d", name, tab.N(), tab.Len(), len(sets), len(ref))
		}
		// weight itself is checked by TestWeight; here the document
		// frequencies and the lookup must be exact.
		for x, df := range ref {
			if got, want := tab.Weight(x), weight(len(sets), df); got != want {
				t.Fatalf("%s: Weight(%#x) = %v, want %v (df %d)", name, x, got, want, df)
			}
		}
		absent := weight(len(sets), 0)
		for range 1000 {
			x := r.Uint64()
			if _, ok := ref[x]; !ok && tab.Weight(x) != absent {
				t.Fatalf("%s: Weight of an absent hash = %v, want %v", name, tab.Weight(x), absent)
			}
		}
		// Sets long enough for AppendWeights' prefetching, and one of
		// mostly absent hashes, the extremes among them (the last
		// buckets, which may be empty).
		mixed := []uint64{0, math.MaxUint64, 1 << 63, math.MaxUint64 - 1}
		for range 3 * lookAhead {
			mixed = append(mixed, r.Uint64())
		}
		var w []float64
		for _, s := range append(slices.Clip(sets), mixed) {
			w = tab.AppendWeights(w[:0], s)
			for i, x := range s {
				if w[i] != tab.Weight(x) {
					t.Fatalf("%s: AppendWeights differs from Weight", name)
				}
			}
		}
	}
	f("empty corpus", nil)
	f("empty sets", [][]uint64{{}, nil, {}})
	f("one", [][]uint64{{42}})
	f("extremes", [][]uint64{{0, 1, math.MaxUint64}, {0, math.MaxUint64}, {1 << 63}})
	f("small", corpus(r, 10, 20, 5))
	f("medium", corpus(r, 300, 100, 200))
	f("large", corpus(r, 2000, 250, 3000)) // > 2^9 per partition, several partition bits
	// Unsorted sets with duplicates, and hashes differing only in low bits
	// (same bucket).
	var messy [][]uint64
	for range 200 {
		var s []uint64
		for range r.IntN(50) {
			switch r.IntN(3) {
			case 0:
				s = append(s, r.Uint64N(40)) // many duplicates, one bucket
			case 1:
				s = append(s, 0xdeadbeef00000000|r.Uint64N(64))
			default:
				s = append(s, r.Uint64())
			}
		}
		messy = append(messy, s)
	}
	f("messy", messy)
}

func TestComputeDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	sets := corpus(r, 500, 100, 300)
	a := Compute(sets)
	shuffled := slices.Clone(sets)
	r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for i, s := range shuffled { // and each set reversed (unsorted path)
		if i%2 == 0 {
			s = slices.Clone(s)
			slices.Reverse(s)
			shuffled[i] = s
		}
	}
	b := Compute(shuffled)
	if !slices.Equal(a.entries, b.entries) || !slices.Equal(a.index, b.index) || !slices.Equal(a.weights, b.weights) || a.absent != b.absent {
		t.Errorf("tables differ with the order of sets")
	}
	// Input sets are not modified.
	for _, s := range sets {
		if !slices.IsSorted(s) {
			t.Fatalf("Compute modified a set")
		}
	}
}

func TestWeightValues(t *testing.T) {
	// N = 3: df 1, 2, 3 and absent.
	tab := Compute([][]uint64{{1, 2, 3}, {2, 3}, {3}})
	f := func(h uint64, want float64) {
		t.Helper()
		if got := tab.Weight(h); math.Abs(got-want) > 1e-15 {
			t.Errorf("Weight(%d) = %v, want %v", h, got, want)
		}
	}
	f(1, math.Log(4.0/2)+1)
	f(2, math.Log(4.0/3)+1)
	f(3, 1) // in every document
	f(4, math.Log(4)+1)
}

// TestWeight checks weight against the definition computed with math.Log,
// within the 1 ulp by which math.Log may differ from detmath.Log off amd64,
// and pins some weights bit for bit: they are part of stored results.
func TestWeight(t *testing.T) {
	for n := range 2000 {
		for df := 0; df <= n; df += 1 + df/8 {
			got, want := weight(n, df), math.Log(float64(n+1)/float64(df+1))+1
			if math.Abs(got-want) > math.Abs(math.Nextafter(want, math.Inf(1))-want) {
				t.Fatalf("weight(%d, %d) = %v, want %v", n, df, got, want)
			}
		}
	}
	for _, c := range []struct {
		n, df int
		bits  uint64
	}{
		{0, 0, 0x3ff0000000000000}, // 1
		{1, 0, 0x3ffb17217f7d1cf8}, // ln 2 + 1
		{1, 1, 0x3ff0000000000000},
		{3, 1, 0x3ffb17217f7d1cf8},
		{3, 2, 0x3ff49a58844d36e4},
		{100, 7, 0x400c49120efbc8ee},
		{100000, 1, 0x4027a3bb4a3df157},
		{100000, 99999, 0x3ff0000a7c5754d8},
		{25_000_000, 3, 0x4030a5e95c81da4e},
	} {
		if got := weight(c.n, c.df); math.Float64bits(got) != c.bits {
			t.Errorf("weight(%d, %d) = %v (%#016x), want %v (%#016x)", c.n, c.df, got, math.Float64bits(got), math.Float64frombits(c.bits), c.bits)
		}
	}
}

func TestWeightAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	sets := corpus(r, 100, 250, 100)
	tab := Compute(sets)
	dst := make([]float64, 0, 300)
	if n := testing.AllocsPerRun(100, func() { dst = tab.AppendWeights(dst[:0], sets[3]) }); n != 0 {
		t.Errorf("AppendWeights: %g allocations, want 0", n)
	}
}
