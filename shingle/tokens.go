package shingle

import (
	"unicode"
	"unicode/utf8"
)

// AppendTokens appends to dst the sequence the shingles of text are cut
// from, in text order: in Word mode H of each lower-cased token (the token
// hashes of the package doc), in Char mode each code point of the
// normalised text. Two texts' token sequences are what an edit distance
// between them is measured on. It uses the Shingler's scratch space (not
// safe for concurrent use) and allocates only when dst must grow.
//
// It is a plain rune-by-rune implementation, not the shingling fast path:
// neardup calls it only when an edit distance is asked for.
func (s *Shingler) AppendTokens(dst []uint64, text []byte) []uint64 {
	tok := s.tokBuf[:0]
	start := len(dst)
	space := false // Char: a space is pending
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRune(text[i:])
		i += n
		r = unicode.ToLower(r) // utf8.RuneError stays U+FFFD
		if s.o.Mode == Char {
			if unicode.IsSpace(r) {
				space = len(dst) > start // leading space is trimmed
				continue
			}
			if space {
				dst = append(dst, ' ')
			}
			space = false
			dst = append(dst, uint64(r))
			continue
		}
		if isTokenRune(r) {
			tok = utf8.AppendRune(tok, r)
			continue
		}
		if len(tok) > 0 {
			dst = append(dst, hashBytes(tok))
			tok = tok[:0]
		}
	}
	if len(tok) > 0 {
		dst = append(dst, hashBytes(tok))
	}
	s.tokBuf = tok[:0]
	return dst
}
