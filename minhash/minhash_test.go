package minhash

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// refSplitmix is an independent transcription of the splitmix64 reference
// generator, used to derive the documented per-slot constants.
type refSplitmix struct{ state uint64 }

func (s *refSplitmix) next() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// referenceSignature is the slow, obviously correct signature: for each
// slot, derive a and b as documented, evaluate a*x+b on every element and
// keep the top 32 bits of the smallest value.
func referenceSignature(slots int, seed uint64, set []uint64) []uint32 {
	g := refSplitmix{seed}
	sig := make([]uint32, slots)
	for i := range sig {
		a := g.next() | 1
		b := g.next()
		m := uint64(math.MaxUint64)
		for _, x := range set {
			v := a*x + b
			if v < m {
				m = v
			}
		}
		sig[i] = uint32(m >> 32)
	}
	return sig
}

// forEachKernel runs f once per kernel this build and CPU can run, with
// useAVX2 and useAVX512 set accordingly. Tests using it must not run in
// parallel.
func forEachKernel(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	saved2, saved512 := useAVX2, useAVX512
	defer func() { useAVX2, useAVX512 = saved2, saved512 }()
	useAVX2, useAVX512 = false, false
	t.Run("generic", f)
	if haveAVX2 {
		useAVX2 = true
		t.Run("avx2", f)
	} else {
		t.Log("AVX2 kernel not available in this build or on this CPU")
	}
	if haveAVX512 {
		useAVX512 = true
		t.Run("avx512", f)
	} else {
		t.Log("AVX-512 kernel not available in this build or on this CPU")
	}
}

func mustNew(t testing.TB, slots int, seed uint64) *Hasher {
	t.Helper()
	h, err := New(slots, seed)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// randomSet returns n hashes: mostly random, with some values chosen to
// exercise carries and extremes, and some duplicates.
func randomSet(r *rand.Rand, n int) []uint64 {
	special := []uint64{0, 1, math.MaxUint64, 1 << 63, 0xFFFFFFFF, 1 << 32, 0xFFFFFFFF00000000, 0x7FFFFFFFFFFFFFFF}
	set := make([]uint64, n)
	for i := range set {
		switch r.IntN(16) {
		case 0:
			set[i] = special[r.IntN(len(special))]
		case 1:
			if i > 0 {
				set[i] = set[r.IntN(i)]
				continue
			}
			fallthrough
		default:
			set[i] = r.Uint64()
		}
	}
	return set
}

func TestSplitmixReference(t *testing.T) {
	// First outputs of splitmix64 from state 0, as published with the
	// reference implementation (xoshiro.di.unimi.it/splitmix64.c).
	want := []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f}
	var state uint64
	for i, w := range want {
		if got := splitmix64(&state); got != w {
			t.Errorf("splitmix64 output %d = %#x, want %#x", i, got, w)
		}
	}
}

func TestNew(t *testing.T) {
	for _, slots := range []int{0, -1} {
		if h, err := New(slots, 1); err == nil || h != nil {
			t.Errorf("New(%d) = %v, %v; want an error", slots, h, err)
		}
	}
	h := mustNew(t, 7, 99)
	if h.Slots() != 7 || h.Seed() != 99 {
		t.Errorf("Slots, Seed = %d, %d; want 7, 99", h.Slots(), h.Seed())
	}
}

func TestKernelsMatchReference(t *testing.T) {
	sizes := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 250, 1000}
	forEachKernel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for slots := 1; slots <= 130; slots++ {
			seed := r.Uint64()
			h := mustNew(t, slots, seed)
			for _, n := range sizes {
				if testing.Short() && n > 100 && slots%8 != 1 {
					continue
				}
				set := randomSet(r, n)
				want := referenceSignature(slots, seed, set)
				got := h.AppendSignature(nil, set)
				if !slices.Equal(got, want) {
					t.Fatalf("slots %d, seed %#x, |set| %d:\n got %x\nwant %x", slots, seed, n, got, want)
				}
			}
		}
	})
}

func TestEmptySet(t *testing.T) {
	forEachKernel(t, func(t *testing.T) {
		for _, slots := range []int{1, 8, 13, 128} {
			sig := mustNew(t, slots, 5).AppendSignature(nil, nil)
			for i, v := range sig {
				if v != math.MaxUint32 {
					t.Fatalf("slots %d: empty set slot %d = %#x, want 0xffffffff", slots, i, v)
				}
			}
		}
	})
}

// goldenSet is a fixed input for the golden signature: the first 100
// outputs of splitmix64 from state 1.
func goldenSet() []uint64 {
	g := refSplitmix{1}
	set := make([]uint64, 100)
	for i := range set {
		set[i] = g.next()
	}
	return set
}

// goldenSig is the 16-slot signature of goldenSet with seed 42, computed
// independently (in Python) from the documented scheme. If it changes, every
// stored signature and index changes meaning.
var goldenSig = []uint32{
	0x00c50898, 0x03bc2fd3, 0x05acab8c, 0x006cd8ce, 0x03b11aae, 0x00edcac3, 0x0152b14d, 0x03d3cf7e,
	0x01d0675e, 0x017e4806, 0x02f4431c, 0x0ee94c7d, 0x036cb516, 0x00dcf2c8, 0x00a12195, 0x016324b9,
}

// goldenShortSig is the 13-slot signature, seed 0, of goldenShortSet: a
// set with fewer elements than slots, holding the extreme values, and a
// slot count that is not a multiple of the vector width.
var (
	goldenShortSet = []uint64{0, 1, 0xffffffffffffffff}
	goldenShortSig = []uint32{
		0x509946a4, 0xf1c75b8f, 0x389215a2, 0x9901787c, 0x329dc11c, 0x285213bd, 0x07fdd515,
		0x3a094ead, 0x40f8996c, 0x0c8176cb, 0x8404eabd, 0x423f5caf, 0x70da84c6,
	}
)

func TestGoldenSignature(t *testing.T) {
	// The literals were computed independently; the reference must agree
	// with them too, or it is the reference that drifted.
	if ref := referenceSignature(16, 42, goldenSet()); !slices.Equal(ref, goldenSig) {
		t.Errorf("reference disagrees with the golden signature:\n got %#08x\nwant %#08x", ref, goldenSig)
	}
	if ref := referenceSignature(13, 0, goldenShortSet); !slices.Equal(ref, goldenShortSig) {
		t.Errorf("reference disagrees with the short golden signature:\n got %#08x\nwant %#08x", ref, goldenShortSig)
	}
	forEachKernel(t, func(t *testing.T) {
		got := mustNew(t, 16, 42).AppendSignature(nil, goldenSet())
		if !slices.Equal(got, goldenSig) {
			t.Errorf("golden signature drifted:\n got %#08x\nwant %#08x", got, goldenSig)
		}
		got = mustNew(t, 13, 0).AppendSignature(nil, goldenShortSet)
		if !slices.Equal(got, goldenShortSig) {
			t.Errorf("short golden signature drifted:\n got %#08x\nwant %#08x", got, goldenShortSig)
		}
	})
}

func TestDeterminismAndSeeds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	set := randomSet(r, 300)
	forEachKernel(t, func(t *testing.T) {
		a := mustNew(t, 128, 7).AppendSignature(nil, set)
		b := mustNew(t, 128, 7).AppendSignature(nil, set)
		if !slices.Equal(a, b) {
			t.Fatal("same seed, different signatures")
		}
		c := mustNew(t, 128, 8).AppendSignature(nil, set)
		if e := Estimate(a, c); e > 0.05 {
			t.Errorf("seeds 7 and 8 agree on %.0f%% of slots", 100*e)
		}
		// Order and duplicates do not matter.
		shuffled := append(slices.Clone(set), set[:50]...)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if d := mustNew(t, 128, 7).AppendSignature(nil, shuffled); !slices.Equal(a, d) {
			t.Error("shuffling and duplicating the set changed the signature")
		}
		// A k-slot signature starts with the k'-slot one.
		if p := mustNew(t, 37, 7).AppendSignature(nil, set); !slices.Equal(p, a[:37]) {
			t.Error("37-slot signature is not a prefix of the 128-slot one")
		}
	})
}

func TestAppendSignatureAppends(t *testing.T) {
	h := mustNew(t, 20, 1)
	set := randomSet(rand.New(rand.NewPCG(5, 6)), 40)
	want := h.AppendSignature(nil, set)
	forEachKernel(t, func(t *testing.T) {
		dst := []uint32{1, 2, 3}
		got := h.AppendSignature(dst, set)
		if !slices.Equal(got[:3], []uint32{1, 2, 3}) || !slices.Equal(got[3:], want) {
			t.Errorf("AppendSignature(%v) = %v", dst, got)
		}
	})
}

func TestAppendSignatureAllocs(t *testing.T) {
	set := randomSet(rand.New(rand.NewPCG(7, 8)), 250)
	forEachKernel(t, func(t *testing.T) {
		for _, slots := range []int{128, 13} {
			h := mustNew(t, slots, 1)
			dst := make([]uint32, 0, slots)
			allocs := testing.AllocsPerRun(100, func() {
				dst = h.AppendSignature(dst[:0], set)
			})
			if allocs != 0 {
				t.Errorf("slots %d: AppendSignature allocates %v times per call with room in dst", slots, allocs)
			}
		}
	})
}

func TestEstimate(t *testing.T) {
	f := func(a, b []uint32, want float64) {
		t.Helper()
		if got := Estimate(a, b); got != want {
			t.Errorf("Estimate(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
	f(nil, nil, 0)
	f([]uint32{1}, []uint32{1}, 1)
	f([]uint32{1}, []uint32{2}, 0)
	f([]uint32{1, 2, 3, 4, 5, 6, 7}, []uint32{1, 0, 3, 0, 5, 0, 7}, 4.0/7)
	f([]uint32{0, math.MaxUint32, 5, 5, 9}, []uint32{0, math.MaxUint32, 5, 6, 9}, 4.0/5)

	r := rand.New(rand.NewPCG(9, 10))
	for n := range 70 {
		a, b := make([]uint32, n), make([]uint32, n)
		want := 0
		for i := range a {
			a[i] = r.Uint32()
			b[i] = a[i]
			if r.IntN(2) == 0 {
				b[i] ^= 1 << r.IntN(32)
			} else {
				want++
			}
		}
		if n > 0 {
			f(a, b, float64(want)/float64(n))
		}
	}

	defer func() {
		err, _ := recover().(error)
		if !errors.Is(err, ErrMismatch) {
			t.Errorf("Estimate of different lengths: recovered %v, want ErrMismatch", err)
		}
	}()
	Estimate(make([]uint32, 3), make([]uint32, 4))
}

// TestCountEqualKernels compares countEqual, on both kernels, with a plain
// loop over lengths around the vector width and every agreement pattern.
func TestCountEqualKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	forEachKernel(t, func(t *testing.T) {
		for _, n := range []int{0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 127, 128, 129, 256, 1000} {
			for it := 0; it < 50; it++ {
				a := make([]uint32, n)
				b := make([]uint32, n+rng.IntN(3)) // b may be longer
				want := 0
				for i := range a {
					a[i] = rng.Uint32()
					b[i] = rng.Uint32()
					if rng.IntN(3) > 0 || it == 0 {
						b[i] = a[i]
					}
					if a[i] == b[i] {
						want++
					}
				}
				if got := countEqual(a, b); got != want {
					t.Fatalf("n=%d: countEqual = %d, want %d", n, got, want)
				}
			}
		}
	})
}
