package shingle

import (
	"encoding/binary"
	"slices"
	"testing"
)

// FuzzAppendSet checks, for arbitrary bytes and options, that AppendSet does
// not panic, returns a sorted duplicate-free set, and equals the reference.
func FuzzAppendSet(f *testing.F) {
	for _, s := range []string{
		"", " ", "The quick brown fox", "a a a a", "possibilitÃ  \xff\xfe", "Привет, мир! 日本語",
		"İstanbul \u212a ẞ Ⱥ", "\u00a0x\u3000y\u2028", "abcdefghijklmnopq", "e\u0301", "😀👍🏽",
		"日本語の\nテキスト ＬＩＮＵＸ", "हिन्दी भाषा", "ภาษา\nไทย กิน", "العَرَبِيَّة", "Tie\u0302\u0301ng", "ｶﾀｶﾅ ﬁ", "\u0301x漢\u0301",
		// ASCII over several 64-byte blocks (appendWordASCII), a token across
		// a block boundary and one ending the text exactly at a block's end.
		"Lorem ipsum DOLOR sit amet, consectetur_adipiscing elit 2024. Sed do eiusmodtemporincididuntutlabore et dolore",
		"0123456789012345678901234567890123456789012345678901234567890 abcdefghijklmnopqrstuvwxyz0123456789",
	} {
		f.Add([]byte(s), uint8(0), uint8(0))
		f.Add([]byte(s), uint8(1), uint8(4))
		f.Add([]byte(s), uint8(2), uint8(1))
		f.Add([]byte(s), uint8(3), uint8(7))
		f.Add([]byte(s), uint8(4), uint8(3))
		f.Add([]byte(s), uint8(5), uint8(2))
	}
	f.Add([]byte("Plain ASCII words and more of them, don\u2019t stop \u2014 caf\u00e9 and \xff then ASCII again"), uint8(8), uint8(3))
	f.Fuzz(func(t *testing.T, text []byte, mode, n uint8) {
		o := Options{Mode: Mode(mode & 1), N: int(n % 10), Bag: mode&2 != 0, NFKC: mode&4 != 0}
		if mode&8 != 0 {
			// Every ASCII run of a text that is not all ASCII through
			// the ASCII path.
			defer func(m int) { minASCIIRun = m }(minASCIIRun)
			minASCIIRun = 1
		}
		s, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		in := slices.Clone(text)
		got := s.AppendSet(nil, text)
		if !slices.Equal(in, text) {
			t.Fatal("AppendSet modified its input")
		}
		checkSet(t, got)
		if len(got) > len(text) {
			t.Fatalf("%d hashes for %d bytes", len(got), len(text))
		}
		keys, want := refElements(string(text), o)
		if len(keys) != len(want) {
			t.Skip("hash collision") // would be a discovery in itself
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%+v %q:\n got %x\nwant %x", o, text, got, want)
		}
		// A second call on a warm Shingler gives the same set.
		if again := s.AppendSet(got[:0:0], text); !slices.Equal(again, want) {
			t.Fatal("second call differs")
		}
		// AppendDistinct: the same elements, each once, in any order.
		d := s.AppendDistinct([]uint64{42}, text)
		if d[0] != 42 || !slices.Equal(slices.Sorted(slices.Values(d[1:])), want) {
			t.Fatalf("%+v %q: AppendDistinct %x, want the elements of %x after 42", o, text, d, want)
		}
		checkASCII(t, s, text)
		// AppendTokens: the ASCII path's token hashes are the rune walk's.
		tok := s.AppendTokens([]uint64{42}, text)
		if !slices.Equal(in, text) {
			t.Fatal("AppendTokens modified its input")
		}
		defer func(saved bool) { useASCIIPath = saved }(useASCIIPath)
		useASCIIPath = false
		if walk := s.AppendTokens([]uint64{42}, text); !slices.Equal(tok, walk) {
			t.Fatalf("%+v %q: AppendTokens %x, the rune walk %x", o, text, tok, walk)
		}
	})
}

// FuzzJaccard decodes two sets from the input and checks Intersection and
// Jaccard against brute force.
func FuzzJaccard(f *testing.F) {
	f.Add([]byte{}, uint8(0))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}, uint8(1))
	f.Add(make([]byte, 8*60), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		var vals []uint64
		for ; len(data) >= 2; data = data[2:] {
			// Small values so that the sets overlap.
			vals = append(vals, uint64(binary.LittleEndian.Uint16(data))%512)
		}
		k := 0
		if len(vals) > 0 {
			k = int(split) % (len(vals) + 1)
		}
		a := slices.Compact(slices.Sorted(slices.Values(vals[:k])))
		b := slices.Compact(slices.Sorted(slices.Values(vals[k:])))
		checkJaccard(t, a, b)
	})
}
