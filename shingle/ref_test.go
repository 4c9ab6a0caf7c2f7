package shingle

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
)

// This file holds the slow, obviously correct reference: it follows the
// package documentation literally, with strings, maps and math/big.

// refShingles returns the shingles of text in order, each as a string:
// Word shingles join their tokens with "\x00", which no token contains.
// It also returns each shingle's tokens (Word) or text (Char) for refHash.
func refShingles(text string, o Options) (keys []string, parts [][]string) {
	n := o.N
	if n == 0 {
		n = DefaultWordN
		if o.Mode == Char {
			n = DefaultCharN
		}
	}
	if o.NFKC {
		text = norm.NFKC.String(text)
	}
	low := strings.ToLower(text)
	if o.Mode == Word {
		toks := refTokens(low)
		if len(toks) == 0 {
			return nil, nil
		}
		if len(toks) < n {
			return []string{strings.Join(toks, "\x00")}, [][]string{toks}
		}
		for i := 0; i+n <= len(toks); i++ {
			keys = append(keys, strings.Join(toks[i:i+n], "\x00"))
			parts = append(parts, toks[i:i+n])
		}
		return keys, parts
	}
	rs := refCharText(low)
	if len(rs) == 0 {
		return nil, nil
	}
	if len(rs) <= n {
		return []string{string(rs)}, [][]string{{string(rs)}}
	}
	for i := 0; i+n <= len(rs); i++ {
		k := string(rs[i : i+n])
		keys = append(keys, k)
		parts = append(parts, []string{k})
	}
	return keys, parts
}

// refTokens cuts lower-cased text into word tokens as the package doc
// says, one rune at a time: a letter or digit of a script written without
// spaces (or U+30FC) is a token of its own, other letters and digits run
// together, a combining mark joins the token before it, anything else
// separates.
func refTokens(low string) []string {
	var toks []string
	var cur []rune
	curSolo := false
	flush := func() {
		if len(cur) > 0 {
			toks = append(toks, string(cur))
		}
		cur, curSolo = nil, false
	}
	for _, r := range low {
		letter := unicode.IsLetter(r) || unicode.IsDigit(r)
		solo := letter && (r == 0x30FC || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana,
			unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar))
		switch {
		case solo:
			flush()
			cur, curSolo = []rune{r}, true
		case letter:
			if curSolo {
				flush()
			}
			cur = append(cur, r)
		case unicode.Is(unicode.M, r) && len(cur) > 0:
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return toks
}

// refCharText is the Char mode normalisation of lower-cased text: runs of
// white space folded to one space and trimmed, and dropped between two
// wide characters (East Asian W or F but not Hangul, or Thai, Lao, Khmer,
// Myanmar).
func refCharText(low string) []rune {
	wide := func(r rune) bool {
		k := width.LookupRune(r).Kind()
		return (k == width.EastAsianWide || k == width.EastAsianFullwidth) && !unicode.Is(unicode.Hangul, r) ||
			unicode.In(r, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
	}
	var rs []rune
	for _, f := range strings.Fields(low) {
		fr := []rune(f)
		if len(rs) > 0 && !(wide(rs[len(rs)-1]) && wide(fr[0])) {
			rs = append(rs, ' ')
		}
		rs = append(rs, fr...)
	}
	return rs
}

// refMum is mum computed by schoolbook multiplication of 32-bit halves,
// independently of math/bits.
func refMum(a, b uint64) uint64 {
	a0, a1 := a&0xffffffff, a>>32
	b0, b1 := b&0xffffffff, b>>32
	p00, p01, p10, p11 := a0*b0, a0*b1, a1*b0, a1*b1
	mid := p00>>32 + p01&0xffffffff + p10&0xffffffff // < 3×2^32
	lo := p00&0xffffffff | mid<<32
	hi := p11 + p01>>32 + p10>>32 + mid>>32
	return hi ^ lo
}

// refH is H from the package documentation.
func refH(p []byte) uint64 {
	h := uint64(0xa0761d6478bd642f)
	for i := 0; i < len(p); i += 8 {
		var w uint64
		for k := 0; k < 8; k++ {
			if i+k < len(p) {
				w |= uint64(p[i+k]) << (8 * k)
			}
		}
		h = refMum(h^w, 0xe7037ed1a0b428db)
	}
	return refMum(h^uint64(len(p)), 0x8ebc6af09c88c6e3)
}

// refHash is the documented hash of one shingle.
func refHash(mode Mode, parts []string) uint64 {
	if mode == Char {
		return refH([]byte(parts[0]))
	}
	s := uint64(0x589965cc75374cc3)
	for _, t := range parts {
		s = refMum(s^refH([]byte(t)), 0x1d8e4e27c47d124f)
	}
	return s
}

// refElements returns the elements of text's shingle set as strings
// (shingle, "\x01", occurrence number in bag mode) and as documented hashes,
// sorted and unique.
func refElements(text string, o Options) (map[string]bool, []uint64) {
	keys, parts := refShingles(text, o)
	set := map[string]bool{}
	seen := map[string]int{}
	var hs []uint64
	for i, k := range keys {
		j := 0
		if o.Bag {
			j = seen[k]
			seen[k]++
			k += "\x01" + strconv.Itoa(j)
		}
		if set[k] {
			continue
		}
		set[k] = true
		h := refHash(o.Mode, parts[i])
		if j > 0 {
			h = refMum(h^(uint64(j)*0x9e3779b97f4a7c15), 0xbf58476d1ce4e5b9)
		}
		hs = append(hs, h)
	}
	slices.Sort(hs)
	return set, slices.Compact(hs)
}

// refJaccard returns |a∩b| and |a∪b| of two string sets.
func refJaccard(a, b map[string]bool) (inter, union int) {
	for k := range a {
		if b[k] {
			inter++
		}
	}
	return inter, len(a) + len(b) - inter
}

func TestRefMum(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	for range 10000 {
		a, b := r.Uint64(), r.Uint64()
		if r.IntN(4) == 0 {
			a = ^uint64(0) - uint64(r.IntN(3))
		}
		p := new(big.Int).Mul(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b))
		want := new(big.Int).Mod(p, two64).Uint64() ^ new(big.Int).Rsh(p, 64).Uint64()
		if got := refMum(a, b); got != want {
			t.Fatalf("refMum(%#x, %#x) = %#x, want %#x", a, b, got, want)
		}
		if got := mum(a, b); got != want {
			t.Fatalf("mum(%#x, %#x) = %#x, want %#x", a, b, got, want)
		}
	}
}

func TestHashH(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for n := 0; n < 40; n++ {
		for range 20 {
			p := make([]byte, n, n+8)
			for i := range p {
				p[i] = byte(r.Uint32())
			}
			want := refH(p)
			if got := hashBytes(p); got != want {
				t.Fatalf("hashBytes(%x) = %#x, want %#x", p, got, want)
			}
			buf := append(append([]byte{0xff}, p...), 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88, 0x77)
			if got := hashPadded(buf, 1, 1+n); got != want {
				t.Fatalf("hashPadded(%x) = %#x, want %#x", p, got, want)
			}
		}
	}
}
