// Package shingle turns text into sets of 64-bit shingle hashes and computes
// their exact Jaccard index.
//
// STUB: contract only; the implementation replaces the bodies.
package shingle

import "errors"

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

// ErrInvalidOptions is returned by New for options it cannot use.
var ErrInvalidOptions = errors.New("shingle: invalid options")

// ParseMode parses "word" or "char".
func ParseMode(s string) (Mode, error) { panic("unimplemented") }

// String returns "word" or "char".
func (m Mode) String() string { panic("unimplemented") }

// Options says how to shingle.
type Options struct {
	Mode Mode
	N    int  // shingle length in tokens (Word) or code points (Char); 0 means the mode's default
	Bag  bool // count repeated shingles as distinct elements (shingle, occurrence)
}

// Shingler cuts text into shingle hashes. It keeps scratch buffers, so it is
// not safe for concurrent use; use one per goroutine. After warm-up it
// allocates nothing.
type Shingler struct{}

// New returns a Shingler for o.
func New(o Options) (*Shingler, error) { panic("unimplemented") }

// AppendSet appends the shingle set of text to dst and returns the extended
// slice: hashes sorted ascending, without duplicates. Text with no token has
// no shingles.
func (s *Shingler) AppendSet(dst []uint64, text []byte) []uint64 { panic("unimplemented") }

// Intersection returns |a ∩ b| of two sorted, duplicate-free slices.
func Intersection(a, b []uint64) int { panic("unimplemented") }

// Jaccard returns |a ∩ b| / |a ∪ b| of two sorted, duplicate-free slices; 0 when both are empty.
func Jaccard(a, b []uint64) float64 { panic("unimplemented") }
