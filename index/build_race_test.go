package index_test

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/indextest"
)

// TestBuildConcurrentAdd: a Build into an empty index while Adds insert
// ids the build also has leaves the index consistent (no id twice).
func TestBuildConcurrentAdd(t *testing.T) {
	docs := indextest.GenDocs(t, 3000, 3)
	h := pebbleHarness()
	for round := 0; round < 5; round++ {
		ix := indextest.NewIndex(t, h, index.Meta{})
		var wg sync.WaitGroup
		wg.Go(func() {
			i := 0
			ix.Build(context.Background(), func() (string, []byte, error) {
				if i == len(docs) {
					return "", nil, io.EOF
				}
				i++
				return fmt.Sprint(i - 1), []byte(docs[i-1]), nil
			}, index.BuildOptions{Batch: 100})
		})
		for i := 2999; i > 0; i -= 50 { // ids the build will also insert
			ix.Add(context.Background(), fmt.Sprint(i), []byte(docs[(i+7)%3000]), index.AddOptions{})
		}
		wg.Wait()
		if _, err := ix.Check(context.Background()); err != nil {
			t.Errorf("round %d: %v", round, err)
		}
	}
}
