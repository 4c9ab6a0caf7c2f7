package index

import (
	"context"
	"errors"
	"fmt"

	"github.com/neardup/neardup"
)

// ConflictError is a field asked explicitly of an existing index whose
// stored value differs (OpenAsked). It wraps neardup.ErrIncompatible.
type ConflictError struct {
	// Field is the field's path in Meta without "Params.": "Threshold",
	// "Shingle.N", "LSH.Bands", "KeepTexts" (the names of OpenAsked's
	// given fields).
	Field string
	// Stored and Asked are the index's value and the one asked, as %v
	// formats them.
	Stored, Asked string
}

// Error returns "the index was made with Field Stored; Asked was asked".
func (e *ConflictError) Error() string {
	return fmt.Sprintf("%v: the index was made with %s %s; %s was asked", neardup.ErrIncompatible, e.Field, e.Stored, e.Asked)
}

// Unwrap returns neardup.ErrIncompatible.
func (e *ConflictError) Unwrap() error { return neardup.ErrIncompatible }

// askable are the fields of Meta that OpenAsked compares, in the order it
// compares them, with their values.
func askable(m Meta) []struct {
	field string
	v     any
} {
	p := m.Params
	return []struct {
		field string
		v     any
	}{
		{"Shingle.Mode", p.Shingle.Mode}, {"Shingle.N", p.Shingle.N}, {"Shingle.Bag", p.Shingle.Bag},
		{"Shingle.NFKC", p.Shingle.NFKC}, {"Slots", p.Slots}, {"Seed", p.Seed}, {"Threshold", p.Threshold},
		{"Recall", p.Recall}, {"LSH.Bands", p.LSH.Bands}, {"LSH.Rows", p.LSH.Rows}, {"KeepTexts", m.KeepTexts},
	}
}

// OpenAsked opens the index in st, or creates it with want when st holds
// none (created is then true): the one rule of the commands that open an
// index from what a user asked. Of an existing index, every field named in
// given (as ConflictError.Field names them) must have its stored value in
// want, else the error is a *ConflictError naming the first that differs;
// the fields not given take the stored values, whatever want says of them.
// A name in given that is no such field is an error wrapping
// neardup.ErrInvalid. want.Params are resolved before they are compared or
// stored (an error of Resolve is returned as it is). Callers racing on a
// new shared store all succeed: one creates, the others open what it made
// (and check it as above).
func OpenAsked(ctx context.Context, st Store, want Meta, given []string, o Options) (ix *Index, created bool, err error) {
	p, err := want.Params.Resolve()
	if err != nil {
		return nil, false, err
	}
	want.Params = p
	asked := map[string]any{}
	for _, f := range askable(want) {
		asked[f.field] = f.v
	}
	for _, g := range given {
		if _, ok := asked[g]; !ok {
			return nil, false, fmt.Errorf("%w: index.OpenAsked: no field %q", neardup.ErrInvalid, g)
		}
	}
	m, err := st.Meta(ctx)
	if errors.Is(err, ErrNoIndex) {
		ix, err := Create(ctx, st, want, o)
		if !errors.Is(err, ErrExists) {
			return ix, err == nil, err
		}
		m, err = st.Meta(ctx) // another caller created it since Meta
	}
	if err != nil {
		return nil, false, err
	}
	for _, f := range askable(m) {
		for _, g := range given {
			if g == f.field && asked[g] != f.v {
				return nil, false, &ConflictError{Field: g, Stored: fmt.Sprint(f.v), Asked: fmt.Sprint(asked[g])}
			}
		}
	}
	ix, err = newIndex(st, m, o)
	return ix, false, err
}
