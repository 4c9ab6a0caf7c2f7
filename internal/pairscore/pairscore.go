// Package pairscore scores reported near-duplicate pairs against the exact
// answer: recall (the share of the true pairs that were found) and
// precision (the share of the reported pairs that are true), with the rule
// by which a true pair between identical copies counts as found.
//
// neardup pairs documents with identical shingle sets as a star around the
// earliest of them (and may list only the earliest of each group), so a
// true pair i, j counts as found when i and j are copies of one another,
// when i, j was reported, or when the earliest copies of i and of j were
// reported. It is shared by "neardup eval" and bench/recall so that both
// score the same way.
//
// The package imports nothing of the module: it works on document numbers
// (places in the corpus, from 0) and sets of shingle hashes.
package pairscore

import "encoding/binary"

// Key returns the key of the unordered pair {i, j}: the smaller number in
// the high 32 bits, the larger in the low. Key(i, j) == Key(j, i). Numbers
// must be in [0, 2^32).
func Key(i, j int) uint64 {
	if i > j {
		i, j = j, i
	}
	return uint64(i)<<32 | uint64(j)
}

// Split returns the two numbers of a key, the smaller first.
func Split(k uint64) (i, j int) { return int(k >> 32), int(k & 0xffffffff) }

// Score counts true and reported pairs. Its zero value is an empty score.
type Score struct {
	Exact    int // true pairs (exact Jaccard >= t)
	Found    int // of those, the ones counted as found (Reported.Found)
	Reported int // reported pairs
	Correct  int // of those, the true ones
}

// Recall returns Found / Exact, or 1 when there is no true pair.
func (s Score) Recall() float64 {
	if s.Exact == 0 {
		return 1
	}
	return float64(s.Found) / float64(s.Exact)
}

// Precision returns Correct / Reported, or 1 when nothing was reported.
func (s Score) Precision() float64 {
	if s.Reported == 0 {
		return 1
	}
	return float64(s.Correct) / float64(s.Reported)
}

// Reported is a set of reported pairs and the identical groups by which a
// true pair counts as found. It is not safe for concurrent Add; Has and
// Found may run concurrently once every Add has returned.
type Reported struct {
	pairs map[uint64]bool
	canon func(i int) int
}

// NewReported returns an empty set of reported pairs. canon(i) is the
// earliest document with the same shingle set as i (i itself when there is
// none earlier; see Canonical); hint is the expected number of pairs.
func NewReported(canon func(i int) int, hint int) *Reported {
	return &Reported{pairs: make(map[uint64]bool, hint), canon: canon}
}

// Add records the reported pair i, j (in either order) and reports whether
// it was new.
func (r *Reported) Add(i, j int) bool {
	k := Key(i, j)
	if r.pairs[k] {
		return false
	}
	r.pairs[k] = true
	return true
}

// Has reports whether the pair i, j (in either order) was reported.
func (r *Reported) Has(i, j int) bool { return r.pairs[Key(i, j)] }

// Found reports whether the true pair i, j counts as found: i and j have
// the same earliest copy, or i, j was reported, or their earliest copies
// were reported.
func (r *Reported) Found(i, j int) bool {
	ci, cj := r.canon(i), r.canon(j)
	return ci == cj || r.Has(i, j) || r.Has(ci, cj)
}

// Canonical returns, for each set, the place of the earliest set equal to
// it (its own place when there is none earlier). An empty set is always
// its own: empty documents are not copies of one another. The sets must be
// sorted, as shingle sets are. It allocates one key per distinct set.
func Canonical(sets [][]uint64) []int {
	canon := make([]int, len(sets))
	first := make(map[string]int, len(sets))
	var b []byte
	for i, s := range sets {
		canon[i] = i
		if len(s) == 0 {
			continue
		}
		b = b[:0]
		for _, x := range s {
			b = binary.LittleEndian.AppendUint64(b, x)
		}
		if f, ok := first[string(b)]; ok {
			canon[i] = f
		} else {
			first[string(b)] = i
		}
	}
	return canon
}
