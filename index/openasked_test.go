package index_test

import (
	"context"
	"errors"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/shingle"
)

// OpenAsked creates from want when the store is new; of an existing index
// it checks only the fields given, and the others are the stored ones.
func TestOpenAsked(t *testing.T) {
	ctx := context.Background()
	st, err := index.OpenPebble(ctx, t.TempDir(), index.PebbleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	made := index.Meta{Params: neardup.Params{Threshold: 0.6, Shingle: shingle.Options{N: 4}}, KeepTexts: true}
	ix, created, err := index.OpenAsked(ctx, st, made, []string{"Threshold"}, index.Options{})
	if err != nil || !created || ix.Params().Threshold != 0.6 || ix.Params().Shingle.N != 4 {
		t.Fatalf("new store: %v, created %v", err, created)
	}
	f := func(want index.Meta, given []string, field, stored, asked string) {
		t.Helper()
		ix, created, err := index.OpenAsked(ctx, st, want, given, index.Options{})
		var ce *index.ConflictError
		switch {
		case field == "" && (err != nil || created || ix.Meta() != func() index.Meta { m := made; m.Params, _ = m.Params.Resolve(); return m }()):
			t.Errorf("given %q: %v, created %v; want the stored index", given, err, created)
		case field != "" && (!errors.As(err, &ce) || !errors.Is(err, neardup.ErrIncompatible) || *ce != index.ConflictError{Field: field, Stored: stored, Asked: asked}):
			t.Errorf("given %q: %v, want %s %s vs %s", given, err, field, stored, asked)
		}
	}
	other := index.Meta{Params: neardup.Params{Threshold: 0.5, Slots: 64, Recall: 0.9}}
	f(other, nil, "", "", "")
	f(other, []string{"Shingle.N", "Seed", "KeepTexts"}, "Shingle.N", "4", "3")
	f(other, []string{"Recall", "Threshold"}, "Threshold", "0.6", "0.5")
	f(other, []string{"Slots"}, "Slots", "128", "64")
	f(other, []string{"KeepTexts"}, "KeepTexts", "true", "false")
	f(made, []string{"Threshold", "Shingle.N", "KeepTexts", "Slots", "Recall", "LSH.Bands"}, "", "", "")
	if _, _, err := index.OpenAsked(ctx, st, made, []string{"Nope"}, index.Options{}); !errors.Is(err, neardup.ErrInvalid) {
		t.Errorf("an unknown field: %v", err)
	}
	if _, _, err := index.OpenAsked(ctx, st, index.Meta{Params: neardup.Params{Threshold: 2}}, nil, index.Options{}); !errors.Is(err, neardup.ErrOptions) {
		t.Errorf("want out of range: %v", err)
	}
}
