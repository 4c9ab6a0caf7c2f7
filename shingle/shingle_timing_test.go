package shingle

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/gen"
)

// Measured with go test -run XXX -bench . -count 3 ./shingle/ on the shared
// 2-core AMD EPYC dev VM (load average 2-4 from other jobs, so figures are
// pessimistic): word/en 240-319 MB/s, char/en 87-98 MB/s, word/ru 36-48 MB/s,
// all 0 allocs/op; Jaccard 250x250 1.4-1.5 µs, 250x10000 2.8 µs, 10x5000 0.14 µs.

// benchText is about 1.5 KB of English prose, the size of a typical
// document in a web crawl deduplication job.
const benchText = `It was a bright cold day in April, and the clocks were striking thirteen.
The committee met again on Tuesday to review the 2024 budget, which had grown by 7.5 percent
since the previous year. Several members asked why the maintenance costs for the northern
bridge were so high; the engineer explained that the steel supports, installed in 1987,
had begun to corrode faster than expected after three unusually wet winters. "We can repair
them now, or we can replace the whole span in five years," she said, "but we cannot do nothing."
After a long discussion the chair proposed a compromise: a partial repair this summer, funded
from the reserve, and a full engineering study to be presented before the end of the year.
The motion passed by eleven votes to four. Outside, the rain had stopped, and a few people
lingered on the steps of the town hall, talking about the weather, the new library, and the
football match on Saturday. Nobody mentioned the bridge again, although everyone would cross
it on the way home. Later that evening the local newspaper published a short article on its
website, with a photograph of the committee and a summary of the decision; by midnight it had
been shared several hundred times, and the comments ranged from careful praise to angry
accusations of waste. The mayor, who had not attended the meeting, wrote that she trusted the
engineers and that safety would always come first in this city.`

func benchShingle(b *testing.B, o Options, text []byte) {
	s := mustNew(b, o)
	dst := make([]uint64, 0, len(text))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		dst = s.AppendSet(dst[:0], text)
	}
}

func BenchmarkAppendSet(b *testing.B) {
	en := []byte(benchText)
	r := rand.New(rand.NewPCG(1, 1))
	mixed := []byte(randText(r, 300))
	ru := []byte(strings.Repeat("Съешь же ещё этих мягких французских булок, да выпей чаю. ", 14))
	it := []byte(strings.Repeat("Affittasi monolocale arredato, libero da subito; è vicino all'università e alla città. ", 10))
	ja := []byte(strings.Repeat("吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。\n", 12))
	for _, c := range []struct {
		name string
		o    Options
		text []byte
	}{
		{"word/en", Options{Mode: Word}, en},
		{"word-bag/en", Options{Mode: Word, Bag: true}, en},
		{"char/en", Options{Mode: Char}, en},
		{"word/ru", Options{Mode: Word}, ru},
		{"char/ru", Options{Mode: Char}, ru},
		{"word/it", Options{Mode: Word}, it},
		{"word/ja", Options{Mode: Word}, ja},
		{"char/ja", Options{Mode: Char}, ja},
		{"word-nfkc/en", Options{Mode: Word, NFKC: true}, en},
		{"word-nfkc/it", Options{Mode: Word, NFKC: true}, it},
		{"word-nfkc/ja", Options{Mode: Word, NFKC: true}, ja},
		{"word/mixed", Options{Mode: Word}, mixed},
		{"char/mixed", Options{Mode: Char}, mixed},
	} {
		b.Run(c.name, func(b *testing.B) { benchShingle(b, c.o, c.text) })
	}
}

func randSet(r *rand.Rand, n int) []uint64 {
	a := make([]uint64, n)
	for i := range a {
		a[i] = r.Uint64()
	}
	slices.Sort(a)
	return slices.Compact(a)
}

// overlapSets returns two sorted sets of sizes m and n that share about
// half of the smaller.
func overlapSets(m, n int) (a, b []uint64) {
	r := rand.New(rand.NewPCG(uint64(m), uint64(n)))
	a = randSet(r, m)
	b = randSet(r, n)
	copy(b, a[:min(m, n)/2])
	slices.Sort(b)
	return a, slices.Compact(b)
}

var sinkF float64

func BenchmarkJaccard(b *testing.B) {
	for _, c := range []struct {
		name string
		m, n int
	}{{"250x250", 250, 250}, {"250x10000", 250, 10000}, {"10x5000", 10, 5000}} {
		x, y := overlapSets(c.m, c.n)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkF = Jaccard(x, y)
			}
		})
	}
}

// jaccardPair returns two random sorted sets of n elements with Jaccard
// about j, sharing elements spread over the whole range.
func jaccardPair(r *rand.Rand, n int, j float64) (a, b []uint64) {
	c := int(j * float64(2*n) / (1 + j))
	a = randSet(r, n)
	b = randSet(r, n)
	for k, i := range r.Perm(len(a))[:c] {
		b[k] = a[i]
	}
	slices.Sort(b)
	return a, slices.Compact(b)
}

// BenchmarkJaccardAtLeast checks pairs of 250-element sets at threshold
// 0.5, as the verification of candidates does: most candidates held by
// the pre-filter are between 0.3 and 0.5 and fail; those above pass. Each
// kernel this build and CPU can run is measured.
func BenchmarkJaccardAtLeast(b *testing.B) {
	saved := kernel
	defer func() { kernel = saved }()
	for _, k := range kernels {
		kernel = k
		r := rand.New(rand.NewPCG(1, 2))
		for _, j := range []float64{0.3, 0.4, 0.45, 0.6} {
			x, y := jaccardPair(r, 250, j)
			b.Run(fmt.Sprintf("%s/250x250/j=%.2f", kernelName(k), j), func(b *testing.B) {
				for b.Loop() {
					sinkF, _ = JaccardAtLeast(x, y, 0.5)
				}
			})
		}
	}
}

// uniformPair returns two sets of n uniformly random elements, c of them
// common, with Jaccard about j: the common elements spread like the
// others, as in two documents' shingle hashes. (jaccardPair's second set
// has its common elements among its smallest values, so it is not split
// evenly by value; kept for the figures measured with it.)
func uniformPair(r *rand.Rand, n int, j float64) (a, b []uint64) {
	c := int(j * float64(2*n) / (1 + j))
	for range c {
		v := r.Uint64()
		a = append(a, v)
		b = append(b, v)
	}
	for len(a) < n {
		a = append(a, r.Uint64())
	}
	for len(b) < n {
		b = append(b, r.Uint64())
	}
	slices.Sort(a)
	slices.Sort(b)
	return slices.Compact(a), slices.Compact(b)
}

// BenchmarkJaccardAtLeastUniform is BenchmarkJaccardAtLeast on
// uniformPair's sets, whose values split evenly (intersectVP2).
func BenchmarkJaccardAtLeastUniform(b *testing.B) {
	saved := kernel
	defer func() { kernel = saved }()
	for _, k := range kernels {
		r := rand.New(rand.NewPCG(1, 2))
		for _, j := range []float64{0.3, 0.4, 0.45, 0.6} {
			x, y := uniformPair(r, 250, j)
			b.Run(fmt.Sprintf("%s/250x250/j=%.2f", kernelName(k), j), func(b *testing.B) {
				kernel = k
				for b.Loop() {
					sinkF, _ = JaccardAtLeast(x, y, 0.5)
				}
			})
		}
	}
}

// BenchmarkCorpus shingles the first 2,000 documents of the benchmark
// corpus (internal/gen with bench/run.sh's seed: ~250 words, 1.6 KB each),
// in turn, so the texts come from memory rather than L1 as in a run. hash
// is the unsorted shingle hashes (tokenising and hashing), set the whole
// AppendSet (with the sort and deduplication), distinct AppendDistinct
// (deduplication by hash table, no sort); hash-generic is hash in pure
// Go (the letter and digit masks 8 bytes at a time, alnum64, and the loop
// over tokens) where the CPU would use assembly, and hash-avx2masks is
// hash with the AVX2 mask kernel where the CPU would use AVX-512's;
// hash-cyrillic and set-cyrillic are hash and set on the same documents
// with their letters in Cyrillic (gen.AppendCyrillic: the same tokens, two
// bytes a letter), the path for text that is not ASCII; hash-quote and
// set-quote the same documents with one U+2019 (’) in the middle of each,
// text that is ASCII but for a rune or two, as much English text is.
func BenchmarkCorpus(b *testing.B) {
	var docs, cyr, quote [][]byte
	var total, cyrTotal, quoteTotal int64
	err := gen.Generate(gen.Config{Docs: 2000, Seed: 1}, func(_ int, d gen.Doc) error {
		docs = append(docs, []byte(d.Text))
		total += int64(len(d.Text))
		cyr = append(cyr, gen.AppendCyrillic(nil, d.Text))
		cyrTotal += int64(len(cyr[len(cyr)-1]))
		mid := len(d.Text) / 2
		quote = append(quote, []byte(d.Text[:mid]+"\u2019"+d.Text[mid:]))
		quoteTotal += int64(len(d.Text) + 3)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	s := mustNew(b, Options{Mode: Word})
	dst := make([]uint64, 0, 1<<16)
	// kernels: the mask kernel and whether the assembly word loop runs;
	// a case without them (nil) runs the CPU's best.
	type kernels struct {
		masks maskKernel
		asm   bool
	}
	for _, c := range []struct {
		name string
		fn   func(dst []uint64, text []byte) []uint64
		k    *kernels
		skip string // why the case would repeat another, if it would
	}{
		{"hash", s.appendWord, nil, ""},
		{"hash-generic", s.appendWord, &kernels{masksGo, false}, "no assembly: hash is the same path"},
		{"hash-avx2masks", s.appendWord, &kernels{masksAVX2, haveWordAsm}, "AVX2 masks are hash's, or the CPU has none"},
		{"set", s.AppendSet, nil, ""},
		{"distinct", s.AppendDistinct, nil, ""},
		{"tokens", s.AppendTokens, nil, ""},      // the token hashes an edit distance reads
		{"hash-cyrillic", s.appendWord, nil, ""}, // hash, the same tokens in two-byte letters
		{"set-cyrillic", s.AppendSet, nil, ""},
		{"hash-quote", s.appendWord, nil, ""}, // hash, with one U+2019 in the middle of each text
		{"set-quote", s.AppendSet, nil, ""},
	} {
		b.Run(c.name, func(b *testing.B) {
			docs, total := docs, total
			switch {
			case strings.HasSuffix(c.name, "-cyrillic"):
				docs, total = cyr, cyrTotal
			case strings.HasSuffix(c.name, "-quote"):
				docs, total = quote, quoteTotal
			}
			if c.k != nil {
				best := maskKernels()[len(maskKernels())-1]
				if (c.k.masks == best && c.k.asm == haveWordAsm) || (c.k.masks == masksAVX2 && !haveMasksAVX2) {
					b.Skip(c.skip)
				}
				defer func(m maskKernel, w bool) { useMasks, useWordAsm = m, w }(useMasks, useWordAsm)
				useMasks, useWordAsm = c.k.masks, c.k.asm
			}
			b.SetBytes(total / int64(len(docs)))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				dst = c.fn(dst[:0], docs[i])
				if i++; i == len(docs) {
					i = 0
				}
			}
		})
	}
}

// BenchmarkSortDedup: sortDedup of sets of uniform random hashes of each
// size (the shingle hashes of a document; 260 is about the benchmark
// corpus's mean), ns/op with a copy of the input.
func BenchmarkSortDedup(b *testing.B) {
	s := mustNew(b, Options{Mode: Word})
	for _, n := range []int{30, 128, lsdMin, 260, 1000, 10000} {
		r := rand.New(rand.NewPCG(1, uint64(n)))
		in := make([][]uint64, 64)
		for k := range in {
			in[k] = make([]uint64, n)
			for i := range in[k] {
				in[k][i] = r.Uint64()
			}
		}
		buf := make([]uint64, n)
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			k := 0
			for b.Loop() {
				copy(buf, in[k])
				s.sortDedup(buf)
				if k++; k == len(in) {
					k = 0
				}
			}
		})
	}
}
