package shingle

import (
	"encoding/binary"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// IsWide reports whether r is a character of text written without spaces
// between words: East Asian Wide or Fullwidth (UAX #11) and not Hangul, or
// of the Thai, Lao, Khmer or Myanmar script. White space between two of
// them is not kept in Char mode (a line break there is where a line
// wrapped, not a word break); JoinTokens puts no space between them, and a
// word diff for people can treat each as a word.
func IsWide(r rune) bool { return isWide(r) }

func isWide(r rune) bool {
	if r < 0x0E00 {
		return false
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return !unicode.Is(unicode.Hangul, r)
	}
	return unicode.In(r, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// normalize writes the lower-cased, space-folded, trimmed text into s.norm
// (a run of white space between two isWide code points left out)
// followed by 8 zero bytes, and returns the length of the normalised text,
// its number of code points and whether it is all ASCII.
func (s *Shingler) normalize(text []byte) (size, runes int, ascii bool) {
	norm := s.norm[:0]
	if cap(norm) < len(text)+8 {
		// Lower-casing can grow text; append copes with that, this only
		// avoids repeated growth in the common case.
		norm = make([]byte, 0, len(text)+len(text)/8+16)
	}
	ascii = true
	pending := false  // a space is owed before the next non-space
	lastWide := false // the last code point written is isWide
	for i := 0; i < len(text); {
		// Fast path: 8 bytes of ASCII whose only white space is single
		// ' ' bytes inside the block (not first), which normalising leaves
		// as they are but for lower-casing. A ' ' last is left to the
		// byte loop, as it may end the text.
		if i+8 <= len(text) && useNormSWAR {
			w := binary.LittleEndian.Uint64(text[i:])
			x := w &^ high
			sp := spaces8(x)
			// x+0x60 has bit 7 clear iff x < 0x20: control bytes, \t to \r among them.
			if (w|^(x+0x60*ones)|sp&(sp<<8)|sp&0x80)&high == 0 {
				if pending {
					norm = append(norm, ' ')
					runes++
					pending = false
				}
				k := 8 - int(sp>>63)
				norm = binary.LittleEndian.AppendUint64(norm, lower8(w))[:len(norm)+k]
				runes += k
				i += k
				lastWide = false
				continue
			}
		}
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			if asciiSpace[c] {
				pending = len(norm) > 0
				continue
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if pending {
				norm = append(norm, ' ')
				runes++
				pending = false
			}
			norm = append(norm, c)
			runes++
			lastWide = false
			continue
		}
		r, n := decodeRune(text, i)
		i += n
		x := lookupRune(r) // of unicode.ToLower(r)
		if x.space() {
			pending = len(norm) > 0
			continue
		}
		wide := x.wide()
		if pending && !(lastWide && wide) {
			norm = append(norm, ' ')
			runes++
		}
		pending, lastWide = false, wide
		enc, m := x.utf8()
		if m > 1 {
			ascii = false
		}
		norm = binary.LittleEndian.AppendUint32(norm, uint32(enc))[:len(norm)+m]
		runes++
	}
	size = len(norm)
	norm = append(norm, 0, 0, 0, 0, 0, 0, 0, 0)
	s.norm = norm
	return size, runes, ascii
}

// useNormSWAR selects normalize's 8-byte fast path. Tests turn it off to
// compare it with the byte loop.
var useNormSWAR = true

// spaces8 returns a mask with bit 7 set in each byte of x, 8 bytes below
// 0x80, that is ' '.
func spaces8(x uint64) uint64 {
	t := x ^ ' '*ones // 0 where x is ' '; 7-bit values, so no carry below
	return ^((t + 0x7f*ones) | t) & high
}

// lower8 returns the 8 ASCII bytes of w with 'A' to 'Z' lower-cased.
func lower8(w uint64) uint64 {
	// w+(0x80-'A') has bit 7 set iff a byte >= 'A'; w+(0x7f-'Z') iff > 'Z'.
	upper := (w + (0x80-'A')*ones) &^ (w + (0x7f-'Z')*ones) & high
	return w | upper>>2 // bit 7 to bit 5: 0x20
}

// appendChar appends the char shingle hashes of text to dst, unsorted.
func (s *Shingler) appendChar(dst []uint64, text []byte) []uint64 {
	size, runes, ascii := s.normalize(text)
	norm := s.norm
	n := s.o.N
	switch {
	case runes == 0:
		return dst
	case runes <= n:
		return append(dst, hashPadded(norm, 0, size))
	case ascii && n <= 8:
		// Fast path 1: ASCII text and short shingles, one chunk each.
		mask := uint64(1)<<(8*uint(n)) - 1
		if n == 8 {
			mask = ^uint64(0)
		}
		last := size - n
		for a := 0; a <= last; a++ {
			w := binary.LittleEndian.Uint64(norm[a:]) & mask
			dst = append(dst, mum(mum(k0^w, k1)^uint64(n), k2))
		}
		return dst
	case ascii:
		for a := 0; a+n <= size; a++ {
			dst = append(dst, hashPadded(norm, a, a+n))
		}
		return dst
	}
	// General case: slide a window of n code points over valid UTF-8.
	a, b := 0, 0
	for k := 0; k < n; k++ {
		b += utf8Len(norm[b])
	}
	for {
		dst = append(dst, hashPadded(norm, a, b))
		if b == size {
			return dst
		}
		a += utf8Len(norm[a])
		b += utf8Len(norm[b])
	}
}

// utf8Len returns the length of the UTF-8 sequence that starts with the
// lead byte c of valid UTF-8.
func utf8Len(c byte) int {
	switch {
	case c < 0xC0:
		return 1
	case c < 0xE0:
		return 2
	case c < 0xF0:
		return 3
	}
	return 4
}
