package lsh

import (
	"errors"
	"math"
	"testing"
)

func TestChooseTargetsHand(t *testing.T) {
	// At most 0.5% at J=0.05, at least 99% at J=0.5, 128 slots. By hand:
	// with 3 rows, P(0.5) = 1-(7/8)^b >= 0.99 needs b >= 35 (7/8)^35 =
	// 0.00934, and P(0.05) = 1-(1-1/8000)^b <= 0.005 allows b <= 40
	// (1-(7999/8000)^40 = 0.004988, ^41: 0.005112). No other r has a
	// b meeting both (r=2: P(0.5) needs b >= 17, P(0.05) allows b <= 2;
	// r=4: recall needs b >= 72 > 32). Margins on 35..40:
	//   fp: ln(0.005/P(0.05)), fn: ln(0.01/(7/8)^b)
	//   b=35: fp 0.13573, fn 0.06843 -> 0.06843
	//   b=36: fp 0.10755, fn 0.20196 -> 0.10755 (best)
	//   b=37: fp 0.08021, fn 0.33549 -> 0.08021
	fp := func(b float64) float64 { return -math.Expm1(b * math.Log1p(-1.0/8000)) }
	m := func(b float64) float64 {
		return min(math.Log(0.005/fp(b)), math.Log(0.01/math.Pow(7.0/8, b)))
	}
	if !(m(36) > m(35) && m(36) > m(37)) {
		t.Fatalf("hand margins wrong: %v %v %v", m(35), m(36), m(37))
	}
	got, err := ChooseTargets(128, 0.05, 0.005, 0.5, 0.99)
	if err != nil {
		t.Fatal(err)
	}
	if got != (Params{36, 3}) {
		t.Fatalf("ChooseTargets = %+v, want 36x3", got)
	}
	if d := Margin(got, 0.05, 0.005, 0.5, 0.99) - m(36); math.Abs(d) > 1e-9 {
		t.Errorf("Margin = %v, want %v", Margin(got, 0.05, 0.005, 0.5, 0.99), m(36))
	}
	ps, err := TargetsPerRows(128, 0.05, 0.005, 0.5, 0.99)
	if err != nil || len(ps) != 1 || ps[0] != got {
		t.Fatalf("TargetsPerRows = %v, %v; want [36x3]", ps, err)
	}
}

// bruteTargets is the plain search: every b*r <= slots, both targets,
// largest margin, ties to fewer bands then fewer rows.
func bruteTargets(slots int, low, maxFP, high, minRecall float64) (Params, bool) {
	best, bestM, ok := Params{}, 0.0, false
	for r := 1; r <= slots; r++ {
		for b := 1; b*r <= slots; b++ {
			p := Params{b, r}
			if p.Probability(low) > maxFP || p.Probability(high) < minRecall {
				continue
			}
			m := Margin(p, low, maxFP, high, minRecall)
			switch {
			case !ok, m > bestM+1e-12*math.Abs(bestM):
				best, bestM, ok = p, m, true
			case m >= bestM-1e-12*math.Abs(bestM) && b < best.Bands:
				best, bestM = p, max(m, bestM)
			}
		}
	}
	return best, ok
}

func TestChooseTargetsBrute(t *testing.T) {
	for _, slots := range []int{16, 64, 128, 256} {
		for _, c := range [][4]float64{
			{0.05, 0.005, 0.5, 0.99}, {0.3, 0.05, 0.8, 0.95}, {0.1, 0.01, 0.6, 0.999},
			{0.2, 0.001, 0.9, 0.99}, {0.4, 0.1, 0.5, 0.9}, {0.5, 0.01, 0.7, 0.99},
		} {
			want, ok := bruteTargets(slots, c[0], c[1], c[2], c[3])
			got, err := ChooseTargets(slots, c[0], c[1], c[2], c[3])
			if !ok {
				if !errors.Is(err, ErrNoParams) {
					t.Errorf("%d %v: got %v, %v; want ErrNoParams", slots, c, got, err)
				}
				continue
			}
			if err != nil || got != want {
				t.Errorf("%d %v: got %v, %v; want %v", slots, c, got, err, want)
				continue
			}
			if got.Probability(c[0]) > c[1] || got.Probability(c[2]) < c[3] {
				t.Errorf("%d %v: %v misses a target", slots, c, got)
			}
		}
	}
}

func TestTargetsInvalid(t *testing.T) {
	for _, c := range [][5]float64{
		{0, 0.05, 0.005, 0.5, 0.99}, {128, 0.5, 0.005, 0.05, 0.99}, {128, 0, 0.005, 0.5, 0.99},
		{128, 0.05, 0, 0.5, 0.99}, {128, 0.05, 0.005, 1, 0.99}, {128, 0.05, 0.005, 0.5, 1},
	} {
		if _, err := ChooseTargets(int(c[0]), c[1], c[2], c[3], c[4]); !errors.Is(err, ErrInvalid) {
			t.Errorf("%v: got %v, want ErrInvalid", c, err)
		}
	}
}

func TestPerRows(t *testing.T) {
	ps, err := PerRows(128, 0.5, 0.99)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Choose(128, 0.5, 0.99)
	found := false
	for _, p := range ps {
		if p.Bands*p.Rows > 128 || p.Probability(0.5) < 0.99 {
			t.Errorf("%v does not qualify", p)
		}
		if p.Bands > 1 && (Params{p.Bands - 1, p.Rows}).Probability(0.5) >= 0.99 {
			t.Errorf("%v: fewer bands also qualify", p)
		}
		found = found || p == want
	}
	if !found || ps[0] != (Params{7, 1}) {
		t.Errorf("PerRows = %v; want it to start with 7x1 and hold Choose's %v", ps, want)
	}
	if _, err := PerRows(0, 0.5, 0.99); !errors.Is(err, ErrInvalid) {
		t.Errorf("slots 0: %v", err)
	}
}

func TestMiss(t *testing.T) {
	p := Params{35, 3}
	if d := p.Miss(0.5) - math.Pow(7.0/8, 35); math.Abs(d) > 1e-15 {
		t.Errorf("Miss(0.5) = %v", p.Miss(0.5))
	}
	if p.Miss(0) != 1 || p.Miss(1) != 0 {
		t.Error("Miss at the ends")
	}
}
