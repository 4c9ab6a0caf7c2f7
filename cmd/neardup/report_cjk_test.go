package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// cjkReportDocs are near-copies in Japanese (one kanji changed, and the
// copy wrapped at another width), Chinese (one word changed) and Korean
// (one word changed), and an unrelated Japanese text.
var cjkReportDocs = [][2]string{
	{"ja", "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。"},
	{"ja-copy", "吾輩は犬である。名前はまだ無い。\nどこで生れたかとんと見当がつかぬ。\n何でも薄暗いじめじめした所で\nニャーニャー泣いていた事だけは記憶している。"},
	{"zh", "我们在Linux系统上运行这个程序已经很多年了，从来没有遇到过严重的问题，所以我们决定继续使用它。"},
	{"zh-copy", "我们在Linux系统上运行这个软件已经很多年了，从来没有遇到过严重的问题，所以我们决定继续使用它。"},
	{"ko", "이 패키지는 리눅스 시스템에서 파일을 빠르게 검색하는 도구를 제공합니다. 정규 표현식과 여러 인코딩을 지원하며 큰 디렉터리에서도 빠릅니다."},
	{"ko-copy", "이 패키지는 리눅스 시스템에서 파일을 빠르게 찾는 도구를 제공합니다. 정규 표현식과 여러 인코딩을 지원하며 큰 디렉터리에서도 빠릅니다."},
	{"other", "今日は良い天気ですね。明日は雨が降るかもしれませんが、週末には晴れるでしょう。"},
}

// needsCJKFont reports whether r is drawn from a CJK font: Han, kana and
// Hangul.
func needsCJKFont(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// cjkReport writes the corpus and its report and returns the page's path.
func cjkReport(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var lines []string
	for _, d := range cjkReportDocs {
		b, _ := json.Marshal(map[string]string{"id": d[0], "text": d[1]})
		lines = append(lines, string(b))
	}
	in := write(t, dir, "cjk.jsonl", strings.Join(lines, "\n")+"\n")
	page := filepath.Join(dir, "report.html")
	if code, _, stderr := cli(t, "", "dedup", "--quiet", "--report", page, in); code != 0 {
		t.Fatalf("dedup --report: exit %d: %s", code, stderr)
	}
	return page
}

// TestReportCJK: the report of Chinese, Japanese and Korean copies shows
// them side by side with the changed characters or words marked, and
// nothing else marked: the line breaks of the re-wrapped Japanese copy are
// not a difference.
func TestReportCJK(t *testing.T) {
	raw := read(t, cjkReport(t))
	checkWellFormed(t, raw)
	checkOffline(t, raw)
	// Each pair is shown twice: among the largest and the most suspicious
	// clusters.
	if n := strings.Count(raw, `<div class="pair" `); n != 6 {
		t.Fatalf("%d side-by-side pairs, want 6 (ja, zh, ko, twice)", n)
	}
	marks := func(class string) []string {
		var m []string
		for _, s := range strings.Split(raw, `<mark class="`+class+`">`)[1:] {
			if s = s[:strings.Index(s, "</mark>")]; !strings.HasPrefix(s, "only in the ") { // not the legend
				m = append(m, s)
			}
		}
		slices.Sort(m)
		return slices.Compact(m)
	}
	if got, want := marks("del"), []string{"猫", "程序", "검색하는"}; !slices.Equal(got, want) {
		t.Errorf("marked as only in the representative: %q, want %q", got, want)
	}
	if got, want := marks("ins"), []string{"犬", "软件", "찾는"}; !slices.Equal(got, want) {
		t.Errorf("marked as only in the member: %q, want %q", got, want)
	}
}

// TestReportCJKInBrowser loads the report of TestReportCJK in headless
// Chromium and asks the browser (over the DevTools protocol) which fonts it
// drew each side-by-side text with: every Han, kana and Hangul character
// must have been drawn with a font that has all the text's CJK characters
// (by fontconfig), not as a missing-glyph box. It also takes a screenshot for a look, kept
// at $NEARDUP_REPORT_CJK_SCREENSHOT or $TMPDIR/neardup-report-cjk.png.
//
// It skips without Chromium, and when no installed font covers the
// corpus's characters: the page leaves document text to the viewer's
// fonts (a CJK font is 2-20 MB; every desktop system has one), and
// .ci/install-chromium installs one.
func TestReportCJKInBrowser(t *testing.T) {
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Skip("skipping: /usr/bin/chromium is not installed (.ci/install-chromium installs it)")
	}
	// Chromium picks a font per character, so each text needs a font for
	// its own characters (a Korean one, a Japanese one...).
	covering := map[string]map[string]bool{} // by the text's CJK characters
	cjkOf := func(text string) (key string, n int) {
		var rs []rune
		for _, r := range text {
			if needsCJKFont(r) {
				n++
				if !slices.Contains(rs, r) {
					rs = append(rs, r)
				}
			}
		}
		slices.Sort(rs)
		key = string(rs)
		if _, ok := covering[key]; !ok {
			covering[key] = fontsCovering(t, rs)
		}
		return key, n
	}
	for _, d := range cjkReportDocs {
		if key, _ := cjkOf(d[1]); len(covering[key]) == 0 {
			t.Skipf("skipping: no installed font has all the Han, kana and Hangul characters of %s (.ci/install-chromium installs one)", d[0])
		}
	}
	page := cjkReport(t)
	d := startDevtools(t)
	d.load(page)
	// Open every cluster: the browser draws (and reports fonts for) only
	// what is laid out.
	d.eval(`document.querySelectorAll("details").forEach(e => { e.open = true }); document.body.offsetHeight`, nil)
	texts, fonts := d.renderedFonts(".pair .text")
	if len(texts) != 12 {
		t.Fatalf("%d side-by-side texts in the rendered page, want 12 (3 pairs, each shown twice)", len(texts))
	}
	for i, text := range texts {
		key, want := cjkOf(text)
		got := 0
		for _, f := range fonts[i] {
			if covering[key][f.FamilyName] {
				got += f.GlyphCount
			}
		}
		if want == 0 || got < want {
			t.Errorf("text %d (%.30q...): %d glyphs drawn with fonts that have its %d CJK characters; fonts used: %+v",
				i, text, got, want, fonts[i])
		}
	}
	shot := os.Getenv("NEARDUP_REPORT_CJK_SCREENSHOT")
	if shot == "" {
		shot = filepath.Join(os.TempDir(), "neardup-report-cjk.png")
	}
	d.screenshot(shot, 1200)
	if fi, err := os.Stat(shot); err != nil || fi.Size() < 10000 {
		t.Fatalf("no screenshot at %s (%v)", shot, err)
	}
	t.Logf("screenshot: %s", shot)
}

// fontsCovering returns the families of the installed fonts that have
// every rune of rs, by fontconfig's fc-list (Chromium's font source on
// Linux), or nil when fc-list is absent.
func fontsCovering(t *testing.T, rs []rune) map[string]bool {
	t.Helper()
	if _, err := exec.LookPath("fc-list"); err != nil {
		return nil
	}
	var cs []string
	for _, r := range rs {
		cs = append(cs, fmt.Sprintf("%x", r))
	}
	out, err := exec.Command("fc-list", ":charset="+strings.Join(cs, " "), "family").Output()
	if err != nil {
		t.Fatalf("fc-list: %v", err)
	}
	fams := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		for _, f := range strings.Split(line, ",") {
			if f = strings.TrimSpace(f); f != "" {
				fams[f] = true
			}
		}
	}
	return fams
}
