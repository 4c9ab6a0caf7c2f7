package lsh

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup/internal/lshhook"
)

type pair struct{ i, j uint32 }

// refPairs is the reference candidate set with the documented MaxBucket
// semantics, written plainly: bucket every band by its slot values (as a
// string); a bucket over MaxBucket is chained; take all pairs of a small
// bucket or the id-order chain of a chained one (with, when MinAgree > 0,
// every pair of it whose whole signatures agree on MinAgree slots), and keep
// a pair only in the first band on which it agrees in a small bucket, or,
// if it has none, in the first band on which it agrees.
func refPairs(c *Candidates) map[pair]bool {
	p := c.Params
	n := len(c.Sigs) / c.Slots
	sig := func(i int) []uint32 { return c.Sigs[i*c.Slots : (i+1)*c.Slots] }
	agree := func(i, j, band int) bool {
		a := sig(i)[band*p.Rows : (band+1)*p.Rows]
		b := sig(j)[band*p.Rows : (band+1)*p.Rows]
		return slices.Equal(a, b)
	}
	buckets := make([]map[string][]int, p.Bands)
	chained := make([][]bool, n) // chained[i][band]: i's bucket in band is chained
	for i := range chained {
		chained[i] = make([]bool, p.Bands)
	}
	for band := range p.Bands {
		buckets[band] = map[string][]int{}
		for i := range n {
			k := fmt.Sprint(sig(i)[band*p.Rows : (band+1)*p.Rows])
			buckets[band][k] = append(buckets[band][k], i) // ascending ids
		}
		for _, m := range buckets[band] {
			for _, i := range m {
				chained[i][band] = c.MaxBucket > 0 && len(m) > c.MaxBucket
			}
		}
	}
	out := map[pair]bool{}
	for band := range p.Bands {
		for _, m := range buckets[band] {
			var edges []pair
			if c.MaxBucket > 0 && len(m) > c.MaxBucket {
				for x := range m {
					for y := x + 1; y < len(m); y++ {
						if y == x+1 || c.MinAgree > 0 && slotsAgree(sig(m[x]), sig(m[y])) >= c.MinAgree {
							edges = append(edges, pair{uint32(m[x]), uint32(m[y])})
						}
					}
				}
			} else {
				for x := range m {
					for y := x + 1; y < len(m); y++ {
						edges = append(edges, pair{uint32(m[x]), uint32(m[y])})
					}
				}
			}
			for _, e := range edges {
				home, small := -1, -1
				for b := range p.Bands {
					if agree(int(e.i), int(e.j), b) {
						if home < 0 {
							home = b
						}
						if small < 0 && !chained[e.i][b] {
							small = b
						}
					}
				}
				if small == band || small < 0 && home == band {
					out[e] = true
				}
			}
		}
	}
	return out
}

// refBuckets is Stats.Buckets written plainly: every band's buckets by
// their slot values (as a string), those of 2 to MaxBucket members
// counted in the class of the highest power of two at most their size.
func refBuckets(c *Candidates) [32]BucketClass {
	p := c.Params
	n := len(c.Sigs) / c.Slots
	var out [32]BucketClass
	for band := range p.Bands {
		buckets := map[string]int{}
		for i := range n {
			buckets[fmt.Sprint(c.Sigs[i*c.Slots+band*p.Rows:i*c.Slots+(band+1)*p.Rows])]++
		}
		for _, m := range buckets {
			if m < 2 || c.MaxBucket > 0 && m > c.MaxBucket {
				continue
			}
			k := 0
			for 2<<k <= m {
				k++
			}
			out[k].Buckets++
			out[k].Members += int64(m)
			out[k].Pairs += int64(m * (m - 1) / 2)
		}
	}
	return out
}

// slotsAgree is the number of slots on which a and b agree.
func slotsAgree(a, b []uint32) int {
	n := 0
	for k := range a {
		if a[k] == b[k] {
			n++
		}
	}
	return n
}

// agreeing keeps the pairs of ps whose signatures agree on at least k slots.
func agreeing(c *Candidates, ps map[pair]bool, k int) map[pair]bool {
	out := map[pair]bool{}
	for e := range ps {
		i, j := int(e.i)*c.Slots, int(e.j)*c.Slots
		if slotsAgree(c.Sigs[i:i+c.Slots], c.Sigs[j:j+c.Slots]) >= k {
			out[e] = true
		}
	}
	return out
}

// smallPairs is every i < j that share a bucket of at most MaxBucket
// members in some band: all of them must be reported.
func smallPairs(c *Candidates) map[pair]bool {
	p := c.Params
	n := len(c.Sigs) / c.Slots
	out := map[pair]bool{}
	for band := range p.Bands {
		buckets := map[string][]int{}
		for i := range n {
			k := fmt.Sprint(c.Sigs[i*c.Slots+band*p.Rows : i*c.Slots+(band+1)*p.Rows])
			buckets[k] = append(buckets[k], i)
		}
		for _, m := range buckets {
			if c.MaxBucket > 0 && len(m) > c.MaxBucket {
				continue
			}
			for x := range m {
				for y := x + 1; y < len(m); y++ {
					out[pair{uint32(m[x]), uint32(m[y])}] = true
				}
			}
		}
	}
	return out
}

// bruteAgree is the plainest reference of all: every i < j that agrees on
// some band.
func bruteAgree(c *Candidates) map[pair]bool {
	p := c.Params
	n := len(c.Sigs) / c.Slots
	out := map[pair]bool{}
	for i := range n {
		for j := i + 1; j < n; j++ {
			for band := range p.Bands {
				lo := band * p.Rows
				if slices.Equal(c.Sigs[i*c.Slots+lo:i*c.Slots+lo+p.Rows], c.Sigs[j*c.Slots+lo:j*c.Slots+lo+p.Rows]) {
					out[pair{uint32(i), uint32(j)}] = true
					break
				}
			}
		}
	}
	return out
}

// randomSigs returns n signatures whose values come from a small alphabet
// (so bands agree by chance) plus planted near-copies of earlier documents.
func randomSigs(rng *rand.Rand, n, slots, alphabet int) []uint32 {
	sigs := make([]uint32, n*slots)
	for i := range n {
		s := sigs[i*slots : (i+1)*slots]
		if i > 0 && rng.IntN(3) == 0 {
			copy(s, sigs[rng.IntN(i)*slots:])
			for range rng.IntN(slots + 1) {
				s[rng.IntN(slots)] = uint32(rng.IntN(alphabet))
			}
			continue
		}
		for k := range s {
			s[k] = uint32(rng.IntN(alphabet))
		}
	}
	return sigs
}

// runCollect runs c and returns the pairs, failing on duplicates, i >= j or
// a bad worker index.
func runCollect(t *testing.T, c *Candidates) (map[pair]bool, Stats) {
	t.Helper()
	workers := max(c.Workers, 1)
	per := make([][]pair, workers)
	st, err := c.Run(context.Background(), func(w int, i, j uint32) {
		per[w] = append(per[w], pair{i, j}) // per-worker state, no lock
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[pair]bool{}
	for _, ps := range per {
		for _, p := range ps {
			if p.i >= p.j {
				t.Fatalf("pair %v not ordered", p)
			}
			if got[p] {
				t.Fatalf("pair %v reported twice", p)
			}
			got[p] = true
		}
	}
	if st.Pairs != int64(len(got)) {
		t.Fatalf("Stats.Pairs = %d, reported %d", st.Pairs, len(got))
	}
	// With Row, the same pairs and Stats: rows of ascending partners, the
	// chained buckets' pairs through fn.
	if c.row == nil {
		rc := *c
		rows := make([]map[pair]bool, workers)
		for w := range rows {
			rows[w] = map[pair]bool{}
		}
		add := func(w int, i, j uint32) {
			if i >= j || rows[w][pair{i, j}] {
				t.Errorf("Row: pair %d,%d out of order or repeated", i, j)
			}
			rows[w][pair{i, j}] = true
		}
		rc.row = func(w int, i uint32, js []uint32) {
			if len(js) == 0 || !slices.IsSorted(js) {
				t.Errorf("Row(%d, %v): empty or not ascending", i, js)
			}
			for _, j := range js {
				add(w, i, j)
			}
		}
		if c.deferred != nil {
			rc.deferred = &deferred{}
		}
		rst, err := rc.Run(context.Background(), add)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range rows {
			for p := range m {
				if !got[p] {
					t.Fatalf("Row reported %v, fn did not", p)
				}
				n++
			}
		}
		if n != len(got) || rst != st {
			t.Fatalf("with Row: %d pairs, %+v; with fn: %d, %+v", n, rst, len(got), st)
		}
	}
	return got, st
}

func diff(t *testing.T, what string, got, want map[pair]bool) {
	t.Helper()
	for p := range want {
		if !got[p] {
			t.Fatalf("%s: missing %v (got %d pairs, want %d)", what, p, len(got), len(want))
		}
	}
	for p := range got {
		if !want[p] {
			t.Fatalf("%s: extra %v (got %d pairs, want %d)", what, p, len(got), len(want))
		}
	}
}

// components labels each of n nodes with its smallest connected node.
func components(n int, pairs map[pair]bool) []int {
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		if parent[x] != x {
			parent[x] = find(parent[x])
		}
		return parent[x]
	}
	for p := range pairs {
		a, b := find(int(p.i)), find(int(p.j))
		parent[max(a, b)] = min(a, b)
	}
	out := make([]int, n)
	for i := range out {
		out[i] = find(i)
	}
	return out
}

func testAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	saved, savedMin, savedOnce := scanChunk, sharedMin, sharedOnce
	defer func() { scanChunk, sharedMin, sharedOnce = saved, savedMin, savedOnce }()
	shapes := []struct{ slots, b, r, alphabet int }{
		{4, 4, 1, 8}, {8, 4, 2, 3}, {12, 3, 3, 2}, {16, 5, 3, 2}, {10, 2, 5, 2}, {9, 1, 9, 2},
		{70, 70, 1, 5},                  // more than 64 bands: two words of chained-bucket bits
		{64, 64, 1, 4}, {105, 35, 3, 2}, // 33-64 bands: both vectors of band values
		{132, 130, 1, 6}, // over 128: three words, bucket numbers compared 64 bands a call
	}
	var total, large int64
	defer func() {
		t.Logf("%d pairs, %d large buckets found", total, large)
		if total < 100_000 || large < 1000 {
			t.Errorf("the random inputs are too easy: %d pairs, %d large buckets", total, large)
		}
	}()
	workerCounts := []int{0, 1, 2, 7}
	if raceEnabled {
		// The race detector has something to find only where workers
		// run together (the rest, a minute under it, runs without).
		workerCounts = []int{2, 7}
	}
	for _, sh := range shapes {
		for _, n := range []int{0, 1, 2, 3, 5, 17, 60, 250} {
			for _, workers := range workerCounts {
				if sh.b > 128 && workers != 2 {
					continue // two workers are enough for its bands, which cost the most
				}
				for _, mb := range []struct{ max, agree int }{{0, 0}, {2, 0}, {5, 0}, {2, sh.slots/2 + 1}, {5, sh.slots}} {
					maxBucket := mb.max
					// Bands scanned in chunks of 1 to 3 records, or whole:
					// chunks that start inside a bucket, and workers that
					// scan each other's bands.
					scanChunk = []int{saved, 1, 2, 3}[(n+workers+maxBucket)%4]
					// Every other run sorts only the records whose key
					// may be shared (sortShared), with one table or one
					// for each part of the top bits.
					sharedMin = []int{savedMin, 2}[(n+workers+maxBucket+mb.agree)%2]
					sharedOnce = []int{savedOnce, 3}[(n+workers+mb.agree)%3%2]
					c := &Candidates{
						Params:    Params{sh.b, sh.r},
						Slots:     sh.slots,
						Sigs:      randomSigs(rng, n, sh.slots, sh.alphabet),
						Workers:   workers,
						MaxBucket: maxBucket,
						MinAgree:  mb.agree,
					}
					name := fmt.Sprintf("slots=%d %v n=%d workers=%d max=%d agree=%d chunk=%d", sh.slots, c.Params, n, workers, maxBucket, mb.agree, scanChunk)
					got, st := runCollect(t, c)
					if want := refBuckets(c); st.Buckets != want {
						t.Fatalf("%s: bucket tally %v, want %v", name, st.Buckets, want)
					}
					total += st.Pairs
					large += st.LargeBuckets
					if raceEnabled && n > 60 {
						// The detector watches Run; the references,
						// on one goroutine and checked without it,
						// took most of this test's minute under it.
						continue
					}
					diff(t, name+" vs reference", got, refPairs(c))
					all := bruteAgree(c)
					if maxBucket <= 0 {
						diff(t, name+" vs brute force", got, all)
						if st.LargeBuckets != 0 {
							t.Fatalf("%s: LargeBuckets = %d with no limit", name, st.LargeBuckets)
						}
					} else if !slices.Equal(components(n, got), components(n, all)) {
						t.Fatalf("%s: components differ from the unlimited search", name)
					}
					if mb.agree > 0 {
						// What MinAgree is for: after a filter on the same
						// agreement, the pairs of the unlimited search.
						diff(t, name+": agreeing pairs vs brute force", agreeing(c, got, mb.agree), agreeing(c, all, mb.agree))
					}
					for e := range smallPairs(c) {
						if !got[e] {
							t.Fatalf("%s: pair %v shares a small bucket but is not reported", name, e)
						}
					}
				}
			}
		}
	}
}

func TestRunAgainstReference(t *testing.T) { testAgainstReference(t) }

// plantedEntries returns n records with ids 0..n-1 and random keys (ANDed
// with mask), of which plant keys are given to 1 to most other records
// too, and the number of records with each key.
func plantedEntries(rng *rand.Rand, n, plant, most int, mask uint64) ([]entry, map[uint64]int) {
	ents := make([]entry, n)
	for i := range ents {
		ents[i] = entry{key: rng.Uint64() & mask, id: uint32(i), third: rng.Uint32()}
	}
	for range plant {
		k := ents[rng.IntN(n)].key
		for range 1 + rng.IntN(most) {
			ents[rng.IntN(n)].key = k
		}
	}
	count := map[uint64]int{}
	for _, e := range ents {
		count[e.key]++
	}
	return ents, count
}

// TestSortShared: sortShared returns, sorted by key and stably, every
// record whose key another record has and no record twice, with one
// table (below sharedOnce records) and with a table for each part of the
// top bits; with keys that differ only below the tables' bits, every
// record.
func TestSortShared(t *testing.T) {
	defer func(m, o int) { sharedMin, sharedOnce = m, o }(sharedMin, sharedOnce)
	rng := rand.New(rand.NewPCG(9, 10))
	var seen []uint64
	for _, n := range []int{0, 1, 2, 3, 50, 1000, 70_000, 300_000} {
		for _, narrow := range []bool{false, true} {
			for _, once := range []int{2, 1 << 30} {
				sharedMin, sharedOnce = 2, once
				mask := ^uint64(0)
				if narrow {
					mask = 1<<20 - 1
				}
				in, count := plantedEntries(rng, n, n/10, 3, mask)
				name := fmt.Sprintf("n=%d narrow=%v sharedOnce=%d", n, narrow, once)
				got := sortShared(slices.Clone(in), make([]entry, n), &seen)
				ids := map[uint32]bool{}
				for k, e := range got {
					if e != in[e.id] || ids[e.id] {
						t.Fatalf("%s: record %d is %+v, not an input record or given twice", name, k, e)
					}
					ids[e.id] = true
					if k > 0 && (got[k-1].key > e.key || got[k-1].key == e.key && got[k-1].id > e.id) {
						t.Fatalf("%s: records %d and %d out of order", name, k-1, k)
					}
				}
				for _, e := range in {
					if count[e.key] > 1 && !ids[e.id] {
						t.Fatalf("%s: record %d, whose key %d others have, left out", name, e.id, count[e.key]-1)
					}
				}
				if narrow && n >= 1000 && len(got) != n {
					t.Errorf("%s: %d records kept", name, len(got))
				}
				if !narrow && n >= 1000 && len(got) > n/2 {
					t.Errorf("%s: %d records kept: the filter leaves out few", name, len(got))
				}
			}
		}
	}
}

// TestShared: keepShared keeps, in their order, every record whose
// key another record has, and of the others only those whose top bits
// another key has (about one in eight), on random keys with shared ones
// planted, a pair and runs of up to 5; and every record when the keys
// differ only in bits below the table's.
func TestShared(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{sharedMin, 3 * sharedMin} {
		in, count := plantedEntries(rng, n, n/20, 4, ^uint64(0))
		ents := slices.Clone(in)
		var seen []uint64
		got := keepShared(ents, 0, &seen)
		k, unique := 0, 0
		for _, e := range in {
			if k < len(got) && got[k] == e {
				k++
				if count[e.key] == 1 {
					unique++
				}
				continue
			}
			if count[e.key] > 1 {
				t.Fatalf("n=%d: record %d, whose key %d others have, left out", n, e.id, count[e.key]-1)
			}
		}
		if k != len(got) {
			t.Fatalf("n=%d: %d records kept are not the input's, in order", n, len(got)-k)
		}
		if frac := float64(unique) / float64(n); frac > 0.2 {
			t.Errorf("n=%d: %.3f of the records are kept with keys of their own, want about 1/8", n, frac)
		}
		for i := range in {
			in[i].key &= 1<<40 - 1
		}
		if got := keepShared(slices.Clone(in), 0, &seen); len(got) != n {
			t.Errorf("n=%d: keys equal in their top bits: %d records kept", n, len(got))
		}
	}
}

// Narrowing the key to 2 bits makes almost every band key collide, which
// drives every bucket through the value-verification path.
func TestRunKeyCollisions(t *testing.T) {
	if raceEnabled {
		// As TestRunKernels: the same concurrency as
		// TestRunAgainstReference, minutes under the detector.
		t.Skip("narrow keys against the reference are left to the tests without -race")
	}
	defer func(m uint64) { keyMask = m }(keyMask)
	keyMask = 3
	testAgainstReference(t)
}

// The reference search with each kernel of equalRows, which compares the
// bucket numbers of a bucket's pairs.
func TestRunKernels(t *testing.T) {
	if raceEnabled {
		// Minutes under the detector on two cores; the kernels share
		// nothing between goroutines, and TestRunAgainstReference runs
		// Run's concurrency under it.
		t.Skip("the kernels' run against the reference is left to the tests without -race")
	}
	kernels(t, testAgainstReference)
}

// collideKey returns three slot values with sortKey equal to that of v
// (three values) and third as their third: Run's exact keys then tell the
// two apart only by the third. The pair of values is found by undoing the
// multiplication by the odd sortMul[0].
func collideKey(v []uint32, third uint32) []uint32 {
	m := sortMul[0]
	inv := m // Newton's iteration: each step doubles the correct low bits
	for range 6 {
		inv *= 2 - m*inv
	}
	x := inv * (sortKey(v) ^ (uint64(third)|1<<32)*sortOdd)
	return []uint32{uint32(x), uint32(x >> 32), third}
}

// TestRunExactKeyCollisions: buckets whose 64-bit keys collide, with
// members of each interleaved in id order and of one member too, are
// split by their thirds into the reference's buckets, with and without
// chained buckets, on 1, 2 and 7 workers.
func TestRunExactKeyCollisions(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const slots, bands, n = 12, 4, 300
	for round := range 20 {
		sigs := randomSigs(rng, n, slots, 3)
		// In each band, a few groups of documents get values whose keys
		// collide with one chosen triple's, each group its own third.
		collided := 0
		for band := range bands {
			base := []uint32{rng.Uint32(), rng.Uint32(), rng.Uint32()}
			for g := range 1 + rng.IntN(4) {
				vals := base
				if g > 0 {
					vals = collideKey(base, base[2]+uint32(g))
					if sortKey(vals) != sortKey(base) {
						t.Fatalf("collideKey: %v and %v keyed %#x and %#x", base, vals, sortKey(vals), sortKey(base))
					}
				}
				for range 1 + rng.IntN(6) {
					i := rng.IntN(n)
					copy(sigs[i*slots+band*3:], vals)
					collided++
				}
			}
		}
		for _, workers := range []int{1, 2, 7} {
			for _, mb := range []int{0, 3} {
				c := &Candidates{Params: Params{bands, 3}, Slots: slots, Sigs: sigs, Workers: workers, MaxBucket: mb, MinAgree: slots / 2}
				got, _ := runCollect(t, c)
				name := fmt.Sprintf("round %d workers=%d max=%d (%d collided values)", round, workers, mb, collided)
				diff(t, name+" vs reference", got, refPairs(c))
				if mb == 0 {
					diff(t, name+" vs brute force", got, bruteAgree(c))
				}
			}
		}
	}
}

func TestRunLargeBucket(t *testing.T) {
	const n, slots = 10_000, 128
	sigs := make([]uint32, n*slots)
	for i := range n {
		for k := range slots {
			sigs[i*slots+k] = uint32(k * 7)
		}
	}
	for _, workers := range []int{1, 2, 7} {
		c := &Candidates{Params: Params{35, 3}, Slots: slots, Sigs: sigs, Workers: workers, MaxBucket: 1000}
		got, st := runCollect(t, c)
		if len(got) != n-1 || st.LargeBuckets != 35 || st.MaxBucketSeen != n {
			t.Fatalf("workers=%d: %d pairs, stats %+v; want %d pairs, 35 large buckets", workers, len(got), st, n-1)
		}
		for i := range uint32(n - 1) {
			if !got[pair{i, i + 1}] {
				t.Fatalf("chain pair (%d, %d) missing", i, i+1)
			}
		}
	}
}

func TestRunErrors(t *testing.T) {
	f := func(c Candidates) {
		t.Helper()
		called := false
		if _, err := c.Run(context.Background(), func(int, uint32, uint32) { called = true }); !errors.Is(err, ErrInvalid) || called {
			t.Errorf("%+v: err %v, called %v; want an error and no call", c, err, called)
		}
	}
	f(Candidates{Params: Params{0, 3}, Slots: 12, Sigs: make([]uint32, 24)})
	f(Candidates{Params: Params{3, 0}, Slots: 12, Sigs: make([]uint32, 24)})
	f(Candidates{Params: Params{5, 3}, Slots: 12, Sigs: make([]uint32, 24)})
	f(Candidates{Params: Params{1, 1}, Slots: 0, Sigs: nil})
	f(Candidates{Params: Params{4, 3}, Slots: 12, Sigs: make([]uint32, 25)})
}

func TestRunNilFn(t *testing.T) {
	c := &Candidates{Params: Params{2, 1}, Slots: 2, Sigs: []uint32{1, 2, 1, 3, 0, 2}}
	st, err := c.Run(context.Background(), nil)
	if err != nil || st.Pairs != 2 {
		t.Fatalf("Run(nil) = %+v, %v; want 2 pairs", st, err)
	}
}

func TestRadixSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{0, 1, 2, 3, 100, 5000, msdMin, msdMin + 777} { // from msdMin on, the MSD pass first
		for _, mask := range []uint64{^uint64(0), 0xff, 0xff00ff0000000000, 0xfff0000ff0000000, 0} {
			a := make([]entry, n)
			for i := range a {
				a[i] = entry{rng.Uint64() & mask, uint32(i), rng.Uint32()}
			}
			want := slices.Clone(a)
			slices.SortStableFunc(want, func(x, y entry) int {
				switch {
				case x.key < y.key:
					return -1
				case x.key > y.key:
					return 1
				}
				return 0
			})
			got := radixSort(a, make([]entry, n))
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d mask=%x: radix sort differs", n, mask)
			}
		}
	}
}

// Golden band keys: BandKey is a fixed function that an index may store.
func TestBandKeyGolden(t *testing.T) {
	p := Params{2, 3}
	sig := []uint32{1, 2, 3, 4, 5, 6}
	got := []uint64{p.BandKey(sig, 0), p.BandKey(sig, 1), Params{1, 1}.BandKey([]uint32{0}, 0)}
	want := []uint64{0x79ea72a342b3ea3, 0x4108e54fd419f489, 0x39b341861f2ddef9}
	if !slices.Equal(got, want) {
		t.Errorf("BandKey golden values changed: got %#x", got)
	}
	if p.BandKey([]uint32{7, 7, 7, 7, 7, 7}, 0) == p.BandKey([]uint32{7, 7, 7, 7, 7, 7}, 1) {
		t.Error("equal values in different bands gave equal keys")
	}
}

func ExampleCandidates_Run() {
	// Four signatures of 4 slots, 2 bands of 2 rows. 0 and 1 agree on both
	// bands (reported once), 1 and 2 on band 1, 3 on none.
	c := &Candidates{
		Params: Params{Bands: 2, Rows: 2},
		Slots:  4,
		Sigs: []uint32{
			1, 2, 3, 4,
			1, 2, 3, 4,
			9, 9, 3, 4,
			5, 6, 7, 8,
		},
	}
	var pairs [][2]uint32
	st, err := c.Run(context.Background(), func(_ int, i, j uint32) { pairs = append(pairs, [2]uint32{i, j}) })
	if err != nil {
		panic(err)
	}
	slices.SortFunc(pairs, func(a, b [2]uint32) int { return slices.Compare(a[:], b[:]) })
	fmt.Println(pairs, st.Pairs)
	// Output:
	// [[0 1] [0 2] [1 2]] 3
}

// agreeLow counts equal low bytes of the packed values (an upper bound of
// the agreeing slots, padding bytes of a partial word counting as equal).
func TestAgreeLow(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, slots := range []int{1, 7, 8, 9, 64, 100, 128, 130} {
		words := (slots + 7) / 8
		for range 200 {
			a, b := make([]uint32, slots), make([]uint32, slots)
			for k := range slots {
				a[k] = rng.Uint32()
				switch rng.IntN(3) {
				case 0:
					b[k] = a[k]
				case 1:
					b[k] = a[k] ^ uint32(1+rng.IntN(255))<<8 // same low byte
				default:
					b[k] = rng.Uint32()
				}
			}
			want := words*8 - slots
			for k := range slots {
				if uint8(a[k]) == uint8(b[k]) {
					want++
				}
			}
			pa, pb := make([]uint64, words), make([]uint64, words)
			packLow(pa, a)
			packLow(pb, b)
			if got := agreeLow(pa, pb); got != want {
				t.Fatalf("slots %d: agreeLow = %d, want %d", slots, got, want)
			}
		}
	}
}

// TestRunDeferred: with deferred set, Run's pairs and deferred.Pairs over
// every chained bucket are, together, the pairs of a Run without it, each
// once.
func TestRunDeferred(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var nDeferred int
	for _, workers := range []int{1, 2, 3} {
		for _, agree := range []int{8, 12, 16} {
			const n, slots = 600, 24
			sigs := randomSigs(rng, n, slots, 2)
			c := &Candidates{Params: Params{8, 3}, Slots: slots, Sigs: sigs, Workers: workers, MaxBucket: 4, MinAgree: agree}
			want, _ := runCollect(t, c)
			d := &deferred{}
			c.deferred = d
			got, _ := runCollect(t, c)
			if d.Len() == 0 {
				t.Fatalf("no chained bucket")
			}
			for k := range d.Len() {
				if k > 0 && len(d.Members(k)) > len(d.Members(k-1)) {
					t.Fatalf("buckets not largest first")
				}
				m := d.Members(k)
				d.Pairs(k, func(i uint32) []uint32 { return sigs[int(i)*slots : int(i+1)*slots] }, func(x, y int) bool {
					e := pair{m[x], m[y]}
					if got[e] {
						t.Fatalf("pair %v reported twice", e)
					}
					got[e] = true
					nDeferred++
					return true
				})
			}
			diff(t, fmt.Sprintf("workers %d agree %d: Run + deferred.Pairs", workers, agree), got, want)
		}
	}
	if nDeferred == 0 {
		t.Fatal("no deferred pair: the test shows nothing")
	}
}

// TestPairsWhere: deferred.PairsWhere gives exactly the pairs of
// deferred.Pairs that keep accepts, and asks keep only about pairs that
// pass the signature comparison, both where the report band comes from
// bits (8 bands) and where it does not (70 bands).
func TestPairsWhere(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	kept := 0
	for _, c := range []struct {
		p     Params
		slots int
	}{{Params{8, 3}, 24}, {Params{70, 1}, 72}} {
		const n = 200
		sigs := randomSigs(rng, n, c.slots, 2)
		agree := c.slots / 2
		d := &deferred{}
		cand := &Candidates{Params: c.p, Slots: c.slots, Sigs: sigs, Workers: 2, MaxBucket: 4, MinAgree: agree, deferred: d}
		runCollect(t, cand)
		if d.Len() == 0 {
			t.Fatalf("%v: no chained bucket", c.p)
		}
		sig := func(i uint32) []uint32 { return sigs[int(i)*c.slots : int(i+1)*c.slots] }
		for k := range d.Len() {
			m := d.Members(k)
			keep := func(x, y int) bool { return (m[x]*31+m[y]*7)%3 != 0 }
			want := map[pair]bool{}
			d.Pairs(k, sig, func(x, y int) bool {
				if keep(x, y) {
					want[pair{m[x], m[y]}] = true
				}
				return true
			})
			got := map[pair]bool{}
			d.PairsWhere(k, sig, func(x int, ys []int32, ok []bool) {
				if len(ok) != len(ys) {
					t.Fatalf("keep given %d answers for %d pairs", len(ok), len(ys))
				}
				for i, yy := range ys {
					y := int(yy)
					if y <= x+1 || (i > 0 && y <= int(ys[i-1])) {
						t.Fatalf("keep asked about member %d with %v: not ascending after %d+1", x, ys, x)
					}
					if slotsAgree(sig(m[x]), sig(m[y])) < agree && c.p.Bands <= 64 {
						// Asked after the low bytes' comparison: a pair
						// whose full values agree less may be asked, one
						// whose low bytes agree less may not.
						low := 0
						for s := range c.slots {
							if uint8(sig(m[x])[s]) == uint8(sig(m[y])[s]) {
								low++
							}
						}
						if low < agree {
							t.Fatalf("keep asked about %d,%d: %d low bytes agree, need %d", m[x], m[y], low, agree)
						}
					}
					ok[i] = keep(x, y)
				}
			}, func(x, y int) bool {
				e := pair{m[x], m[y]}
				if got[e] {
					t.Fatalf("pair %v given twice", e)
				}
				got[e] = true
				return true
			})
			diff(t, fmt.Sprintf("%v bucket %d: PairsWhere", c.p, k), got, want)
			kept += len(got)
		}
	}
	if kept == 0 {
		t.Fatal("no pair kept: the test shows nothing")
	}
	t.Logf("%d pairs kept", kept)
}

// TestSortKey checks what Run's sort needs of sortKey: keys of different
// values rarely equal (for two slots never: the key is one to one) and
// spread over the top byte, where the radix sort starts, even for the
// small values minimum hashes are (a set's least hash is about 2^32/|set|).
func TestSortKey(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, rows := range []int{1, 2, 3, 4, 5} {
		const n = 1 << 16
		seen := make(map[uint64][]uint32, n)
		var top [256]int
		for range n {
			vals := make([]uint32, rows)
			for k := range vals {
				vals[k] = r.Uint32N(1 << 20) // small, like minimum hashes
			}
			key := sortKey(vals)
			if old, ok := seen[key]; ok && !slices.Equal(old, vals) {
				t.Fatalf("rows %d: %v and %v have the same key %#x", rows, old, vals, key)
			}
			seen[key] = vals
			top[key>>56]++
		}
		// n/256 = 256 a byte value; a key that missed the top bits would
		// leave most of them empty.
		for b, c := range top {
			if c < 128 || c > 384 {
				t.Fatalf("rows %d: top byte %#x in %d of %d keys, want about %d", rows, b, c, n, n/256)
			}
		}
	}
	if sortKey([]uint32{1, 2}) == sortKey([]uint32{2, 1}) {
		t.Error("sortKey ignores the order of the values")
	}
}

// TestHooks: lshhook.Set (what the batch uses) sets the row callback and
// the deferred chained buckets that Run fills, and clears them again; with
// Defer unset it returns a nil interface, which callers test for.
func TestHooks(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const n, slots = 600, 24
	sigs := randomSigs(rng, n, slots, 2)
	c := &Candidates{Params: Params{8, 3}, Slots: slots, Sigs: sigs, Workers: 2, MaxBucket: 4, MinAgree: 12}
	rows := 0
	ch := lshhook.Set(c, lshhook.Options{Defer: true, Row: func(int, uint32, []uint32) { rows++ }})
	if ch == nil || c.deferred == nil || ch != lshhook.Chained(c.deferred) {
		t.Fatalf("Set with Defer: Chained %v, Candidates.deferred %p", ch, c.deferred)
	}
	if _, err := c.Run(context.Background(), func(int, uint32, uint32) {}); err != nil {
		t.Fatal(err)
	}
	if ch.Len() == 0 || len(ch.Members(0)) <= c.MaxBucket {
		t.Fatalf("after Run: %d chained buckets", ch.Len())
	}
	// Buckets within MaxBucket go to row.
	r := *c
	r.MaxBucket, r.Workers, r.deferred = 0, 1, nil // rows counted without a lock; ch kept
	if _, err := r.Run(context.Background(), func(int, uint32, uint32) {}); err != nil {
		t.Fatal(err)
	}
	if rows == 0 {
		t.Fatal("Options.Row not called")
	}
	pairs := 0
	ch.PairsWhere(0, func(i uint32) []uint32 { return sigs[int(i)*slots : int(i+1)*slots] }, nil, func(x, y int) bool {
		pairs++
		return true
	})
	want := 0
	c.deferred.Pairs(0, func(i uint32) []uint32 { return sigs[int(i)*slots : int(i+1)*slots] }, func(x, y int) bool {
		want++
		return true
	})
	if pairs != want {
		t.Fatalf("Chained.PairsWhere with no keep: %d pairs, deferred.Pairs %d", pairs, want)
	}
	if ch := lshhook.Set(c, lshhook.Options{}); ch != nil || c.deferred != nil || c.row != nil {
		t.Fatalf("Set without hooks: Chained %v, deferred %p, row set %v", ch, c.deferred, c.row != nil)
	}
}
