package shingle

import (
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// What the tokenizer needs to know of a rune that is not ASCII, looked up
// in a table instead of computed: unicode.ToLower and the category and
// script look-ups behind isTokenRune, isSolo, isMark, unicode.IsSpace and
// isWide are binary searches of range tables, about 60 ns a rune together,
// where the table takes a few. The table is built from those very
// functions, a block of blockRunes runes the first time one of them is
// met, so it always agrees with the unicode package the program is built
// with (its Unicode version) and costs nothing for ASCII text.
//
// An entry (runeInfo) for the rune r describes l = unicode.ToLower(r):
//
//	bits  0-31  the UTF-8 encoding of l, its first byte lowest
//	bits 32-34  its length in bytes (1-4)
//	bits 35-36  its class in Word mode (classSep, classWord, classSolo, classMark)
//	bit  37     unicode.IsSpace(l)
//	bit  38     isWide(l)
//	bit  39     r itself is NFKC-inert (nfkcInert)
//	bits 40-60  l
type runeInfo uint64

// Word mode's classes of a lower-cased rune (see the package doc).
const (
	classSep  = 0 // a separator
	classWord = 1 // a letter or digit that continues a token
	classSolo = 2 // a letter or digit that is a token by itself
	classMark = 3 // a combining mark
)

const (
	infoLenShift   = 32
	infoClassShift = 35
	infoSpace      = 1 << 37
	infoWide       = 1 << 38
	infoNFKCInert  = 1 << 39
	infoRuneShift  = 40
)

// utf8 returns the UTF-8 encoding of the lower-cased rune, first byte in
// the low bits, and its length.
func (x runeInfo) utf8() (enc uint64, n int) {
	return uint64(uint32(x)), int(x>>infoLenShift) & 7
}

// class returns the lower-cased rune's class in Word mode.
func (x runeInfo) class() int { return int(x>>infoClassShift) & 3 }

// space reports whether the lower-cased rune is white space.
func (x runeInfo) space() bool { return x&infoSpace != 0 }

// wide reports isWide of the lower-cased rune.
func (x runeInfo) wide() bool { return x&infoWide != 0 }

// lower returns unicode.ToLower of the rune.
func (x runeInfo) lower() rune { return rune(x >> infoRuneShift) }

// blockBits is log2 of the runes in a block of the table.
const blockBits = 7

const blockRunes = 1 << blockBits

// infoBlocks holds the table's blocks, built on first use (concurrently
// safe: racing builders make equal blocks and one of them is kept).
// (Its length, a power of two past unicode.MaxRune's block, lets the
// index be masked instead of checked.)
var infoBlocks [infoBlockCount]atomic.Pointer[[blockRunes]runeInfo]

const infoBlockCount = 1 << (21 - blockBits) // runes below 1<<21 > unicode.MaxRune

// lookupRune returns the entry of r, 0 <= r <= unicode.MaxRune (as
// utf8.DecodeRune returns). It allocates only the first time a block is
// met.
func lookupRune(r rune) runeInfo {
	if b := infoBlocks[uint32(r)>>blockBits&(infoBlockCount-1)].Load(); b != nil {
		return b[r&(blockRunes-1)]
	}
	return blockOf(r)[r&(blockRunes-1)]
}

// blockOf returns the table's block of r, building it if it is not yet.
//
//go:noinline
func blockOf(r rune) *[blockRunes]runeInfo {
	k := uint32(r) >> blockBits & (infoBlockCount - 1)
	if b := infoBlocks[k].Load(); b != nil {
		return b
	}
	return buildBlock(&infoBlocks[k], k)
}

// buildBlock computes block k of the table and stores it in p, unless
// another goroutine did first, and returns the stored block.
func buildBlock(p *atomic.Pointer[[blockRunes]runeInfo], k uint32) *[blockRunes]runeInfo {
	b := new([blockRunes]runeInfo)
	for j := range b {
		b[j] = computeRuneInfo(rune(k<<blockBits | uint32(j)))
	}
	if p.CompareAndSwap(nil, b) {
		return b
	}
	return p.Load()
}

// computeRuneInfo returns the entry of r from the unicode package's
// functions (the definition the table caches).
func computeRuneInfo(r rune) runeInfo {
	l := unicode.ToLower(r)
	var enc [utf8.UTFMax]byte
	n := utf8.EncodeRune(enc[:], l)
	x := runeInfo(uint32(enc[0]) | uint32(enc[1])<<8 | uint32(enc[2])<<16 | uint32(enc[3])<<24)
	x |= runeInfo(n) << infoLenShift
	class := classSep
	switch {
	case isTokenRune(l) && isSolo(l):
		class = classSolo
	case isTokenRune(l):
		class = classWord
	case isMark(l):
		class = classMark
	}
	x |= runeInfo(class) << infoClassShift
	if unicode.IsSpace(l) {
		x |= infoSpace
	}
	if isWide(l) {
		x |= infoWide
	}
	if nfkcInert(r) {
		x |= infoNFKCInert
	}
	return x | runeInfo(l)<<infoRuneShift
}

// nfkcInert reports whether r is a starter (canonical combining class 0)
// with NFKC_Quick_Check Yes: BoundaryBefore (class 0, and no rune before
// it can combine with it, which is Quick_Check Maybe) and left as it is by
// NFKC on its own (Quick_Check No would change it). A text whose runes are
// all such is in NFKC, as the quick check of UAX #15 answers Yes for it:
// nothing is reordered, and a composition would need a rune that
// combines backwards. (Precomposed letters such as é or が are inert; a
// rune that may combine with one after it, as e with U+0301, is too, but
// U+0301 is not.) Invalid UTF-8 is not looked up here.
func nfkcInert(r rune) bool {
	s := string(r)
	return norm.NFKC.PropertiesString(s).BoundaryBefore() && norm.NFKC.IsNormalString(s)
}

// inNFKC reports whether text is in NFKC by the table alone (every rune
// ASCII or nfkcInert, the UTF-8 valid); false says nothing. It is a
// fraction of norm.NFKC.QuickSpan's time on text that is not ASCII.
func inNFKC(text []byte) bool {
	var t2 *[0x800]runeInfo
	for i := indexNonASCII(text); i < len(text); i += indexNonASCII(text[i:]) {
		if t2 == nil {
			t2 = twoByteInfo()
		}
		x, n := decodeInfo(text, i, t2)
		if x&infoNFKCInert == 0 || n == 1 {
			return false
		}
		i += n
	}
	return true
}

// twoByte is the table's entries of U+0000 to U+07FF in one array, built
// on first use: the runes of two-byte UTF-8 (Latin supplements, Greek,
// Cyrillic, Armenian, Hebrew, Arabic, ...), looked up without a block.
var twoByte atomic.Pointer[[0x800]runeInfo]

// twoByteInfo returns twoByte, building it if it is not yet.
func twoByteInfo() *[0x800]runeInfo {
	if t := twoByte.Load(); t != nil {
		return t
	}
	return buildTwoByte()
}

//go:noinline
func buildTwoByte() *[0x800]runeInfo {
	t := new([0x800]runeInfo)
	for r := range t {
		t[r] = lookupRune(rune(r))
	}
	if twoByte.CompareAndSwap(nil, t) {
		return t
	}
	return twoByte.Load()
}

// decodeInfo returns the entry of the rune at text[i], i < len(text), a
// byte that is not ASCII, and the rune's length: lookupRune of
// decodeRune(text, i), the two-byte runes looked up in t2 (twoByteInfo).
func decodeInfo(text []byte, i int, t2 *[0x800]runeInfo) (runeInfo, int) {
	c0 := text[i]
	if c0 >= 0xC2 && c0 < 0xE0 && i+1 < len(text) && text[i+1]&0xC0 == 0x80 {
		return t2[uint(c0&0x1F)<<6|uint(text[i+1]&0x3F)], 2
	}
	// decodeRune and lookupRune, written out (two calls a rune of Han or
	// kana otherwise).
	r, n := rune(0), 0
	if c0 >= 0xE0 && c0 < 0xF0 && i+2 < len(text) {
		c1, c2 := text[i+1], text[i+2]
		lo, hi := byte(0x80), byte(0xBF)
		switch c0 {
		case 0xE0:
			lo = 0xA0
		case 0xED:
			hi = 0x9F
		}
		if lo <= c1 && c1 <= hi && c2&0xC0 == 0x80 {
			r, n = rune(c0&0x0F)<<12|rune(c1&0x3F)<<6|rune(c2&0x3F), 3
		}
	}
	if n == 0 {
		r, n = utf8.DecodeRune(text[i:])
	}
	b := infoBlocks[uint32(r)>>blockBits&(infoBlockCount-1)].Load()
	if b == nil {
		b = blockOf(r)
	}
	return b[r&(blockRunes-1)], n
}

// decodeRune is utf8.DecodeRune(text[i:]), i < len(text), with valid
// sequences of two bytes (Latin supplements, Greek, Cyrillic, Armenian,
// Hebrew, Arabic, ...) and three (the rest of the Basic Multilingual Plane:
// Indic scripts, Thai, kana, Han, Hangul, ...) decoded inline.
func decodeRune(text []byte, i int) (rune, int) {
	c0 := text[i]
	switch {
	case c0 >= 0xC2 && c0 < 0xE0 && i+1 < len(text):
		if c1 := text[i+1]; c1&0xC0 == 0x80 {
			return rune(c0&0x1F)<<6 | rune(c1&0x3F), 2
		}
	case c0 >= 0xE0 && c0 < 0xF0 && i+2 < len(text):
		c1, c2 := text[i+1], text[i+2]
		lo, hi := byte(0x80), byte(0xBF)
		switch c0 {
		case 0xE0:
			lo = 0xA0 // no overlong form
		case 0xED:
			hi = 0x9F // no surrogate
		}
		if lo <= c1 && c1 <= hi && c2&0xC0 == 0x80 {
			return rune(c0&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F), 3
		}
	}
	return utf8.DecodeRune(text[i:])
}
