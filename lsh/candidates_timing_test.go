package lsh

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"testing"
	"time"
)

var benchSigs = map[int][]uint32{}

// randomBenchSigs returns n random 128-slot signatures, cached across benchmarks.
func randomBenchSigs(n int) []uint32 {
	if s, ok := benchSigs[n]; ok {
		return s
	}
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	s := make([]uint32, n*128)
	for i := range s {
		s[i] = rng.Uint32()
	}
	benchSigs[n] = s
	return s
}

// heapPeak samples the bytes in heap objects every millisecond until stop
// is called, which returns the peak above the level when it started.
func heapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	runtime.GC()
	base := read()
	peak := base
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tk := time.NewTicker(time.Millisecond)
		defer tk.Stop()
		for {
			peak = max(peak, read())
			select {
			case <-done:
				return
			case <-tk.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return max(peak, read()) - base
	}
}

func BenchmarkRun(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		sigs := randomBenchSigs(n)
		for _, workers := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("n=%d/workers=%d", n, workers), func(b *testing.B) {
				c := &Candidates{Params: Params{35, 3}, Slots: 128, Sigs: sigs, Workers: workers, MaxBucket: 1000}
				// Peak heap of one Run on its own, above the signatures.
				stop := heapPeak()
				st, err := c.Run(context.Background(), nil)
				if err != nil {
					b.Fatal(err)
				}
				peak := stop()
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.Run(context.Background(), nil); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
				b.ReportMetric(float64(st.Pairs), "pairs")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/doc")
			})
		}
	}
}

// nearBenchSigs returns n 128-slot signatures in groups of 8 near-copies
// (each slot its group's value with probability 0.8, so two copies agree
// on a band of 3 with probability about 0.5), the groups' members spread
// over the ids; cached across benchmarks.
func nearBenchSigs(n int) []uint32 { return nearSigs(n, 8) }

// nearSigs is nearBenchSigs with groups of per copies on average.
func nearSigs(n, per int) []uint32 {
	key := -(n*64 + per)
	if s, ok := benchSigs[key]; ok {
		return s
	}
	rng := rand.New(rand.NewPCG(uint64(n), 2))
	groups := n / per
	tmpl := make([]uint32, groups*128)
	for i := range tmpl {
		tmpl[i] = rng.Uint32()
	}
	s := make([]uint32, n*128)
	for i := range n {
		g := rng.IntN(groups)
		for k := range 128 {
			s[i*128+k] = rng.Uint32()
			if rng.IntN(10) < 8 {
				s[i*128+k] = tmpl[g*128+k]
			}
		}
	}
	benchSigs[key] = s
	return s
}

// BenchmarkRunNear is Run over signatures with near-copies
// (nearBenchSigs): each pair of copies shares about half of the 35
// buckets, so most of its bucket pairs are reported in an earlier band
// and Run's report-band check is a large part of the time. No bucket is
// chained, though chained-bucket bits are kept (1M documents, MaxBucket
// 1000).
func BenchmarkRunNear(b *testing.B) {
	const n = 1_000_000
	sigs := nearBenchSigs(n)
	benchRun(b, &Candidates{Params: Params{35, 3}, Slots: 128, Sigs: sigs, Workers: 2, MaxBucket: 1000})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/doc")
}

// benchRun runs c in b's loop and reports the pairs reported and the
// pairs of the buckets (reported or not).
func benchRun(b *testing.B, c *Candidates) {
	var st Stats
	for b.Loop() {
		var err error
		if st, err = c.Run(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	}
	var inBuckets int64
	for _, cl := range st.Buckets {
		inBuckets += cl.Pairs
	}
	b.ReportMetric(float64(st.Pairs), "pairs")
	b.ReportMetric(float64(inBuckets), "bucketpairs")
}

// BenchmarkRunManyBands is Run over 100k signatures in groups of 32
// near-copies on average (nearSigs) with one row a band: 64 bands, whose
// earlier bands' bucket numbers one kernel call compares, and 70 and 128,
// which take two. A pair of copies shares about 80% of its buckets, so
// nearly every bucket pair (bucketpairs) is reported in an earlier band,
// which Run checks for each.
func BenchmarkRunManyBands(b *testing.B) {
	const n = 100_000
	sigs := nearSigs(n, 32)
	for _, bands := range []int{64, 70, 128} {
		b.Run(fmt.Sprintf("bands=%d", bands), func(b *testing.B) {
			benchRun(b, &Candidates{Params: Params{bands, 1}, Slots: 128, Sigs: sigs, Workers: 2, MaxBucket: 1000})
		})
	}
}

// BenchmarkLargeBucket is one bucket of 10,000 identical signatures in
// every band: with MaxBucket 1000 it is chained (n-1 pairs), so its cost
// must stay linear (it was a timed unit test; timings belong here).
func BenchmarkLargeBucket(b *testing.B) {
	const n, slots = 10_000, 128
	sigs := make([]uint32, n*slots)
	for i := range n {
		for k := range slots {
			sigs[i*slots+k] = uint32(k * 7)
		}
	}
	c := &Candidates{Params: Params{35, 3}, Slots: slots, Sigs: sigs, Workers: 2, MaxBucket: 1000}
	b.ReportAllocs()
	for b.Loop() {
		st, err := c.Run(context.Background(), nil)
		if err != nil || st.Pairs != n-1 {
			b.Fatalf("%+v, %v", st, err)
		}
	}
}

// BenchmarkSort compares the LSD radix sort Run uses with slices.SortFunc
// on the same (key, id) records.
func BenchmarkSort(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000, 10_000_000} {
		rng := rand.New(rand.NewPCG(5, 6))
		src := make([]entry, n)
		for i := range src {
			src[i] = entry{key: rng.Uint64(), id: uint32(i)}
		}
		a, tmp := make([]entry, n), make([]entry, n)
		b.Run(fmt.Sprintf("radix/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				copy(a, src)
				radixSort(a, tmp)
			}
		})
		// A band as on the 1M benchmark corpus: a fifth of the records
		// in buckets (of 2 to 9 here), the rest alone; sorted as band
		// sorts it, only the records whose key may be shared.
		band := slices.Clone(src)
		for i := 0; i < n/5; {
			m := min(2+rng.IntN(8), n/5-i)
			for k := range m {
				band[rng.IntN(n)].key = src[i].key
				_ = k
			}
			i += m
		}
		var seen []uint64
		b.Run(fmt.Sprintf("band/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				copy(a, band)
				radixSort(a, tmp)
			}
		})
		b.Run(fmt.Sprintf("band-shared/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				copy(a, band)
				sortShared(a, tmp, &seen)
			}
		})
		// The other way of sortShared: one table for all or one a part.
		b.Run(fmt.Sprintf("band-one-table/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				copy(a, band)
				radixSort(keepShared(a, 0, &seen), tmp)
			}
		})
		b.Run(fmt.Sprintf("band-table-a-part/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				copy(a, band)
				sortRuns(sortTopMSD(a, tmp, &seen), a)
			}
		})
		if n > 1_000_000 {
			continue
		}
		b.Run(fmt.Sprintf("slices.SortFunc/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				copy(a, src)
				slices.SortFunc(a, func(x, y entry) int {
					if c := cmp.Compare(x.key, y.key); c != 0 {
						return c
					}
					return cmp.Compare(x.id, y.id)
				})
			}
		})
	}
}

func BenchmarkBandKey(b *testing.B) {
	sig := make([]uint32, 128)
	for i := range sig {
		sig[i] = uint32(i * 2654435761)
	}
	p := Params{35, 3}
	var sink uint64
	for b.Loop() {
		for band := range 35 {
			sink += p.BandKey(sig, band)
		}
	}
	_ = sink
}

// agreeCases are the slot values of BenchmarkAgreeingPairs and
// BenchmarkAgreeRows: "few", a quarter of slots agree and few pairs pass;
// "half", 37.5% agree and about half pass, unpredictably.
var agreeCases = []struct {
	name  string
	value func(rng *rand.Rand) uint32
}{
	{"few", func(rng *rand.Rand) uint32 { return uint32(rng.IntN(4)) }},
	{"half", func(rng *rand.Rand) uint32 { return uint32(max(rng.IntN(4)-1, 0)) }},
}

// BenchmarkAgreeingPairs: the signature comparisons of one chained bucket
// of 2,000 members (128 slots); ns/op over the 1,999,000 comparisons is
// reported as ns/pair. In "few", about a quarter of slots agree and few
// pairs pass; in "half", 37.5% agree (a member of a family of templated
// documents and the others, as in the 10M benchmark's large buckets) and
// about half pass, unpredictably.
func BenchmarkAgreeingPairs(b *testing.B) {
	const m, slots = 2000, 128
	for _, c := range agreeCases {
		b.Run(c.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			sigs := make([]uint32, m*slots)
			for i := range sigs {
				sigs[i] = c.value(rng)
			}
			sig := func(x int) []uint32 { return sigs[x*slots : (x+1)*slots] }
			n := 0
			for b.Loop() {
				n = 0
				AgreeingPairs(m, 48, sig, func(x, y int) bool { n++; return true })
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(m*(m-1)/2), "ns/pair")
			b.ReportMetric(float64(n)/(m*(m-1)/2), "passed/pair")
		})
	}
}

// BenchmarkAgreeingKept: the pairs one chained bucket adds beyond its chain
// (deferred.Pairs), in a bucket shaped like the largest of the 10M-document
// benchmark corpus: 20,000 members (10 MB of signatures: more than a
// core's L2 cache), in 20 groups of near-copies interleaved in id order,
// each member keeping 75% of its group's slots (so about 1 comparison in
// 20 passes MinAgree), all agreeing on band 2, and each group's buckets
// chained in 95% of the bands (the members of a large bucket share text,
// so their other buckets are large too). ns/pair is over the m(m-1)/2
// comparisons; kept/op is how many pairs it gives.
func BenchmarkAgreeingKept(b *testing.B) {
	const m, slots, groups, band = 20_000, 128, 20, 2
	p := Params{35, 3}
	rng := rand.New(rand.NewPCG(3, 4))
	tmpl := make([]uint32, groups*slots)
	for i := range tmpl {
		tmpl[i] = rng.Uint32()
	}
	large := make([]uint64, groups)
	for g := range large {
		for k := range p.Bands {
			if k == band || rng.IntN(100) < 95 {
				large[g] |= 1 << k
			}
		}
	}
	ids := make([]uint32, m)
	group := make([]int, m)
	sigs := make([]uint32, m*slots)
	for x := range m {
		ids[x] = uint32(x)
		g := rng.IntN(groups)
		group[x] = g
		for k := range slots {
			sigs[x*slots+k] = rng.Uint32()
			if rng.IntN(100) < 75 {
				sigs[x*slots+k] = tmpl[g*slots+k]
			}
		}
		for k := band * p.Rows; k < (band+1)*p.Rows; k++ {
			sigs[x*slots+k] = 7 * uint32(k)
		}
	}
	largeOf := func(i uint32) []uint64 { return large[group[i] : group[i]+1] }
	kept := 0
	for b.Loop() {
		kept = 0
		p.agreeingKept(ids, band, 48, sigs, largeOf, nil, func(x, y int) bool { kept++; return true })
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(m*(m-1)/2), "ns/pair")
	b.ReportMetric(float64(kept), "kept/op")
}

// BenchmarkAgreeRows: the block comparison alone (agreeRows: packed low
// bytes of 128 slots, each member against the later ones of a bucket of
// 2,000), with slots agreeing as in BenchmarkAgreeingPairs' cases:
// "half" passes about half of the rows, unpredictably.
func BenchmarkAgreeRows(b *testing.B) {
	const m, slots, need = 2000, 128, 48
	for _, c := range agreeCases {
		b.Run(c.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			words := slots / 8
			low := make([]uint64, m*words)
			sig := make([]uint32, slots)
			for x := range m {
				for k := range sig {
					sig[k] = c.value(rng)
				}
				packLow(low[x*words:(x+1)*words], sig)
			}
			var pass []int32
			var masks []uint64
			n := 0
			for b.Loop() {
				n = 0
				for x := range m {
					pass, masks = agreeRows(pass[:0], masks[:0], low[x*words:(x+1)*words], low, words, x+1, m, need)
					n += len(pass)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(m*(m-1)/2), "ns/pair")
			b.ReportMetric(float64(n)/(m*(m-1)/2), "passed/pair")
		})
	}
}

// BenchmarkBandKeys: the keys Run sorts each band by (sortKey), the 35
// bands of 3 slots of one 128-slot signature a op, as BenchmarkBandKey
// times BandKey's.
func BenchmarkBandKeys(b *testing.B) {
	sig := make([]uint32, 128)
	for i := range sig {
		sig[i] = uint32(i * 2654435761)
	}
	var sink uint64
	for b.Loop() {
		for band := range 35 {
			sink += sortKey(sig[band*3 : band*3+3])
		}
	}
	_ = sink
}

// BenchmarkEqualRows: bucketComp's comparison of a member's bucket numbers
// for the earlier bands (17 of 35) with those of the bucket's later
// members, for every member of buckets of the given size, as a bucket of
// the benchmark corpus takes them; a row of comp, as Run passes it.
func BenchmarkEqualRows(b *testing.B) {
	const n, stride, band = 4096, 35, 17
	rng := rand.New(rand.NewPCG(3, 4))
	comp := make([]uint32, n*stride+64)
	for k := range comp {
		comp[k] = uint32(rng.IntN(4))
	}
	for _, size := range []int{4, 24} {
		b.Run(fmt.Sprintf("bucket=%d", size), func(b *testing.B) {
			rows := make([]entry, size)
			for k := range rows {
				rows[k].id = uint32(rng.IntN(n))
			}
			out := make([]uint64, size)
			for b.Loop() {
				for x := 0; x+1 < size; x++ {
					i := int(rows[x].id)
					equalRows(out, comp[i*stride:i*stride+band], comp, stride, rows[x+1:])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(size-1), "ns/member")
		})
	}
}
