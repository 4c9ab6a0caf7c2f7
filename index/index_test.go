package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/gen"
	"github.com/neardup/neardup/shingle"
)

var ctx = context.Background()

// genDocs returns n generated documents with planted near-duplicates.
func genDocs(t testing.TB, n int, seed uint64) []string {
	t.Helper()
	var docs []string
	err := gen.Generate(gen.Config{Docs: n, Seed: seed, MeanWords: 60}, func(i int, d gen.Doc) error {
		docs = append(docs, d.Text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// memIndex creates an index in a Pebble store in memory; the file system
// is returned for reopening.
func memIndex(t testing.TB, m Meta) (*Index, vfs.FS) {
	t.Helper()
	fs := vfs.NewMem()
	st, err := OpenPebble("idx", PebbleOptions{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Create(ctx, st, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix, fs
}

func reopen(t testing.TB, ix *Index, fs vfs.FS) *Index {
	t.Helper()
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := OpenPebble("idx", PebbleOptions{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	ix2, err := Open(ctx, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix2.Close() })
	return ix2
}

func mustCheck(t testing.TB, ix *Index) CheckReport {
	t.Helper()
	r, err := ix.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// batchPartners runs dedup's engine on docs and returns, for each
// document, its near-duplicate partners with their Jaccard.
func batchPartners(t testing.TB, p neardup.Params, docs []string) []map[int]float64 {
	t.Helper()
	b, err := neardup.NewBatch(neardup.Options{Params: p})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		b.Add(fmt.Sprint(i), []byte(d))
	}
	res, err := b.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]map[int]float64, len(docs))
	for i := range out {
		out[i] = map[int]float64{}
	}
	for pr := range res.AllPairs() {
		out[pr.A][pr.B] = pr.Jaccard
		out[pr.B][pr.A] = pr.Jaccard
	}
	return out
}

func docsNext(docs []string) func() (string, []byte, error) {
	i := 0
	return func() (string, []byte, error) {
		if i == len(docs) {
			return "", nil, io.EOF
		}
		i++
		return fmt.Sprint(i - 1), []byte(docs[i-1]), nil
	}
}

// TestSameAsDedup: an index built from a corpus reports, for every
// document, exactly the near-duplicates dedup pairs it with, with the same
// Jaccard, before and after reopening.
func TestSameAsDedup(t *testing.T) {
	docs := genDocs(t, 2000, 3)
	docs = append(docs, docs[10], docs[10], "", docs[20]) // copies and an empty text
	for _, p := range []neardup.Params{{}, {Threshold: 0.3, Shingle: shingle.Options{N: 2}}, {Shingle: shingle.Options{Mode: shingle.Char}}} {
		ix, fs := memIndex(t, Meta{Params: p, KeepTexts: true})
		st, err := ix.Build(ctx, docsNext(docs), BuildOptions{Batch: 300})
		if err != nil {
			t.Fatal(err)
		}
		if st.Read != int64(len(docs)) || st.Empty != 1 || st.Added != int64(len(docs)-1) {
			t.Fatalf("build stats %+v", st)
		}
		r := mustCheck(t, ix)
		if r.Groups != st.NewGroups || r.Documents != st.Added {
			t.Fatalf("check %+v vs build %+v", r, st)
		}
		want := batchPartners(t, ix.Params(), docs)
		for round := range 2 {
			ixx := ix
			if round == 1 {
				ixx = reopen(t, ix, fs)
			}
			for i := range docs {
				if docs[i] == "" {
					continue
				}
				got, err := ixx.Duplicates(ctx, fmt.Sprint(i), QueryOptions{})
				if err != nil {
					t.Fatal(err)
				}
				gotMap := map[int]float64{}
				for k, m := range got {
					var j int
					fmt.Sscan(m.ID, &j)
					gotMap[j] = m.Jaccard
					if k > 0 && got[k-1].Jaccard < m.Jaccard {
						t.Fatalf("doc %d: duplicates not most similar first", i)
					}
				}
				if fmt.Sprint(gotMap) != fmt.Sprint(want[i]) {
					t.Fatalf("%v, doc %d: index %v, dedup %v", ixx.Params(), i, gotMap, want[i])
				}
				// Query with the text finds the same plus the document itself.
				q, err := ixx.Query(ctx, []byte(docs[i]), QueryOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if len(q) != len(got)+1 {
					t.Fatalf("doc %d: query found %d, duplicates %d (+ itself)", i, len(q), len(got))
				}
			}
		}
	}
}

func TestAddSemantics(t *testing.T) {
	ix, fs := memIndex(t, Meta{KeepTexts: true})
	a := "the quick brown fox jumps over the lazy dog near the river bank today"
	b := "the quick brown fox jumps over the lazy dog near the river bank tomorrow"
	c := "completely different words about cooking pasta with tomato sauce and basil"
	res, err := ix.Add(ctx, "a", []byte(a), AddOptions{})
	if err != nil || !res.Added || len(res.Duplicates) != 0 || res.Seq != 1 {
		t.Fatalf("Add a: %+v, %v", res, err)
	}
	res, err = ix.Add(ctx, "b", []byte(b), AddOptions{})
	if err != nil || !res.Added || len(res.Duplicates) != 1 || res.Duplicates[0].ID != "a" {
		t.Fatalf("Add b: %+v, %v", res, err)
	}
	sh, _ := shingle.New(shingle.Options{})
	wantJ := shingle.Jaccard(sh.AppendSetString(nil, a), sh.AppendSetString(nil, b))
	if res.Duplicates[0].Jaccard != wantJ {
		t.Errorf("Jaccard %v, want the exact %v", res.Duplicates[0].Jaccard, wantJ)
	}
	if _, err := ix.Add(ctx, "a", []byte(c), AddOptions{}); !errors.Is(err, ErrExists) {
		t.Errorf("Add of an existing id: %v, want ErrExists", err)
	}
	res, err = ix.Add(ctx, "c", []byte(a), AddOptions{IfUnique: true})
	if err != nil || res.Added || len(res.Duplicates) != 2 || res.Duplicates[0].ID != "a" || res.Duplicates[0].Jaccard != 1 {
		t.Errorf("IfUnique with duplicates: %+v, %v", res, err)
	}
	if _, err := ix.Get(ctx, "c"); !errors.Is(err, ErrNotFound) {
		t.Errorf("IfUnique inserted c: %v", err)
	}
	// A copy of a joins a's group.
	if res, err = ix.Add(ctx, "a2", []byte(a), AddOptions{}); err != nil || len(res.Duplicates) != 2 {
		t.Fatalf("Add a2: %+v, %v", res, err)
	}
	st, _ := ix.Stats(ctx)
	if st.Documents != 3 || st.Groups != 2 {
		t.Errorf("stats %+v, want 3 documents in 2 groups", st)
	}
	// Replace a with c's text: a's group keeps a2.
	if res, err = ix.Add(ctx, "a", []byte(c), AddOptions{Replace: true}); err != nil || !res.Replaced || len(res.Duplicates) != 0 {
		t.Fatalf("replace a: %+v, %v", res, err)
	}
	d, err := ix.Get(ctx, "a")
	if err != nil || string(d.Text) != c {
		t.Fatalf("Get a after replace: %+v, %v", d, err)
	}
	// Replace a2 (its group's last member) with its own text again.
	if res, err = ix.Add(ctx, "a2", []byte(a), AddOptions{Replace: true}); err != nil || !res.Replaced {
		t.Fatalf("replace a2 with itself: %+v, %v", res, err)
	}
	mustCheck(t, ix)
	if err := ix.Remove(ctx, "a2"); err != nil {
		t.Fatal(err)
	}
	if err := ix.Remove(ctx, "a2"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Remove: %v", err)
	}
	if q, _ := ix.Query(ctx, []byte(a), QueryOptions{}); len(q) != 1 || q[0].ID != "b" {
		t.Errorf("query after removing a2: %+v", q)
	}
	if _, err := ix.Query(ctx, []byte(a), QueryOptions{Threshold: 0.2}); !errors.Is(err, ErrThreshold) {
		t.Errorf("threshold below the index's: %v", err)
	}
	if q, err := ix.Query(ctx, []byte(a), QueryOptions{Threshold: 0.99}); err != nil || len(q) != 0 {
		t.Errorf("threshold 0.99: %+v, %v", q, err)
	}
	if _, err := ix.Add(ctx, "e", []byte("!!! ..."), AddOptions{}); !errors.Is(err, ErrNoShingles) {
		t.Errorf("text without shingles: %v", err)
	}
	if _, err := ix.Add(ctx, "", []byte(a), AddOptions{}); !errors.Is(err, neardup.ErrInvalid) {
		t.Errorf("empty id: %v", err)
	}
	r := mustCheck(t, reopen(t, ix, fs))
	if r.Documents != 2 || r.Groups != 2 {
		t.Errorf("after reopen: %+v", r)
	}
}

func TestOpenOrCreateCompatible(t *testing.T) {
	fs := vfs.NewMem()
	st, _ := OpenPebble("idx", PebbleOptions{FS: fs})
	if _, err := Open(ctx, st, Options{}); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("Open of an empty store: %v", err)
	}
	ix, err := OpenOrCreate(ctx, st, Meta{Params: neardup.Params{Threshold: 0.6}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	for _, p := range []neardup.Params{{Threshold: 0.5}, {Threshold: 0.6, Shingle: shingle.Options{N: 4}}, {Threshold: 0.6, Seed: 9}} {
		st, _ := OpenPebble("idx", PebbleOptions{FS: fs})
		if _, err := OpenOrCreate(ctx, st, Meta{Params: p}, Options{}); !errors.Is(err, neardup.ErrIncompatible) {
			t.Errorf("OpenOrCreate with %v: %v, want ErrIncompatible", p, err)
		}
		st.Close()
	}
	st, _ = OpenPebble("idx", PebbleOptions{FS: fs})
	defer st.Close()
	if _, err := OpenOrCreate(ctx, st, Meta{Params: neardup.Params{Threshold: 0.6}}, Options{}); err != nil {
		t.Errorf("OpenOrCreate with the same params: %v", err)
	}
	if _, err := Create(ctx, st, Meta{Params: neardup.Params{Weight: neardup.WeightIDF}}, Options{}); !errors.Is(err, neardup.ErrOptions) {
		t.Errorf("idf index: %v", err)
	}
}

// TestConcurrentAddsOfOneText: concurrent Adds of one text never all come
// back clean: exactly one finds no duplicate. Run with -race.
func TestConcurrentAddsOfOneText(t *testing.T) {
	ix, _ := memIndex(t, Meta{})
	const rounds, writers = 20, 8
	texts := genDocs(t, 400, 11)
	for r := range rounds {
		text := []byte(texts[20*r]) // far apart in the corpus: unrelated
		if len(text) == 0 {
			continue
		}
		var clean atomic.Int32
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				res, err := ix.Add(ctx, fmt.Sprintf("r%d-w%d", r, w), text, AddOptions{})
				if err != nil {
					t.Error(err)
					return
				}
				if len(res.Duplicates) == 0 {
					clean.Add(1)
				}
			})
		}
		wg.Wait()
		if clean.Load() != 1 {
			t.Fatalf("round %d: %d of %d concurrent adds came back without duplicates", r, clean.Load(), writers)
		}
	}
	mustCheck(t, ix)
}

// TestConcurrentMixed runs adds, queries, duplicates and removals at once
// (for the race detector), then checks the index.
func TestConcurrentMixed(t *testing.T) {
	docs := genDocs(t, 600, 7)
	ix, fs := memIndex(t, Meta{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for i := w; i < len(docs); i += 4 {
				id := fmt.Sprint(i)
				if _, err := ix.Add(ctx, id, []byte(docs[i]), AddOptions{}); err != nil && !errors.Is(err, ErrNoShingles) {
					t.Error(err)
					return
				}
				if _, err := ix.Query(ctx, []byte(docs[rng.IntN(len(docs))]), QueryOptions{}); err != nil && !errors.Is(err, ErrNoShingles) {
					t.Error(err)
					return
				}
				if i%5 == 0 {
					if _, err := ix.Duplicates(ctx, id, QueryOptions{}); err != nil && !errors.Is(err, ErrNotFound) {
						t.Error(err)
						return
					}
				}
				if i%7 == 0 {
					if err := ix.Remove(ctx, id); err != nil && !errors.Is(err, ErrNotFound) {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	r := mustCheck(t, ix)
	mustCheck(t, reopen(t, ix, fs))
	if r.Documents < 400 {
		t.Errorf("%d documents left", r.Documents)
	}
}

func TestBandTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	tab := newBandTable()
	ref := map[uint32]map[uint32]bool{}
	keyOf := func(k uint32) uint64 { return uint64(k)<<32 | uint64(rng.Uint32()) }
	for op := range 100000 {
		k := uint32(rng.IntN(300)) * 2654435761 // spread, with many collisions of home slots
		g := uint32(1 + rng.IntN(500))
		if ref[k] == nil {
			ref[k] = map[uint32]bool{}
		}
		if rng.IntN(3) > 0 {
			if !ref[k][g] {
				tab.add(keyOf(k), g)
				ref[k][g] = true
			}
		} else {
			got := tab.remove(keyOf(k), g)
			if got != ref[k][g] {
				t.Fatalf("op %d: remove(%d, %d) = %v, want %v", op, k, g, got, ref[k][g])
			}
			delete(ref[k], g)
		}
		if op%101 == 0 {
			n := 0
			for k, gs := range ref {
				var want []uint64
				for g := range gs {
					want = append(want, uint64(g))
				}
				slices.Sort(want)
				n += len(want)
				if got := tab.lookup(nil, keyOf(k)); !slices.Equal(got, want) {
					t.Fatalf("op %d: lookup(%d) = %v, want %v", op, k, got, want)
				}
			}
			if tab.n != n {
				t.Fatalf("op %d: n = %d, want %d", op, tab.n, n)
			}
		}
	}
}

func TestEncodingRoundTrip(t *testing.T) {
	g := Group{Set: []uint64{1, 5, 1 << 63}, Signature: []uint32{7, 8, 9}, Keys: []uint64{42, 43}}
	got, err := DecodeGroup(AppendGroup(nil, g))
	if err != nil || fmt.Sprint(got) != fmt.Sprint(g) {
		t.Fatalf("group: %+v, %v", got, err)
	}
	d := Doc{Seq: 9, ID: "a\x00b", Group: 3, Added: -5, Text: []byte("hi")}
	gotD, err := DecodeDoc(AppendDoc(nil, d))
	if err != nil || fmt.Sprint(gotD) != fmt.Sprint(d) {
		t.Fatalf("doc: %+v, %v", gotD, err)
	}
	m := Meta{Params: neardup.Params{Threshold: 0.7}, KeepTexts: true}
	enc, err := AppendMeta(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	gotM, err := DecodeMeta(enc)
	want, _ := m.Params.Resolve()
	if err != nil || gotM.Params != want || !gotM.KeepTexts {
		t.Fatalf("meta: %+v, %v", gotM, err)
	}
	for k := range enc {
		if _, err := DecodeMeta(enc[:k]); err == nil {
			t.Fatalf("meta truncated to %d bytes decodes", k)
		}
	}
	bad := AppendGroup(nil, Group{Set: []uint64{5, 1}})
	if _, err := DecodeGroup(bad); !errors.Is(err, neardup.ErrCorrupt) {
		t.Errorf("unsorted set: %v", err)
	}
	v2 := AppendDoc(nil, d)
	v2[0] = 2
	if _, err := DecodeDoc(v2); !errors.Is(err, neardup.ErrVersion) {
		t.Errorf("another format: %v", err)
	}
}

func FuzzDecodeRecords(f *testing.F) {
	f.Add(AppendGroup(nil, Group{Set: []uint64{1, 2}, Signature: []uint32{3}, Keys: []uint64{4}}))
	f.Add(AppendDoc(nil, Doc{Seq: 1, ID: "x", Group: 2, Text: []byte("t")}))
	m, _ := AppendMeta(nil, Meta{})
	f.Add(m)
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		if g, err := DecodeGroup(b); err == nil {
			if again, err := DecodeGroup(AppendGroup(nil, g)); err != nil || fmt.Sprint(again) != fmt.Sprint(g) {
				t.Fatalf("group re-decode: %v", err)
			}
		} else if !errors.Is(err, neardup.ErrCorrupt) && !errors.Is(err, neardup.ErrVersion) {
			t.Fatalf("group error %v wraps no sentinel", err)
		}
		if d, err := DecodeDoc(b); err == nil {
			if again, err := DecodeDoc(AppendDoc(nil, d)); err != nil || fmt.Sprint(again) != fmt.Sprint(d) {
				t.Fatalf("doc re-decode: %v", err)
			}
		} else if !errors.Is(err, neardup.ErrCorrupt) && !errors.Is(err, neardup.ErrVersion) {
			t.Fatalf("doc error %v wraps no sentinel", err)
		}
		if m, err := DecodeMeta(b); err == nil {
			enc, err := AppendMeta(nil, m)
			if err != nil {
				t.Fatal(err)
			}
			if again, err := DecodeMeta(enc); err != nil || again != m {
				t.Fatalf("meta re-decode: %v", err)
			}
		}
	})
}

// snapshot lists an index's documents as "id:group-of-first-member-text"
// lines: equal snapshots mean the same documents with the same texts
// grouped the same way.
func snapshot(t *testing.T, ix *Index) []string {
	t.Helper()
	var out []string
	err := ix.Store().View(ctx, func(tx Tx) error {
		return tx.EachDoc(func(d Doc) error {
			ms, err := tx.Members(nil, d.Group)
			if err != nil {
				return err
			}
			first, err := tx.Doc(ms[0])
			if err != nil {
				return err
			}
			out = append(out, d.ID+":"+string(d.Text)+"|group of "+first.ID)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestAddBatchLikeAdds: AddBatch of a sequence of items gives the results
// and the index that adding them one at a time gives, with copies,
// near-duplicates, replacements and repeated ids inside the batch.
func TestAddBatchLikeAdds(t *testing.T) {
	docs := genDocs(t, 300, 21)
	rng := rand.New(rand.NewPCG(5, 5))
	for round := range 12 {
		var items []AddItem
		for range 60 {
			id := fmt.Sprint("d", rng.IntN(40)) // ids repeat
			text := docs[rng.IntN(40)]           // texts repeat, near-duplicates among them
			if rng.IntN(10) == 0 {
				text = "!!!" // no shingles
			}
			items = append(items, AddItem{ID: id, Text: []byte(text)})
		}
		o := AddOptions{Replace: round%2 == 0, IfUnique: round%3 == 0}
		one, _ := memIndex(t, Meta{KeepTexts: true})
		batch, _ := memIndex(t, Meta{KeepTexts: true})
		// A common start, committed before.
		for i := range 10 {
			for _, ix := range []*Index{one, batch} {
				if _, err := ix.Add(ctx, fmt.Sprint("d", i), []byte(docs[i]), AddOptions{}); err != nil {
					t.Fatal(err)
				}
			}
		}
		var want []AddResult
		for _, it := range items {
			r, err := one.Add(ctx, it.ID, it.Text, o)
			r.Err = err
			want = append(want, r)
		}
		got, err := batch.AddBatch(ctx, items, o)
		if err != nil {
			t.Fatal(err)
		}
		for i := range items {
			g, w := got[i], want[i]
			if (g.Err == nil) != (w.Err == nil) || g.Err != nil && g.Err.Error() != w.Err.Error() ||
				g.Added != w.Added || g.Replaced != w.Replaced || g.Seq != w.Seq || fmt.Sprint(g.Duplicates) != fmt.Sprint(w.Duplicates) {
				t.Fatalf("round %d (%+v), item %d (%s): batch %+v, one by one %+v", round, o, i, items[i].ID, g, w)
			}
		}
		mustCheck(t, batch)
		if a, b := snapshot(t, one), snapshot(t, batch); !slices.Equal(a, b) {
			t.Fatalf("round %d: the indexes differ:\n%v\n%v", round, a, b)
		}
	}
}
