package gen

import "unicode/utf8"

// Cyrillic and CyrillicUpper are the letters AppendCyrillic writes for a-z
// and A-Z: 26 distinct Cyrillic letters, each upper-case one the
// unicode.ToUpper of its lower-case one, so that lower-casing and
// tokenising a text written with them give the tokens of the Latin text,
// one to one (two bytes each instead of one).
var (
	Cyrillic      = []rune("абцдефгхийклмнопярстувшжыз")
	CyrillicUpper = []rune("АБЦДЕФГХИЙКЛМНОПЯРСТУВШЖЫЗ")
)

// AppendCyrillic appends s to dst with its ASCII letters written in
// Cyrillic (see Cyrillic) and every other byte as it is: a generated text
// in a script of two-byte letters, for the tokeniser's path for text that
// is not ASCII.
func AppendCyrillic(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z':
			dst = utf8.AppendRune(dst, Cyrillic[c-'a'])
		case 'A' <= c && c <= 'Z':
			dst = utf8.AppendRune(dst, CyrillicUpper[c-'A'])
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
