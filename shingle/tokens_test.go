package shingle

import (
	"slices"
	"strings"
	"testing"
)

// TestAppendTokenStrings checks the token strings against the reference
// (refTokens in Word mode, refCharText in Char mode), and that they are
// what AppendTokens hashes.
func TestAppendTokenStrings(t *testing.T) {
	texts := []string{"", "   ", "Hello, World! Héllo wörld 42", "  a\u00a0b\t\tc  ", "possibilitÃ  di\xffparcheggio", "ΑΒΓ δεζ", "x",
		"日本語の\nテキスト ＬＩＮＵＸ", "हिन्दी भाषा", "cafe\u0301 ภาษา\nไทย", "한국어 문장"}
	w := mustNew(t, Options{})
	c := mustNew(t, Options{Mode: Char})
	for _, text := range texts {
		want := refTokens(strings.ToLower(text))
		got := w.AppendTokenStrings([]string{"keep"}, []byte(text))
		if got[0] != "keep" || !slices.Equal(got[1:], want) {
			t.Errorf("word %q: %q, want %q after \"keep\"", text, got, want)
		}
		var hashes []uint64
		for _, tok := range got[1:] {
			hashes = append(hashes, hashBytes([]byte(tok)))
		}
		if h := w.AppendTokens(nil, []byte(text)); !slices.Equal(h, hashes) {
			t.Errorf("word %q: AppendTokens %v, hashes of the strings %v", text, h, hashes)
		}
		var wantC []string
		for _, r := range refCharText(strings.ToLower(text)) {
			wantC = append(wantC, string(r))
		}
		if got := c.AppendTokenStrings(nil, []byte(text)); !slices.Equal(got, wantC) {
			t.Errorf("char %q: %q, want %q", text, got, wantC)
		}
	}
}

func TestAppendTokensAllocs(t *testing.T) {
	s := mustNew(t, Options{})
	text := []byte("the quick brown fox jumps over the lazy dog, again and again")
	dst := s.AppendTokens(nil, text)
	if n := testing.AllocsPerRun(100, func() { dst = s.AppendTokens(dst[:0], text) }); n != 0 {
		t.Errorf("AppendTokens allocates %v times with room in dst", n)
	}
}

// TestTokensPerScript pins the word tokens of each kind of script, written
// out by hand: scripts without spaces give a token per character (line
// breaks inside them change nothing), combining marks stay with the
// letter before them, and scripts with spaces keep their words.
func TestTokensPerScript(t *testing.T) {
	w := mustNew(t, Options{})
	for _, c := range []struct {
		text string
		want []string
	}{
		{"中文文本\n处理", []string{"中", "文", "文", "本", "处", "理"}},
		{"日本語のテキスト、コーヒー", []string{"日", "本", "語", "の", "テ", "キ", "ス", "ト", "コ", "ー", "ヒ", "ー"}},
		{"ＬＩＮＵＸ２０２６年", []string{"ｌｉｎｕｘ２０２６", "年"}}, // full width Latin is Latin: one word (NFKC makes it ASCII)
		{"한국어 문장입니다", []string{"한국어", "문장입니다"}},
		{"ภาษา\nไทย", []string{"ภ", "า", "ษ", "า", "ไ", "ท", "ย"}},
		{"กิน", []string{"กิ", "น"}}, // the vowel sign stays with its consonant
		{"हिन्दी भाषा", []string{"हिन्दी", "भाषा"}},
		{"العَرَبِيَّة", []string{"العَرَبِيَّة"}},
		{"שָׁלוֹם עולם", []string{"שָׁלוֹם", "עולם"}},
		{"Tiếng Việt", []string{"tiếng", "việt"}},
		{"Tie\u0302\u0301ng Vie\u0323\u0302t", []string{"tie\u0302\u0301ng", "vie\u0323\u0302t"}},
		{"\u0301leading mark", []string{"leading", "mark"}},
		{"abc漢字def", []string{"abc", "漢", "字", "def"}},
		{"👩\u200d💻 emoji", []string{"emoji"}},
		{"Hello, World", []string{"hello", "world"}},
	} {
		if got := w.AppendTokenStrings(nil, []byte(c.text)); !slices.Equal(got, c.want) {
			t.Errorf("%q: %q, want %q", c.text, got, c.want)
		}
	}
}

// A Japanese text and the same text wrapped at another width have the same
// shingle set in both modes.
func TestRewrappedCopies(t *testing.T) {
	text := "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。"
	wrap := func(s string, width int) string {
		var b strings.Builder
		for i, r := range []rune(s) {
			if i > 0 && i%width == 0 {
				b.WriteString("\n")
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	for _, o := range []Options{{}, {Mode: Char}} {
		s := mustNew(t, o)
		a := s.AppendSet(nil, []byte(wrap(text, 20)))
		b := s.AppendSet(nil, []byte(wrap(text, 33)))
		if len(a) == 0 || Jaccard(a, b) != 1 {
			t.Errorf("%+v: Jaccard of two wrappings %v (%d shingles)", o, Jaccard(a, b), len(a))
		}
	}
}

// Options.NFKC makes full-width, half-width, ligature and decomposed forms
// compare equal; without it they differ.
func TestNFKC(t *testing.T) {
	pairs := [][2]string{
		{"ＬＩＮＵＸ カーネル ２０２６ 年版 の 説明", "LINUX カーネル 2026 年版 の 説明"},
		{"ｶﾀｶﾅ の テキスト", "カタカナ の テキスト"},
		{"the ﬁrst ﬂoor oﬃce", "the first floor office"},
		{"cafe\u0301 au lait", "café au lait"},
	}
	for _, o := range []Options{{}, {Mode: Char}} {
		plain := mustNew(t, o)
		o.NFKC = true
		nfkc := mustNew(t, o)
		for _, p := range pairs {
			a, b := nfkc.AppendSet(nil, []byte(p[0])), nfkc.AppendSet(nil, []byte(p[1]))
			if Jaccard(a, b) != 1 {
				t.Errorf("%+v %q ~ %q: Jaccard %v with NFKC, want 1", o, p[0], p[1], Jaccard(a, b))
			}
			if x, y := plain.AppendSet(nil, []byte(p[0])), plain.AppendSet(nil, []byte(p[1])); Jaccard(x, y) == 1 {
				t.Errorf("%+v %q ~ %q: equal without NFKC, so the test shows nothing", o, p[0], p[1])
			}
		}
		text := []byte("ＬＩＮＵＸ ２０２６")
		var dst []uint64
		if got := testing.AllocsPerRun(100, func() { dst = nfkc.AppendSet(dst[:0], text) }); got > 0 {
			t.Errorf("%+v: %v allocations per document with NFKC after warm-up", o, got)
		}
	}
}
