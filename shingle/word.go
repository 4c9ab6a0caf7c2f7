package shingle

import (
	"encoding/binary"
	"math/bits"
	"unicode"
	"unicode/utf8"
)

// isTokenRune reports whether the lower-cased rune r belongs to a token.
func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// soloScripts are the scripts written without spaces between words: each
// of their letters and digits is a token of its own.
var soloScripts = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana,
	unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar}

// prolonged is KATAKANA-HIRAGANA PROLONGED SOUND MARK (ー), a letter of
// the Common script that only occurs in Japanese kana words.
const prolonged = 0x30FC

// soloMin is the first rune isSolo may report (Thai); markMin the first
// combining mark. Below them the look-ups are skipped.
const (
	soloMin = 0x0E00
	markMin = 0x0300
)

// isSolo reports whether the token rune r is a token by itself: a letter or
// digit of a script in soloScripts, or U+30FC.
func isSolo(r rune) bool {
	switch {
	case r < soloMin: // below Thai: Latin, Greek, Cyrillic, Hebrew, Arabic, Indic, ...
		return false
	case 0xAC00 <= r && r <= 0xD7A3: // Hangul syllables
		return false
	}
	return r == prolonged || unicode.In(r, soloScripts...)
}

// isMark reports whether r is a combining mark (category M), which belongs
// to the token it follows.
func isMark(r rune) bool {
	return r >= markMin && unicode.Is(unicode.M, r)
}

// isASCIIAlnum reports whether c is an ASCII letter or digit.
func isASCIIAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'z'
}

// SWAR (SIMD within a register) constants: a byte pattern repeated 8 times.
const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// load8 returns text[i:i+8] as a little-endian uint64, zero-padded past
// the end of text. A zero byte is neither a letter nor a digit, so the
// padding ends any token.
func load8(text []byte, i int) uint64 {
	if i+8 <= len(text) {
		return binary.LittleEndian.Uint64(text[i:])
	}
	var w uint64
	for k := len(text) - 1; k >= i; k-- {
		w = w<<8 | uint64(text[k])
	}
	return w
}

// classify8 returns, for the 8 bytes of w, a mask with bit 7 of each byte
// set for ASCII letters and digits, and one with bit 7 set for bytes >= 0x80.
func classify8(w uint64) (alnum, nonASCII uint64) {
	nonASCII = w & high
	x := w &^ high // 7-bit values: sums below cannot carry across bytes
	y := x | 0x20*ones
	// x+(0x80-lo) has bit 7 set iff x >= lo; x+(0x7f-hi) has it iff x > hi.
	digit := (x + (0x80-'0')*ones) &^ (x + (0x7f-'9')*ones)
	letter := (y + (0x80-'a')*ones) &^ (y + (0x7f-'z')*ones)
	return (digit | letter) & high &^ nonASCII, nonASCII
}

// appendWord appends the word shingle hashes of text to dst, unsorted.
func (s *Shingler) appendWord(dst []uint64, text []byte) []uint64 {
	n := s.o.N
	// ring holds each token hash twice, at k and k+n, so the last n token
	// hashes are always the contiguous ring[next:next+n]. For n <= 3 the
	// chain's partial values are kept in registers instead: a1 =
	// mum(K3^p1, K4) of the last token p1, and b1 = mum(mum(K3^p2, K4)^p1,
	// K4) of the two before. Then a new token t gives the 3-gram hash
	// mum(b1^t, K4) and the next a1 and b1 with three multiplications that
	// do not wait for each other, where evaluating the chain from the start
	// would take three in a row.
	ring := s.ring[:2*n]
	next := 0  // ring slot of the next token
	count := 0 // tokens seen, saturating at n
	var a1, b1 uint64
	i := 0
	for i < len(text) {
		// Fast path 1: skip ASCII separators 8 bytes at a time.
		w := load8(text, i)
		alnum, nonASCII := classify8(w)
		if lead := alnum | nonASCII; lead == 0 {
			i += 8
			continue
		} else if skip := bits.TrailingZeros64(lead) >> 3; skip > 0 {
			i += skip
			w = load8(text, i)
			alnum, nonASCII = classify8(w)
		}
		var t uint64
		if text[i] >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(text[i:])
			if !isTokenRune(unicode.ToLower(r)) {
				i += size
				continue
			}
			t, i = slowToken(text, i)
		} else {
			// Fast path 2: an ASCII token, found, lower-cased and hashed 8
			// bytes at a time.
			h := uint64(k0)
			p := i
			for {
				stop := ^alnum & high
				if stop == 0 {
					h = mum(h^(w|lowASCII), k1)
					p += 8
					w = load8(text, p)
					alnum, nonASCII = classify8(w)
					continue
				}
				shift := uint(bits.TrailingZeros64(stop)) &^ 7 // 8 × token bytes in w
				if nonASCII>>shift&0x80 != 0 {
					// The token may go on with a multi-byte rune.
					t, i = slowToken(text, i)
					break
				}
				if shift > 0 {
					h = mum(h^((w|lowASCII)&(1<<shift-1)), k1)
				}
				end := p + int(shift>>3)
				t = mum(h^uint64(end-i), k2)
				i = end + 1 // text[end] is an ASCII separator (or past the end)
				break
			}
		}

		ring[next] = t
		ring[next+n] = t
		next++
		if next == n {
			next = 0
		}
		var sh uint64
		switch n {
		case 1:
			sh = mum(k3^t, k4)
		case 2:
			sh = mum(a1^t, k4)
		case 3:
			sh = mum(b1^t, k4)
		default:
			sh = chain(ring[next : next+n])
		}
		b1, a1 = mum(a1^t, k4), mum(k3^t, k4)
		if count < n {
			count++
			if count < n {
				continue
			}
		}
		dst = append(dst, sh)
	}
	if 0 < count && count < n {
		dst = append(dst, chain(ring[:count]))
	}
	return dst
}

// slowToken hashes the token that starts at text[i], whose first rune is
// known to be a token rune, and returns its hash and end. It handles any
// mix of ASCII, multi-byte and invalid UTF-8, streaming the lower-cased
// bytes into H without buffering them. A token is a run of non-solo token
// runes, or one solo rune, either followed by any combining marks.
func slowToken(text []byte, i int) (uint64, int) {
	h := uint64(k0)
	var w uint64 // pending bytes of the current chunk, little-endian
	var nb uint  // number of pending bytes
	n := 0       // token length in bytes
	var enc [utf8.UTFMax]byte
	solo := false // the token is a solo rune (and its marks)
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if solo || !isASCIIAlnum(c) {
				break
			}
			w |= uint64(c|0x20) << (8 * nb)
			nb++
			n++
			if nb == 8 {
				h = mum(h^w, k1)
				w, nb = 0, 0
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		r = unicode.ToLower(r)
		if isTokenRune(r) {
			// A solo rune is a whole token: it ends the token before it
			// and starts its own, which only marks may continue. (The
			// range checks keep the common scripts off the table look-ups.)
			if r >= soloMin && isSolo(r) {
				if n > 0 {
					break
				}
				solo = true
			} else if solo {
				break
			}
		} else if n == 0 || r < markMin || !unicode.Is(unicode.M, r) {
			break
		}
		m := utf8.EncodeRune(enc[:], r)
		for _, b := range enc[:m] {
			w |= uint64(b) << (8 * nb)
			nb++
			if nb == 8 {
				h = mum(h^w, k1)
				w, nb = 0, 0
			}
		}
		n += m
		i += size
	}
	if nb > 0 {
		h = mum(h^w, k1)
	}
	return mum(h^uint64(n), k2), i
}
