package shingle

import (
	"slices"
	"strings"
	"testing"
)

// TestAppendTokenStrings checks the token strings against strings.ToLower
// and strings.FieldsFunc (Word) or the documented space folding (Char), and
// that they are what AppendTokens hashes.
func TestAppendTokenStrings(t *testing.T) {
	texts := []string{"", "   ", "Hello, World! Héllo wörld 42", "  a\u00a0b\t\tc  ", "possibilitÃ  di\xffparcheggio", "ΑΒΓ δεζ", "x"}
	w := mustNew(t, Options{})
	c := mustNew(t, Options{Mode: Char})
	for _, text := range texts {
		want := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isTokenRune(r) })
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
		for _, r := range strings.Join(strings.Fields(strings.ToLower(text)), " ") {
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
