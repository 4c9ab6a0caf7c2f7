package rule

import (
	"math"
	"strconv"
	"testing"
)

func TestRanges(t *testing.T) {
	f := func(name string, got, want bool) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	nan := math.NaN()
	for _, c := range []struct {
		v                 float64
		threshold, recall bool
	}{
		{0, false, false}, {-0.5, false, false}, {math.SmallestNonzeroFloat64, true, true},
		{0.5, true, true}, {math.Nextafter(1, 0), true, true}, {1, true, false},
		{math.Nextafter(1, 2), false, false}, {nan, false, false}, {math.Inf(1), false, false},
	} {
		s := strconv.FormatFloat(c.v, 'g', -1, 64)
		f("Threshold("+s+")", Threshold(c.v), c.threshold)
		f("Recall("+s+")", Recall(c.v), c.recall)
	}
	for n, want := range map[int]bool{-1: false, 0: false, 1: true, 128: true, MaxSlots: true, MaxSlots + 1: false} {
		f("Slots("+strconv.Itoa(n)+")", Slots(n), want)
	}
	if MaxSlots != 65536 || SlotsWant != "1 to "+strconv.Itoa(MaxSlots) {
		t.Errorf("SlotsWant %q does not describe MaxSlots %d", SlotsWant, MaxSlots)
	}
}
