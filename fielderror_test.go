package neardup

import (
	"errors"
	"math"
	"testing"

	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/shingle"
)

// Every field out of range is one *FieldError naming the field and the
// value, wrapping ErrOptions, from Resolve and from the constructors.
func TestFieldError(t *testing.T) {
	f := func(o Options, field, value, msg string) {
		t.Helper()
		_, err := o.Resolve()
		var fe *FieldError
		if !errors.As(err, &fe) || !errors.Is(err, ErrOptions) || fe.Field != field || fe.Value != value || err.Error() != msg {
			t.Errorf("%+v: %v (%#v), want %s %s: %q", o, err, fe, field, value, msg)
		}
		if _, err := NewBatch(o); !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("NewBatch: %v, want field %s", err, field)
		}
	}
	p := func(p Params) Options { return Options{Params: p} }
	f(p(Params{Threshold: 1.5}), "Threshold", "1.5", "neardup: invalid options: Threshold 1.5: want a number in (0, 1]")
	f(p(Params{Threshold: math.NaN()}), "Threshold", "NaN", "neardup: invalid options: Threshold NaN: want a number in (0, 1]")
	f(p(Params{Recall: 1}), "Recall", "1", "neardup: invalid options: Recall 1: want a number in (0, 1)")
	f(p(Params{Slots: -3}), "Slots", "-3", "neardup: invalid options: Slots -3: want 1 to 65536")
	f(p(Params{Shingle: shingle.Options{N: -1}}), "Shingle.N", "-1", "neardup: invalid options: Shingle.N -1: want a length from 1 to 1000")
	f(p(Params{Shingle: shingle.Options{Mode: 9}}), "Shingle.Mode", "9", "neardup: invalid options: Shingle.Mode 9: want word or char")
	f(p(Params{Weight: 7}), "Weight", "7", "neardup: invalid options: Weight 7: want none or idf")
	f(p(Params{LSH: lsh.Params{Bands: 3}}), "LSH", "3x0", "neardup: invalid options: LSH 3x0: want bands and rows both, each at least 1")
	f(p(Params{LSH: lsh.Params{Bands: 40, Rows: 4}}), "LSH", "40x4", "neardup: invalid options: LSH 40x4: want bands x rows at most the 128 slots")
	f(Options{Workers: -1}, "Workers", "-1", "neardup: invalid options: Workers -1: want 0 (one per CPU) or more")
	f(Options{MaxCluster: -1}, "MaxCluster", "-1", "neardup: invalid options: MaxCluster -1: want 0 (no limit) or more")
	f(Options{Verify: VerifyEstimate, Params: Params{Weight: WeightIDF}}, "Weight", "idf", "neardup: invalid options: Weight idf: needs Verify exact (the shingle sets in memory)")
	f(Options{Keep: 9}, "Keep", "9", "neardup: invalid options: Keep 9: want KeepFirst, KeepLongest or KeepShortest")

	_, err := Params{Slots: 1, Threshold: 0.99, Recall: 0.999999}.Resolve()
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "LSH" || fe.Value != "" || !errors.Is(err, lsh.ErrNoParams) || !errors.Is(err, ErrOptions) {
		t.Errorf("no bands and rows: %v", err)
	}
	if _, err := ParseVerify("x"); !errors.As(err, &fe) || fe.Field != "Verify" || fe.Value != `"x"` {
		t.Errorf("ParseVerify: %v", err)
	}
	if _, err := ParseClusterMode("x"); !errors.As(err, &fe) || fe.Field != "Cluster" {
		t.Errorf("ParseClusterMode: %v", err)
	}
}
