package lsh

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// refHomeBand is HomeBand written plainly.
func refHomeBand(p Params, a, b []uint32) int {
	for band := range p.Bands {
		if slices.Equal(a[band*p.Rows:(band+1)*p.Rows], b[band*p.Rows:(band+1)*p.Rows]) {
			return band
		}
	}
	return -1
}

func TestHomeBand(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, p := range []Params{{1, 1}, {35, 3}, {4, 5}, {16, 8}} {
		slots := p.Bands*p.Rows + rng.IntN(3)
		sigs := randomSigs(rng, 200, slots, 3)
		for i := range 200 {
			for j := range 200 {
				a, b := sigs[i*slots:(i+1)*slots], sigs[j*slots:(j+1)*slots]
				want := refHomeBand(p, a, b)
				if got := p.HomeBand(a, b); got != want {
					t.Fatalf("%v: HomeBand(%v, %v) = %d, want %d", p, a, b, got, want)
				}
				for band := range p.Bands + 1 {
					// The batch's check for an earlier band: bands on
					// the signatures cut at band, with no chained bucket.
					small, _ := p.bands(a[:min(len(a), band*p.Rows)], b[:min(len(b), band*p.Rows)], nil)
					if got, want := small >= 0, want >= 0 && want < band; got != want {
						t.Fatalf("%v: agreement before band %d = %v, want %v", p, band, got, want)
					}
				}
			}
		}
	}
	if got := (Params{2, 2}).HomeBand([]uint32{1, 2, 3, 4}, []uint32{5, 6, 3, 4}); got != 1 {
		t.Errorf("HomeBand = %d, want 1", got)
	}
	if got := (Params{}).HomeBand([]uint32{1}, []uint32{1}); got != -1 {
		t.Errorf("HomeBand of no bands = %d, want -1", got)
	}
}

func TestAppendBandKeys(t *testing.T) {
	p := Params{35, 3}
	sig := make([]uint32, 128)
	for i := range sig {
		sig[i] = uint32(i*2654435761) ^ 0x5bd1e995
	}
	keys := p.AppendBandKeys([]uint64{42}, sig)
	if len(keys) != 36 || keys[0] != 42 {
		t.Fatalf("AppendBandKeys appended %d keys after %v", len(keys)-1, keys[:1])
	}
	for band := range 35 {
		if keys[band+1] != p.BandKey(sig, band) {
			t.Fatalf("key %d = %#x, BandKey %#x", band, keys[band+1], p.BandKey(sig, band))
		}
	}
	dst := make([]uint64, 0, 35)
	if n := testing.AllocsPerRun(100, func() { dst = p.AppendBandKeys(dst[:0], sig) }); n != 0 {
		t.Errorf("AppendBandKeys allocates %v times per call", n)
	}
}

func TestBucketPairs(t *testing.T) {
	collect := func(m, maxBucket int) [][2]int {
		var out [][2]int
		BucketPairs(m, maxBucket, func(x, y int) bool { out = append(out, [2]int{x, y}); return true })
		return out
	}
	for m := range 8 {
		for _, mb := range []int{0, -1, 1, 3, 5, 100} {
			got := collect(m, mb)
			var want [][2]int
			if mb > 0 && m > mb {
				for k := 0; k+1 < m; k++ {
					want = append(want, [2]int{k, k + 1})
				}
			} else {
				for x := range m {
					for y := x + 1; y < m; y++ {
						want = append(want, [2]int{x, y})
					}
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("BucketPairs(%d, %d) = %v, want %v", m, mb, got, want)
			}
			if Chained(m, mb) != (mb > 0 && m > mb) {
				t.Fatalf("Chained(%d, %d) wrong", m, mb)
			}
			// BucketPartners: the pairs the last member takes part in.
			lo, hi := BucketPartners(m, mb)
			var last []int
			for _, p := range want {
				if p[1] == m-1 {
					last = append(last, p[0])
				}
			}
			var span []int
			for x := lo; x < hi; x++ {
				span = append(span, x)
			}
			if !slices.Equal(last, span) {
				t.Fatalf("BucketPartners(%d, %d) = [%d, %d), want the partners %v", m, mb, lo, hi, last)
			}
		}
	}
	n := 0
	BucketPairs(10, 0, func(x, y int) bool { n++; return n < 3 })
	if n != 3 {
		t.Errorf("BucketPairs went on after fn returned false: %d calls", n)
	}
}

// TestRulesOutsideBatch rebuilds Candidates.Run's pairs from a MemTable of
// band keys with the exported rules: the way an index or a pipeline finds
// candidates must give the same pairs as the batch search.
func TestRulesOutsideBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, rule := range []struct{ mb, agree int }{{0, 0}, {3, 0}, {3, 12}, {3, 15}} {
		mb := rule.mb
		const n, slots = 400, 24
		p := Params{8, 3}
		sigs := randomSigs(rng, n, slots, 2)
		c := &Candidates{Params: p, Slots: slots, Sigs: sigs, Workers: 2, MaxBucket: mb, MinAgree: rule.agree}
		want, _ := runCollect(t, c)

		tab := NewMemTable(p.Bands)
		keys := make([][]uint64, n)
		for i := range n {
			keys[i] = p.AppendBandKeys(nil, sigs[i*slots:(i+1)*slots])
			// Sparse, non-dense ids: the rules must not assume 0..n-1.
			if err := Insert(tab, uint64(1000+7*i), keys[i]); err != nil {
				t.Fatal(err)
			}
		}
		sig := func(id uint64) []uint32 { i := (int(id) - 1000) / 7; return sigs[i*slots : (i+1)*slots] }
		// Each document's chained-bucket bitset, from the sizes of its
		// buckets in the table.
		large := map[uint64][]uint64{}
		for i := range n {
			id := uint64(1000 + 7*i)
			bits := make([]uint64, (p.Bands+63)/64)
			for band, k := range keys[i] {
				ids, err := tab.Get(nil, band, k)
				if err != nil {
					t.Fatal(err)
				}
				if Chained(len(ids), mb) {
					bits[band/64] |= 1 << (band % 64)
				}
			}
			large[id] = bits
		}
		got := map[pair]bool{}
		for band := range p.Bands {
			seen := map[uint64]bool{}
			for i := range n {
				k := keys[i][band]
				if seen[k] {
					continue
				}
				seen[k] = true
				ids, err := tab.Get(nil, band, k)
				if err != nil {
					t.Fatal(err)
				}
				keep := func(x, y int) bool {
					if p.ReportBand(sig(ids[x]), sig(ids[y]), large[ids[x]]) == band {
						e := pair{uint32((ids[x] - 1000) / 7), uint32((ids[y] - 1000) / 7)}
						if got[e] {
							t.Fatalf("pair %v reported twice", e)
						}
						got[e] = true
					}
					return true
				}
				BucketPairs(len(ids), mb, keep)
				if Chained(len(ids), mb) {
					AgreeingPairs(len(ids), rule.agree, func(x int) []uint32 { return sig(ids[x]) }, keep)
				}
			}
		}
		diff(t, fmt.Sprintf("MaxBucket %d, MinAgree %d: table + rules", mb, rule.agree), got, want)
	}
}

func TestRunCanceled(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := &Candidates{Params: Params{4, 1}, Slots: 4, Sigs: randomSigs(rng, 3000, 4, 2), Workers: 2}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	var mu sync.Mutex
	_, err := c.Run(ctx, func(int, uint32, uint32) {
		mu.Lock()
		calls++
		if calls == 10 {
			cancel()
		}
		mu.Unlock()
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel: %v, want context.Canceled", err)
	}
	// Buckets of ~750 ids make ~1.1M pairs per band: stopping within a
	// few thousand shows that cancellation is honoured.
	if calls > 20_000 {
		t.Errorf("%d calls after cancel", calls)
	}
}

func TestMemTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const bands = 3
	tab := NewMemTable(bands)
	ref := make([]map[uint64]map[uint64]bool, bands)
	for b := range ref {
		ref[b] = map[uint64]map[uint64]bool{}
	}
	entries := 0
	for op := range 20000 {
		band, key, id := rng.IntN(bands), uint64(rng.IntN(20)), uint64(rng.IntN(30))
		if ref[band][key] == nil {
			ref[band][key] = map[uint64]bool{}
		}
		if rng.IntN(3) > 0 {
			if err := tab.Put(band, key, id); err != nil {
				t.Fatal(err)
			}
			if !ref[band][key][id] {
				entries++
			}
			ref[band][key][id] = true
		} else {
			if err := tab.Remove(band, key, id); err != nil {
				t.Fatal(err)
			}
			if ref[band][key][id] {
				entries--
			}
			delete(ref[band][key], id)
		}
		if op%97 == 0 {
			for b := range bands {
				for k := range uint64(20) {
					got, err := tab.Get([]uint64{99}, b, k)
					if err != nil {
						t.Fatal(err)
					}
					var want []uint64
					for id := range ref[b][k] {
						want = append(want, id)
					}
					slices.Sort(want)
					if got[0] != 99 || !slices.Equal(got[1:], want) {
						t.Fatalf("op %d: Get(%d, %d) = %v, want %v after 99", op, b, k, got, want)
					}
				}
			}
			if tab.Entries() != entries {
				t.Fatalf("Entries = %d, want %d", tab.Entries(), entries)
			}
		}
	}
	if err := tab.Put(bands, 1, 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("Put on band %d of %d: %v, want ErrInvalid", bands, bands, err)
	}
	if err := tab.Put(0, 1, 1<<63); !errors.Is(err, ErrBadID) {
		t.Errorf("Put of id 2^63: %v, want ErrBadID", err)
	}
	if _, err := tab.Get(nil, -1, 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("Get on band -1: %v, want ErrInvalid", err)
	}
}

func TestLookupAndDelete(t *testing.T) {
	tab := NewMemTable(3)
	for id, keys := range [][]uint64{{1, 2, 3}, {1, 5, 6}, {7, 5, 3}, {8, 9, 10}} {
		if err := Insert(tab, uint64(id), keys); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Lookup(nil, tab, []uint64{1, 5, 3})
	if err != nil || !slices.Equal(got, []uint64{0, 1, 2}) {
		t.Fatalf("Lookup = %v, %v; want [0 1 2]", got, err)
	}
	if err := Delete(tab, 1, []uint64{1, 5, 6}); err != nil {
		t.Fatal(err)
	}
	got, _ = Lookup(got[:0], tab, []uint64{1, 5, 6})
	if !slices.Equal(got, []uint64{0, 2}) {
		t.Fatalf("Lookup after Delete = %v, want [0 2]", got)
	}
	if tab.Entries() != 9 {
		t.Errorf("Entries = %d, want 9", tab.Entries())
	}
}

// TestMemTableConcurrent is meant for the race detector: writers and
// readers on one table.
func TestMemTableConcurrent(t *testing.T) {
	tab := NewMemTable(4)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			var buf []uint64
			for i := range 2000 {
				id := uint64(w*10000 + i)
				keys := []uint64{uint64(i % 17), uint64(i % 5), id, 3}
				if err := Insert(tab, id, keys); err != nil {
					t.Error(err)
					return
				}
				var err error
				if buf, err = Lookup(buf[:0], tab, keys); err != nil || !slices.Contains(buf, id) {
					t.Errorf("Lookup after Insert of %d: %v, %v", id, len(buf), err)
					return
				}
				if i%3 == 0 {
					if err := Delete(tab, id, keys); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	got, _ := tab.Get(nil, 3, 3)
	if want := 4 * (2000 - 667); len(got) != want {
		t.Errorf("bucket shared by all has %d ids, want %d", len(got), want)
	}
}
