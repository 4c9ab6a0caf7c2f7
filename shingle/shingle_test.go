package shingle

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// Pieces for random text: words of many scripts and lengths, separators,
// white space of all kinds, invalid UTF-8, mojibake and runes whose
// lower-casing changes their UTF-8 length.
var (
	pieceWords = []string{
		"the", "The", "THE", "a", "A", "of", "and", "to", "in", "is", "it",
		"quick", "brown", "fox", "jumps", "over", "lazy", "dog", "Dog",
		"x", "xy", "abcdefg", "abcdefgh", "abcdefghi", "ABCDEFGHIJKLMNOPQ", "internationalization",
		"0", "42", "2024", "3.14", "1,000,000", "A1b2C3d4E5",
		"café", "CAFÉ", "naïve", "Straße", "STRASSE", "ÉCOLE", "déjà", "vu", "Ærø", "Ørsted",
		"Привет", "мир", "ПРИВЕТ", "ёлка", "Ёлка",
		"漢字", "日本語", "中文", "テスト", "한국어",
		"١٢٣", "٤٥", "Ⅻ", "²", "½",
		"İstanbul", "ISTANBUL", "\u212a", "K", "k", "ẞ", "ß", "Σ", "σ", "ς", "ǅ", "Ⱥ", "ⱥ",
		"e\u0301", "n\u0303o", "possibilitÃ ", "Ã©tÃ©", "â€™", "Ã",
		"😀", "👍🏽", "a😀b", "🇫🇷", "👩‍💻", "́x", "漢́", "abc漢字def", "テスド",
		"ภาษาไทย", "กิน", "हिन्दी", "বাংলা", "தமிழ்", "العَرَبِيَّة", "שָׁלוֹם", "Tiếng Việt", "Tiếng Việt",
		"コーヒー", "ＬＩＮＵＸ", "２０２６", "ｶﾀｶﾅ", "ﬁ", "㍿", "Ⅻ", "ພາສາລາວ", "ភាសាខ្មែរ", "မြန်မာ", "ひらがな", "中文文本",
		"\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80", "ab\xffcd", "\xc3\xa9", "\xf0\x9f", "\x80\x80",
		"\x00", "\x01", "\ufffd",
	}
	pieceSeps = []string{
		" ", " ", " ", "  ", "\t", "\n", "\r\n", "\v", "\f", "\u00a0", "\u3000", "\u2028", "\u0085", "\u200b",
		",", ".", "!", "?", "-", "--", "'", "\"", "(", ")", "…", "—", "«", "»", "·", "_", "/", "@#$%",
		"", "",
	}
)

// hugeEnv names the environment variable that enables the huge tests and
// sizes (100 MB documents, a 20 MB token, a 3-million-element sort). They
// take about half a minute and over 3 GB of memory, so ordinary runs
// (go test ./...) leave them out and CI runs them in a step of their own
// with NEARDUP_HUGE_TESTS=1. Smaller versions of the same checks always run.
const hugeEnv = "NEARDUP_HUGE_TESTS"

// hugeTests reports whether the huge tests are enabled: hugeEnv is set to
// something other than "" or "0", and -short is not given.
func hugeTests() bool {
	v := os.Getenv(hugeEnv)
	return v != "" && v != "0" && !testing.Short()
}

// skipUnlessHuge skips t unless the huge tests are enabled.
func skipUnlessHuge(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("huge test: skipped with -short")
	}
	if !hugeTests() {
		t.Skipf("huge test: set %s=1 to run it", hugeEnv)
	}
}

// randText returns a random text of about n pieces.
func randText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		if r.IntN(4) == 0 {
			b.WriteString(pieceSeps[r.IntN(len(pieceSeps))])
		} else {
			b.WriteString(pieceWords[r.IntN(len(pieceWords))])
			b.WriteString(pieceSeps[r.IntN(len(pieceSeps))])
		}
	}
	return b.String()
}

// mutate returns a copy of t with a few random piece-level edits, so that
// pairs of texts have Jaccard indexes spread over [0, 1].
func mutate(r *rand.Rand, t string) string {
	b := []byte(t)
	for range r.IntN(4) {
		if len(b) == 0 {
			break
		}
		i := r.IntN(len(b) + 1)
		switch r.IntN(3) {
		case 0: // insert
			b = slices.Insert(b, i, []byte(randText(r, 1+r.IntN(3)))...)
		case 1: // delete
			j := min(len(b), i+r.IntN(8))
			b = slices.Delete(b, min(i, j), j)
		case 2: // swap halves
			b = append(b[i:len(b):len(b)], b[:i]...)
		}
	}
	return string(b)
}

func allModes() []Options {
	var os []Options
	for _, m := range []Mode{Word, Char} {
		for n := 0; n <= 7; n++ {
			for _, bag := range []bool{false, true} {
				os = append(os, Options{Mode: m, N: n, Bag: bag})
			}
			os = append(os, Options{Mode: m, N: n, NFKC: true})
		}
	}
	return os
}

func mustNew(t testing.TB, o Options) *Shingler {
	t.Helper()
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func checkSet(t testing.TB, set []uint64) {
	t.Helper()
	for i := 1; i < len(set); i++ {
		if set[i-1] >= set[i] {
			t.Fatalf("set not sorted and unique at %d: %#x >= %#x", i, set[i-1], set[i])
		}
	}
}

// checkAgainstRef checks the fast set of text against the reference: same
// hashes exactly, and as many as distinct reference shingles (no
// collision). It returns the reference string set.
func checkAgainstRef(t testing.TB, s *Shingler, text string) (map[string]bool, []uint64) {
	t.Helper()
	o := s.Options()
	prefix := []uint64{7, 3} // AppendSet must leave it alone
	got := s.AppendSet(slices.Clone(prefix), []byte(text))
	if !slices.Equal(got[:2], prefix) {
		t.Fatalf("%+v: prefix changed: %v", o, got[:2])
	}
	got = got[2:]
	checkSet(t, got)
	keys, want := refElements(text, o)
	if len(keys) != len(want) {
		t.Fatalf("%+v %q: reference hash collision: %d keys, %d hashes", o, text, len(keys), len(want))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%+v %q:\n got %d %x\nwant %d %x", o, text, len(got), got, len(want), want)
	}
	if str := s.AppendSetString(nil, text); !slices.Equal(str, got) {
		t.Fatalf("%+v %q: AppendSetString differs from AppendSet", o, text)
	}
	return keys, got
}

func TestAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rounds := 300
	if testing.Short() {
		rounds = 40
	}
	for _, o := range allModes() {
		s := mustNew(t, o)
		for range rounds {
			a := randText(r, r.IntN(40))
			b := mutate(r, a)
			ka, ha := checkAgainstRef(t, s, a)
			kb, hb := checkAgainstRef(t, s, b)
			inter, union := refJaccard(ka, kb)
			if got := Intersection(ha, hb); got != inter {
				t.Fatalf("%+v: Intersection = %d, reference %d\na=%q\nb=%q", o, got, inter, a, b)
			}
			want := 0.0
			if union > 0 {
				want = float64(inter) / float64(union)
			}
			if got := Jaccard(ha, hb); got != want {
				t.Fatalf("%+v: Jaccard = %v, reference %v\na=%q\nb=%q", o, got, want, a, b)
			}
		}
	}
}

// TestASCIIBoundaries exercises the ASCII fast path's chunk and tail loads
// at every token length and position relative to the ends of the text.
func TestASCIIBoundaries(t *testing.T) {
	for _, o := range []Options{{Mode: Word, N: 1}, {Mode: Word, N: 2}, {Mode: Char, N: 8}, {Mode: Char, N: 9}, {Mode: Char, N: 3}} {
		s := mustNew(t, o)
		for n := 1; n <= 20; n++ {
			tok := strings.Repeat("Ab9", 7)[:n]
			for pre := 0; pre <= 9; pre++ {
				for post := 0; post <= 9; post++ {
					text := strings.Repeat(".", pre) + tok + strings.Repeat("-", post)
					checkAgainstRef(t, s, text)
					checkAgainstRef(t, s, tok+" "+text+"é"+tok)
				}
			}
		}
	}
}

// TestNormalizeSWAR: Char mode's normalisation with its 8-byte fast path
// writes what the byte loop writes (text, size, code points, ASCII) on
// random text of letters of both cases, single and repeated spaces, tabs,
// line breaks, other control bytes, DEL and multi-byte runes, so that
// blocks start, end and fail on each.
func TestNormalizeSWAR(t *testing.T) {
	defer func(saved bool) { useNormSWAR = saved }(useNormSWAR)
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "Z", "q", "M", "0", "~", "@", "[", "`", "{", " ", " ", " ", "  ", "\t", "\n", "\r\n", "\x00", "\x1f", "\x7f", "é", "É", "日", "\u00a0", "\xff"}
	s := mustNew(t, Options{Mode: Char, N: 5})
	for i := range 20000 {
		var b []byte
		for range r.IntN(60) {
			p := pieces[r.IntN(len(pieces))]
			if i%2 == 0 && r.IntN(3) > 0 {
				p = pieces[r.IntN(11)] // mostly ASCII: the fast path's case
			}
			b = append(b, p...)
		}
		useNormSWAR = false
		size, runes, ascii := s.normalize(b)
		want := string(s.norm[:size+8])
		useNormSWAR = true
		gs, gr, ga := s.normalize(b)
		if got := string(s.norm[:gs+8]); got != want || gr != runes || ga != ascii {
			t.Fatalf("%q: fast path %q %d %v, byte loop %q %d %v", b, got, gr, ga, want, runes, ascii)
		}
	}
}

func TestEdgeCases(t *testing.T) {
	long := strings.Repeat("Ab", 5000)
	longU := strings.Repeat("Жx", 3000)
	texts := []string{
		"", " ", "   \t\n ", "\u00a0\u3000", ".,;!?", "—«»", "\xff\xfe", "\ufffd",
		"one", "one two", "one two three", "one two three four",
		"a a a a a a", "a b a b a b a", "ab", "abcd", "abcde", "abcdef",
		" x ", "  x  y  ", long, "x " + long + " y", longU, "é" + long,
	}
	for _, o := range allModes() {
		s := mustNew(t, o)
		for _, text := range texts {
			checkAgainstRef(t, s, text)
		}
	}
}

func TestCounts(t *testing.T) {
	f := func(o Options, text string, want int) {
		t.Helper()
		got := mustNew(t, o).AppendSet(nil, []byte(text))
		if len(got) != want {
			t.Errorf("%+v %q: %d shingles, want %d", o, text, len(got), want)
		}
	}
	w3 := Options{Mode: Word, N: 3}
	f(w3, "", 0)
	f(w3, "?!. ,", 0)
	f(w3, " \t\n\u00a0", 0)
	f(w3, "one", 1)
	f(w3, "one two", 1)            // N-1 tokens
	f(w3, "one two three", 1)      // exactly N
	f(w3, "one two three four", 2) // N+1
	f(w3, "a a a a a", 1)
	f(Options{Mode: Word, N: 3, Bag: true}, "a a a a a", 3)
	c5 := Options{Mode: Char, N: 5}
	f(c5, "", 0)
	f(c5, " \t \u3000 ", 0)
	f(c5, "?", 1)
	f(c5, "  abcd  ", 1)
	f(c5, "abcde", 1)
	f(c5, "abcdef", 2)
	f(c5, "a  b\t\nc", 1) // "a b c"
	f(c5, "日本語の文章", 2)
	f(c5, "\xff\xff\xff\xff\xff\xff", 1) // six U+FFFD: two shingles, equal
	f(Options{Mode: Char, N: 5, Bag: true}, "\xff\xff\xff\xff\xff\xff", 2)
	// Order matters.
	a := mustNew(t, w3).AppendSet(nil, []byte("a b"))
	b := mustNew(t, w3).AppendSet(nil, []byte("b a"))
	if slices.Equal(a, b) {
		t.Error(`"a b" and "b a" have the same set`)
	}
}

func TestNewOptions(t *testing.T) {
	for _, o := range []Options{{Mode: 2}, {N: -1}, {N: MaxN + 1}, {Mode: Char, N: -5}} {
		if _, err := New(o); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("New(%+v) error = %v, want ErrInvalidOptions", o, err)
		}
	}
	f := func(o Options, wantN int) {
		t.Helper()
		s := mustNew(t, o)
		if got := s.Options(); got.N != wantN || got.Mode != o.Mode || got.Bag != o.Bag {
			t.Errorf("New(%+v).Options() = %+v, want N %d", o, got, wantN)
		}
	}
	f(Options{}, DefaultWordN)
	f(Options{Mode: Char, Bag: true}, DefaultCharN)
	f(Options{Mode: Word, N: MaxN}, MaxN)
	for _, m := range []Mode{Word, Char} {
		got, err := ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseMode("Word "); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("ParseMode(bad) error = %v", err)
	}
	if got := Mode(9).String(); got != "Mode(9)" {
		t.Errorf("Mode(9).String() = %q", got)
	}
}

func TestLargeN(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{8, 9, 16, 33, 100} {
		for _, m := range []Mode{Word, Char} {
			s := mustNew(t, Options{Mode: m, N: n, Bag: n%2 == 0})
			for range 20 {
				checkAgainstRef(t, s, randText(r, r.IntN(150)))
			}
		}
	}
}

// TestGolden pins the hash definition: if it fails, the definition changed
// and every stored set and signature built on it is invalid.
func TestGolden(t *testing.T) {
	f := func(o Options, text string, want ...uint64) {
		t.Helper()
		got := mustNew(t, o).AppendSet(nil, []byte(text))
		if !slices.Equal(got, want) {
			t.Errorf("%+v %q:\n got %#x\nwant %#x", o, text, got, want)
		}
		if _, ref := refElements(text, o); !slices.Equal(ref, want) {
			t.Errorf("%+v %q: reference disagrees with golden values: %#x", o, text, ref)
		}
	}
	f(Options{}, "")
	f(Options{}, "The quick brown fox", 0x56179e00ab9e563e, 0x7f5dfd768bd0ee63)
	f(Options{Mode: Word, N: 1}, "Hello, hello WORLD", 0x7e8ddaa5535aa4b2, 0xf0b173d39e31ec0e)
	f(Options{Mode: Word, N: 1, Bag: true}, "Hello, hello WORLD", 0x7e8ddaa5535aa4b2, 0xe0794f915d570838, 0xf0b173d39e31ec0e)
	f(Options{Mode: Word, N: 2}, "Привет мир, café!", 0x223eed1282a2f44d, 0x397458ced60fedb4)
	f(Options{Mode: Char, N: 5}, "Hello  World", 0x2f10b6fa3f118dfb, 0x3c001ee9903d4a56, 0x5ffc2745d488125b,
		0xad64c90a2f921767, 0xc24034a39d46dd15, 0xe85dfbb74f3baebc, 0xf9266717562a4d28)
	// SketchVersion 2: no space between two wide characters in Char mode.
	f(Options{Mode: Char, N: 3}, "日本語 テキスト", 0x80cce9505ac4d0f, 0x11cfc174d6f8fdde, 0x1d3d8e8c110dcd8f,
		0x71ce3e3b08db97a8, 0xeb99b4bb6f7dd611)
	f(Options{Mode: Char, N: 5}, "\xffAb", 0x682a6fa8bba045f)
	// SketchVersion 2: each Han, kana, Thai... character is a token (a line
	// break between two changes nothing), a combining mark belongs to the
	// token before it (Devanagari vowel signs, a decomposed accent).
	f(Options{Mode: Word, N: 2}, "日本語のテキスト\nです", 0xa7c0ff82ed294c, 0x1959c09a178d8167, 0x43ffb594863db4cc,
		0x5b1b1a1fd0daa98f, 0x68a20816580b8408, 0x7445811061a19caf, 0x8d0b948fd71830ee, 0x8de06e363454f71c, 0xda8e60976d0fde8e)
	f(Options{Mode: Word, N: 1}, "हिन्दी भाषा", 0x83922f859cac477a, 0xb6d79d1485628b42)
	f(Options{Mode: Word, N: 1}, "cafe\u0301 ภาษาไทย", 0x3b304acf2ff9b7bf, 0x4f58d5adae90d9e1, 0xa505d1fadd0d831f,
		0xb1f78e04d563a67b, 0xc9fa6660186a663f, 0xf97aecf8a7bcf060, 0xfa4bb67872b28d7d)
	f(Options{Mode: Char, N: 2}, "ภาษา\nไทย", 0x16a434ac358bd4ba, 0x2a6add18bf4c4827, 0x3624ba9d926dfb04,
		0x9438c752178314eb, 0xcefacc6106cd3cff, 0xd3966078e0a7c224)

	// Word mode: fewer tokens than N, no token, the chained hash of N > 3
	// (the ring rather than registers), tokens across 8-byte chunks,
	// invalid UTF-8 splitting tokens, and runes whose lower case differs
	// in length (İ, the Kelvin sign, ẞ).
	f(Options{Mode: Word, N: 3}, "Hello, world", 0xb0549e9fd7a7e3ca)
	f(Options{Mode: Word, N: 3}, "  ...  ")
	f(Options{Mode: Word, N: 5}, "one two three four five six seven", 0x3f03b7cb60509807, 0x7196d423fb2385a7, 0xcee2a440d8aa054e)
	f(Options{Mode: Word, N: 2}, "Internationalization ABCDEFGHIJKLMNOPQ 2024", 0x54c293d3c6c7f141, 0x950abe002d13302a)
	f(Options{Mode: Word, N: 2}, "caf\xe9 au\xfflait, pla\u00eet", 0x644ce1f412d7855e, 0x9e4bfc2260df941f, 0xee793906c2b986b2)
	f(Options{Mode: Word, N: 1}, "\u0130stanbul \u212aelvin STRASSE \u1e9e", 0x2289c15095aedd8a, 0x389ff69d1c885b88, 0x488b8bd7402403c9, 0x9645381bddff01fa)
	// Bag mode: occurrences 1 and 2 of repeated shingles, word and char.
	f(Options{Mode: Word, N: 1, Bag: true}, "a rose is a rose is a rose", 0x13c90182d2d92c30, 0x1c978d0b5539d7a5,
		0x3852904e6ccfca12, 0x7cade7f96d3f451f, 0x881908b05dab40a9, 0xa46bc36556439332, 0xaf618ed650a71e8d, 0xbe75a1baea09a9da)
	f(Options{Mode: Char, N: 4, Bag: true}, "abcabcabcabc", 0x06c771668a856233, 0x071367660d322c40, 0x21f76f4115f95fc7,
		0x224096676454add3, 0x70717ba49da2ea82, 0x7996f8085b7afb87, 0x89c7b071059a57ae, 0xa288b04ac0038621, 0xec6e6e2bb29e86ce)
	// Char mode: N = 8 (one full chunk) and N = 9 (two chunks) on ASCII,
	// invalid UTF-8 and Unicode white space, a text shorter than N after
	// trimming, and white space only.
	f(Options{Mode: Char, N: 8}, "abcdefghij", 0x133bd43a6ad595dd, 0x169c59773d1504b5, 0x7ea870d3201fe6b5)
	f(Options{Mode: Char, N: 9}, "Near-Duplicate", 0x3a5c32323abf04f4, 0x4fe629cde7f4307e, 0x537876fd390b5acb,
		0x8ed603d5c59fb9a9, 0xcf2f9f856b1f120c, 0xd8d908578aefef46)
	f(Options{Mode: Char, N: 4}, "a\xffb\u00a0\u3000c\xc3", 0x44e9ee5a8529ad7e, 0x7b0c78ca10790a4c, 0x89d2fe582c059810)
	f(Options{Mode: Char, N: 5}, "  Hi  ", 0xa1336e4a9890b871)
	f(Options{Mode: Char, N: 5}, " \t\u3000 ")
	// H itself, on the empty string and across a chunk boundary.
	if got, want := hashBytes(nil), mum(k0, k2); got != want {
		t.Errorf("H(\"\") = %#x, want mum(K0, K2) = %#x", got, want)
	}
	if got := hashBytes([]byte("abcdefghi")); got != 0x813590fa55d9489d {
		t.Errorf("H(\"abcdefghi\") = %#x", got)
	}
}

func TestAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	text := []byte(randText(r, 500))
	for _, o := range allModes() {
		s := mustNew(t, o)
		dst := make([]uint64, 0, len(text))
		dst = s.AppendSet(dst[:0], text) // warm up
		allocs := testing.AllocsPerRun(20, func() {
			dst = s.AppendSet(dst[:0], text)
		})
		if allocs != 0 {
			t.Errorf("%+v: %v allocations per AppendSet", o, allocs)
		}
		str := string(text)
		allocs = testing.AllocsPerRun(20, func() {
			dst = s.AppendSetString(dst[:0], str)
		})
		if allocs != 0 {
			t.Errorf("%+v: %v allocations per AppendSetString", o, allocs)
		}
	}
}

// TestSort checks the sort, and sortDedup (the sort and deduplication of a
// set), at sizes that take each path, on uniform keys,
// keys with many duplicates and keys that share their top bits. The sizes
// above bucketMax reach the flag sort; with "low17" it recurses into parts
// still above bucketMax, and with "tiny" (all keys below 256) one part
// stays above bucketMax down to the low byte, which goes to slices.Sort.
func TestSort(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	s := mustNew(t, Options{})
	sizes := []int{0, 1, 2, 3, 23, 24, 25, 100, lsdMin - 1, lsdMin, 260, 1000, bucketMax, bucketMax + 1, 300000}
	if hugeTests() {
		sizes = append(sizes, 3_000_000)
	}
	gens := map[string]func() uint64{
		"uniform": r.Uint64,
		"dups":    func() uint64 { return uint64(r.IntN(50)) * 0x0123456789abcdef },
		"sametop": func() uint64 { return 0xabcd<<48 | r.Uint64()>>16 },
		"small":   func() uint64 { return r.Uint64N(1 << 20) },
		"low17":   func() uint64 { return r.Uint64N(1 << 17) },
		"tiny":    func() uint64 { return r.Uint64N(256) },
	}
	for name, gen := range gens {
		for _, n := range sizes {
			a := make([]uint64, n)
			for i := range a {
				a[i] = gen()
			}
			want := slices.Clone(a)
			slices.Sort(want)
			d := slices.Clone(a)
			s.sort(a, 64)
			if !slices.Equal(a, want) {
				t.Fatalf("%s %d: sort wrong", name, n)
			}
			if k := s.sortDedup(d); !slices.Equal(d[:k], slices.Compact(want)) {
				t.Fatalf("%s %d: sortDedup wrong", name, n)
			}
		}
	}
}

// checkLargeDocument shingles a document of about size bytes, made of words
// from a 50,000-word vocabulary, and compares each set with slices.Sort and
// slices.Compact of the raw hashes. The hashing is checked against the
// reference on smaller texts; this checks the sort (the flag sort, above
// bucketMax elements), bag numbering and dedup at scale.
func checkLargeDocument(t *testing.T, size int) {
	r := rand.New(rand.NewPCG(9, 10))
	var b bytes.Buffer
	words := make([]string, 50000)
	for i := range words {
		words[i] = fmt.Sprintf("w%x", r.Uint32())
	}
	for b.Len() < size {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteString(pieceSeps[r.IntN(8)])
		if r.IntN(1000) == 0 {
			b.WriteString(pieceWords[r.IntN(len(pieceWords))])
		}
	}
	text := b.Bytes()
	// Word mode, about size/10 shingles.
	for _, o := range []Options{{Mode: Word, N: 1, Bag: true}, {Mode: Word, N: 3}} {
		s := mustNew(t, o)
		got := s.AppendSet(nil, text)
		if len(got) <= bucketMax {
			t.Fatalf("%+v: %d shingles, too few to reach the flag sort (> %d)", o, len(got), bucketMax)
		}
		raw := s.appendWord(nil, text)
		slices.Sort(raw)
		if o.Bag {
			numberRuns(raw)
			slices.Sort(raw)
		}
		raw = slices.Compact(raw)
		if !slices.Equal(got, raw) {
			t.Fatalf("%+v: %d-byte set differs from slices.Sort+Compact (%d vs %d)", o, len(text), len(got), len(raw))
		}
	}
	// Char mode, about size shingles with heavy repetition: a block
	// repeated k times has the same set as the block repeated twice.
	block := text[:4000]
	k := size / len(block)
	s := mustNew(t, Options{Mode: Char, N: 5})
	got := s.AppendSet(nil, bytes.Repeat(block, k))
	want := s.AppendSet(nil, bytes.Repeat(block, 2))
	if !slices.Equal(got, want) {
		t.Fatalf("char: block×%d set differs from block×2 (%d vs %d)", k, len(got), len(want))
	}
}

// TestLargeDocument runs checkLargeDocument on 2 MB: a few hundred thousand
// word shingles and 2 million char shingles.
func TestLargeDocument(t *testing.T) {
	checkLargeDocument(t, 2<<20)
}

// TestHuge runs checkLargeDocument on 100 MB documents: about 10 million
// word shingles and 100 million char shingles. It needs NEARDUP_HUGE_TESTS.
func TestHuge(t *testing.T) {
	skipUnlessHuge(t)
	checkLargeDocument(t, 100<<20)
}

// TestLongToken checks a token of 1 MB (20 MB with NEARDUP_HUGE_TESTS)
// against the reference's hash: ASCII only (the fast path), after and
// before multi-byte runes, and followed by invalid UTF-8.
func TestLongToken(t *testing.T) {
	reps := 100_000
	if hugeTests() {
		reps = 2 << 20
	}
	tok := strings.Repeat("aBcDeFgHiJ", reps)
	for _, text := range []string{tok, "ü" + tok + "é", tok + "\xff"} {
		got := mustNew(t, Options{Mode: Word, N: 1}).AppendSet(nil, []byte(text))
		want := refHash(Word, []string{strings.ToLower(strings.TrimSuffix(text, "\xff"))})
		if len(got) != 1 || got[0] != want {
			t.Fatalf("%d-byte token: got %x, want %x", len(text), got, want)
		}
	}
}

// TestJaccardAtLeast compares the early-exit check with Jaccard on random
// sets of every overlap, including pairs exactly at the threshold.
func TestJaccardAtLeast(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	mk := func(n int, shared []uint64) []uint64 {
		s := append([]uint64(nil), shared...)
		for len(s) < n {
			s = append(s, rng.Uint64())
		}
		slices.Sort(s)
		return slices.Compact(s)
	}
	for it := 0; it < 20000; it++ {
		ns := rng.IntN(60)
		shared := make([]uint64, ns)
		for i := range shared {
			shared[i] = rng.Uint64()
		}
		a, b := mk(ns+rng.IntN(60), shared), mk(ns+rng.IntN(60), shared)
		if rng.IntN(50) == 0 {
			b = mk(ns+rng.IntN(2000), shared) // gallop path
		}
		th := []float64{0.1, 0.3, 0.5, 0.7, 0.8, 1}[rng.IntN(6)]
		if rng.IntN(4) == 0 { // exactly at a reachable value
			if j := Jaccard(a, b); j > 0 {
				th = j
			}
		}
		want := Jaccard(a, b)
		got, ok := JaccardAtLeast(a, b, th)
		if ok != (want >= th) || (ok && got != want) {
			t.Fatalf("|a|=%d |b|=%d t=%v: got (%v, %v), Jaccard %v", len(a), len(b), th, got, ok, want)
		}
		// With the overlap given, any overlap: true exactly when the
		// intersection reaches it.
		need := rng.IntN(len(a) + len(b) + 2)
		if rng.IntN(2) == 0 {
			need = MinOverlap(len(a), len(b), th)
		}
		inter := Intersection(a, b)
		got, ok = JaccardWithOverlap(b, a, need)
		if ok != (inter >= need) || (ok && got != want) {
			t.Fatalf("|a|=%d |b|=%d need %d, intersection %d: got (%v, %v), Jaccard %v", len(a), len(b), need, inter, got, ok, want)
		}
	}
	if _, ok := JaccardAtLeast(nil, nil, 0.5); ok {
		t.Error("two empty sets reach 0.5")
	}
	if j, ok := JaccardWithOverlap(nil, nil, 0); !ok || j != 0 {
		t.Errorf("two empty sets, overlap 0: (%v, %v), want (0, true)", j, ok)
	}
	if _, ok := JaccardWithOverlap(nil, []uint64{1}, 1); ok {
		t.Error("an empty set overlaps another by 1")
	}
}

// TestJaccardAtLeastBoundary gives JaccardAtLeast pairs whose overlap is
// exactly the least that reaches t, or one less, with the common elements
// placed last, first or spread out, on both kernels. Placed last, the
// count stays low until the end: a give-up bound that is too eager by even
// one element turns a pair at the threshold into a miss.
func TestJaccardAtLeastBoundary(t *testing.T) {
	saved := kernel
	defer func() { kernel = saved }()
	// build returns sets of na and nb elements sharing o, the shared ones
	// at the top, the bottom or every few places of the value range.
	build := func(na, nb, o int, where string) (a, b []uint64) {
		v := uint64(1000)
		next := func() uint64 { v += 3; return v }
		var common []uint64
		shared := func() { common = append(common, next()) }
		own := func(s *[]uint64, n int) {
			for range n {
				*s = append(*s, next())
			}
		}
		switch where {
		case "last":
			own(&a, na-o)
			own(&b, nb-o)
			for range o {
				shared()
			}
		case "first":
			for range o {
				shared()
			}
			own(&a, na-o)
			own(&b, nb-o)
		default: // spread
			for k := range max(na, nb) {
				if k < o {
					shared()
				}
				if k < na-o {
					own(&a, 1)
				}
				if k < nb-o {
					own(&b, 1)
				}
			}
		}
		a = append(a, common...)
		b = append(b, common...)
		slices.Sort(a)
		slices.Sort(b)
		return a, b
	}
	for _, k := range kernels {
		kernel = k
		for na := 1; na <= 70; na++ {
			for nb := na; nb <= na+45; nb += 3 {
				for _, th := range []float64{0.3, 0.5, 0.8} {
					need := MinOverlap(na, nb, th)
					if need > na {
						continue
					}
					for _, where := range []string{"last", "first", "spread"} {
						a, b := build(na, nb, need, where)
						want := float64(need) / float64(na+nb-need)
						if got, ok := JaccardAtLeast(a, b, th); !ok || got != want {
							t.Fatalf("%s %d/%d shared %s, t=%v: got (%v, %v), want (%v, true)", kernelName(k), na, nb, where, th, got, ok, want)
						}
						if got, ok := JaccardAtLeast(b, a, th); !ok || got != want {
							t.Fatalf("%s %d/%d shared %s, t=%v, swapped: got (%v, %v), want (%v, true)", kernelName(k), nb, na, where, th, got, ok, want)
						}
						if need == 0 {
							continue
						}
						a, b = build(na, nb, need-1, where)
						if got, ok := JaccardAtLeast(a, b, th); ok {
							t.Fatalf("%s %d/%d sharing %d %s, t=%v: got (%v, true), below the threshold", kernelName(k), na, nb, need-1, where, th, got)
						}
					}
				}
			}
		}
	}
}

// TestIntersectionKernels compares Intersection and JaccardAtLeast, on
// both kernels, with a map-based count over sizes around the block width
// and overlaps from none to total, including ties of block maxima.
func TestIntersectionKernels(t *testing.T) {
	if len(kernels) == 1 {
		t.Log("no vector kernel in this build or on this CPU")
	}
	saved := kernel
	defer func() { kernel = saved }()
	rng := rand.New(rand.NewPCG(5, 6))
	sizes := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 31, 33, 64, 100, 257, 600}
	for _, k := range kernels {
		kernel = k
		for it := 0; it < 4000; it++ {
			na, nb := sizes[rng.IntN(len(sizes))], sizes[rng.IntN(len(sizes))]
			universe := uint64(na + nb + 1)
			if rng.IntN(2) == 0 {
				universe = 1 << 62 // sparse: few matches
			}
			draw := func(n int) []uint64 {
				s := make([]uint64, 0, n)
				for range n {
					v := rng.Uint64N(universe)
					if rng.IntN(8) == 0 {
						v = ^v // values near the top of the range (unsigned order)
					}
					s = append(s, v)
				}
				slices.Sort(s)
				return slices.Compact(s)
			}
			a, b := draw(na), draw(nb)
			in := map[uint64]bool{}
			for _, x := range a {
				in[x] = true
			}
			want := 0
			for _, x := range b {
				if in[x] {
					want++
				}
			}
			if got := Intersection(a, b); got != want {
				t.Fatalf("%s |a|=%d |b|=%d: Intersection = %d, want %d", kernelName(k), len(a), len(b), got, want)
			}
			j := Jaccard(a, b)
			for _, th := range []float64{0.2, 0.5, j} {
				if th <= 0 {
					continue
				}
				got, ok := JaccardAtLeast(a, b, th)
				if ok != (j >= th) || (ok && got != j) {
					t.Fatalf("%s: JaccardAtLeast(t=%v) = (%v, %v), Jaccard %v", kernelName(k), th, got, ok, j)
				}
			}
		}
	}
}

// TestAppendTokens checks the token sequence against strings.ToLower and
// strings.FieldsFunc (Word) or the documented space folding (Char), and that
// the sets built from it are the shingle sets.
func TestAppendTokens(t *testing.T) {
	texts := []string{"", "   ", "Hello, World! Héllo wörld 42", "  a\u00a0b\t\tc  ", "possibilitÃ  di\xffparcheggio", "ΑΒΓ δεζ", "x"}
	w := mustNew(t, Options{})
	c := mustNew(t, Options{Mode: Char})
	for _, text := range texts {
		var want []uint64
		for _, tok := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isTokenRune(r) }) {
			want = append(want, hashBytes([]byte(tok)))
		}
		if got := w.AppendTokens([]uint64{7}, []byte(text))[1:]; !slices.Equal(got, want) {
			t.Errorf("word %q: %v, want %v", text, got, want)
		}
		var wantC []uint64
		for _, r := range strings.Join(strings.Fields(strings.ToLower(text)), " ") {
			wantC = append(wantC, uint64(r))
		}
		if got := c.AppendTokens(nil, []byte(text)); !slices.Equal(got, wantC) {
			t.Errorf("char %q: %v, want %v", text, got, wantC)
		}
	}
}

// TestASCIIPath: on ASCII text, the mask-based path (appendWordASCII,
// with its masks from alnum64 and from each vector kernel the CPU has,
// and its loop in Go and in assembly for N = 3) gives the same hashes in
// the same order as the general path, for shingle lengths 1 to 5, over
// random text whose tokens and separator runs have every length from 1 to
// 70, so that they start, end and cross every position of the 64-byte
// blocks and the text's end, and whose separators include the bytes
// beside each range of letters and digits; and on text with a byte >=
// 0x80 in any block, where the ASCII path hands over to the general one.
// On the same texts, AppendTokens' token hashes from the ASCII path are
// those of its rune-by-rune walk (eachToken).
func TestASCIIPath(t *testing.T) {
	defer func(saved bool) { useASCIIPath = saved }(useASCIIPath)
	defer func(saved int) { minASCIIRun = saved }(minASCIIRun)
	nonASCII := []string{"é", "\u2019", "\u2014", "ё", "Ё", "漢", "\u0301", "\xff", "\u00a0", "😀", "\xe2\x80"}
	defer func(saved maskKernel) { useMasks = saved }(useMasks)
	defer func(saved bool) { useWordAsm = saved }(useWordAsm)
	type kernels struct {
		masks maskKernel
		words bool
	}
	var ks []kernels
	for _, m := range maskKernels() {
		ks = append(ks, kernels{m, false})
		if haveWordAsm {
			ks = append(ks, kernels{m, true})
		}
	}
	if !haveMasksAVX2 {
		t.Log("no AVX2: the vector mask kernels are not tested")
	} else if !haveMasksAVX512 {
		t.Log("no AVX-512: the AVX-512 mask kernel is not tested")
	}
	if !haveWordAsm {
		t.Log("no BMI2: the assembly word loop is not tested")
	}
	r := rand.New(rand.NewPCG(7, 7))
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	const seps = " \n\t.,;:!?'\"()-_/@#\x00\x7f~[`{" // with the bytes beside each range
	run := func(n int) []byte {
		var b []byte
		for len(b) < n {
			k := 1 + r.IntN(8)
			if r.IntN(10) == 0 {
				k = 1 + r.IntN(70)
			}
			for range k {
				b = append(b, alnum[r.IntN(len(alnum))])
			}
			for range 1 + r.IntN(3) {
				b = append(b, seps[r.IntN(len(seps))])
			}
		}
		return b
	}
	for i := range 3000 {
		size := r.IntN(300)
		if i%10 == 0 {
			size = r.IntN(3000)
		}
		text := run(size)
		if r.IntN(2) == 0 { // end on a token byte half of the time
			text = bytes.TrimRight(text, seps)
		}
		if i%3 == 0 {
			text = text[r.IntN(len(text)+1):] // start anywhere
		}
		if i%3 == 1 { // a few runes that are not ASCII anywhere: ASCII runs between them
			for range 1 + r.IntN(3) {
				k := r.IntN(len(text) + 1)
				text = slices.Concat(text[:k], []byte(nonASCII[r.IntN(len(nonASCII))]), text[k:])
			}
		}
		// The shortest ASCII run the ASCII path takes within such a text.
		minASCIIRun = []int{1, 8, 64}[i%3]
		for n := 1; n <= 5; n++ {
			s := mustNew(t, Options{Mode: Word, N: n})
			useASCIIPath = false
			general := s.appendWord([]uint64{42}, text)
			useASCIIPath = true
			for _, k := range ks {
				useMasks, useWordAsm = k.masks, k.words
				// Masks left by an earlier call must not be taken for
				// this text's.
				for j := range s.masks[:cap(s.masks)] {
					s.masks[:cap(s.masks)][j] = r.Uint64()
				}
				if fast := s.appendWord([]uint64{42}, text); !slices.Equal(fast, general) {
					t.Fatalf("N=%d kernels %+v %q:\n ascii   %x\n general %x", n, k, text, fast, general)
				}
			}
		}
		s := mustNew(t, Options{Mode: Word})
		useASCIIPath = false
		walk := s.AppendTokens([]uint64{42}, text)
		useASCIIPath = true
		for _, m := range maskKernels() {
			useMasks = m
			if fast := s.AppendTokens([]uint64{42}, text); !slices.Equal(fast, walk) {
				t.Fatalf("AppendTokens, masks %v %q:\n ascii %x\n walk  %x", m, text, fast, walk)
			}
		}
	}
}

// checkASCII fails t if s, whose last call shingled text, vouches for a
// text with a byte outside ASCII (a caller then skips utf8.Valid).
func checkASCII(t *testing.T, s *Shingler, text []byte) {
	t.Helper()
	if s.ASCII() && bytes.ContainsFunc(text, func(r rune) bool { return r >= utf8.RuneSelf }) {
		t.Fatalf("ASCII() true for %q", text)
	}
	if valid, known := s.ValidUTF8(); known && valid != utf8.Valid(text) {
		t.Fatalf("ValidUTF8() %v for %q", valid, text)
	}
}

// TestValidUTF8: after word shingles of a text taken as it is, ValidUTF8
// knows whether it was valid UTF-8, wherever an invalid byte sits (in a
// token, between tokens, cutting a rune, at the end); in Char mode and
// after NFKC it does not know, and each call resets it.
func TestValidUTF8(t *testing.T) {
	word := mustNew(t, Options{Mode: Word})
	char := mustNew(t, Options{Mode: Char})
	nfkc := mustNew(t, Options{Mode: Word, NFKC: true})
	texts := []string{
		"plain ASCII text", "", "caf\u00e9 au lait", "Привет, мир", "日本語のテキスト",
		"bad \xff byte", "caf\xe9 au lait", "Прив\xd0ет", "Привет\xd0", "\xd0", "abc\xe6\x97",
		"word\x80", "\xf0\x9f\x98 x", "e\u0301\xcc", "ok \ufffd literal",
		strings.Repeat("Ё", 40) + "\xff", strings.Repeat("long ascii token ", 9) + "\xc3",
	}
	for _, text := range texts {
		for _, fn := range []func([]uint64, []byte) []uint64{word.AppendSet, word.AppendDistinct} {
			fn(nil, []byte(text))
			valid, known := word.ValidUTF8()
			if !known || valid != utf8.ValidString(text) {
				t.Errorf("%q: ValidUTF8() = %v, %v; want %v, true", text, valid, known, utf8.ValidString(text))
			}
		}
		for _, s := range []*Shingler{char, nfkc} {
			word.AppendSet(nil, []byte("\xff")) // a stale answer must not stay
			s.AppendSet(nil, []byte(text))
			if _, known := s.ValidUTF8(); known && s != nfkc {
				t.Errorf("%q: Char mode knows", text)
			}
			if valid, known := s.ValidUTF8(); known && valid != utf8.ValidString(text) {
				t.Errorf("%q: ValidUTF8() = %v, known", text, valid)
			}
		}
	}
}

// TestASCII: Shingler.ASCII is true after word shingles of ASCII text
// that the fast path took, false after any text with another byte
// (invalid UTF-8 included), after character shingles and after text that
// NFKC changed, and it is reset by each call.
func TestASCII(t *testing.T) {
	if !useASCIIPath {
		t.Skip("no ASCII path in this build")
	}
	word := mustNew(t, Options{Mode: Word})
	char := mustNew(t, Options{Mode: Char})
	nfkc := mustNew(t, Options{Mode: Word, NFKC: true})
	for _, c := range []struct {
		s    *Shingler
		text string
		want bool
	}{
		{word, "plain ASCII text, with punctuation!", true},
		{word, "", true},
		{word, "caf\u00e9 au lait", false},
		{word, "bad \xff byte", false},
		{word, "plain again", true},
		{char, "plain ASCII text", false},
		{nfkc, "plain ASCII text", true},
		{nfkc, "\uff21\uff22 fullwidth", false}, // NFKC makes it ASCII: not the text given
	} {
		for _, fn := range []func([]uint64, []byte) []uint64{c.s.AppendSet, c.s.AppendDistinct} {
			fn(nil, []byte(c.text))
			if got := c.s.ASCII(); got != c.want {
				t.Errorf("%q: ASCII() = %v, want %v", c.text, got, c.want)
			}
		}
	}
}
