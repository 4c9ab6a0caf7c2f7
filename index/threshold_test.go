package index_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
)

// newIndex returns an index in a temporary directory made with p.
func newIndex(t *testing.T, p neardup.Params) *index.Index {
	t.Helper()
	ctx := context.Background()
	st, err := index.OpenPebble(ctx, t.TempDir(), index.PebbleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Create(ctx, st, index.Meta{Params: p, KeepTexts: true}, index.Options{})
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// CheckThreshold is the index's one rule for a query threshold, and Query
// follows it.
func TestCheckThreshold(t *testing.T) {
	ix := newIndex(t, neardup.Params{Threshold: 0.6})
	ctx := context.Background()
	for _, c := range []struct {
		t    float64
		want error
		msg  string
	}{
		{0, nil, ""}, {0.6, nil, ""}, {0.61, nil, ""}, {1, nil, ""},
		{0.59, index.ErrThreshold, "index: threshold below the index's: 0.59 is below the index's 0.6 (the index finds pairs at its threshold; ask for more, not less)"},
		{1.5, neardup.ErrInvalid, "neardup: invalid argument: threshold 1.5: want a number in (0, 1]"},
		{-0.1, neardup.ErrInvalid, "neardup: invalid argument: threshold -0.1: want a number in (0, 1]"},
		{math.NaN(), neardup.ErrInvalid, "neardup: invalid argument: threshold NaN: want a number in (0, 1]"},
	} {
		err := ix.CheckThreshold(c.t)
		if c.want == nil && err != nil || c.want != nil && (!errors.Is(err, c.want) || err.Error() != c.msg) {
			t.Errorf("CheckThreshold(%v) = %v, want %v (%q)", c.t, err, c.want, c.msg)
		}
		_, qerr := ix.Query(ctx, []byte("one two three four five"), index.QueryOptions{Threshold: c.t})
		if (err == nil) != (qerr == nil) || err != nil && err.Error() != qerr.Error() {
			t.Errorf("Query at %v: %v, CheckThreshold: %v", c.t, qerr, err)
		}
	}
}
