package shingle

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestRuneInfo checks the table's entry of every rune against the package
// documentation's definitions, written out with the unicode package.
func TestRuneInfo(t *testing.T) {
	solo := []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar}
	bad := 0
	for r := rune(0); r <= unicode.MaxRune && bad < 10; r++ {
		x := lookupRune(r)
		l := unicode.ToLower(r)
		want := classSep
		switch {
		case (unicode.IsLetter(l) || unicode.IsDigit(l)) && (l == 0x30FC || unicode.In(l, solo...)):
			want = classSolo
		case unicode.IsLetter(l) || unicode.IsDigit(l):
			want = classWord
		case unicode.Is(unicode.M, l):
			want = classMark
		}
		enc, n := x.utf8()
		b := utf8.AppendRune(nil, l)
		var wantEnc uint64
		for k, c := range b {
			wantEnc |= uint64(c) << (8 * k)
		}
		if x.lower() != l || x.class() != want || enc != wantEnc || n != len(b) ||
			x.space() != unicode.IsSpace(l) || x.wide() != isWide(l) {
			t.Errorf("%U: lower %U class %d utf8 %x/%d space %v wide %v; want %U %d %x/%d %v %v",
				r, x.lower(), x.class(), enc, n, x.space(), x.wide(),
				l, want, wantEnc, len(b), unicode.IsSpace(l), isWide(l))
			bad++
		}
	}
}

// TestBuildBlockConcurrent: goroutines that meet an unbuilt block at once
// all get the one block stored (run it under -race too).
func TestBuildBlockConcurrent(t *testing.T) {
	for _, k := range []uint32{0, 0x0400 >> blockBits, 0x4E00 >> blockBits, unicode.MaxRune >> blockBits} {
		var p atomic.Pointer[[blockRunes]runeInfo]
		got := make([]*[blockRunes]runeInfo, 4)
		var wg sync.WaitGroup
		for g := range got {
			wg.Go(func() { got[g] = buildBlock(&p, k) })
		}
		wg.Wait()
		for g, b := range got {
			if b != p.Load() {
				t.Fatalf("block %d: goroutine %d got another block than the one stored", k, g)
			}
		}
		for j, x := range got[0] {
			if r := rune(k<<blockBits | uint32(j)); x != computeRuneInfo(r) {
				t.Fatalf("%U: entry %x, want %x", r, x, computeRuneInfo(r))
			}
		}
	}
}

// TestDecodeRune compares decodeRune with utf8.DecodeRune, and
// decodeInfo with lookupRune of it (for a byte that is not ASCII), on every
// sequence of up to three bytes that starts a two- or three-byte form
// (truncated, invalid and overlong ones too), and on random bytes.
func TestDecodeRune(t *testing.T) {
	t2 := twoByteInfo()
	check := func(text []byte, i int) {
		t.Helper()
		r, n := decodeRune(text, i)
		wr, wn := utf8.DecodeRune(text[i:])
		if r != wr || n != wn {
			t.Fatalf("% x at %d: %U/%d, want %U/%d", text, i, r, n, wr, wn)
		}
		if text[i] < utf8.RuneSelf {
			return
		}
		if x, n := decodeInfo(text, i, t2); x != lookupRune(wr) || n != wn {
			t.Fatalf("% x at %d: decodeInfo %x/%d, want %x/%d", text, i, x, n, lookupRune(wr), wn)
		}
	}
	buf := make([]byte, 4)
	for c0 := 0x80; c0 < 0x100; c0++ {
		for c1 := range 0x100 {
			buf[0], buf[1] = byte(c0), byte(c1)
			check(buf[:1], 0)
			check(buf[:2], 0)
			if c0 < 0xE0 || c0 >= 0xF0 {
				continue
			}
			for c2 := range 0x100 {
				buf[2] = byte(c2)
				check(buf[:3], 0)
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	text := make([]byte, 4096)
	for k := range text {
		text[k] = byte(rng.IntN(256))
		if rng.IntN(3) == 0 {
			text[k] = 0x80 | byte(rng.IntN(64)) // more continuation bytes
		}
	}
	for i := range text {
		check(text, i)
	}
}

// TestTwoByteRuns compares the word tokeniser with the reference on random
// text made mostly of two-byte runes (slowToken's own decoding): Cyrillic and Greek letters of both cases, Latin-1 letters, letters whose
// lower case has another length (İ to i, Ⱥ to ⱥ), two-byte marks, no-break
// spaces, overlong C0/C1 leads and other invalid bytes, ASCII, and Han,
// which is solo, at every alignment.
func TestTwoByteRuns(t *testing.T) {
	pieces := []string{"д", "Д", "ж", "Ж", "я", "Я", "ё", "Ё", "λ", "Λ", "ς", "é", "É", "ß", "İ", "Ⱥ",
		"\u0301", "\u0483", "\u00a0", "\xc0\x80", "\xc1\xbf", "\xd0", "\x80", "a", "Z", "7", " ", ",", "漢", "ー"}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, o := range []Options{{Mode: Word}, {Mode: Word, N: 1}, {Mode: Word, N: 2, Bag: true}} {
		s := mustNew(t, o)
		for range 3000 {
			var b []byte
			for range rng.IntN(60) {
				p := pieces[rng.IntN(len(pieces))]
				if rng.IntN(3) > 0 {
					p = pieces[rng.IntN(8)] // runs of Cyrillic, often four or more
				}
				b = append(b, p...)
			}
			checkAgainstRef(t, s, string(b))
		}
	}
}

// TestInNFKC: texts made of runes the table calls NFKC-inert are in NFKC
// by the norm package (every pair of them in the ranges where runes
// compose: Latin, Indic, Hangul jamo and syllables, kana, full-width; and
// random runs from the whole range), inNFKC says so, and it says false for
// a text with a rune that is not inert or with invalid UTF-8.
func TestInNFKC(t *testing.T) {
	var all, near []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if lookupRune(r)&infoNFKCInert == 0 {
			continue
		}
		all = append(all, r)
		switch {
		case r < 0x250, 0x900 <= r && r < 0x980, 0x1100 <= r && r < 0x1200,
			0x3040 <= r && r < 0x3100, 0xFF00 <= r && r < 0xFFF0,
			0xAC00 <= r && r < 0xD7A4 && r%97 == 0:
			near = append(near, r)
		}
	}
	if len(all) < 100000 || len(near) < 500 {
		t.Fatalf("%d inert runes, %d near compositions: too few", len(all), len(near))
	}
	check := func(s string) {
		t.Helper()
		if !norm.NFKC.IsNormalString(s) {
			t.Fatalf("%+q: inert runes only, not in NFKC", s)
		}
		if !inNFKC([]byte(s)) {
			t.Fatalf("%+q: inNFKC false", s)
		}
	}
	buf := make([]byte, 0, 64)
	for _, a := range near {
		for _, b := range near {
			check(string(utf8.AppendRune(utf8.AppendRune(buf[:0], a), b)))
		}
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 100000 {
		buf = buf[:0]
		for range 1 + rng.IntN(12) {
			buf = utf8.AppendRune(buf, all[rng.IntN(len(all))])
		}
		check(string(buf))
	}
	for _, s := range []string{"cafe\u0301", "\u1100\u1161", "\u304b\u3099", "\uff21", "ﬁ", "x\xff", "abc\u0300def"} {
		if inNFKC([]byte(s)) {
			t.Errorf("%+q: inNFKC true", s)
		}
	}
	if !inNFKC([]byte("plain ASCII text, long enough for 8 bytes at a time")) || !inNFKC(nil) {
		t.Error("ASCII text: inNFKC false")
	}
}
