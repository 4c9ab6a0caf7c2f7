package minhash

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup/internal/detmath"
)

// refWeightedSignature is the slow reference: math.Log, every element in
// every slot, no skipping. near[i] reports whether slot i was decided by a
// relative margin under 1e-12, where a 1-ulp difference of the logarithm
// could legitimately change the winner.
func refWeightedSignature(h *Hasher, set []uint64, w []float64) (sig []uint32, near []bool) {
	for i := range h.Slots() {
		best, second, bv := math.Inf(1), math.Inf(1), ^uint64(0)
		for j, x := range set {
			if !(w[j] > 0) {
				continue
			}
			v := h.a[i]*x + h.b[i]
			u := 1 - float64(v>>11)/(1<<53)
			e := -math.Log(u) / w[j]
			switch {
			case e < best || (e == best && v < bv):
				if v != bv {
					second = best
				}
				best, bv = e, v
			case v != bv && e < second:
				second = e
			}
		}
		sig = append(sig, uint32(bv>>32))
		near = append(near, second-best <= 1e-12*best)
	}
	return sig, near
}

// mixedWeights returns n weights of one kind: 0 in [0.5, 2), 1 in [1, 13)
// (the range of idf weights), 2 in [1e-3, 1e3), 3 in [0.99, 1.01), and
// otherwise in [0, 3) with one in eight of them replaced by one of odd.
func mixedWeights(r *rand.Rand, n, kind int, odd ...float64) []float64 {
	switch kind {
	case 0:
		return randomWeights(r, n, 0.5, 2)
	case 1:
		return randomWeights(r, n, 1, 13)
	case 2:
		return randomWeights(r, n, 1e-3, 1e3)
	case 3:
		return randomWeights(r, n, 0.99, 1.01)
	}
	w := randomWeights(r, n, 0, 3)
	for j := range w {
		if r.IntN(8) == 0 {
			w[j] = odd[r.IntN(len(odd))]
		}
	}
	return w
}

// randomWeights returns n weights in [lo, hi).
func randomWeights(r *rand.Rand, n int, lo, hi float64) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = lo + (hi-lo)*r.Float64()
	}
	return w
}

// weightedPair returns two sets and one global weight per element: inter
// shared elements and nA, nB unique ones, weights drawn from [lo, hi), and
// their exact J_w.
func weightedPair(r *rand.Rand, inter, nA, nB int, lo, hi float64) (a []uint64, wa []float64, b []uint64, wb []float64, jw float64) {
	var si, su float64
	add := func(toA, toB bool) {
		x, w := r.Uint64(), lo+(hi-lo)*r.Float64()
		su += w
		if toA {
			a, wa = append(a, x), append(wa, w)
		}
		if toB {
			b, wb = append(b, x), append(wb, w)
		}
		if toA && toB {
			si += w
		}
	}
	for range inter {
		add(true, true)
	}
	for range nA {
		add(true, false)
	}
	for range nB {
		add(false, true)
	}
	return a, wa, b, wb, si / su
}

func TestLogDet(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	maxULP, maxRel := 0.0, 0.0
	check := func(x float64) {
		got, want := detmath.Log(x), math.Log(x)
		if got == want {
			return
		}
		ulp := math.Abs(got-want) / (math.Nextafter(math.Abs(want), math.Inf(1)) - math.Abs(want))
		maxULP = max(maxULP, ulp)
		maxRel = max(maxRel, math.Abs(got-want)/math.Abs(want))
	}
	for _, x := range []float64{1, 0.5, 0.25, 0x1p-53, 1 - 0x1p-53, math.Sqrt2 / 2, math.Nextafter(math.Sqrt2/2, 0), math.Nextafter(math.Sqrt2/2, 1), 0.75, 1.5, math.Sqrt2, 2, 10, 1e300, 1e-300} {
		check(x)
	}
	n := 2_000_000
	if testing.Short() {
		n = 200_000
	}
	for range n {
		check(float64(r.Uint64()>>11) * 0x1p-53) // the race's inputs (0 excluded below)
		check(1 - float64(r.Uint64()>>11)*0x1p-53)
		check(math.Exp(r.Float64()*80 - 40))
	}
	t.Logf("logDet vs math.Log: max %.2g ulp, max relative error %.2g", maxULP, maxRel)
	if maxULP > 1 {
		t.Errorf("logDet differs from math.Log by up to %g ulp", maxULP)
	}
	if detmath.Log(1) != 0 || negLog1m(0) != 0 {
		t.Errorf("detmath.Log(1) = %g, negLog1m(0) = %g, want 0", detmath.Log(1), negLog1m(0))
	}
	// -ln(1-t) >= t is what the skip test relies on.
	for range n {
		k := float64(r.Uint64() >> (11 + r.IntN(53)))
		if negLog1m(k) < k*0x1p-53 {
			t.Fatalf("negLog1m(%g) = %g < t = %g", k, negLog1m(k), k*0x1p-53)
		}
	}
}

func TestWeightedMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	h := mustNew(t, 131, 7) // not a multiple of 4 or 8
	var sig []uint32
	diff, nearSlots := 0, 0
	for _, n := range []int{0, 1, 2, 3, 5, 8, 17, 100, 250, 1000} {
		for trial := range 20 {
			set := randomSet(r, n)
			// Some ignored and tiny weights in the last kind; then
			// duplicates' weights made equal.
			w := mixedWeights(r, n, []int{0, 1, 2, 4}[trial%4], 0, -1, math.NaN(), 1e-300)
			for j := range set { // a duplicate must carry the same weight
				if k := slices.Index(set, set[j]); k < j {
					w[j] = w[k]
				}
			}
			sig = h.AppendWeightedSignature(sig[:0], set, w)
			want, near := refWeightedSignature(h, set, w)
			for i := range want {
				if near[i] {
					nearSlots++
				}
				if sig[i] != want[i] {
					diff++
					if !near[i] {
						t.Fatalf("n=%d trial %d slot %d: got %08x, reference %08x", n, trial, i, sig[i], want[i])
					}
				}
			}
		}
	}
	t.Logf("slots differing from the math.Log reference: %d (near-ties: %d)", diff, nearSlots)
}

// plainWeightedSignature is weightedSignature without the integer bound:
// the exact skip test on every element (the code before the bound).
func plainWeightedSignature(out []uint32, a, b, set []uint64, weights []float64) {
	for i := range out {
		best, bv, thr := math.Inf(1), ^uint64(0), math.Inf(1)
		for j, x := range set {
			v := a[i]*x + b[i]
			k := float64(int64(v >> 11))
			w := weights[j]
			if k > thr*w || !(w > 0) {
				continue
			}
			if e := negLog1m(k) / w; e < best || (e == best && v < bv) {
				best, bv = e, v
				thr = best * skipScale
			}
		}
		out[i] = uint32(bv >> 32)
	}
}

// TestWeightedSkipBound: the integer bound skips only elements that
// cannot win, so signatures are the plain loop's bit for bit, four slots
// at a time and one at a time, over weights
// from narrow to extreme ranges, with zero, negative, NaN, +Inf and
// subnormal weights among them, and sets where one element has k = 0
// (best = 0).
func TestWeightedSkipBound(t *testing.T) {
	defer func(saved bool) { weightedQuads = saved }(weightedQuads)
	r := rand.New(rand.NewPCG(41, 42))
	h := mustNew(t, 67, 3) // groups of four and three slots alone
	for trial := range 3000 {
		weightedQuads = trial%2 == 0
		n := r.IntN(300)
		set := randomSet(r, n)
		w := mixedWeights(r, n, trial%5, 0, -1, math.NaN(), math.Inf(1), 5e-324, 1e300, math.Inf(-1))
		if n > 0 && trial%7 == 0 {
			// An element whose v in slot 0 is below 2^11: k = 0, best = 0.
			x := (0 - h.b[0]) * modInverse(h.a[0])
			if h.a[0]*x+h.b[0] != 0 {
				t.Fatal("modInverse: the planted element's v is not 0")
			}
			set[r.IntN(n)] = x
		}
		got := h.AppendWeightedSignature(nil, set, w)
		want := make([]uint32, h.Slots())
		plainWeightedSignature(want, h.a, h.b, set, w)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (n=%d, quads %v): %x, plain loop %x", trial, n, weightedQuads, got, want)
		}
	}
}

// modInverse returns the inverse of the odd a modulo 2^64.
func modInverse(a uint64) uint64 {
	x := a // Newton's iteration: each step doubles the correct low bits
	for range 6 {
		x *= 2 - a*x
	}
	return x
}

func TestWeightedEqualWeightsIsPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	forEachKernel(t, func(t *testing.T) {
		h := mustNew(t, 128, 11)
		for _, n := range []int{0, 1, 3, 7, 64, 250, 2000} {
			for _, wv := range []float64{1, 0.37, 7.25, 1e-200, 1e200} {
				set := randomSet(r, n)
				w := make([]float64, n)
				for i := range w {
					w[i] = wv
				}
				got := h.AppendWeightedSignature(nil, set, w)
				want := h.AppendSignature(nil, set)
				if !slices.Equal(got, want) {
					t.Fatalf("n=%d w=%g: weighted signature with equal weights differs from AppendSignature", n, wv)
				}
			}
		}
	})
}

func TestWeightedOrderAndIgnored(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	h := mustNew(t, 64, 1)
	set := randomSet(r, 300)
	slices.Sort(set)
	set = slices.Compact(set)
	w := randomWeights(r, len(set), 1, 10)
	want := h.AppendWeightedSignature(nil, set, w)

	// Shuffled, with duplicates.
	type elem struct {
		x uint64
		w float64
	}
	var es []elem
	for i := range set {
		es = append(es, elem{set[i], w[i]})
		if i%5 == 0 {
			es = append(es, elem{set[i], w[i]})
		}
	}
	r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
	var s2 []uint64
	var w2 []float64
	for _, e := range es {
		s2, w2 = append(s2, e.x), append(w2, e.w)
	}
	if got := h.AppendWeightedSignature(nil, s2, w2); !slices.Equal(got, want) {
		t.Errorf("shuffled set with duplicates: signature differs")
	}

	// Extra elements of weight 0, negative or NaN change nothing.
	s3, w3 := slices.Clone(set), slices.Clone(w)
	for _, bad := range []float64{0, -2, math.NaN(), math.Copysign(0, -1)} {
		for range 20 {
			s3, w3 = append(s3, r.Uint64()), append(w3, bad)
		}
	}
	if got := h.AppendWeightedSignature(nil, s3, w3); !slices.Equal(got, want) {
		t.Errorf("ignored elements changed the signature")
	}

	// Nothing of positive weight: the empty signature.
	empty := h.AppendWeightedSignature(nil, nil, nil)
	zero := h.AppendWeightedSignature(nil, set, make([]float64, len(set)))
	for i := range empty {
		if empty[i] != 0xFFFFFFFF || zero[i] != 0xFFFFFFFF {
			t.Fatalf("slot %d: empty %08x, all-zero weights %08x, want ffffffff", i, empty[i], zero[i])
		}
	}

	// Appends after dst.
	pre := []uint32{1, 2, 3}
	got := h.AppendWeightedSignature(pre, set, w)
	if !slices.Equal(got[:3], []uint32{1, 2, 3}) || !slices.Equal(got[3:], want) {
		t.Errorf("AppendWeightedSignature does not append")
	}

	defer func() {
		if recover() == nil {
			t.Errorf("no panic for len(weights) != len(set)")
		}
	}()
	h.AppendWeightedSignature(nil, set, w[1:])
}

// goldenWeightedSig is the start of the 128-slot weighted signature, seed
// 42, of goldenSet with weights goldenWeights. Slots where the weights
// single out a different element than the plain signature differ from
// goldenSig (slots 2, 3, 8, 11 and 13).
var goldenWeightedSig = []uint32{
	0x00c50898, 0x03bc2fd3, 0x06e0250b, 0x009ac64e, 0x03b11aae, 0x00edcac3, 0x0152b14d, 0x03d3cf7e,
	0x032fe640, 0x017e4806, 0x02f4431c, 0x10c0c104, 0x036cb516, 0x0281366d, 0x00a12195, 0x016324b9,
}

// goldenWeights returns n weights cycling through 1, 1.75, ..., 5.5.
func goldenWeights(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = 1 + float64(i%7)*0.75
	}
	return w
}

// TestWeightedGolden pins the weighted signature: a change of the hash, the
// uniform, the logarithm or the tie rule shows here. The first 16 slots are
// literals; all 128 are pinned by their FNV-1a hash and compared with the
// math.Log reference.
func TestWeightedGolden(t *testing.T) {
	h := mustNew(t, 128, 42)
	set := goldenSet()
	w := goldenWeights(len(set))
	sig := h.AppendWeightedSignature(nil, set, w)
	if !slices.Equal(sig[:len(goldenWeightedSig)], goldenWeightedSig) {
		t.Errorf("golden weighted signature drifted:\n got %#08x\nwant %#08x", sig[:len(goldenWeightedSig)], goldenWeightedSig)
	}
	f := fnv.New64a()
	for _, v := range sig {
		f.Write([]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)})
	}
	const want = 0x15e0e7f7bb0b46a6
	if got := f.Sum64(); got != want {
		t.Errorf("golden weighted signature hash = %#x, want %#x (first slots %08x)", got, uint64(want), sig[:4])
	}
	ref, near := refWeightedSignature(h, set, w)
	for i := range ref {
		if sig[i] != ref[i] && !near[i] {
			t.Errorf("slot %d: %08x, math.Log reference %08x", i, sig[i], ref[i])
		}
	}
}

func TestWeightedSignatureAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	h := mustNew(t, 128, 1)
	set := randomSet(r, 250)
	w := randomWeights(r, 250, 1, 12)
	dst := make([]uint32, 0, 128)
	if n := testing.AllocsPerRun(100, func() { dst = h.AppendWeightedSignature(dst[:0], set, w) }); n != 0 {
		t.Errorf("AppendWeightedSignature: %g allocations, want 0", n)
	}
	a, b := set[:200], set[50:]
	slices.Sort(a)
	if n := testing.AllocsPerRun(100, func() { sinkFloat = WeightedJaccard(a, w[:200], b, w[50:]) }); n != 0 {
		t.Errorf("WeightedJaccard: %g allocations, want 0", n)
	}
}

// bruteWeightedJaccard uses maps: Σmin/Σmax over the union.
func bruteWeightedJaccard(a []uint64, wa []float64, b []uint64, wb []float64) float64 {
	ma, mb := map[uint64]float64{}, map[uint64]float64{}
	for i, x := range a {
		ma[x] = wa[i]
	}
	for i, x := range b {
		mb[x] = wb[i]
	}
	var num, den float64
	for x, w := range ma {
		num += min(w, mb[x])
		den += max(w, mb[x])
	}
	for x, w := range mb {
		if _, ok := ma[x]; !ok {
			den += w
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

func TestWeightedJaccard(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	f := func(a []uint64, wa []float64, b []uint64, wb []float64, want float64) {
		t.Helper()
		if got := WeightedJaccard(a, wa, b, wb); math.Abs(got-want) > 1e-12 {
			t.Errorf("WeightedJaccard(%v, %v, %v, %v) = %g, want %g", a, wa, b, wb, got, want)
		}
	}
	f(nil, nil, nil, nil, 0)
	f([]uint64{1}, []float64{2}, nil, nil, 0)
	f([]uint64{1, 2}, []float64{1, 3}, []uint64{2, 3}, []float64{3, 1}, 3.0/5)
	f([]uint64{1, 2}, []float64{0, 0}, []uint64{1, 2}, []float64{0, 0}, 0)
	f([]uint64{5}, []float64{2}, []uint64{5}, []float64{4}, 0.5) // Σmin/Σmax
	for range 2000 {
		na, nb := r.IntN(60), r.IntN(60)
		pool := make([]uint64, na+nb+1)
		for i := range pool {
			pool[i] = r.Uint64N(uint64(len(pool) * 2))
		}
		weight := func(x uint64) float64 { return float64(x%13) * 0.5 } // global, some 0
		mk := func(n int) ([]uint64, []float64) {
			s := slices.Clone(pool[:n])
			r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
			slices.Sort(s)
			s = slices.Compact(s)
			w := make([]float64, len(s))
			for i, x := range s {
				w[i] = weight(x)
			}
			return s, w
		}
		a, wa := mk(na)
		b, wb := mk(nb)
		want := bruteWeightedJaccard(a, wa, b, wb)
		f(a, wa, b, wb, want)
		if WeightedJaccard(a, wa, b, wb) != WeightedJaccard(b, wb, a, wa) {
			t.Fatalf("not symmetric")
		}
	}
}

// TestWeightedAgreement checks that each slot agrees with probability J_w:
// over many pairs with known J_w, the agreement rate is within binomial
// bounds, both for idf-like weights and for weights where J_w is far from
// the plain Jaccard index.
func TestWeightedAgreement(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	const k = 128
	h := mustNew(t, k, 99)
	pairs := 400
	if testing.Short() {
		pairs = 100
	}
	cases := []struct {
		inter, nA, nB int
		lo, hi        float64
	}{
		{150, 50, 50, 1, 12},
		{50, 100, 100, 1, 12},
		{200, 25, 25, 0.1, 10},
		{10, 100, 100, 1, 1.5},
		{3, 2, 1, 0.5, 20},
	}
	var sa, sb []uint32
	for _, c := range cases {
		var agree, slots int
		var sumJ float64
		for range pairs {
			a, wa, b, wb, jw := weightedPair(r, c.inter, c.nA, c.nB, c.lo, c.hi)
			sa = h.AppendWeightedSignature(sa[:0], a, wa)
			sb = h.AppendWeightedSignature(sb[:0], b, wb)
			agree += countEqual(sa, sb)
			slots += k
			sumJ += jw
		}
		obs, p := float64(agree)/float64(slots), sumJ/float64(pairs)
		// J_w varies between pairs; the mean of Bernoulli(J_w) indicators
		// has variance below p(1-p)/n, so the binomial bound is safe.
		if !within(obs, p, slots, 4.5) {
			t.Errorf("%+v: agreement %.4f, mean J_w %.4f (n=%d)", c, obs, p, slots)
		} else {
			t.Logf("%+v: agreement %.4f, mean J_w %.4f", c, obs, p)
		}
	}
}

// TestWeightedBands checks the LSH S-curve for (b, r) = (35, 3): per pair
// with fixed J_w, over many hashers, the fraction of hashers under which
// some band agrees is 1-(1-J_w^r)^b, and each band agrees with J_w^r.
func TestWeightedBands(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	const bands, rows = 35, 3
	trials := 1500
	if testing.Short() {
		trials = 400
	}
	for _, c := range []struct{ inter, nA, nB int }{{60, 70, 70}, {100, 50, 50}, {120, 40, 30}, {160, 20, 20}} {
		a, wa, b, wb, jw := weightedPair(r, c.inter, c.nA, c.nB, 1, 12)
		if got := WeightedJaccard(sorted(a, wa, b, wb, jw)); math.Abs(got-jw) > 1e-12 {
			t.Fatalf("WeightedJaccard %g, constructed J_w %g", got, jw)
		}
		var cand, bandHits int
		var sa, sb []uint32
		for range trials {
			h := mustNew(t, bands*rows, r.Uint64()) // seeds in arithmetic progression share splitmix states
			sa = h.AppendWeightedSignature(sa[:0], a, wa)
			sb = h.AppendWeightedSignature(sb[:0], b, wb)
			any := false
			for band := range bands {
				if slices.Equal(sa[band*rows:(band+1)*rows], sb[band*rows:(band+1)*rows]) {
					bandHits++
					any = true
				}
			}
			if any {
				cand++
			}
		}
		pBand := math.Pow(jw, rows)
		pCand := 1 - math.Pow(1-pBand, bands)
		obsBand := float64(bandHits) / float64(trials*bands)
		obsCand := float64(cand) / float64(trials)
		if !within(obsBand, pBand, trials*bands, 4.5) || !within(obsCand, pCand, trials, 4.5) {
			t.Errorf("J_w %.3f: band rate %.4f want %.4f; candidate rate %.4f want %.4f", jw, obsBand, pBand, obsCand, pCand)
		} else {
			t.Logf("J_w %.3f: band rate %.4f want %.4f; candidate rate %.4f want %.4f", jw, obsBand, pBand, obsCand, pCand)
		}
	}
}

// sorted returns the arguments of WeightedJaccard for two unsorted weighted
// sets given as a, wa, b, wb, sorting each with its weights.
func sorted(a []uint64, wa []float64, b []uint64, wb []float64, _ float64) ([]uint64, []float64, []uint64, []float64) {
	sortPair := func(s []uint64, w []float64) ([]uint64, []float64) {
		idx := make([]int, len(s))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(i, j int) int {
			if s[i] < s[j] {
				return -1
			}
			if s[i] > s[j] {
				return 1
			}
			return 0
		})
		s2, w2 := make([]uint64, len(s)), make([]float64, len(s))
		for i, j := range idx {
			s2[i], w2[i] = s[j], w[j]
		}
		return s2, w2
	}
	a, wa = sortPair(a, wa)
	b, wb = sortPair(b, wb)
	return a, wa, b, wb
}
