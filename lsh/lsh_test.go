package lsh

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

func TestProbabilityHandComputed(t *testing.T) {
	f := func(p Params, s, want float64) {
		t.Helper()
		got := p.Probability(s)
		if math.Abs(got-want) > 1e-15*math.Max(1, math.Abs(want)) && !(got == want) {
			t.Errorf("%v.Probability(%v) = %.17g, want %.17g", p, s, got, want)
		}
	}
	f(Params{35, 3}, 0.5, 1-math.Pow(7.0/8, 35))
	f(Params{1, 1}, 0.3, 0.3)
	f(Params{2, 1}, 0.5, 0.75)      // 1-(1/2)^2
	f(Params{1, 2}, 0.5, 0.25)      // s^2
	f(Params{3, 2}, 0.5, 1-27.0/64) // 1-(3/4)^3
	f(Params{20, 5}, 0, 0)          // never
	f(Params{20, 5}, 1, 1)          // always
	f(Params{20, 5}, -0.5, 0)       // clamped
	f(Params{20, 5}, 1.5, 1)        // clamped
	f(Params{0, 5}, 0.9, 0)         // no bands
	f(Params{5, 0}, 0.9, 0)         // no rows
	f(Params{1, 128}, 1e-3, 0)      // 1e-384 underflows to 0
	// Tiny s: P ≈ b*s^r with full relative precision where the naive
	// 1-(1-s^r)^b cancels to 0.
	got := Params{10, 4}.Probability(1e-5)
	if want := 10 * 1e-20; math.Abs(got-want)/want > 1e-9 {
		t.Errorf("tiny s: got %g, want %g", got, want)
	}
	// Close to 1: 1-P = (1-s^r)^b.
	got = Params{100, 1}.Probability(0.5)
	if want := math.Pow(0.5, 100); math.Abs((1-got)-want) > 1e-16 {
		t.Errorf("near 1: 1-P = %g, want %g", 1-got, want)
	}
}

func TestFalseCandidateRateClosedForm(t *testing.T) {
	// For b = 2: ∫_0^t 1-(1-s^r)^2 ds = 2 t^(r+1)/(r+1) - t^(2r+1)/(2r+1).
	for r := 1; r <= 8; r++ {
		for _, th := range []float64{0.05, 0.3, 0.5, 0.77, 1} {
			fr := float64(r)
			want := (2*math.Pow(th, fr+1)/(fr+1) - math.Pow(th, 2*fr+1)/(2*fr+1)) / th
			got := FalseCandidateRate(Params{2, r}, th)
			if math.Abs(got-want) > 1e-12*want {
				t.Errorf("F({2,%d}, %v) = %.15g, want %.15g", r, th, got, want)
			}
		}
	}
	// b = 1: ∫_0^t s^r ds / t = t^r/(r+1), here for a sharp curve.
	got := FalseCandidateRate(Params{1, 100}, 0.9)
	if want := math.Pow(0.9, 100) / 101; math.Abs(got-want) > 1e-10*want {
		t.Errorf("F({1,100}, 0.9) = %g, want %g", got, want)
	}
}

// plainIntegral is a reference: composite Simpson with many fixed panels.
func plainIntegral(p Params, t float64) float64 {
	const n = 2000
	h := t / n
	sum := p.Probability(0) + p.Probability(t)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * p.Probability(float64(i)*h)
	}
	return sum * h / 3 / t
}

// bruteChoose is the reference for Choose: every (b, r) with b*r <= slots,
// written without the one-b-per-r shortcut.
func bruteChoose(slots int, t, recall float64) (Params, bool) {
	var best Params
	bestF := math.Inf(1)
	for b := 1; b <= slots; b++ {
		for r := 1; b*r <= slots; r++ {
			p := Params{b, r}
			if p.Probability(t) < recall {
				continue
			}
			f := plainIntegral(p, t)
			if f < bestF*(1-1e-9) || (f <= bestF*(1+1e-9) && b < best.Bands) {
				best, bestF = p, f
			}
		}
	}
	return best, best.Bands > 0
}

func TestChooseAgainstBruteForce(t *testing.T) {
	type tc struct {
		slots     int
		th, recal float64
	}
	cases := []tc{{128, 0.5, 0.99}}
	if !testing.Short() {
		for _, slots := range []int{1, 2, 7, 16, 64, 128} {
			for _, th := range []float64{0.2, 0.5, 0.8, 0.95} {
				for _, rc := range []float64{0.9, 0.99} {
					cases = append(cases, tc{slots, th, rc})
				}
			}
		}
		cases = append(cases, tc{256, 0.5, 0.99}, tc{256, 0.85, 0.95})
	}
	for _, c := range cases {
		want, ok := bruteChoose(c.slots, c.th, c.recal)
		got, err := Choose(c.slots, c.th, c.recal)
		if !ok {
			if !errors.Is(err, ErrNoParams) {
				t.Errorf("Choose(%d, %v, %v) = %v, %v; want ErrNoParams", c.slots, c.th, c.recal, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("Choose(%d, %v, %v) = %v, %v; brute force %v", c.slots, c.th, c.recal, got, err, want)
		}
	}
}

func TestChoose128(t *testing.T) {
	got, err := Choose(128, 0.5, 0.99)
	if err != nil || got != (Params{35, 3}) {
		t.Fatalf("Choose(128, 0.5, 0.99) = %v, %v; want {35 3}", got, err)
	}
}

func TestChooseMeetsRecall(t *testing.T) {
	for _, slots := range []int{16, 64, 100, 128, 256} {
		for _, recall := range []float64{0.5, 0.9, 0.99, 0.999} {
			step := 1
			if testing.Short() {
				step = 7
			}
			for k := 1; k <= 100; k += step {
				th := float64(k) / 100
				p, err := Choose(slots, th, recall)
				if errors.Is(err, ErrNoParams) {
					// Even one row per band over all slots falls short.
					if (Params{slots, 1}).Probability(th) >= recall {
						t.Errorf("Choose(%d, %v, %v): ErrNoParams but {%d 1} qualifies", slots, th, recall, slots)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if p.Bands*p.Rows > slots || p.Bands < 1 || p.Rows < 1 {
					t.Errorf("Choose(%d, %v, %v) = %v does not fit", slots, th, recall, p)
				}
				if pt := p.Probability(th); pt < recall {
					t.Errorf("Choose(%d, %v, %v) = %v with P(t) = %v", slots, th, recall, p, pt)
				}
				// Minimal bands for its rows.
				if p.Bands > 1 && (Params{p.Bands - 1, p.Rows}).Probability(th) >= recall {
					t.Errorf("Choose(%d, %v, %v) = %v: fewer bands would do", slots, th, recall, p)
				}
			}
		}
	}
}

func TestChooseErrors(t *testing.T) {
	f := func(slots int, th, recall float64, want error) {
		t.Helper()
		if _, err := Choose(slots, th, recall); !errors.Is(err, want) {
			t.Errorf("Choose(%d, %v, %v) error %v, want %v", slots, th, recall, err, want)
		}
	}
	f(0, 0.5, 0.9, ErrInvalid)
	f(128, 0, 0.9, ErrInvalid)
	f(128, 1.01, 0.9, ErrInvalid)
	f(128, math.NaN(), 0.9, ErrInvalid)
	f(128, 0.5, 0, ErrInvalid)
	f(128, 0.5, 1, ErrInvalid)
	f(128, 0.5, math.NaN(), ErrInvalid)
	f(4, 0.1, 0.99, ErrNoParams) // 1-(0.9)^4 = 0.34
	if p, err := Choose(128, 1, 0.99); err != nil || p != (Params{1, 128}) {
		t.Errorf("Choose(128, 1, 0.99) = %v, %v; want {1 128}", p, err)
	}
}

func ExampleChoose() {
	for _, th := range []float64{0.3, 0.5, 0.7, 0.8, 0.9} {
		p, err := Choose(128, th, 0.99)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("t=%.1f b=%d r=%d P(t)=%.4f false=%.4f\n",
			th, p.Bands, p.Rows, p.Probability(th), FalseCandidateRate(p, th))
	}
	// Output:
	// t=0.3 b=49 r=2 P(t)=0.9902 false=0.5821
	// t=0.5 b=35 r=3 P(t)=0.9907 false=0.4580
	// t=0.7 b=17 r=4 P(t)=0.9906 false=0.3684
	// t=0.8 b=16 r=6 P(t)=0.9923 false=0.2740
	// t=0.9 b=11 r=10 P(t)=0.9911 false=0.1725
}

func ExampleParams_Probability() {
	p := Params{Bands: 35, Rows: 3}
	for _, s := range []float64{0.2, 0.4, 0.5, 0.6, 0.8} {
		fmt.Printf("P(%.1f) = %.4f\n", s, p.Probability(s))
	}
	// Output:
	// P(0.2) = 0.2451
	// P(0.4) = 0.9012
	// P(0.5) = 0.9907
	// P(0.6) = 0.9998
	// P(0.8) = 1.0000
}
