package shingle

import (
	"fmt"

	"github.com/neardup/neardup/internal/sentinel"
	"golang.org/x/text/unicode/norm"
)

// Mode selects how text is cut into shingles.
type Mode uint8

const (
	// Word shingles are n consecutive tokens (maximal runs of letters and digits of the lower-cased text).
	Word Mode = iota
	// Char shingles are k consecutive code points of the lower-cased, space-folded text.
	Char
)

// Default shingle lengths.
const (
	DefaultWordN = 3
	DefaultCharN = 5
)

// MaxN is the largest shingle length New accepts. Hashing a shingle costs
// O(N), so work per document is O(N × length).
const MaxN = 1000

// ErrInvalidOptions is wrapped by the errors of New and ParseMode for
// options they cannot use. It is neardup.ErrOptions.
var ErrInvalidOptions = sentinel.Options

// ParseMode parses "word" or "char". Any other string gives an error that
// wraps ErrInvalidOptions.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "word":
		return Word, nil
	case "char":
		return Char, nil
	}
	return 0, fmt.Errorf("%w: unknown mode %q (want word or char)", ErrInvalidOptions, s)
}

// String returns "word" or "char"; "Mode(n)" for values that are not modes.
func (m Mode) String() string {
	switch m {
	case Word:
		return "word"
	case Char:
		return "char"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Options says how to shingle.
type Options struct {
	Mode Mode
	N    int  // shingle length in tokens (Word) or code points (Char); 0 means the mode's default
	Bag  bool // count repeated shingles as distinct elements (shingle, occurrence)
	// NFKC applies Unicode Normalization Form KC to the text first, so
	// that full-width and half-width forms, ligatures and other
	// compatibility characters (ＬＩＮＵＸ and LINUX, ｶﾀｶﾅ and カタカナ,
	// ﬁ and fi) and composed and decomposed accents compare equal.
	NFKC bool
}

// Shingler cuts text into shingle hashes. It keeps scratch buffers, so it is
// not safe for concurrent use; use one per goroutine. After warm-up it
// allocates nothing.
type Shingler struct {
	o Options // N resolved

	ring    []uint64  // Word: last N token hashes, stored twice (see appendWord)
	masks   []uint64  // Word: letter and digit masks of 64-byte blocks (appendWordASCII)
	norm    []byte    // Char: normalised text followed by 8 zero bytes
	scratch []uint64  // sort: bucket sort destination
	counts  []int32   // sort: bucket counts
	table   []uint64  // distinct: the hash table, all zero between calls
	tokBuf  []byte    // AppendTokens: the current token
	nfkc    []byte    // NFKC: the normalised text
	iter    norm.Iter // NFKC: the normaliser
	ascii   bool      // the last text was all ASCII (ASCII)
	checked bool      // the word tokeniser decoded every non-ASCII byte of the last text (ValidUTF8)
	invalid bool      // it met a byte that is not valid UTF-8 there
}

// New returns a Shingler for o. It returns an error wrapping
// ErrInvalidOptions if o.Mode is not Word or Char, or o.N is negative or
// larger than MaxN.
func New(o Options) (*Shingler, error) {
	if o.Mode != Word && o.Mode != Char {
		return nil, fmt.Errorf("%w: mode %v", ErrInvalidOptions, o.Mode)
	}
	if o.N < 0 || o.N > MaxN {
		return nil, fmt.Errorf("%w: shingle length %d: want 0 (default) to %d", ErrInvalidOptions, o.N, MaxN)
	}
	if o.N == 0 {
		o.N = DefaultWordN
		if o.Mode == Char {
			o.N = DefaultCharN
		}
	}
	s := &Shingler{o: o}
	if o.Mode == Word {
		s.ring = make([]uint64, 2*o.N)
	}
	return s, nil
}

// Options returns the options s was made with, N resolved to the mode's
// default if it was 0.
func (s *Shingler) Options() Options { return s.o }

// AppendSet appends the shingle set of text to dst and returns the extended
// slice: hashes sorted ascending, without duplicates. Text with no token has
// no shingles.
//
// Only the appended part is sorted; the elements already in dst are left
// as they are. text is only read, and neither text nor dst is retained.
// A document yields at most len(text) hashes, so a dst with that much spare
// capacity never grows; AppendSet then allocates nothing unless the
// Shingler's scratch buffers must grow for a document larger than any it
// has seen before.
func (s *Shingler) AppendSet(dst []uint64, text []byte) []uint64 {
	base := len(dst)
	dst = s.appendShingles(dst, text)
	return dst[:base+s.finish(dst[base:])]
}

// appendShingles appends the shingle hashes of text to dst, in text order
// with their repeats: the set before sorting and deduplication.
func (s *Shingler) appendShingles(dst []uint64, text []byte) []uint64 {
	s.ascii, s.checked, s.invalid = false, false, false
	f := s.form(text)
	if s.o.Mode == Word {
		dst = s.appendWord(dst, f)
	} else {
		dst = s.appendChar(dst, f)
	}
	if len(f) != len(text) || (len(f) > 0 && &f[0] != &text[0]) {
		// The tokeniser saw the normalised text.
		s.ascii, s.checked, s.invalid = false, false, false
	}
	return dst
}

// ASCII reports whether the text of the last call of AppendSet,
// AppendSetString or AppendDistinct was seen to be all ASCII, and so valid
// UTF-8, on the way: true only when the word tokeniser's fast path
// checked every byte of it (ASCII text of word shingles that needed no
// normalising); false says nothing about the text. A caller that needs
// to know whether a text is valid UTF-8 can skip utf8.Valid when it is
// true.
func (s *Shingler) ASCII() bool { return s.ascii }

// ValidUTF8 reports, when known is true, whether the text of the last call
// of AppendSet, AppendSetString or AppendDistinct was valid UTF-8 (as
// utf8.Valid would): the word tokeniser decodes every rune of a text that
// needs no normalising on its way, so a caller that needs to know can skip
// utf8.Valid then. known is false in Char mode and with NFKC.
func (s *Shingler) ValidUTF8() (valid, known bool) { return !s.invalid, s.checked }

// AppendDistinct appends the shingle set of text to dst like AppendSet, but
// in no particular order: duplicates are removed with a hash table rather
// than by sorting (about 2.5x faster on 250-shingle documents), for callers
// that need the set's elements and size but not its order (a signature, a
// bitmap, an order-independent hash). The order is deterministic: each
// hash where it first occurs in the text, except for Bag sets, very small
// or very large documents and keys crafted to collide in the table, which
// come out sorted. It shares AppendSet's contract on dst, text and
// allocation (the table is kept in the Shingler).
func (s *Shingler) AppendDistinct(dst []uint64, text []byte) []uint64 {
	if s.o.Bag {
		return s.AppendSet(dst, text)
	}
	base := len(dst)
	dst = s.appendShingles(dst, text)
	return dst[:base+s.distinct(dst[base:])]
}

// form returns text in NFKC under Options.NFKC (in the Shingler's buffer,
// unless text is already normalised), else text.
func (s *Shingler) form(text []byte) []byte {
	if !s.o.NFKC || inNFKC(text) || norm.NFKC.QuickSpan(text) == len(text) {
		return text
	}
	// A norm.Iter kept in the Shingler, appending into its buffer: no
	// allocation once the buffer is large enough (norm.Form.Append and
	// Transform allocate on every call).
	buf := s.nfkc[:0]
	s.iter.Init(norm.NFKC, text)
	for !s.iter.Done() {
		buf = append(buf, s.iter.Next()...)
	}
	s.nfkc = buf
	return buf
}

// AppendSetString is AppendSet for a string. It does not copy text.
func (s *Shingler) AppendSetString(dst []uint64, text string) []uint64 {
	return s.AppendSet(dst, stringBytes(text))
}

// finish sorts a, applies bag numbering if asked, and removes duplicates.
// It returns the number of elements kept at the front of a.
func (s *Shingler) finish(a []uint64) int {
	if len(a) <= 1 {
		return len(a)
	}
	if !s.o.Bag {
		return s.sortDedup(a)
	}
	s.sort(a, 64)
	if !numberRuns(a) {
		return len(a)
	}
	return s.sortDedup(a)
}

// numberRuns replaces, in each run of j+1 equal values h in the sorted a, the
// copies after the first by bagHash(h, 1) ... bagHash(h, j). It reports
// whether it changed anything; a is then no longer sorted.
func numberRuns(a []uint64) bool {
	changed := false
	for i := 0; i < len(a); {
		h := a[i]
		k := i + 1
		for k < len(a) && a[k] == h {
			k++
		}
		for j := i + 1; j < k; j++ {
			a[j] = bagHash(h, j-i)
			changed = true
		}
		i = k
	}
	return changed
}

// dedup removes adjacent duplicates from the sorted a in place and returns
// the number of elements kept.
func dedup(a []uint64) int {
	if len(a) == 0 {
		return 0
	}
	m := 1
	prev := a[0]
	for _, x := range a[1:] {
		if x != prev {
			a[m] = x
			m++
			prev = x
		}
	}
	return m
}
