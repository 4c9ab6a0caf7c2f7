package index_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
)

// QueryBatch answers as Query does, in the order of the texts, whatever
// the number of workers.
func TestQueryBatch(t *testing.T) {
	ix := newIndex(t, neardup.Params{Threshold: 0.5})
	ctx := context.Background()
	var texts [][]byte
	for i := range 40 {
		text := fmt.Sprintf("doc %d of the corpus with words %d %d %d and more words", i%7, i%7, i%7*3, i%7*5)
		if i%10 == 0 {
			if _, err := ix.Add(ctx, fmt.Sprint(i), []byte(text), index.AddOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		texts = append(texts, []byte(text))
	}
	texts = append(texts, []byte(" "), []byte("unrelated text about something else entirely"))
	for _, q := range []index.QueryOptions{{}, {Threshold: 0.9, Limit: 1}, {Threshold: 0.1}} {
		for _, workers := range []int{0, 1, 3, 100} {
			res, errs := ix.QueryBatch(ctx, texts, q, workers)
			if len(res) != len(texts) || len(errs) != len(texts) {
				t.Fatalf("%d answers for %d texts", len(res), len(texts))
			}
			for i, text := range texts {
				want, werr := ix.Query(ctx, text, q)
				if !slices.Equal(res[i], want) || !errors.Is(errs[i], werr) && (errs[i] == nil || werr == nil || errs[i].Error() != werr.Error()) {
					t.Errorf("%+v, %d workers, text %d: %v %v, Query: %v %v", q, workers, i, res[i], errs[i], want, werr)
				}
			}
			if q.Threshold == 0 && (len(res[0]) == 0 || !errors.Is(errs[len(texts)-2], index.ErrNoShingles)) {
				t.Errorf("%d workers: no match for an indexed text (%v) or no ErrNoShingles (%v)", workers, res[0], errs[len(texts)-2])
			}
		}
	}
	if res, errs := ix.QueryBatch(ctx, nil, index.QueryOptions{}, 4); len(res) != 0 || len(errs) != 0 {
		t.Errorf("no texts: %v %v", res, errs)
	}
}
