package gen

import (
	"math/rand/v2"
	"sync"

	"github.com/neardup/neardup/internal/detmath"
)

// ZipfS is the exponent of the word-frequency law: the word of rank k
// (1-based) is drawn with probability proportional to k^-ZipfS.
const ZipfS = 1.1

// vocabSeed fixes the pseudo-words. It does not depend on Config.Seed, so
// every corpus speaks the same "language"; the first n words of a larger
// vocabulary are the words of a vocabulary of size n.
const vocabSeed = 0x6e656172647570 // "neardup"

// Syllable parts. Onsets and nuclei repeat some entries to weight them.
var (
	onsets = []string{
		"b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
		"b", "d", "l", "m", "n", "r", "s", "t",
		"br", "ch", "cl", "cr", "dr", "fl", "gr", "pl", "pr", "sh", "sl", "st", "th", "tr", "",
		"", "",
	}
	nuclei = []string{"a", "e", "i", "o", "u", "a", "e", "i", "o", "a", "e", "ai", "ea", "ee", "io", "ou", "oa"}
	codas  = []string{"", "", "", "", "", "n", "r", "s", "l", "t", "m", "nd", "st", "ck", "ng", "x", "rt", "ns"}
)

// vocab is a table of pseudo-words by frequency rank (0 = most frequent) and
// a Walker alias table that samples ranks from the Zipf law in O(1).
type vocab struct {
	words []wordSlot // by rank
	alias []aliasEntry
	n     uint64
	total uint64 // sum of the integer weights; < 2^32
}

// maxWordLen bounds word length so that a word fits one wordSlot and render
// can copy it with one fixed-size move.
const maxWordLen = 15

type wordSlot struct {
	b [maxWordLen]byte // the word, zero-padded
	n uint8            // its length
}

type aliasEntry struct {
	prob  uint32 // keep this column's own rank when the draw is below prob
	alias uint32 // otherwise take this rank
}

var (
	vocabMu    sync.Mutex
	vocabCache = map[int]*vocab{}
)

// getVocab returns the shared, read-only vocabulary of n words.
func getVocab(n int) *vocab {
	vocabMu.Lock()
	defer vocabMu.Unlock()
	if v := vocabCache[n]; v != nil {
		return v
	}
	v := newVocab(n)
	vocabCache[n] = v
	return v
}

func newVocab(n int) *vocab {
	v := &vocab{n: uint64(n)}
	rng := rand.NewPCG(vocabSeed, 1)
	seen := make(map[string]struct{}, n)
	v.words = make([]wordSlot, 0, n)
	var w []byte
	for i := 0; i < n; {
		w = w[:0]
		for s := syllables(i, rng); s > 0; s-- {
			w = append(w, onsets[rng.Uint64()%uint64(len(onsets))]...)
			w = append(w, nuclei[rng.Uint64()%uint64(len(nuclei))]...)
			w = append(w, codas[rng.Uint64()%uint64(len(codas))]...)
		}
		if _, dup := seen[string(w)]; dup || len(w) > maxWordLen || len(w) < 2 && i > 8 {
			continue
		}
		seen[string(w)] = struct{}{}
		var ws wordSlot
		ws.n = uint8(copy(ws.b[:], w))
		v.words = append(v.words, ws)
		i++
	}
	v.buildAlias()
	return v
}

// syllables returns how many syllables the word of rank r has: frequent
// words are short, as in natural language.
func syllables(r int, rng *rand.PCG) int {
	x := rng.Uint64() % 8
	switch {
	case r < 60:
		return 1
	case r < 2000:
		return 1 + int(x+5)/8 // 1 (5/8) or 2
	case r < 20000:
		return 2 + int(x+2)/8 // 2 (6/8) or 3
	default:
		return 2 + int(x+1)/4 // 2 (3/8), 3 (4/8) or 4 (1/8)
	}
}

// word returns the word of rank r; it aliases the vocabulary.
func (v *vocab) word(r uint32) []byte { ws := &v.words[r]; return ws.b[:ws.n] }

// buildAlias builds the alias table from integer weights w_k ≈ c·k^-ZipfS
// with Vose's method in exact integer arithmetic.
func (v *vocab) buildAlias() {
	n := int(v.n)
	// Sum of k^-1.1 over all k is ζ(1.1) ≈ 10.58, so a scale of 2^32/11 keeps
	// the total below 2^32.
	const scale = (1 << 32) / 11
	w := make([]uint64, n)
	for k := range w {
		x := detmath.Exp(-ZipfS * detmath.LogAtanh(float64(k+1)))
		w[k] = max(1, uint64(float64(scale*x)))
		v.total += w[k]
	}
	// Column capacity is total; scaled weight of k is w[k]·n.
	a := make([]uint64, n)
	small := make([]uint32, 0, n)
	large := make([]uint32, 0, n)
	for k := range w {
		a[k] = w[k] * uint64(n)
		if a[k] < v.total {
			small = append(small, uint32(k))
		} else {
			large = append(large, uint32(k))
		}
	}
	v.alias = make([]aliasEntry, n)
	for len(small) > 0 && len(large) > 0 {
		s := small[len(small)-1]
		small = small[:len(small)-1]
		l := large[len(large)-1]
		v.alias[s] = aliasEntry{prob: uint32(a[s]), alias: l}
		a[l] -= v.total - a[s]
		if a[l] < v.total {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// Columns left over are full (exactly, in integer arithmetic, except that
	// a leftover small column can only come from a large one that went below
	// capacity last): they always keep their own rank.
	for _, k := range append(large, small...) {
		v.alias[k] = aliasEntry{prob: ^uint32(0), alias: k}
	}
}

// sample maps one uniform 64-bit value to a Zipf-distributed rank.
func (v *vocab) sample(r uint64) uint32 {
	col := (r >> 32) * v.n >> 32 // high 32 bits pick the column (v.n < 2^32)
	e := v.alias[col]
	u := (r & 0xffffffff) * v.total >> 32 // low 32 bits: uniform in [0, total)
	if u < uint64(e.prob) {
		return uint32(col)
	}
	return e.alias
}
