package index_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
)

// An embedded index in a directory: create it, add documents (each Add
// reports the near-duplicates already indexed), query a new text, and open
// it again later with the parameters it was made with.
func Example() {
	dir, err := os.MkdirTemp("", "neardup-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	st, err := index.OpenPebble(ctx, dir, index.PebbleOptions{})
	if err != nil {
		panic(err)
	}
	ix, err := index.Create(ctx, st, index.Meta{Params: neardup.Params{Threshold: 0.5}}, index.Options{})
	if err != nil {
		panic(err)
	}
	for _, d := range []struct{ id, text string }{
		{"ad1", "Senior Go developer wanted in Rome, full time, apply today with your CV"},
		{"ad2", "Bakery in Milan looks for a morning baker, early shifts"},
		{"ad3", "senior go developer wanted in rome full time apply today with your cv"},
	} {
		res, err := ix.Add(ctx, d.id, []byte(d.text), index.AddOptions{})
		if err != nil {
			panic(err)
		}
		for _, m := range res.Duplicates {
			fmt.Printf("%s duplicates %s (%.3f)\n", d.id, m.ID, m.Jaccard)
		}
	}
	matches, err := ix.Query(ctx, []byte("Senior Go developer wanted in Rome, full time, apply now with your CV"), index.QueryOptions{})
	if err != nil {
		panic(err)
	}
	for _, m := range matches {
		fmt.Printf("query matches %s (%.3f)\n", m.ID, m.Jaccard)
	}
	if err := ix.Close(); err != nil { // closes the store too
		panic(err)
	}

	// Later: the parameters are stored with the index.
	st, err = index.OpenPebble(ctx, dir, index.PebbleOptions{})
	if err != nil {
		panic(err)
	}
	ix, err = index.Open(ctx, st, index.Options{})
	if err != nil {
		panic(err)
	}
	defer ix.Close()
	if _, err := ix.Get(ctx, "ad9"); errors.Is(err, index.ErrNotFound) {
		fmt.Println(err)
	}
	stats, err := ix.Stats(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Printf("threshold %v: %d documents, %d distinct sets\n", ix.Params().Threshold, stats.Documents, stats.Groups)
	// Output:
	// ad3 duplicates ad1 (1.000)
	// query matches ad1 (0.571)
	// query matches ad3 (0.571)
	// index: not found: "ad9"
	// threshold 0.5: 3 documents, 2 distinct sets
}
