package chart

import (
	"encoding/base64"
	"fmt"
	"html"
	"regexp"
	"sync"
	"unicode"

	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
)

// The charts' text is set in Go Regular (golang.org/x/image/font/gofont),
// not gonum's default Liberation Serif, and the SVG carries the font:
//
//   - gonum places every label from its own measure of the font, and an SVG
//     viewer draws it in whatever font the name finds. Liberation is missing
//     from many systems (minimal Debian, most containers); the browser's
//     fallback (DejaVu there) is some 10% wider, so labels ran past the
//     canvas edge: "1.0" at the end of an axis was cut. An embedded font is
//     the one gonum measured, on every viewer.
//   - The whole font is embedded, once per page or standalone SVG: 0.18 MB
//     of base64 (Liberation's would be 0.5 MB). Cutting it down to the
//     glyphs in use would save most of that, but would take a hand-written
//     TrueType subsetter; we prefer the larger page.
//   - Go Regular has no kerning tables, so a browser lays a string out with
//     exactly the advances gonum summed.

// fontFamily is the CSS font-family of the charts' text in SVG output: the
// embedded font, then a generic family for a viewer that refuses it.
const fontFamily = `Go,sans-serif`

// fontName is the family in the font's name table, which vgsvg writes.
const fontName = "Go"

var chartFont = sync.OnceValues(func() (*opentype.Font, error) {
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return nil, fmt.Errorf("chart: parse Go Regular: %w", err)
	}
	return f, nil
})

// textFont returns the text handler and font descriptor for the charts.
// The handler's cache holds the one font, so no text falls back to gonum's
// default cache.
var textFont = sync.OnceValues(func() (text.Handler, font.Font) {
	f, err := chartFont()
	if err != nil {
		panic(err) // the font is compiled in: a parse error is a broken build
	}
	fnt := font.Font{Typeface: fontName}
	return text.Plain{Fonts: font.NewCache(font.Collection{{Font: fnt, Face: f}})}, fnt
})

// useFont sets sty to the chart font, keeping its size.
func useFont(sty *text.Style) {
	h, fnt := textFont()
	fnt.Size = sty.Font.Size
	sty.Font, sty.Handler = fnt, h
}

// checkGlyphs returns an error wrapping ErrGlyph if some text of p has a
// character other than white space that the chart font lacks.
func (p *Plot) checkGlyphs() error {
	f, err := chartFont()
	if err != nil {
		return err
	}
	var buf sfnt.Buffer
	check := func(what, s string) error {
		for _, r := range s {
			if unicode.IsSpace(r) {
				continue
			}
			if g, err := f.GlyphIndex(&buf, r); err != nil || g == 0 {
				return fmt.Errorf("%w: %U in the %s %q", ErrGlyph, r, what, s)
			}
		}
		return nil
	}
	texts := [][2]string{{"title", p.Title}, {"x label", p.XLabel}, {"y label", p.YLabel}}
	for _, s := range p.Series {
		texts = append(texts, [2]string{"series name", s.Name})
	}
	for _, m := range p.Markers {
		texts = append(texts, [2]string{"marker label", m.Label})
	}
	for _, t := range p.XTicks {
		texts = append(texts, [2]string{"tick label", t.Label})
	}
	for _, t := range texts {
		if err := check(t[0], t[1]); err != nil {
			return err
		}
	}
	return nil
}

// svgTextRE matches a <text> element of vgsvg's output; group 1 is its
// content (escaped by html.EscapeString).
var svgTextRE = regexp.MustCompile(`<text\b[^>]*>([^<]*)</text>`)

// svgFamilyRE matches the font-family vgsvg writes for the chart font.
var svgFamilyRE = regexp.MustCompile(`font-family:` + fontName + `;`)

// svgTexts returns the content of the <text> elements of an SVG rendered by
// this package, unescaped.
func svgTexts(svg []byte) []string {
	var out []string
	for _, m := range svgTextRE.FindAllSubmatch(svg, -1) {
		out = append(out, html.UnescapeString(string(m[1])))
	}
	return out
}

// FontFaceCSS returns a CSS @font-face rule that defines the font family
// the charts' text names ("Go") from a data: URL holding Go Regular. A page
// that shows several charts needs one rule for all of them: two rules for
// one family shadow each other. The page's Content-Security-Policy, if any,
// must allow font-src data:.
func FontFaceCSS() string {
	return fontFaceCSS()
}

var fontFaceCSS = sync.OnceValue(func() string {
	return `@font-face{font-family:` + fontName + `;font-style:normal;font-weight:normal;src:url(data:font/ttf;base64,` +
		base64.StdEncoding.EncodeToString(goregular.TTF) + `) format("truetype");}`
})

// withFontFamily rewrites the font-family vgsvg names (the bare family of
// the name table) to fontFamily.
func withFontFamily(svg []byte) []byte {
	return svgFamilyRE.ReplaceAllLiteral(svg, []byte("font-family:"+fontFamily+";"))
}
