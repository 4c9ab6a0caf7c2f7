package chart

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// glyphOf returns the glyph index of r in f and its outline at 1 unit per
// font unit.
func glyphOf(t *testing.T, f *sfnt.Font, r rune) (sfnt.GlyphIndex, sfnt.Segments) {
	t.Helper()
	var buf sfnt.Buffer
	g, err := f.GlyphIndex(&buf, r)
	if err != nil {
		t.Fatalf("GlyphIndex(%q): %v", r, err)
	}
	segs, err := f.LoadGlyph(&buf, g, fixed.Int26_6(f.UnitsPerEm()), nil)
	if err != nil {
		t.Fatalf("LoadGlyph(%q): %v", r, err)
	}
	return g, slices.Clone(segs)
}

// labelled is a chart with text of every kind: title, axis labels, a
// legend and marker labels with non-ASCII characters.
func labelled() *Plot {
	return &Plot{
		Title: "S-curve × threshold", XLabel: "Jaccard similarity", YLabel: "P(candidate)",
		XMin: 0, XMax: 1, YMin: 0, YMax: 1,
		Series: []Series{
			{Name: "b=35 r=3", X: []float64{0, 0.5, 1}, Y: []float64{0, 0.99, 1}},
			{Name: "b=20 r=5", X: []float64{0, 0.5, 1}, Y: []float64{0, 0.47, 1}},
		},
		Markers: []Marker{{X: 0.5, Y: 0.99, Label: "P ≥ 0.99 – t"}},
		VLines:  []float64{0.5},
	}
}

// embeddedFont parses the font of the first data: URL of a @font-face in b.
func embeddedFont(t *testing.T, b []byte) *sfnt.Font {
	t.Helper()
	m := regexp.MustCompile(`url\(data:font/ttf;base64,([A-Za-z0-9+/=]+)\)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no embedded font in %.200q", b)
	}
	ttf, err := base64.StdEncoding.DecodeString(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	f, err := sfnt.Parse(ttf)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestSVGFont(t *testing.T) {
	p := labelled()
	inline, err := p.SVG(420, 260)
	if err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(inline)
	if len(texts) < 10 {
		t.Fatalf("%d <text> elements: %q", len(texts), texts)
	}
	for _, want := range []string{p.Title, p.XLabel, p.YLabel, "b=35 r=3", "P ≥ 0.99 – t"} {
		if !slices.Contains(texts, want) {
			t.Errorf("no <text> %q among %q", want, texts)
		}
	}
	// Every text names the font, which gonum measured: none falls back to
	// gonum's default (Liberation Serif, which viewers often lack).
	if n := bytes.Count(inline, []byte("font-family:"+fontFamily+";")); n != len(texts) {
		t.Errorf("%d of %d <text> elements name font-family %s", n, len(texts), fontFamily)
	}
	if bytes.Contains(inline, []byte("Liberation")) || bytes.Contains(inline, []byte("@font-face")) {
		t.Errorf("the SVG for inlining names Liberation or embeds a font")
	}

	var standalone bytes.Buffer
	if err := p.Render(&standalone, "svg", 420, 260); err != nil {
		t.Fatal(err)
	}
	checkSVG(t, standalone.Bytes())
	f := embeddedFont(t, standalone.Bytes())
	if !bytes.Contains(standalone.Bytes(), []byte("@font-face{font-family:"+fontName+";")) {
		t.Errorf("the standalone SVG's @font-face does not define family %s", fontName)
	}
	for _, s := range svgTexts(standalone.Bytes()) {
		for _, r := range s {
			if g, segs := glyphOf(t, f, r); g == 0 || (r != ' ' && len(segs) == 0) {
				t.Errorf("%q of %q: glyph %d with %d segments in the embedded font", r, s, g, len(segs))
			}
		}
	}

	// The page's rule embeds the very font gonum measured with.
	if f := embeddedFont(t, []byte(FontFaceCSS())); f.NumGlyphs() != mustChartFont(t).NumGlyphs() {
		t.Errorf("FontFaceCSS embeds a font of %d glyphs, the charts' has %d", f.NumGlyphs(), mustChartFont(t).NumGlyphs())
	}
}

func mustChartFont(t *testing.T) *sfnt.Font {
	t.Helper()
	f, err := sfnt.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

var tickTextRE = regexp.MustCompile(`<text x="([-0-9.e]+)" y="([-0-9.e]+)"[^>]*>([^<]*)</text>`)

// textWidth is the width of s in the chart font at size points.
func textWidth(t *testing.T, s string, size float64) float64 {
	t.Helper()
	f, err := chartFont()
	if err != nil {
		t.Fatal(err)
	}
	var buf sfnt.Buffer
	upem := f.UnitsPerEm()
	var sum fixed.Int26_6
	for _, r := range s {
		g, err := f.GlyphIndex(&buf, r)
		if err != nil {
			t.Fatal(err)
		}
		a, err := f.GlyphAdvance(&buf, g, fixed.Int26_6(upem), font.HintingNone)
		if err != nil {
			t.Fatal(err)
		}
		sum += a
	}
	return float64(sum) / float64(upem) * size
}

func TestXTicks(t *testing.T) {
	f := func(n int, wantAll bool) {
		t.Helper()
		p := &Plot{XLabel: "documents"}
		var x, y []float64
		labels := map[string]int{}
		for k := 1; k <= n; k++ {
			x, y = append(x, float64(k)), append(y, float64(k))
			p.XTicks = append(p.XTicks, Tick{Value: float64(k), Label: strconv.Itoa(1 << k)})
			labels[strconv.Itoa(1<<k)] = k
		}
		p.XTicks = append(p.XTicks, Tick{Value: float64(n + 1), Label: strconv.Itoa(1 << (n + 1))})
		labels[strconv.Itoa(1<<(n+1))] = n + 1
		p.Series = []Series{{Kind: Bars, X: x, Y: y, Width: 1}}
		svg, err := p.SVG(420, 260)
		if err != nil {
			t.Fatal(err)
		}
		type span struct {
			k      int
			x0, x1 float64
		}
		var shown []span
		for _, m := range tickTextRE.FindAllStringSubmatch(string(svg), -1) {
			k, ok := labels[m[3]]
			if !ok {
				continue
			}
			x0, _ := strconv.ParseFloat(m[1], 64)
			shown = append(shown, span{k, x0, x0 + textWidth(t, m[3], 10)})
		}
		slices.SortFunc(shown, func(a, b span) int { return a.k - b.k })
		if len(shown) == 0 || shown[0].k != 1 {
			t.Fatalf("%d ticks: the first label (2) is not drawn: %v", n, shown)
		}
		if wantAll && len(shown) != n+1 {
			t.Errorf("%d ticks: %d labels drawn, want all %d", n, len(shown), n+1)
		}
		if len(shown) < 5 {
			t.Errorf("%d ticks: only %d labels drawn", n, len(shown))
		}
		for i := 1; i < len(shown); i++ {
			if a, b := shown[i-1], shown[i]; b.x0 < a.x1 || b.x0 < a.x0 {
				t.Errorf("%d ticks: label %d at [%.1f, %.1f] runs into label %d at [%.1f, %.1f]", n, 1<<b.k, b.x0, b.x1, 1<<a.k, a.x0, a.x1)
			}
		}
		if strings.Contains(string(svg), ">0.5<") || strings.Contains(string(svg), ">1.5<") {
			t.Errorf("%d ticks: automatic ticks drawn besides XTicks", n)
		}
	}
	f(5, true)   // 2 ... 64: room for all
	f(10, true)  // 2 ... 2048
	f(24, false) // 2 ... 33554432: every other label or fewer
	f(30, false)
}
