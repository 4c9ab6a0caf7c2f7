package shingle

import (
	"unicode/utf8"
)

// AppendTokens appends to dst the sequence the shingles of text are cut
// from, in text order: in Word mode H of each lower-cased token (the token
// hashes of the package doc), in Char mode each code point of the
// normalised text, a run of white space being one ' '. Two texts' token
// sequences are what an edit distance between them is measured on. It uses
// the Shingler's scratch space (not safe for concurrent use) and allocates
// only when dst must grow.
//
// In Word mode, ASCII text takes the shingling fast path's tokenizer
// (letter and digit masks 64 bytes at a time); other text, and Char mode,
// a plain rune-by-rune walk (eachToken), the definition the fast path is
// tested against.
func (s *Shingler) AppendTokens(dst []uint64, text []byte) []uint64 {
	if s.o.Mode == Word && useASCIIPath {
		if out, ok := s.appendWordASCIIn(dst, s.form(text), 0); ok {
			return out
		}
	}
	s.eachToken(s.form(text),
		func(tok []byte) { dst = append(dst, hashBytes(tok)) },
		func(r rune) { dst = append(dst, uint64(r)) })
	return dst
}

// AppendTokenStrings appends to dst the tokens of AppendTokens as text: in
// Word mode each lower-cased token, in Char mode each code point of the
// normalised text as a one-rune string (" " for a run of white space). It
// is for showing tokens to people (explain's shared runs); it allocates a
// string per token.
func (s *Shingler) AppendTokenStrings(dst []string, text []byte) []string {
	s.eachToken(s.form(text),
		func(tok []byte) { dst = append(dst, string(tok)) },
		func(r rune) { dst = append(dst, string(r)) })
	return dst
}

// eachToken walks the tokens of text, already in the Shingler's normal
// form (form), in order, the one definition both
// AppendTokens and AppendTokenStrings use: word(tok) for each lower-cased
// token in Word mode (tok is only valid during the call), char(r) for each
// code point of the normalised text in Char mode (' ' for a run of white
// space, none leading or trailing).
func (s *Shingler) eachToken(text []byte, word func(tok []byte), char func(r rune)) {
	tok := s.tokBuf[:0]
	space := false    // Char: a space is pending
	any := false      // Char: a code point was emitted
	solo := false     // Word: tok is a solo rune and its marks
	lastWide := false // Char: the last code point emitted is isWide
	for i := 0; i < len(text); {
		r, n := decodeRune(text, i)
		i += n
		x := lookupRune(r)
		r = x.lower() // unicode.ToLower(r); utf8.RuneError stays U+FFFD
		if s.o.Mode == Char {
			if x.space() {
				space = any // leading space is trimmed
				continue
			}
			wide := x.wide()
			if space && !(lastWide && wide) {
				char(' ')
			}
			space, lastWide = false, wide
			any = true
			char(r)
			continue
		}
		switch x.class() {
		case classSolo:
			if len(tok) > 0 {
				word(tok)
			}
			tok, solo = utf8.AppendRune(tok[:0], r), true
			continue
		case classWord:
			if solo {
				word(tok)
				tok, solo = tok[:0], false
			}
			tok = utf8.AppendRune(tok, r)
			continue
		case classMark:
			if len(tok) > 0 {
				tok = utf8.AppendRune(tok, r)
				continue
			}
		}
		if len(tok) > 0 {
			word(tok)
			tok, solo = tok[:0], false
		}
	}
	if len(tok) > 0 {
		word(tok)
	}
	s.tokBuf = tok[:0]
}

// JoinTokens joins the Word mode tokens of AppendTokenStrings for people
// to read: with a space between two tokens, except where the first ends
// and the second starts with a wide character (East Asian wide or
// full-width, not Hangul, or Thai, Lao, Khmer, Myanmar), as text in those
// scripts is written without spaces.
func JoinTokens(toks []string) string {
	var b []byte
	for i, t := range toks {
		if i > 0 {
			last, _ := utf8.DecodeLastRuneInString(toks[i-1])
			first, _ := utf8.DecodeRuneInString(t)
			if !(isWide(last) && isWide(first)) {
				b = append(b, ' ')
			}
		}
		b = append(b, t...)
	}
	return string(b)
}
