package dedupout

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/neardup/neardup"
)

// writeBatchPairs writes res's pairs as neardup dedup does: every pair
// by ranges of documents, or with compact Result.Pairs.
func writeBatchPairs(w io.Writer, bt *neardup.Batch, res *neardup.Result, compact bool) error {
	if compact {
		return WritePairs(w, bt.IDs(), res.Pairs, PairsOptions{})
	}
	l := res.PairLister()
	return WritePairRanges(w, bt.IDs(), l.Documents(), res.Stats.Pairs, l.Range, PairsOptions{})
}

// rangePairs yields, for each i in [lo, hi), pairs (i, i+1+k) for k <
// count(i), stopping early if asked; produced counts every pair yielded.
func rangePairs(count func(i int) int, produced *atomic.Int64) func(lo, hi int) iter.Seq[Pair] {
	return func(lo, hi int) iter.Seq[Pair] {
		return func(yield func(Pair) bool) {
			for i := lo; i < hi; i++ {
				for k := range count(i) {
					produced.Add(1)
					if !yield(Pair{A: i, B: i + 1 + k, Jaccard: float64((i+k)%1000) / 1000}) {
						return
					}
				}
			}
		}
	}
}

// formatPlain writes "A\tB\tJaccard\n" lines (fmt's "%d\t%d\t%.6f\n" in
// strconv's calls: TestWriteRanges formats millions of lines, which fmt
// made most of its time under the race detector).
func formatPlain(buf []byte, ps []Pair) []byte {
	for _, p := range ps {
		buf = strconv.AppendInt(buf, int64(p.A), 10)
		buf = append(buf, '\t')
		buf = strconv.AppendInt(buf, int64(p.B), 10)
		buf = append(buf, '\t')
		buf = strconv.AppendFloat(buf, p.Jaccard, 'f', 6, 64)
		buf = append(buf, '\n')
	}
	return buf
}

// writeRanges writes what a plain loop writes, in order, for any number of
// workers, parts and batch boundaries, with parts of no pairs and parts of
// several flushes' worth (a line here is at least 14 bytes).
func TestWriteRanges(t *testing.T) {
	counts := map[string]func(int) int{
		"one":    func(int) int { return 1 },
		"skewed": func(i int) int { return []int{0, 3, 0, 0, pairBatch + 1, 7}[i%6] },
		"huge": func(i int) int {
			if i == 5 {
				return 3 * partFlush / 14
			}
			return i % 3
		},
	}
	for name, count := range counts {
		for _, n := range []int{0, 1, 17, 300} {
			var none atomic.Int64
			seq := rangePairs(count, &none)
			var want []byte
			for p := range seq(0, n) {
				want = formatPlain(want, []Pair{p})
			}
			for _, workers := range []int{1, 2, 5} {
				for _, step := range []int{1, 7, 1000} {
					var got bytes.Buffer
					w := bufio.NewWriter(&got)
					if err := writeRanges(w, n, step, seq, formatPlain, workers, nil); err != nil {
						t.Fatal(err)
					}
					if err := w.Flush(); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got.Bytes(), want) {
						t.Fatalf("%s n=%d workers=%d step=%d: %d bytes differ from the %d of a plain loop", name, n, workers, step, got.Len(), len(want))
					}
				}
			}
		}
	}
}

type failAfter struct {
	n   int
	err error
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n < len(p) {
		return 0, f.err
	}
	f.n -= len(p)
	return len(p), nil
}

// A write error stops the writing (no worker is left blocked, the rest of
// the pairs is not produced) and is returned.
func TestWriteRangesError(t *testing.T) {
	errDisk := errors.New("disk full")
	const n, perDoc = 2000, 500 // a million pairs, about 20 MB of lines
	for _, workers := range []int{1, 3} {
		for _, step := range []int{1, 100} {
			w := bufio.NewWriterSize(&failAfter{n: 100_000, err: errDisk}, 4096)
			var produced atomic.Int64
			seq := rangePairs(func(int) int { return perDoc }, &produced)
			err := writeRanges(w, n, step, seq, formatPlain, workers, nil)
			if !errors.Is(err, errDisk) {
				t.Fatalf("workers=%d step=%d: err = %v, want %v", workers, step, err, errDisk)
			}
			if got := produced.Load(); got >= n*perDoc/2 {
				t.Errorf("workers=%d step=%d: %d of the %d pairs were produced after the error", workers, step, got, n*perDoc)
			}
		}
	}
}

// BenchmarkWritePairs formats every pair of a corpus whose identical groups
// expand to millions of pairs (as the 10M benchmark corpus does) to
// io.Discard: the time of producing and formatting the listing, without
// the file system's.
func BenchmarkWritePairs(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string { return fmt.Sprintf("w%d", rng.IntN(5000)) }
	var docs []string
	for range 20_000 {
		ws := make([]string, 40)
		for k := range ws {
			ws[k] = word()
		}
		docs = append(docs, strings.Join(ws, " "))
	}
	// Near-copies (one word changed) and identical groups of 2-2,000.
	for i := range 5_000 {
		ws := strings.Fields(docs[i])
		ws[rng.IntN(len(ws))] = word()
		docs = append(docs, strings.Join(ws, " "))
	}
	for g := range 20 {
		for range 2 + g*g*5 {
			docs = append(docs, docs[g*7])
		}
	}
	rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	bt, err := neardup.NewBatch(neardup.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for i, d := range docs {
		if err := bt.Add(fmt.Sprintf("corpus.jsonl:d%08d", i), []byte(d)); err != nil {
			b.Fatal(err)
		}
	}
	res, err := bt.Run(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(io.Discard, 1<<16)
	for b.Loop() {
		if err := writeBatchPairs(w, bt, res, false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.Stats.Pairs), "pairs/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(res.Stats.Pairs), "ns/pair")
}

// newIDTable keeps each id as the pairs file writes it, escaped, whatever
// its length, in a slot or not; it makes no slots for corpora of long ids
// or listings of fewer pairs than documents.
func TestIDTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	id := func(n int) string {
		b := make([]byte, n)
		for k := range b {
			b[k] = "abcdefghijklmnopqrstuvwxyz\t\\\n\r"[rng.IntN(30)]
		}
		return string(b)
	}
	check := func(what string, tb *idTable, ids []string) {
		t.Helper()
		for d, s := range ids {
			want := "x" + EscapeField(s)
			if got := string(tb.appendString([]byte("x"), d)); got != want {
				t.Fatalf("%s: id %d = %q, want %q", what, d, got, want)
			}
			if tb.slots == nil {
				continue
			}
			if got := string(tb.appendSlot([]byte("x"), d)); got != want {
				t.Fatalf("%s: slot %d = %q, want %q", what, d, got, want)
			}
		}
	}
	for _, workers := range []int{1, 2, 5} {
		var ids []string
		long := 0
		for d := range 1000 {
			n := d % 23 // 0-22 bytes before escaping
			if d%9 == 0 {
				n = 24 + d%17
			}
			ids = append(ids, id(n))
			if len(EscapeField(ids[d])) >= slotBytes {
				long++
			}
		}
		what := fmt.Sprintf("workers=%d", workers)
		tb := newIDTable(ids, len(ids), workers)
		if long == 0 || long > len(ids)/4 || tb.slots == nil {
			t.Fatalf("%s: %d long ids of %d: slots %v", what, long, len(ids), tb.slots != nil)
		}
		check(what, tb, ids)
		// Fewer pairs than documents: no slots.
		tb = newIDTable(ids, len(ids)-1, workers)
		if tb.slots != nil {
			t.Fatalf("%s: slots for fewer pairs than documents", what)
		}
		check(what+" no slots", tb, ids)
		// Most ids long: no slots.
		for d := range ids {
			if d%2 == 0 {
				ids[d] = id(30)
			}
		}
		if tb := newIDTable(ids, 1<<20, workers); tb.slots != nil {
			t.Fatalf("%s: slots for half long ids", what)
		} else {
			check(what+" long ids", tb, ids)
		}
	}
	if tb := newIDTable(nil, 0, 2); len(tb.slots) != 0 || len(tb.plain) != 0 {
		t.Fatal("no ids: want an empty table")
	}
}

// writePairs writes the lines of AllPairs (or of Result.Pairs, compact)
// with AppendPair, from slots and without them (long ids), ids
// that need escaping included.
func TestWritePairsIDs(t *testing.T) {
	for _, idLen := range []int{6, 40} {
		bt, err := neardup.NewBatch(neardup.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, 6))
		var docs []string
		for d := range 400 {
			if d%6 == 0 {
				ws := make([]string, 30)
				for k := range ws {
					ws[k] = fmt.Sprintf("w%d", rng.IntN(3000))
				}
				docs = append(docs, strings.Join(ws, " "))
			} else {
				docs = append(docs, docs[len(docs)-1]+fmt.Sprintf(" w%d", rng.IntN(3000)))
			}
			id := fmt.Sprintf("%0*d", idLen, d)
			if d%7 == 0 {
				id = "a\tb\\" + id
			}
			if err := bt.Add(id, []byte(docs[d])); err != nil {
				t.Fatal(err)
			}
		}
		res, err := bt.Run(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if slots := newIDTable(bt.IDs(), res.Stats.Pairs, 2).slots != nil; res.Stats.Pairs < bt.Len() || slots != (idLen < 20) {
			t.Fatalf("ids of %d bytes, %d pairs: slots %v", idLen, res.Stats.Pairs, slots)
		}
		for _, compact := range []bool{false, true} {
			var want []byte
			add := func(p Pair) {
				want = append(AppendPair(want, bt.ID(p.A), bt.ID(p.B), p.Jaccard), '\n')
			}
			if compact {
				for _, p := range res.Pairs {
					add(Pair(p))
				}
			} else {
				for p := range res.AllPairs() {
					add(Pair(p))
				}
			}
			var got bytes.Buffer
			w := bufio.NewWriter(&got)
			if err := writeBatchPairs(w, bt, res, compact); err != nil {
				t.Fatal(err)
			}
			w.Flush()
			if len(want) == 0 || !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("ids of %d bytes, compact %v: %d bytes written, want %d (%d pairs)", idLen, compact, got.Len(), len(want), res.Stats.Pairs)
			}
		}
	}
}
