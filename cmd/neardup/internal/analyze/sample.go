// Package analyze is the computation of "neardup analyze": a seeded uniform
// sample of a corpus read once (Sampler), then, per shingle length, the
// exact Jaccard of all pairs of the sample counted into a histogram, per
// cutoff, and the pairs nearest each cutoff (Pairs). It hands the command a
// Sample and one Result per length to print; it does no I/O.
package analyze

import (
	"slices"

	"github.com/neardup/neardup/cmd/neardup/internal/sample"
	"github.com/neardup/neardup/shingle"
)

// Doc is a document of the sample, its text copied.
type Doc struct {
	Num  int // position among the non-empty documents offered
	ID   string
	Text []byte
}

// Sample is the outcome of a Sampler.
type Sample struct {
	Docs  []Doc // in input order
	Seen  int   // non-empty documents offered
	Empty int   // documents with no token, left out
}

// Sampler keeps a uniform random sample of k of the non-empty documents
// offered to Add (all of them when there are fewer), copying the text of a
// document only when it enters the sample; slots replaced later reuse their
// buffer. The same seed and documents give the same sample on every machine.
//
// A Sampler is not safe for concurrent use.
type Sampler struct {
	r     *sample.Reservoir
	words *shingle.Shingler
	toks  []uint64
	slots []Doc
	empty int
}

// NewSampler returns a Sampler of k documents drawn with seed; nfkc is the
// normalisation the documents will be shingled with (a document is empty
// when it has no word token under it). The error is shingle.New's.
func NewSampler(k int, seed uint64, nfkc bool) (*Sampler, error) {
	// A document with no word token has no shingles in any mode or length
	// (char shingles need a code point that is not a space, and every
	// token is one): the word tokenizer of package shingle decides.
	words, err := shingle.New(shingle.Options{Mode: shingle.Word, N: 1, NFKC: nfkc})
	if err != nil {
		return nil, err
	}
	return &Sampler{r: sample.New(k, seed), words: words, slots: make([]Doc, 0, min(max(k, 0), 1<<16))}, nil
}

// Add offers the next document of the stream. It does not retain id's or
// text's memory (text is copied when the document enters the sample). It
// always returns nil; the error result lets it serve as a reader's callback.
func (s *Sampler) Add(id string, text []byte) error {
	if s.toks = s.words.AppendTokens(s.toks[:0], text); len(s.toks) == 0 {
		s.empty++
		return nil
	}
	slot := s.r.Next()
	if slot < 0 {
		return nil
	}
	if slot == len(s.slots) {
		s.slots = append(s.slots, Doc{})
	}
	d := &s.slots[slot]
	d.Num = s.r.Seen() - 1
	d.ID = id
	d.Text = append(d.Text[:0], text...)
	return nil
}

// Sample returns the sample of the documents offered so far, in input
// order. The Sampler must not be used afterwards: the Sample owns its slots.
func (s *Sampler) Sample() *Sample {
	slices.SortFunc(s.slots, func(a, b Doc) int { return a.Num - b.Num })
	return &Sample{Docs: s.slots, Seen: s.r.Seen(), Empty: s.empty}
}
