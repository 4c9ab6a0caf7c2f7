package shingle

import (
	"encoding/binary"
	"math/bits"
	"slices"
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

// grams turns a stream of token hashes into word shingle hashes.
//
// ring holds each token hash twice, at k and k+n, so the last n token
// hashes are always the contiguous ring[next:next+n]. For n <= 3 the
// chain's partial values are kept instead: a1 = mum(K3^p1, K4) of the last
// token p1, and b1 = mum(mum(K3^p2, K4)^p1, K4) of the two before. Then a
// new token t gives the 3-gram hash mum(b1^t, K4) and the next a1 and b1
// with three multiplications that do not wait for each other, where
// evaluating the chain from the start would take three in a row.
type grams struct {
	ring   []uint64
	n      int
	next   int // ring slot of the next token
	count  int // tokens seen, saturating at n
	a1, b1 uint64
}

// push adds token hash t and appends the shingle it completes, if any.
func (g *grams) push(dst []uint64, t uint64) []uint64 {
	if g.n > 3 {
		return g.pushRing(dst, t)
	}
	sh := [3]uint64{mum(k3^t, k4), mum(g.a1^t, k4), mum(g.b1^t, k4)}
	g.a1, g.b1 = sh[0], sh[1]
	if g.count < g.n {
		if g.count++; g.count < g.n {
			return dst
		}
	}
	return append(dst, sh[g.n-1])
}

// pushRing is push for n > 3, with the ring.
func (g *grams) pushRing(dst []uint64, t uint64) []uint64 {
	n := g.n
	g.ring[g.next] = t
	g.ring[g.next+n] = t
	if g.next++; g.next == n {
		g.next = 0
	}
	if g.count < n {
		if g.count++; g.count < n {
			return dst
		}
	}
	return append(dst, chain(g.ring[g.next:g.next+n]))
}

// finish appends the one shingle of a text with fewer than n tokens (but
// at least one): the chain of its tokens, which for n <= 3 is a1 (one
// token) or b1 (two).
func (g *grams) finish(dst []uint64) []uint64 {
	switch {
	case g.count == 0 || g.count == g.n:
	case g.n > 3:
		dst = append(dst, chain(g.ring[:g.count]))
	case g.count == 1:
		dst = append(dst, g.a1)
	default:
		dst = append(dst, g.b1)
	}
	return dst
}

// useASCIIPath selects appendWordASCII for ASCII text. Tests turn it off
// to compare the two paths.
var useASCIIPath = true

// gather8 packs bit 7 of each byte of x, whose other bits are zero, into
// the low 8 bits (byte k to bit k): the bits move to 56+k under the
// multiplication, and no two partial products meet there.
func gather8(x uint64) uint64 {
	return (x >> 7) * 0x0102040810204080 >> 56
}

// alnum64 returns the mask of ASCII letters and digits among the 64 bytes
// text[i:i+64] (bit k for text[i+k]), and whether those bytes are all
// ASCII; bytes past the end count as ASCII separators.
func alnum64(text []byte, i int) (uint64, bool) {
	var m, non uint64
	if i+64 <= len(text) {
		t := text[i : i+64 : i+64]
		for k := 0; k < 64; k += 8 {
			a, n := classify8(binary.LittleEndian.Uint64(t[k:]))
			m |= gather8(a) << k
			non |= n
		}
		return m, non == 0
	}
	for k := 0; k < 64 && i+k < len(text); k += 8 {
		a, n := classify8(load8(text, i+k))
		m |= gather8(a) << k
		non |= n
	}
	return m, non == 0
}

// maskKernel names the code that computes alnumMasks' whole blocks.
type maskKernel uint8

const (
	masksGo     maskKernel = iota // alnum64, 8 bytes at a time
	masksAVX2                     // alnumMasksAVX2
	masksAVX512                   // alnumMasksAVX512
)

func (k maskKernel) String() string {
	return [...]string{"go", "avx2", "avx512"}[k]
}

// maskKernels returns the mask kernels this CPU can run, the portable one
// first and the fastest last.
func maskKernels() []maskKernel {
	ks := []maskKernel{masksGo}
	if haveMasksAVX2 {
		ks = append(ks, masksAVX2)
	}
	if haveMasksAVX512 {
		ks = append(ks, masksAVX512)
	}
	return ks
}

// useMasks selects the kernel for the masks of appendWordASCII: the
// fastest the CPU has. Tests flip it to run each of maskKernels.
var useMasks = maskKernels()[len(maskKernels())-1]

// useWordAsm selects wordHashes3 for appendWordASCII's loop when N = 3,
// where the CPU can run it. Tests flip it to run both.
var useWordAsm = haveWordAsm

// alnumMasks returns the mask of ASCII letters and digits (alnum64) of
// each 64-byte block of text, the last one zero-padded (or, if len(text)
// is a multiple of 64, all zero: the block past the end), and whether
// text is all ASCII; if it is not, the masks are not all computed (those
// of the whole blocks before the first with a byte >= 0x80 are). The
// first known whole blocks' masks are taken as they are in s.masks, from
// an earlier call on a text with the same bytes there. The slice is
// s.masks, valid until the next call.
func (s *Shingler) alnumMasks(text []byte, known int) ([]uint64, bool) {
	nb := len(text) / 64 // whole blocks
	if cap(s.masks) < nb+1 {
		s.masks = make([]uint64, nb+1, max(nb+1, 2*cap(s.masks)))
		known = 0
	}
	m := s.masks[:nb+1]
	k := min(known, nb)
	if useMasks != masksGo && nb > k {
		var ok bool
		if useMasks == masksAVX512 {
			ok = alnumMasksAVX512(&text[64*k], nb-k, &m[k])
		} else {
			ok = alnumMasksAVX2(&text[64*k], nb-k, &m[k])
		}
		if !ok {
			return nil, false
		}
		k = nb
	}
	for ; k <= nb; k++ {
		mask, ascii := alnum64(text, 64*k)
		if !ascii {
			return nil, false
		}
		m[k] = mask
	}
	return m, true
}

// appendWordASCII is appendWord for text with no byte >= 0x80. Token
// boundaries come from masks of 64 bytes at a time (alnumMasks, with
// AVX-512 or AVX2 where the CPU has it) rather than from a scan that waits on
// each token's end to find the next, and each token is hashed straight
// from the text. If text has a byte >= 0x80 it returns dst as it was and
// false, before hashing anything.
func (s *Shingler) appendWordASCII(dst []uint64, text []byte) ([]uint64, bool) {
	return s.appendWordASCIIn(dst, text, s.o.N)
}

// appendWordASCIIn is appendWordASCII for n-grams, and with n = 0 for the
// token hashes themselves (AppendTokens).
func (s *Shingler) appendWordASCIIn(dst []uint64, text []byte, n int) ([]uint64, bool) {
	g := grams{ring: s.ring[:2*n], n: n}
	dst, ok := s.appendASCIIRun(dst, text, &g, 0)
	if !ok {
		return dst, false
	}
	return g.finish(dst), true
}

// appendASCIIRun appends the shingles (with g.n = 0 the token hashes) that
// the tokens of text complete after the tokens g has taken, and leaves in g
// the state after them. text must be ASCII and a whole run of tokens: it
// starts where a token may start (or at a separator) and ends after a
// separator or at a token's end that nothing continues. If text has a byte
// >= 0x80 it returns dst and g as they were and false, before hashing
// anything. The first known whole blocks of 64 bytes of text have their
// masks in s.masks already (alnumMasks).
func (s *Shingler) appendASCIIRun(dst []uint64, text []byte, g *grams, known int) ([]uint64, bool) {
	n := g.n
	// For n <= 3 the chain's state (grams.a1, b1, count) lives in locals,
	// with push written out here: the call and the state's round trip
	// through memory cost more than the three multiplications.
	a1, b1, count := g.a1, g.b1, g.count
	start := -1      // start of the token in progress, if any
	var carry uint64 // 1 if the last byte of the previous block was a token byte
	// A token in progress at the end ends in the last block, which ends
	// with separators (the padding).
	masks, ok := s.alnumMasks(text, known)
	if !ok {
		return dst, false
	}
	if n == 3 && useWordAsm && len(text) >= 8 {
		base := len(dst)
		dst = slices.Grow(dst, len(text)/2+1)
		k, a1, b1, count := wordHashes3(&text[0], len(text), &masks[0], len(masks), &dst[:base+1][base], a1, b1, count)
		g.a1, g.b1, g.count = a1, b1, count
		return dst[:base+k], true
	}
	for b, m := range masks {
		pos := 64 * b
		prev := m<<1 | carry
		starts := m &^ prev
		ends := prev &^ m
		carry = m >> 63
		for {
			if start < 0 {
				if starts == 0 {
					break
				}
				start = pos + bits.TrailingZeros64(starts)
				starts &= starts - 1
			}
			if ends == 0 {
				break
			}
			end := pos + bits.TrailingZeros64(ends)
			ends &= ends - 1
			// H of the lower-cased token, written out: a call here
			// would spill the loop's state around it.
			h, a := uint64(k0), start
			for ; end-a > 8; a += 8 {
				h = mum(h^(binary.LittleEndian.Uint64(text[a:])|lowASCII), k1)
			}
			h = mum(h^(load8(text, a)|lowASCII)&(^uint64(0)>>(64-8*uint(end-a))), k1)
			t := mum(h^uint64(end-start), k2)
			start = -1
			if n == 0 {
				dst = append(dst, t)
				continue
			}
			if n > 3 {
				dst = g.pushRing(dst, t)
				continue
			}
			s1, s2, s3 := mum(k3^t, k4), mum(a1^t, k4), mum(b1^t, k4)
			a1, b1 = s1, s2
			if count < n {
				if count++; count < n {
					continue
				}
			}
			switch n {
			case 3:
				dst = append(dst, s3)
			case 2:
				dst = append(dst, s2)
			default:
				dst = append(dst, s1)
			}
		}
	}
	if n <= 3 {
		g.a1, g.b1, g.count = a1, b1, count
	}
	return dst, true
}

// appendWord appends the word shingle hashes of text to dst, unsorted.
func (s *Shingler) appendWord(dst []uint64, text []byte) []uint64 {
	if useASCIIPath {
		if out, ok := s.appendWordASCII(dst, text); ok {
			s.ascii, s.checked, s.invalid = true, true, false
			return out
		}
	}
	g := grams{ring: s.ring[:2*s.o.N], n: s.o.N}
	i := 0
	// Every byte that is not ASCII is decoded below, in order, from a
	// rune's start: where a token is cut by a rune, at the rune (slowToken
	// stops before a separator, which an invalid byte is, and the rune is
	// decoded here again). So an invalid byte is seen here.
	invalid := false
	var t2 *[0x800]runeInfo // twoByteInfo(), once a text has a rune that is not ASCII
	dense := false          // the last run of ASCII was too short for the ASCII path
	for i < len(text) {
		// The ASCII text up to the token that holds the next byte >=
		// 0x80 (q) goes through the ASCII path, if there is enough of it:
		// a text with a quotation mark or an accent here and there is
		// mostly ASCII. It ends after a separator (or at the text's end),
		// and i is where a token may start. After a short run, the next
		// 4 × minASCIIRun bytes go token by token without a look (text
		// with an accent every few words, as Italian or French, would
		// pay for the look at each).
		var q int
		if dense {
			q, dense = i+4*minASCIIRun, false
		} else if q = i + indexNonASCII(text[i:]); q-i < minASCIIRun {
			dense = true
		} else if useASCIIPath {
			cut := q
			if q < len(text) {
				for cut > i && isASCIIAlnum(text[cut-1]) {
					cut--
				}
			}
			if cut-i >= minASCIIRun {
				// The failed look at the whole text left the masks of its
				// blocks before q's.
				known := 0
				if i == 0 {
					known = q / 64
				}
				dst, _ = s.appendASCIIRun(dst, text[i:cut], &g, known)
				i = cut
			}
		}
		// Token by token through the token or separator at q.
		for i < len(text) && i <= q {
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
				if t2 == nil {
					t2 = twoByteInfo()
				}
				x, size := decodeInfo(text, i, t2)
				if c := x.class(); c != classWord && c != classSolo {
					invalid = invalid || size == 1 // utf8.RuneError for a byte
					i += size
					continue
				}
				t, i = slowToken(text, i, t2, x, size)
			} else {
				// Fast path 2: an ASCII token, found, lower-cased and
				// hashed 8 bytes at a time.
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
						if t2 == nil {
							t2 = twoByteInfo()
						}
						t, i = slowToken(text, i, t2, 0, 0)
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
			dst = g.push(dst, t)
		}
	}
	s.checked, s.invalid = true, invalid
	return g.finish(dst)
}

// minASCIIRun is the shortest run of ASCII text that appendWord gives to
// the ASCII path within a text that is not all ASCII. (A variable: tests
// make it small.)
var minASCIIRun = 64

// indexNonASCII returns the index of the first byte >= 0x80 of b, or
// len(b).
func indexNonASCII(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if w := binary.LittleEndian.Uint64(b[i:]) & high; w != 0 {
			return i + bits.TrailingZeros64(w)>>3
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= utf8.RuneSelf {
			return i
		}
	}
	return len(b)
}

// slowToken hashes the token that starts at text[i], whose first rune is
// known to be a token rune, and returns its hash and end. It handles any
// mix of ASCII, multi-byte and invalid UTF-8, streaming the lower-cased
// bytes into H without buffering them. A token is a run of non-solo token
// runes, or one solo rune, either followed by any combining marks.
// t2 is twoByteInfo(); when size > 0 the caller has decoded the first
// rune: decodeInfo(text, i, t2) is x, size.
func slowToken(text []byte, i int, t2 *[0x800]runeInfo, x runeInfo, size int) (uint64, int) {
	h := uint64(k0)
	var w uint64  // pending bytes of the current chunk, little-endian
	var nb uint   // number of pending bytes
	n := 0        // token length in bytes
	solo := false // the token is a solo rune (and its marks)
loop:
	for i < len(text) {
		if size == 0 {
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
			if c >= 0xC2 && c < 0xE0 && i+1 < len(text) && text[i+1]&0xC0 == 0x80 {
				// Two bytes, the common case of alphabets other than
				// Latin: decoded and looked up here.
				x, size = t2[uint(c&0x1F)<<6|uint(text[i+1]&0x3F)], 2
			} else {
				x, size = decodeInfo(text, i, t2)
			}
		}
		switch x.class() {
		case classWord:
			if solo {
				break loop
			}
		case classSolo:
			// A solo rune is a whole token: it ends the token before it
			// and starts its own, which only marks may continue.
			if n > 0 {
				break loop
			}
			solo = true
		case classMark:
			if n == 0 {
				break loop
			}
		default:
			break loop
		}
		// The lower-cased rune's bytes, into the pending chunk and, past
		// its 8 bytes, the next one.
		enc, m := x.utf8()
		w |= enc << (8 * nb)
		if nb += uint(m); nb >= 8 {
			h = mum(h^w, k1)
			nb -= 8
			w = enc >> (8 * (uint(m) - nb))
		}
		n += m
		i += size
		size = 0
	}
	if nb > 0 {
		h = mum(h^w, k1)
	}
	return mum(h^uint64(n), k2), i
}
