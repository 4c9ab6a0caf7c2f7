package main

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/neardup/neardup/cmd/neardup/internal/truth"
)

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

func printPlanted(w io.Writer, r *truth.Planted) error {
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
