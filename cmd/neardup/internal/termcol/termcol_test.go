package termcol

import (
	"slices"
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	got := Wrap("aaa bbb\tccc\n\nddddddddddd e", 8)
	want := []string{"aaa bbb", "ccc", "dddddddd", "ddd e"}
	if !slices.Equal(got, want) {
		t.Fatalf("wrap = %q, want %q", got, want)
	}
}

// Side-by-side examples are laid out in terminal cells: a Chinese or
// Japanese character takes two, a combining mark none, so columns line up
// and text without spaces is still cut into lines.
func TestWrapCells(t *testing.T) {
	ja := "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。"
	lines := Wrap(ja, 20)
	if len(lines) < 3 {
		t.Fatalf("%q: %d lines, want it cut", ja, len(lines))
	}
	for _, l := range lines {
		if c := Width([]rune(l)); c > 20 {
			t.Errorf("line %q takes %d cells, more than 20", l, c)
		}
		if p := Pad(l, 20); Width([]rune(p)) != 20 {
			t.Errorf("Pad(%q) takes %d cells", l, Width([]rune(p)))
		}
	}
	if strings.Join(lines, "") != ja {
		t.Errorf("wrap lost text: %q", lines)
	}
	if got := Wrap("the quick brown fox jumps", 10); !slices.Equal(got, []string{"the quick", "brown fox", "jumps"}) {
		t.Errorf("English: %q", got)
	}
	if c := Width([]rune("cafe\u0301")); c != 4 {
		t.Errorf("a combining mark takes %d cells", c-4)
	}
	if got := Clip("日本語テキスト", 7); Width([]rune(got)) > 7 || !strings.HasSuffix(got, "…") {
		t.Errorf("clip: %q", got)
	}
}
