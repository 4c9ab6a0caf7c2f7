package lsh

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// kernels runs f with each set of kernels this build and CPU have: the
// generic ones, AVX2 (equalRows, agreeRows and equalBits have one) and
// AVX-512.
func kernels(t *testing.T, f func(t *testing.T)) {
	defer func(u, v bool) { useAVX512, useAVX2 = u, v }(useAVX512, useAVX2)
	useAVX512, useAVX2 = false, false
	t.Run("generic", f)
	if haveAVX2 {
		useAVX2 = true
		t.Run("avx2", f)
	} else {
		t.Log("no AVX2 kernel in this build or on this CPU")
	}
	if haveAVX512 {
		useAVX512 = true
		t.Run("avx512", f)
	} else {
		t.Log("no AVX-512 kernel in this build or on this CPU")
	}
}

// TestAgreeRows: every kernel finds exactly the rows a plain byte count
// says reach need, at the boundary need-1/need/need+1 of each row's count.
func TestAgreeRows(t *testing.T) {
	kernels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, words := range []int{1, 3, 8, 16, 24, 32} {
			for range 50 {
				m := 1 + rng.IntN(70)
				low := make([]uint64, m*words)
				for i := range low {
					low[i] = rng.Uint64()
				}
				a := slices.Clone(low[:words])
				// Copy a random share of a's bytes into each row.
				ab := make([]byte, 8*words)
				for k := range ab {
					ab[k] = byte(a[k/8] >> (8 * (k % 8)))
				}
				counts := make([]int, m)
				for y := range m {
					share := rng.IntN(101)
					for k := range ab {
						w, sh := y*words+k/8, 8*(k%8)
						if rng.IntN(100) < share {
							low[w] = low[w]&^(0xff<<sh) | uint64(ab[k])<<sh
						}
						if byte(low[w]>>sh) == ab[k] {
							counts[y]++
						}
					}
				}
				lo := rng.IntN(m + 1)
				hi := lo + rng.IntN(m-lo+1)
				for _, need := range []int{0, 1, counts[0], counts[m-1], counts[m/2] + 1, 8 * words, 8*words + 1} {
					var want []int32
					wantMasks := []uint64{42}
					mw := (words + 7) / 8
					for y := lo; y < hi; y++ {
						if counts[y] >= need {
							want = append(want, int32(y))
							// The byte-equality bits, a byte at a time.
							ms := make([]uint64, mw)
							for k := range ab {
								if byte(low[y*words+k/8]>>(8*(k%8))) == ab[k] {
									ms[k/64] |= 1 << (k % 64)
								}
							}
							wantMasks = append(wantMasks, ms...)
						}
					}
					prefix := []int32{-7}
					got, masks := agreeRows(slices.Clone(prefix), []uint64{42}, a, low, words, lo, hi, need)
					if got[0] != -7 || !slices.Equal(got[1:], want) {
						t.Fatalf("words %d, rows [%d, %d) of %d, need %d: got %v, want %v", words, lo, hi, m, need, got, want)
					}
					if !slices.Equal(masks, wantMasks) {
						t.Fatalf("words %d, rows [%d, %d) of %d, need %d: masks %x, want %x", words, lo, hi, m, need, masks, wantMasks)
					}
				}
			}
		}
	})
}

// TestAgreeingPairsKernels: AgreeingPairs gives the pairs a plain count of
// equal values gives, with either kernel, for 64 and 128 slots (whole
// 64-byte rows) and 100 (the generic path).
func TestAgreeingPairsKernels(t *testing.T) {
	kernels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(9, 10))
		for _, slots := range []int{64, 100, 128} {
			const m = 60
			sigs := make([]uint32, m*slots)
			for i := range sigs {
				// Values equal in the low byte but not above, to test
				// the second, exact comparison.
				sigs[i] = uint32(rng.IntN(2))<<8 | uint32(rng.IntN(2))
			}
			sig := func(x int) []uint32 { return sigs[x*slots : (x+1)*slots] }
			for _, need := range []int{slots / 4, slots / 3, slots / 2} {
				var got, want []string
				AgreeingPairs(m, need, sig, func(x, y int) bool { got = append(got, fmt.Sprint(x, y)); return true })
				for x := range m {
					for y := x + 2; y < m; y++ {
						if slotsAgree(sig(x), sig(y)) >= need {
							want = append(want, fmt.Sprint(x, y))
						}
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("slots %d need %d: %d pairs, want %d", slots, need, len(got), len(want))
				}
				if need == slots/4 && len(want) == 0 {
					t.Fatalf("slots %d need %d: no pair passes, the test shows nothing", slots, need)
				}
			}
		}
	})
}

// TestBandBits: equalBits sets and counts what a plain loop does, and the
// band starts left by bandBits.runs from those bits are the bands on which
// the two signatures agree.
func TestBandBits(t *testing.T) { kernels(t, testBandBits) }

func testBandBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	checked := 0
	for _, p := range []Params{{35, 3}, {1, 1}, {64, 1}, {20, 5}, {13, 9}, {2, 64}, {4, 30}, {64, 2}} {
		for _, slots := range []int{p.Bands * p.Rows, p.Bands*p.Rows + 7, 128, 192} {
			if slots < p.Bands*p.Rows {
				continue
			}
			for range 300 {
				a, b := make([]uint32, slots), make([]uint32, slots)
				share := rng.IntN(101)
				for k := range slots {
					a[k] = uint32(rng.IntN(1000))
					b[k] = uint32(rng.IntN(1000))
					if rng.IntN(100) < share {
						b[k] = a[k]
					}
				}
				eq := make([]uint64, (slots+63)/64)
				for k := range eq {
					eq[k] = rng.Uint64() // stale bits must be cleared
				}
				if got, want := equalBits(eq, a, b), slotsAgree(a, b); got != want {
					t.Fatalf("equalBits = %d, want %d", got, want)
				}
				for k := range slots {
					if got, want := eq[k/64]>>(k%64)&1 == 1, a[k] == b[k]; got != want {
						t.Fatalf("slots %d: bit %d is %v, want %v", slots, k, got, want)
					}
				}
				if slots%64 != 0 && eq[len(eq)-1]>>(slots%64) != 0 {
					t.Fatalf("slots %d: bits past the end set", slots)
				}
				bb, ok := p.newBandBits(slots)
				if !ok {
					t.Fatalf("%v: newBandBits refused", p)
				}
				for band := range p.Bands {
					k := band * p.Rows
					got := bb.runs(eq, k/64)&bb.starts[k/64]&(1<<(k%64)) != 0
					if want := slices.Equal(a[k:k+p.Rows], b[k:k+p.Rows]); got != want {
						t.Fatalf("%v slots %d: band %d agrees by the bits: %v, by the values: %v", p, slots, band, got, want)
					}
					if got {
						checked++
					}
				}
			}
		}
	}
	if _, ok := (Params{65, 1}).newBandBits(128); ok {
		t.Error("65 bands accepted")
	}
	if _, ok := (Params{35, 3}).newBandBits(100); ok {
		t.Error("105 slots of bands in 100 accepted")
	}
	t.Logf("%d checked", checked)
}

func ExampleAgreeingPairs() {
	// A chained bucket of four members (8 slots each) in ascending order.
	// Its chain gives (0,1), (1,2), (2,3); AgreeingPairs adds the other
	// pairs whose signatures agree on at least 6 of the 8 values.
	sigs := [][]uint32{
		{1, 2, 3, 4, 5, 6, 7, 8},
		{1, 2, 3, 9, 9, 9, 9, 9},
		{1, 2, 3, 4, 5, 6, 0, 0}, // 6 with member 0
		{1, 2, 3, 4, 5, 6, 7, 0}, // 7 with member 0; 3 with member 1
	}
	AgreeingPairs(len(sigs), 6, func(x int) []uint32 { return sigs[x] }, func(x, y int) bool {
		fmt.Println(x, y)
		return true
	})
	// Output:
	// 0 2
	// 0 3
}

// TestAgreeingKept: the pairs agreeingKept gives for a chained bucket are
// those a plain count of equal values and ReportBand give, with either
// kernel, for Params it reads from equality bits and for Params it does
// not (more than 64 bands), with values that agree in their low byte and
// not above (so a band whose low bytes all agree does not always agree).
func TestAgreeingKept(t *testing.T) {
	kernels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(15, 16))
		checked := 0
		for _, c := range []struct {
			p     Params
			slots int
		}{{Params{35, 3}, 128}, {Params{8, 3}, 64}, {Params{20, 5}, 100}, {Params{64, 2}, 128}, {Params{70, 1}, 70}} {
			for _, band := range []int{0, 1, c.p.Bands / 2, c.p.Bands - 1} {
				const m = 80
				slots := c.slots
				sigs := make([]uint32, m*slots)
				for i := range sigs {
					sigs[i] = uint32(rng.IntN(2))<<8 | uint32(rng.IntN(2))
				}
				at := func(x int) []uint32 { return sigs[x*slots : (x+1)*slots] }
				// A bucket of band: its members agree on it.
				for x := range m {
					copy(at(x)[band*c.p.Rows:(band+1)*c.p.Rows], at(0)[band*c.p.Rows:])
				}
				ids := make([]uint32, m)
				words := (c.p.Bands + 63) / 64
				large := make([]uint64, m*words)
				for x := range m {
					ids[x] = uint32(3 * x)
					for k := range c.p.Bands {
						if k == band || rng.IntN(4) > 0 {
							large[x*words+k/64] |= 1 << (k % 64)
						}
					}
				}
				largeOf := func(i uint32) []uint64 { return large[int(i/3)*words : int(i/3+1)*words] }
				for _, need := range []int{slots / 3, slots / 2, 2 * slots / 3} {
					var got, want []string
					c.p.agreeingKept(ids, band, need, sigs, largeOf, nil, func(x, y int) bool {
						got = append(got, fmt.Sprint(x, y))
						return true
					})
					for x := range m {
						for y := x + 2; y < m; y++ {
							if slotsAgree(at(x), at(y)) >= need && c.p.ReportBand(at(x), at(y), largeOf(ids[x])) == band {
								want = append(want, fmt.Sprint(x, y))
							}
						}
					}
					if !slices.Equal(got, want) {
						t.Fatalf("%v slots %d band %d need %d: %d pairs, want %d", c.p, slots, band, need, len(got), len(want))
					}
					checked += len(want)
				}
			}
		}
		if checked < 1000 {
			t.Fatalf("only %d kept pairs checked: the inputs show little", checked)
		}
	})
}

// TestAgreesBefore: the report-band test from equality bits (equalPrefix,
// then bandBits.agreesBefore) answers as bands does on the values, for
// every band, with and without chained-bucket bits, from a prefix of n
// values and from the whole signature's bits.
func TestAgreesBefore(t *testing.T) { kernels(t, testAgreesBefore) }

func testAgreesBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	prefixes, agreed := 0, 0
	for _, p := range []Params{{35, 3}, {1, 1}, {64, 1}, {20, 5}, {13, 9}, {2, 64}, {4, 30}, {64, 2}, {42, 3}} {
		for _, slots := range []int{p.Bands * p.Rows, p.Bands*p.Rows + 7, 128} {
			bb, ok := p.newBandBits(slots)
			if slots < p.Bands*p.Rows || !ok || len(bb.starts) > 2 {
				continue
			}
			for range 300 {
				a, b := make([]uint32, slots), make([]uint32, slots)
				share := 50 + rng.IntN(51)
				for k := range slots {
					a[k] = uint32(rng.IntN(1000))
					b[k] = uint32(rng.IntN(1000))
					if rng.IntN(100) < share {
						b[k] = a[k]
					}
				}
				var large []uint64
				switch rng.IntN(3) {
				case 1:
					large = []uint64{rng.Uint64() & rng.Uint64()}
				case 2:
					large = []uint64{0}
				}
				var full [2]uint64
				equalBitsGeneric(full[:len(bb.starts)], a, b)
				for band := 1; band <= p.Bands; band++ {
					n := band * p.Rows
					small, _ := p.bands(a[:n], b[:n], large)
					want := small >= 0
					if want {
						agreed++
					}
					if got := bb.agreesBefore(&full, band, large); got != want {
						t.Fatalf("%v slots %d band %d large %x: from all bits %v, bands says %v", p, slots, band, large, got, want)
					}
					var eq [2]uint64
					if !equalPrefix(&eq, a, b, n) {
						continue
					}
					prefixes++
					for k := range n {
						if got, w := eq[k/64]>>(k%64)&1 == 1, a[k] == b[k]; got != w {
							t.Fatalf("equalPrefix n %d: bit %d is %v, want %v", n, k, got, w)
						}
					}
					if got := bb.agreesBefore(&eq, band, large); got != want {
						t.Fatalf("%v slots %d band %d large %x: from the prefix %v, bands says %v", p, slots, band, large, got, want)
					}
				}
			}
		}
	}
	if useAVX512 && prefixes == 0 {
		t.Error("the AVX-512 kernel never compared a prefix")
	}
	t.Logf("%d prefixes compared, %d agreeing", prefixes, agreed)
}

// TestEqualRows: each kernel of equalRows sets exactly the bits of the
// values a plain loop finds equal, for every length of a from 1 to 64
// (two and four vectors), rows anywhere in comp including the last, and
// values past len(a) that differ or agree at random (never counted).
func TestEqualRows(t *testing.T) {
	kernels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(17, 18))
		set := 0
		for stride := 1; stride <= 64; stride++ {
			const n = 40
			comp := make([]uint32, n*stride+64)
			for k := range comp {
				comp[k] = uint32(rng.IntN(3)) << (rng.IntN(2) * 31) // high bits too
			}
			for lanes := 1; lanes <= stride; lanes++ {
				x := rng.IntN(n)
				a := comp[x*stride : x*stride+lanes]
				rows := make([]entry, 1+rng.IntN(n))
				for k := range rows {
					rows[k].id = uint32(rng.IntN(n))
					rows[k].key = rng.Uint64()
				}
				rows[0].id = n - 1
				out := make([]uint64, len(rows))
				for k := range out {
					out[k] = rng.Uint64() // stale bits must go
				}
				equalRows(out, a, comp, stride, rows)
				// a apart from comp, with no room past its values.
				alone := make([]uint64, len(rows))
				equalRows(alone, slices.Clip(slices.Clone(a)), comp, stride, rows)
				if !slices.Equal(alone, out) {
					t.Fatalf("stride %d lanes %d: a copy of a gave %x, a in comp %x", stride, lanes, alone, out)
				}
				for k, e := range rows {
					var want uint64
					for v := range lanes {
						if a[v] == comp[int(e.id)*stride+v] {
							want |= 1 << v
						}
					}
					if out[k] != want {
						t.Fatalf("stride %d lanes %d row %d: bits %x, want %x", stride, lanes, e.id, out[k], want)
					}
					set += bits.OnesCount64(want)
				}
			}
		}
		if set < 10000 {
			t.Fatalf("only %d equal values: the inputs show little", set)
		}
	})
}
