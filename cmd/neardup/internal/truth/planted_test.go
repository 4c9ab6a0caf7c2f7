package truth

import (
	"reflect"
	"strings"
	"testing"

	"github.com/neardup/neardup"
)

func TestScore(t *testing.T) {
	origin := map[string]string{"a": "d:a", "a2": "d:a", "b": "f:x", "b2": "f:x", "c": "d:c"}
	ids := []string{"a", "a2", "b", "b2", "c"}
	pairs := []neardup.Pair{
		{A: 0, B: 1, Edit: 0.95}, // related
		{A: 2, B: 3, Edit: 0.65}, // related
		{A: 0, B: 4, Edit: 0.75}, // not
		{A: 1, B: 2, Edit: 0.4},  // not
	}
	r, err := Score("t.tsv", origin, ids, pairs, false)
	if err != nil {
		t.Fatal(err)
	}
	want := &Planted{File: "t.tsv", Reported: 4, Related: 2, Unrelated: 2, Precision: 0.5}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("Score = %+v, want %+v", r, want)
	}
	r, err = Score("t.tsv", origin, ids, pairs, true)
	if err != nil {
		t.Fatal(err)
	}
	want.ByEdit = []PlantedByEdit{
		{MinEdit: 0.5, Related: 2, Unrelated: 1, Precision: 2.0 / 3, Kept: 1},
		{MinEdit: 0.6, Related: 2, Unrelated: 1, Precision: 2.0 / 3, Kept: 1},
		{MinEdit: 0.7, Related: 1, Unrelated: 1, Precision: 0.5, Kept: 0.5},
		{MinEdit: 0.8, Related: 1, Unrelated: 0, Precision: 1, Kept: 0.5},
		{MinEdit: 0.9, Related: 1, Unrelated: 0, Precision: 1, Kept: 0.5},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("Score with edit = %+v, want %+v", r, want)
	}
	r, err = Score("t.tsv", origin, ids, nil, true)
	if err != nil || r.Precision != 1 || r.ByEdit[0].Precision != 1 || r.ByEdit[0].Kept != 1 {
		t.Errorf("no pairs: %+v, %v; want precision and kept 1", r, err)
	}
	_, err = Score("t.tsv", origin, []string{"a", "zz"}, []neardup.Pair{{A: 0, B: 1}}, false)
	if err == nil || !strings.Contains(err.Error(), `--truth t.tsv: no row for id "a" or "zz"`) {
		t.Errorf("unknown id: %v", err)
	}
}
