package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/corpus"
)

const sample = "../../testdata/sample/ads.jsonl"

func formatPair(v Verified) string { return fmt.Sprintf("%s\t%s\t%.6f", v.IDA, v.IDB, v.Jaccard) }

func init() { register.Function1x1(formatPair) }

func TestMain(m *testing.M) {
	beam.Init()
	os.Exit(m.Run())
}

// On Prism, the pipeline's verified pairs are the batch's, every pair
// (identical copies included) with the same exact Jaccard.
func TestPairsSameAsBatch(t *testing.T) {
	c, err := NewConfig(neardup.Params{}, neardup.VerifyExact, 2000, []string{sample})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "pairs.tsv")
	p, s := beam.NewPipelineWithRoot()
	textio.Write(s, out, beam.ParDo(s, formatPair, Pairs(s, c)))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := prism.Execute(ctx, p); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(b)), "\n")
	slices.Sort(got)

	want := batchPairs(t)
	if len(want) == 0 {
		t.Fatal("the batch found no pairs in the sample")
	}
	if !slices.Equal(got, want) {
		t.Errorf("pipeline: %d pairs, batch: %d", len(got), len(want))
		for i := 0; i < min(len(got), len(want)); i++ {
			if got[i] != want[i] {
				t.Fatalf("first difference at %d: %q vs %q", i, got[i], want[i])
			}
		}
	}
}

func batchPairs(t *testing.T) []string {
	t.Helper()
	bt, err := neardup.NewBatch(neardup.Options{MaxBucket: 2000})
	if err != nil {
		t.Fatal(err)
	}
	defer bt.Close()
	r, err := corpus.Open(sample, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		bt.Add(rec.ID, rec.Text)
	}
	res, err := bt.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for pr := range res.AllPairs() {
		lines = append(lines, fmt.Sprintf("%s\t%s\t%.6f", bt.ID(int(pr.A)), bt.ID(int(pr.B)), pr.Jaccard))
	}
	slices.Sort(lines)
	return lines
}
