// Scoring reported pairs against the origins Origins returns: how many are
// planted relatives, overall and among the pairs reaching each edit
// similarity. It hands the command a Planted report to print.

package truth

import (
	"fmt"

	"github.com/neardup/neardup"
)

// Planted scores reported pairs against what a corpus generator planted
// (bench/gencorpus -truth): a pair is "related" when both documents descend
// from the same original or template family, and "unrelated" when they are
// similar by accident (shared boilerplate, short texts). This is how to see
// whether a refinement removes accidental pairs without losing planted
// ones.
type Planted struct {
	File      string          `json:"file"`
	Reported  int             `json:"reported"`
	Related   int             `json:"related"`
	Unrelated int             `json:"unrelated"`
	Precision float64         `json:"precision"` // related / reported
	ByEdit    []PlantedByEdit `json:"by_edit,omitempty"`
}

// PlantedByEdit counts the pairs that also reach an edit similarity.
type PlantedByEdit struct {
	MinEdit   float64 `json:"min_edit"`
	Related   int     `json:"related"`
	Unrelated int     `json:"unrelated"`
	Precision float64 `json:"precision"`
	Kept      float64 `json:"related_kept"` // related pairs kept / related pairs without the filter
}

// EditCuts are the edit similarities Score counts pairs at, with edit set.
var EditCuts = []float64{0.5, 0.6, 0.7, 0.8, 0.9}

// Score classifies the reported pairs (document numbers into ids) with the
// origins of Origins; with edit, it also counts them at each of EditCuts
// by their Edit similarity. A precision or share with nothing to divide by
// is 1. It returns an error naming file when an id of a pair has no
// origin.
func Score(file string, origin map[string]string, ids []string, pairs []neardup.Pair, edit bool) (*Planted, error) {
	r := &Planted{File: file, Reported: len(pairs)}
	if edit {
		for _, c := range EditCuts {
			r.ByEdit = append(r.ByEdit, PlantedByEdit{MinEdit: c})
		}
	}
	for _, p := range pairs {
		oa, ok1 := origin[ids[p.A]]
		ob, ok2 := origin[ids[p.B]]
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("--truth %s: no row for id %q or %q", file, ids[p.A], ids[p.B])
		}
		related := oa == ob
		if related {
			r.Related++
		} else {
			r.Unrelated++
		}
		for k := range r.ByEdit {
			if p.Edit >= r.ByEdit[k].MinEdit {
				if related {
					r.ByEdit[k].Related++
				} else {
					r.ByEdit[k].Unrelated++
				}
			}
		}
	}
	r.Precision = ratio(r.Related, r.Reported)
	for k := range r.ByEdit {
		b := &r.ByEdit[k]
		b.Precision = ratio(b.Related, b.Related+b.Unrelated)
		b.Kept = ratio(b.Related, r.Related)
	}
	return r, nil
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}
