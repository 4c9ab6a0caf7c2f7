// Package indextest is the conformance suite of index.Store: the tests of
// an index's behaviour through the Store interface, run by each store's
// own tests against that store (the embedded PebbleStore in package
// index's tests, the Redis store in package index/redisstore's), so that
// every store passes the same tests. Like net/http/httptest, it is for
// tests only.
//
// Who uses it from outside: the author of a Store of their own, whose
// tests run StoreContract against it.
package indextest

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

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/gen"
	"github.com/neardup/neardup/shingle"
)

// Harness makes the stores of a conformance run.
type Harness struct {
	// New returns a new, empty store for t, and closes it when t ends
	// (t.Cleanup); the suite may have closed it already, so Close must
	// tolerate a second call.
	New func(t *testing.T) index.Store
	// Reopen closes st and returns the same store opened again, as
	// another process would open it (and closes the new one when t ends).
	// Nil: the checks after reopening are skipped.
	Reopen func(t *testing.T, st index.Store) index.Store
}

// Run runs the whole suite, each test a subtest with fresh stores: the
// Store contract itself, then index behaviour (results like dedup's, Add's
// semantics, AddBatch like Adds, OpenOrCreate, concurrent Adds of one
// text, a concurrent mix), each followed by Check.
//
// The subtests run in parallel with each other (t.Parallel), each on its
// own stores: h.New and h.Reopen must be safe for concurrent use.
func Run(t *testing.T, h Harness) {
	for _, st := range []struct {
		name string
		run  func(t *testing.T, h Harness)
	}{
		{"StoreContract", StoreContract},
		{"SameAsDedup", func(t *testing.T, h Harness) { SameAsDedup(t, h, 600) }},
		{"AddSemantics", AddSemantics},
		{"AddBatchLikeAdds", AddBatchLikeAdds},
		{"OpenOrCreateCompatible", OpenOrCreateCompatible},
		{"ConcurrentOpenOrCreate", ConcurrentOpenOrCreate},
		{"ConcurrentAddsOfOneText", func(t *testing.T, h Harness) { ConcurrentAddsOfOneText(t, h, nil) }},
		{"ConcurrentMixed", ConcurrentMixed},
	} {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			st.run(t, h)
		})
	}
}

var ctx = context.Background()

// GenDocs returns n generated documents with planted near-duplicates.
func GenDocs(t testing.TB, n int, seed uint64) []string {
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

// NewIndex creates an index with meta m in a new store of h.
func NewIndex(t *testing.T, h Harness, m index.Meta) *index.Index {
	t.Helper()
	ix, err := index.Create(ctx, h.New(t), m, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// Reopen closes ix and opens its store again with h.Reopen; it returns
// nil when h has no Reopen.
func Reopen(t *testing.T, h Harness, ix *index.Index) *index.Index {
	t.Helper()
	if h.Reopen == nil {
		return nil
	}
	st := h.Reopen(t, ix.Store())
	ix2, err := index.Open(ctx, st, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ix2
}

// Check runs ix.Check and fails t on an error.
func Check(t testing.TB, ix *index.Index) index.CheckReport {
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

// StoreContract tests the Store and Tx methods directly: ErrNoIndex on a
// new store, Init once, what an Update writes and a View reads (ascending
// orders, exact counts, ErrNotFound for missing records), an Update
// whose fn fails writes nothing, writes in a View fail, and a closed
// store is ErrClosed.
func StoreContract(t *testing.T, h Harness) {
	st := h.New(t)
	if _, err := st.Meta(ctx); !errors.Is(err, index.ErrNoIndex) {
		t.Fatalf("Meta of a new store: %v, want ErrNoIndex", err)
	}
	if err := st.View(ctx, func(index.Tx) error { return nil }); !errors.Is(err, index.ErrNoIndex) {
		t.Errorf("View of a new store: %v, want ErrNoIndex", err)
	}
	if err := st.Update(ctx, func(index.Tx) error { return nil }); !errors.Is(err, index.ErrNoIndex) {
		t.Errorf("Update of a new store: %v, want ErrNoIndex", err)
	}
	p, err := neardup.Params{}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	m := index.Meta{Params: p, KeepTexts: true}
	if err := st.Init(ctx, m); err != nil {
		t.Fatal(err)
	}
	if err := st.Init(ctx, m); !errors.Is(err, index.ErrExists) {
		t.Errorf("second Init: %v, want ErrExists", err)
	}
	if got, err := st.Meta(ctx); err != nil || got != m {
		t.Fatalf("Meta: %+v, %v; want %+v", got, err, m)
	}
	bands := p.LSH.Bands
	rng := rand.New(rand.NewPCG(1, 2))
	newGroup := func(i int) index.Group {
		g := index.Group{Set: []uint64{uint64(i), uint64(i) + 1<<40}, Signature: make([]uint32, p.Slots), Keys: make([]uint64, bands)}
		for b := range g.Keys {
			g.Keys[b] = rng.Uint64()
		}
		g.Keys[0] = 42 // every group shares band 0's bucket
		return g
	}
	// More groups and documents than a page of a paging store.
	const n = 600
	groups := map[uint64]index.Group{}  // made by the Update under way
	written := map[uint64]index.Group{} // made by the committed ones
	docs := map[uint64]index.Doc{}
	var gids, seqs []uint64
	for i := 0; i < n; i += 100 {
		err := st.Update(ctx, func(tx index.Tx) error {
			clear(groups)
			for j := range 100 {
				g := newGroup(i + j)
				gid, err := tx.NewGroup(g)
				if err != nil {
					return err
				}
				seq, err := tx.NewSeq()
				if err != nil {
					return err
				}
				d := index.Doc{Seq: seq, ID: fmt.Sprint("doc", i+j), Group: gid, Added: int64(i + j), Text: []byte("text")}
				if err := tx.PutDoc(d); err != nil {
					return err
				}
				groups[gid], docs[seq] = g, d
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for gid, g := range groups {
			gids = append(gids, gid)
			written[gid] = g
		}
	}
	for seq := range docs {
		seqs = append(seqs, seq)
	}
	slices.Sort(gids)
	slices.Sort(seqs)
	if len(gids) != n || len(seqs) != n {
		t.Fatalf("%d group ids and %d sequence numbers for %d each", len(gids), len(seqs), n)
	}
	err = st.View(ctx, func(tx index.Tx) error {
		if d, g, err := tx.Counts(); err != nil || d != n || g != n {
			t.Errorf("Counts: %d, %d, %v; want %d, %d", d, g, err, n, n)
		}
		if e, err := tx.BucketEntries(); err != nil || e != int64(n*bands) {
			t.Errorf("BucketEntries: %d, %v; want %d", e, err, n*bands)
		}
		b, err := tx.Bucket(nil, 0, 42)
		if err != nil || !slices.Equal(b, gids) {
			t.Errorf("band 0's shared bucket: %d groups, %v; want the %d groups ascending", len(b), err, n)
		}
		var seen []uint64
		err = tx.EachGroup(func(gid uint64, g index.Group) error {
			if w := written[gid]; fmt.Sprint(g) != fmt.Sprint(w) {
				t.Errorf("EachGroup: group %d is %+v, want %+v", gid, g, w)
			}
			seen = append(seen, gid)
			return nil
		})
		if err != nil || !slices.Equal(seen, gids) {
			t.Errorf("EachGroup: %d groups, %v; want %d ascending", len(seen), err, n)
		}
		seen = seen[:0]
		err = tx.EachDoc(func(d index.Doc) error {
			if w := docs[d.Seq]; fmt.Sprint(d) != fmt.Sprint(w) {
				t.Errorf("EachDoc: %+v, want %+v", d, w)
			}
			seen = append(seen, d.Seq)
			return nil
		})
		if err != nil || !slices.Equal(seen, seqs) {
			t.Errorf("EachDoc: %d documents, %v; want %d ascending", len(seen), err, n)
		}
		stop := errors.New("stop")
		calls := 0
		if err := tx.EachDoc(func(index.Doc) error { calls++; return stop }); err != stop || calls != 1 {
			t.Errorf("EachDoc stopping at fn's error: %v after %d calls", err, calls)
		}
		d0 := docs[seqs[0]]
		if d, err := tx.DocByID(d0.ID); err != nil || fmt.Sprint(d) != fmt.Sprint(d0) {
			t.Errorf("DocByID: %+v, %v; want %+v", d, err, d0)
		}
		if g, err := tx.Group(d0.Group); err != nil || fmt.Sprint(g) != fmt.Sprint(written[d0.Group]) {
			t.Errorf("Group: %+v, %v", g, err)
		}
		if ms, err := tx.Members([]uint64{7}, d0.Group); err != nil || !slices.Equal(ms, []uint64{7, d0.Seq}) {
			t.Errorf("Members appended to [7]: %v, %v", ms, err)
		}
		if _, err := tx.Doc(1 << 40); !errors.Is(err, index.ErrNotFound) {
			t.Errorf("Doc of a missing seq: %v", err)
		}
		if _, err := tx.DocByID("missing"); !errors.Is(err, index.ErrNotFound) {
			t.Errorf("DocByID of a missing id: %v", err)
		}
		if _, err := tx.Group(1 << 40); !errors.Is(err, index.ErrNotFound) {
			t.Errorf("Group of a missing id: %v", err)
		}
		if b, err := tx.Bucket(nil, 1, 42); err != nil || len(b) != 0 {
			t.Errorf("an empty bucket: %v, %v", b, err)
		}
		if _, err := tx.Bucket(nil, bands, 42); err == nil {
			t.Errorf("Bucket of band %d of %d: no error", bands, bands)
		}
		if _, err := tx.NewSeq(); err == nil {
			t.Errorf("NewSeq in a View: no error")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// An Update whose fn fails writes nothing.
	failed := errors.New("fn failed")
	err = st.Update(ctx, func(tx index.Tx) error {
		gid, err := tx.NewGroup(newGroup(n))
		if err != nil {
			return err
		}
		seq, err := tx.NewSeq()
		if err != nil {
			return err
		}
		if err := tx.PutDoc(index.Doc{Seq: seq, ID: "failed", Group: gid}); err != nil {
			return err
		}
		return failed
	})
	if err != failed {
		t.Errorf("Update whose fn fails: %v, want fn's error", err)
	}
	// Remove every other document with its group; a new seq and group id
	// are above every earlier one.
	err = st.Update(ctx, func(tx index.Tx) error {
		for i := 0; i < n; i += 2 {
			d := docs[seqs[i]]
			if err := tx.DeleteDoc(d); err != nil {
				return err
			}
			if err := tx.DeleteGroup(d.Group, written[d.Group]); err != nil {
				return err
			}
		}
		seq, err := tx.NewSeq()
		if err != nil {
			return err
		}
		g := newGroup(n + 1)
		gid, err := tx.NewGroup(g)
		if err != nil {
			return err
		}
		if seq <= seqs[n-1] || gid <= gids[n-1] {
			t.Errorf("new seq %d and group %d not above %d and %d", seq, gid, seqs[n-1], gids[n-1])
		}
		return tx.DeleteGroup(gid, g) // made and deleted in one transaction
	})
	if err != nil {
		t.Fatal(err)
	}
	err = st.View(ctx, func(tx index.Tx) error {
		if d, g, err := tx.Counts(); err != nil || d != n/2 || g != n/2 {
			t.Errorf("Counts after removing half: %d, %d, %v", d, g, err)
		}
		if e, err := tx.BucketEntries(); err != nil || e != int64(n/2*bands) {
			t.Errorf("BucketEntries after removing half: %d, %v; want %d", e, err, n/2*bands)
		}
		b, err := tx.Bucket(nil, 0, 42)
		if err != nil || len(b) != n/2 || !slices.IsSorted(b) {
			t.Errorf("shared bucket after removing half: %d groups, %v", len(b), err)
		}
		d0 := docs[seqs[0]]
		if _, err := tx.DocByID(d0.ID); !errors.Is(err, index.ErrNotFound) {
			t.Errorf("DocByID of a removed document: %v", err)
		}
		if ms, err := tx.Members(nil, d0.Group); err != nil || len(ms) != 0 {
			t.Errorf("Members of a removed group: %v, %v", ms, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Update(ctx, func(index.Tx) error { return nil }); !errors.Is(err, index.ErrClosed) {
		t.Errorf("Update after Close: %v, want ErrClosed", err)
	}
	if err := st.View(ctx, func(index.Tx) error { return nil }); !errors.Is(err, index.ErrClosed) {
		t.Errorf("View after Close: %v, want ErrClosed", err)
	}
}

// SameAsDedup: an index built from a corpus of n generated documents
// reports, for every document, exactly the near-duplicates dedup pairs it
// with, with the same Jaccard, before and after reopening. Each of three
// parameter sets is a parallel subtest.
func SameAsDedup(t *testing.T, h Harness, n int) {
	docs := GenDocs(t, n, 3)
	docs = append(docs, docs[10], docs[10], "", docs[20]) // copies and an empty text
	for k, p := range []neardup.Params{{}, {Threshold: 0.3, Shingle: shingle.Options{N: 2}}, {Shingle: shingle.Options{Mode: shingle.Char}}} {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			t.Parallel()
			sameAsDedup(t, h, p, docs)
		})
	}
}

func sameAsDedup(t *testing.T, h Harness, p neardup.Params, docs []string) {
	{
		ix := NewIndex(t, h, index.Meta{Params: p, KeepTexts: true})
		st, err := ix.Build(ctx, docsNext(docs), index.BuildOptions{Batch: 300})
		if err != nil {
			t.Fatal(err)
		}
		if st.Read != int64(len(docs)) || st.Empty != 1 || st.Added != int64(len(docs)-1) {
			t.Fatalf("build stats %+v", st)
		}
		r := Check(t, ix)
		if r.Groups != st.NewGroups || r.Documents != st.Added {
			t.Fatalf("check %+v vs build %+v", r, st)
		}
		want := batchPartners(t, ix.Params(), docs)
		for round := range 2 {
			ixx := ix
			if round == 1 {
				if ixx = Reopen(t, h, ix); ixx == nil {
					break
				}
			}
			for i := range docs {
				if docs[i] == "" {
					continue
				}
				got, err := ixx.Duplicates(ctx, fmt.Sprint(i), index.QueryOptions{})
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
				q, err := ixx.Query(ctx, []byte(docs[i]), index.QueryOptions{})
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

// AddSemantics walks Add, Get, Remove and Query through their cases:
// duplicates with exact Jaccard, ErrExists, IfUnique, copies joining a
// group, Replace, thresholds, texts without shingles, empty ids; Check
// before and after reopening.
func AddSemantics(t *testing.T, h Harness) {
	ix := NewIndex(t, h, index.Meta{KeepTexts: true})
	a := "the quick brown fox jumps over the lazy dog near the river bank today"
	b := "the quick brown fox jumps over the lazy dog near the river bank tomorrow"
	c := "completely different words about cooking pasta with tomato sauce and basil"
	res, err := ix.Add(ctx, "a", []byte(a), index.AddOptions{})
	if err != nil || !res.Added || len(res.Duplicates) != 0 || res.Seq != 1 {
		t.Fatalf("Add a: %+v, %v", res, err)
	}
	res, err = ix.Add(ctx, "b", []byte(b), index.AddOptions{})
	if err != nil || !res.Added || len(res.Duplicates) != 1 || res.Duplicates[0].ID != "a" {
		t.Fatalf("Add b: %+v, %v", res, err)
	}
	sh, _ := shingle.New(shingle.Options{})
	wantJ := shingle.Jaccard(sh.AppendSetString(nil, a), sh.AppendSetString(nil, b))
	if res.Duplicates[0].Jaccard != wantJ {
		t.Errorf("Jaccard %v, want the exact %v", res.Duplicates[0].Jaccard, wantJ)
	}
	if _, err := ix.Add(ctx, "a", []byte(c), index.AddOptions{}); !errors.Is(err, index.ErrExists) {
		t.Errorf("Add of an existing id: %v, want ErrExists", err)
	}
	res, err = ix.Add(ctx, "c", []byte(a), index.AddOptions{IfUnique: true})
	if err != nil || res.Added || len(res.Duplicates) != 2 || res.Duplicates[0].ID != "a" || res.Duplicates[0].Jaccard != 1 {
		t.Errorf("IfUnique with duplicates: %+v, %v", res, err)
	}
	if _, err := ix.Get(ctx, "c"); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("IfUnique inserted c: %v", err)
	}
	// A copy of a joins a's group.
	if res, err = ix.Add(ctx, "a2", []byte(a), index.AddOptions{}); err != nil || len(res.Duplicates) != 2 {
		t.Fatalf("Add a2: %+v, %v", res, err)
	}
	st, _ := ix.Stats(ctx)
	if st.Documents != 3 || st.Groups != 2 {
		t.Errorf("stats %+v, want 3 documents in 2 groups", st)
	}
	// Replace a with c's text: a's group keeps a2.
	if res, err = ix.Add(ctx, "a", []byte(c), index.AddOptions{Replace: true}); err != nil || !res.Replaced || len(res.Duplicates) != 0 {
		t.Fatalf("replace a: %+v, %v", res, err)
	}
	d, err := ix.Get(ctx, "a")
	if err != nil || string(d.Text) != c {
		t.Fatalf("Get a after replace: %+v, %v", d, err)
	}
	// Replace a2 (its group's last member) with its own text again.
	if res, err = ix.Add(ctx, "a2", []byte(a), index.AddOptions{Replace: true}); err != nil || !res.Replaced {
		t.Fatalf("replace a2 with itself: %+v, %v", res, err)
	}
	Check(t, ix)
	if err := ix.Remove(ctx, "a2"); err != nil {
		t.Fatal(err)
	}
	if err := ix.Remove(ctx, "a2"); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("second Remove: %v", err)
	}
	if q, _ := ix.Query(ctx, []byte(a), index.QueryOptions{}); len(q) != 1 || q[0].ID != "b" {
		t.Errorf("query after removing a2: %+v", q)
	}
	if _, err := ix.Query(ctx, []byte(a), index.QueryOptions{Threshold: 0.2}); !errors.Is(err, index.ErrThreshold) {
		t.Errorf("threshold below the index's: %v", err)
	}
	if q, err := ix.Query(ctx, []byte(a), index.QueryOptions{Threshold: 0.99}); err != nil || len(q) != 0 {
		t.Errorf("threshold 0.99: %+v, %v", q, err)
	}
	if _, err := ix.Add(ctx, "e", []byte("!!! ..."), index.AddOptions{}); !errors.Is(err, index.ErrNoShingles) {
		t.Errorf("text without shingles: %v", err)
	}
	if _, err := ix.Add(ctx, "", []byte(a), index.AddOptions{}); !errors.Is(err, neardup.ErrInvalid) {
		t.Errorf("empty id: %v", err)
	}
	r := Check(t, ix)
	if ix2 := Reopen(t, h, ix); ix2 != nil {
		r = Check(t, ix2)
	}
	if r.Documents != 2 || r.Groups != 2 {
		t.Errorf("at the end: %+v, want 2 documents in 2 groups", r)
	}
}

// snapshot lists an index's documents as "id:text|group of first-member"
// lines: equal snapshots mean the same documents with the same texts
// grouped the same way.
func snapshot(t *testing.T, ix *index.Index) []string {
	t.Helper()
	var out []string
	err := ix.Store().View(ctx, func(tx index.Tx) error {
		return tx.EachDoc(func(d index.Doc) error {
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

// AddBatchLikeAdds: AddBatch of a sequence of items gives the results and
// the index that adding them one at a time gives, with copies,
// near-duplicates, replacements and repeated ids inside the batch.
func AddBatchLikeAdds(t *testing.T, h Harness) {
	docs := GenDocs(t, 300, 21)
	rng := rand.New(rand.NewPCG(5, 5))
	rounds := 12
	if testing.Short() {
		rounds = 4
	}
	for round := range rounds {
		var items []index.AddItem
		for range 60 {
			id := fmt.Sprint("d", rng.IntN(40)) // ids repeat
			text := docs[rng.IntN(40)]          // texts repeat, near-duplicates among them
			if rng.IntN(10) == 0 {
				text = "!!!" // no shingles
			}
			items = append(items, index.AddItem{ID: id, Text: []byte(text)})
		}
		o := index.AddOptions{Replace: round%2 == 0, IfUnique: round%3 == 0}
		one := NewIndex(t, h, index.Meta{KeepTexts: true})
		batch := NewIndex(t, h, index.Meta{KeepTexts: true})
		// A common start, committed before.
		for i := range 10 {
			for _, ix := range []*index.Index{one, batch} {
				if _, err := ix.Add(ctx, fmt.Sprint("d", i), []byte(docs[i]), index.AddOptions{}); err != nil {
					t.Fatal(err)
				}
			}
		}
		var want []index.AddResult
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
		Check(t, batch)
		if a, b := snapshot(t, one), snapshot(t, batch); !slices.Equal(a, b) {
			t.Fatalf("round %d: the indexes differ:\n%v\n%v", round, a, b)
		}
	}
}

// OpenOrCreateCompatible: Open of a new store is ErrNoIndex;
// OpenOrCreate creates, then opens with compatible parameters and refuses
// others (ErrIncompatible); an idf index is refused.
func OpenOrCreateCompatible(t *testing.T, h Harness) {
	st := h.New(t)
	if _, err := index.Open(ctx, st, index.Options{}); !errors.Is(err, index.ErrNoIndex) {
		t.Fatalf("Open of an empty store: %v", err)
	}
	if _, err := index.Create(ctx, st, index.Meta{Params: neardup.Params{Weight: neardup.WeightIDF}}, index.Options{}); !errors.Is(err, neardup.ErrOptions) {
		t.Errorf("idf index: %v", err)
	}
	if _, err := index.OpenOrCreate(ctx, st, index.Meta{Params: neardup.Params{Threshold: 0.6}}, index.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []neardup.Params{{Threshold: 0.5}, {Threshold: 0.6, Shingle: shingle.Options{N: 4}}, {Threshold: 0.6, Seed: 9}} {
		if h.Reopen != nil {
			st = h.Reopen(t, st)
		}
		if _, err := index.OpenOrCreate(ctx, st, index.Meta{Params: p}, index.Options{}); !errors.Is(err, neardup.ErrIncompatible) {
			t.Errorf("OpenOrCreate with %v: %v, want ErrIncompatible", p, err)
		}
	}
	if h.Reopen != nil {
		st = h.Reopen(t, st)
	}
	if _, err := index.OpenOrCreate(ctx, st, index.Meta{Params: neardup.Params{Threshold: 0.6}}, index.Options{}); err != nil {
		t.Errorf("OpenOrCreate with the same params: %v", err)
	}
}

// ConcurrentOpenOrCreate: OpenOrCreate called at once on a new store (as
// several servers starting together would) succeeds for every caller:
// one creates, the others open.
func ConcurrentOpenOrCreate(t *testing.T, h Harness) {
	st := h.New(t)
	const callers = 4
	var wg sync.WaitGroup
	errs := make([]error, callers)
	for i := range callers {
		wg.Go(func() {
			_, errs[i] = index.OpenOrCreate(ctx, st, index.Meta{Params: neardup.Params{Threshold: 0.6}}, index.Options{})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("caller %d: %v", i, err)
		}
	}
}

// ConcurrentAddsOfOneText: concurrent Adds of one text never all come
// back clean: exactly one finds no duplicate. The writers take turns
// among ixs (indexes over one shared store, as separate processes would
// have; nil: one new index), and Check runs at the end. Run with -race.
func ConcurrentAddsOfOneText(t *testing.T, h Harness, ixs []*index.Index) {
	if ixs == nil {
		ixs = []*index.Index{NewIndex(t, h, index.Meta{})}
	}
	const rounds, writers = 20, 8
	texts := GenDocs(t, 400, 11)
	for r := range rounds {
		text := []byte(texts[20*r]) // far apart in the corpus: unrelated
		if len(text) == 0 {
			continue
		}
		var clean atomic.Int32
		var wg sync.WaitGroup
		for w := range writers {
			ix := ixs[w%len(ixs)]
			wg.Go(func() {
				res, err := ix.Add(ctx, fmt.Sprintf("r%d-w%d", r, w), text, index.AddOptions{})
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
	r := Check(t, ixs[0])
	if r.Groups != rounds || r.Documents != rounds*writers {
		t.Errorf("check %+v, want %d documents in %d groups", r, rounds*writers, rounds)
	}
}

// ConcurrentMixed runs adds, queries, duplicates and removals at once
// (for the race detector), then checks the index, before and after
// reopening.
func ConcurrentMixed(t *testing.T, h Harness) {
	docs := GenDocs(t, 600, 7)
	ix := NewIndex(t, h, index.Meta{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for i := w; i < len(docs); i += 4 {
				id := fmt.Sprint(i)
				if _, err := ix.Add(ctx, id, []byte(docs[i]), index.AddOptions{}); err != nil && !errors.Is(err, index.ErrNoShingles) {
					t.Error(err)
					return
				}
				if _, err := ix.Query(ctx, []byte(docs[rng.IntN(len(docs))]), index.QueryOptions{}); err != nil && !errors.Is(err, index.ErrNoShingles) {
					t.Error(err)
					return
				}
				if i%5 == 0 {
					if _, err := ix.Duplicates(ctx, id, index.QueryOptions{}); err != nil && !errors.Is(err, index.ErrNotFound) {
						t.Error(err)
						return
					}
				}
				if i%7 == 0 {
					if err := ix.Remove(ctx, id); err != nil && !errors.Is(err, index.ErrNotFound) {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	r := Check(t, ix)
	if ix2 := Reopen(t, h, ix); ix2 != nil {
		Check(t, ix2)
	}
	if r.Documents < 400 {
		t.Errorf("%d documents left", r.Documents)
	}
}
