package main

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cmd/neardup/internal/truth"
)

// plantedReport scores reported pairs against what a corpus generator
// planted (bench/gencorpus -truth): a pair is "related" when both documents
// descend from the same original or template family, and "unrelated" when
// they are similar by accident (shared boilerplate, short texts). This is
// how to see whether a refinement removes accidental pairs without losing
// planted ones.
type plantedReport struct {
	File      string          `json:"file"`
	Reported  int             `json:"reported"`
	Related   int             `json:"related"`
	Unrelated int             `json:"unrelated"`
	Precision float64         `json:"precision"` // related / reported
	ByEdit    []plantedByEdit `json:"by_edit,omitempty"`
}

// plantedByEdit counts the pairs that also reach an edit similarity.
type plantedByEdit struct {
	MinEdit   float64 `json:"min_edit"`
	Related   int     `json:"related"`
	Unrelated int     `json:"unrelated"`
	Precision float64 `json:"precision"`
	Kept      float64 `json:"related_kept"` // related pairs kept / related pairs without the filter
}

// readTruth reads a TSV with a header naming at least the columns id and
// source (and optionally family) and returns each id's origin: the family
// ("f:NAME") or the root of its chain of sources ("d:ID"), as
// truth.Origins.
func readTruth(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--truth: %w", err)
	}
	defer f.Close()
	return truth.Origins(f, "--truth "+path)
}

// scorePlanted classifies the reported pairs with the truth's origins.
func scorePlanted(file string, origin map[string]string, ids []string, pairs []neardup.Pair, edit bool) (*plantedReport, error) {
	r := &plantedReport{File: file, Reported: len(pairs)}
	cuts := []float64{0.5, 0.6, 0.7, 0.8, 0.9}
	if edit {
		for _, c := range cuts {
			r.ByEdit = append(r.ByEdit, plantedByEdit{MinEdit: c})
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

func printPlanted(w io.Writer, r *plantedReport) error {
	fmt.Fprintf(w, "\nplanted truth (%s): of %s, %s, %d %s not (precision against the plant %.4f)\n",
		r.File, plural(r.Reported, "reported pair", "reported pairs"), plural(r.Related, "is a planted relative", "are planted relatives"), r.Unrelated, pick(r.Unrelated, "is", "are"), r.Precision)
	if len(r.ByEdit) == 0 {
		return nil
	}
	fmt.Fprintln(w, "with --refine edit, keeping only pairs whose edit similarity reaches:")
	var rows [][]string
	for _, b := range r.ByEdit {
		rows = append(rows, []string{strconv.FormatFloat(b.MinEdit, 'f', 2, 64), strconv.Itoa(b.Related), strconv.Itoa(b.Unrelated),
			strconv.FormatFloat(b.Precision, 'f', 4, 64), strconv.FormatFloat(b.Kept, 'f', 4, 64)})
	}
	return printTable(w, []string{"min edit", "relatives", "others", "precision", "relatives kept"}, rows)
}
