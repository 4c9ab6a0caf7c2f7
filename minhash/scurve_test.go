package minhash

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// jaccardPair returns two sets whose union has u random elements, inter of
// them shared and the rest split evenly, so their Jaccard index is inter/u.
func jaccardPair(r *rand.Rand, u, inter int) (a, b []uint64) {
	onlyA := (u - inter) / 2
	for range inter {
		x := r.Uint64()
		a, b = append(a, x), append(b, x)
	}
	for i := range u - inter {
		if i < onlyA {
			a = append(a, r.Uint64())
		} else {
			b = append(b, r.Uint64())
		}
	}
	return a, b
}

// within reports whether the observed fraction of successes in n trials is
// within z standard errors (plus half a count) of the probability p.
func within(obs, p float64, n int, z float64) bool {
	return math.Abs(obs-p) <= z*math.Sqrt(p*(1-p)/float64(n))+0.5/float64(n)
}

func TestEstimateError(t *testing.T) {
	const u, k = 200, 128
	pairs := 500
	if testing.Short() {
		pairs = 200
	}
	r := rand.New(rand.NewPCG(11, 12))
	h := mustNew(t, k, 77)
	var sa, sb []uint32
	for _, j := range []float64{0.1, 0.5, 0.8} {
		var sum, sum2 float64
		for range pairs {
			a, b := jaccardPair(r, u, int(j*u))
			sa, sb = h.AppendSignature(sa[:0], a), h.AppendSignature(sb[:0], b)
			e := Estimate(sa, sb)
			sum += e
			sum2 += e * e
		}
		mean := sum / float64(pairs)
		variance := (sum2 - sum*mean) / float64(pairs-1)
		wantVar := j * (1 - j) / k
		se := math.Sqrt(wantVar / float64(pairs))
		t.Logf("J %.1f: mean estimate %.4f (±%.4f), sd %.4f, theory sd %.4f", j, mean, se, math.Sqrt(variance), math.Sqrt(wantVar))
		if math.Abs(mean-j) > 5*se {
			t.Errorf("J %.1f: mean estimate %.4f, more than 5 standard errors (%.4f) off", j, mean, se)
		}
		// The sample variance of pairs draws has relative sd sqrt(2/(pairs-1)).
		if ratio := variance / wantVar; math.Abs(ratio-1) > 5*math.Sqrt(2/float64(pairs-1)) {
			t.Errorf("J %.1f: variance of estimates %.3g is %.2f times the binomial J(1-J)/k", j, variance, ratio)
		}
	}
}

// bandParams are the (bands, rows) whose S-curves are checked.
var bandParams = []struct{ b, r int }{{32, 4}, {42, 3}, {20, 5}, {16, 8}}

// sCurve is 1-(1-s^r)^b, the probability that a pair of Jaccard s agrees
// on at least one of b bands of r independent slots.
func sCurve(s float64, b, r int) float64 {
	return 1 - math.Pow(1-math.Pow(s, float64(r)), float64(b))
}

// TestSCurve checks that banding behaves as if slots were independent, for
// long documents and for short ones with far fewer elements than slots:
// per slot agreement J, per band agreement J^r, and the fraction of pairs
// agreeing on at least one band 1-(1-J^r)^b, each within 5 binomial
// standard errors.
func TestSCurve(t *testing.T) {
	cases := []struct {
		name  string
		union int
		pairs int
	}{
		{"long", 1000, 600},
		{"short20", 20, 4000},
		{"short10", 10, 4000},
	}
	if testing.Short() {
		cases[0].pairs = 150
		cases[1].pairs, cases[2].pairs = 1000, 1000
	}
	h := mustNew(t, DefaultSlots, 2024)
	r := rand.New(rand.NewPCG(13, 14))
	const z = 5
	for _, c := range cases {
		var table strings.Builder
		fmt.Fprintf(&table, "%s (|A∪B| = %d, %d pairs): observed/theory\n     J   slot         ", c.name, c.union, c.pairs)
		for _, p := range bandParams {
			fmt.Fprintf(&table, "  b=%d,r=%d band   b=%d,r=%d any ", p.b, p.r, p.b, p.r)
		}
		table.WriteString("\n")
		for jj := 1; jj <= 9; jj++ {
			j := float64(jj) / 10
			inter := jj * c.union / 10
			sigs := make([][2][]uint32, c.pairs)
			slotAgree := 0
			for i := range sigs {
				a, b := jaccardPair(r, c.union, inter)
				sigs[i] = [2][]uint32{h.AppendSignature(nil, a), h.AppendSignature(nil, b)}
				slotAgree += countEqual(sigs[i][0], sigs[i][1])
			}
			slotRate := float64(slotAgree) / float64(c.pairs*DefaultSlots)
			fmt.Fprintf(&table, "   %.1f  %.3f/%.3f  ", j, slotRate, j)
			if !within(slotRate, j, c.pairs*DefaultSlots, z) {
				t.Errorf("%s J %.1f: slot agreement %.4f, want %.4f", c.name, j, slotRate, j)
			}
			for _, p := range bandParams {
				bandAgree, anyAgree := 0, 0
				for _, s := range sigs {
					hit := false
					for band := range p.b {
						lo, hi := band*p.r, (band+1)*p.r
						if countEqual(s[0][lo:hi], s[1][lo:hi]) == p.r {
							bandAgree++
							hit = true
						}
					}
					if hit {
						anyAgree++
					}
				}
				bandRate := float64(bandAgree) / float64(c.pairs*p.b)
				anyRate := float64(anyAgree) / float64(c.pairs)
				wantBand, wantAny := math.Pow(j, float64(p.r)), sCurve(j, p.b, p.r)
				fmt.Fprintf(&table, "  %.3f/%.3f  %.3f/%.3f", bandRate, wantBand, anyRate, wantAny)
				if !within(bandRate, wantBand, c.pairs*p.b, z) {
					t.Errorf("%s J %.1f b %d r %d: band agreement %.4f, want J^r = %.4f", c.name, j, p.b, p.r, bandRate, wantBand)
				}
				if !within(anyRate, wantAny, c.pairs, z) {
					t.Errorf("%s J %.1f b %d r %d: %.4f of pairs share a band, want %.4f", c.name, j, p.b, p.r, anyRate, wantAny)
				}
			}
			table.WriteString("\n")
		}
		t.Log(table.String())
	}
}
