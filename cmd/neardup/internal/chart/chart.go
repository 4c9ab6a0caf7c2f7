// Package chart draws the few kinds of chart neardup needs (S-curves,
// histograms with log-scaled counts, found-fraction per similarity bin) as
// SVG or PNG with gonum/plot.
//
// A Plot is plain data: build it, then Render, SVG or WriteFile it. Nothing
// here is shared between calls, so different Plots may be rendered
// concurrently; one Plot must not be modified while it is rendered.
//
// Text is set in Go Regular, which SVG output embeds or, for charts inlined
// in an HTML page, leaves to the page (see FontFaceCSS). Go Regular covers
// Latin, Greek and Cyrillic, not Chinese, Japanese or Korean: a chart's
// text is the caller's labels and numbers, never document text, and a
// character the font lacks is an error (ErrGlyph), not a box on the chart.
package chart

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/neardup/neardup/internal/atomicfile"
)

// Kind is how a series is drawn.
type Kind uint8

const (
	Line   Kind = iota // a polyline through the points
	Points             // markers only
	Bars               // a histogram: X are bin left edges, each bar spans to the next X (or X+Width for the last)
)

// Series is one set of points.
type Series struct {
	Name  string
	Kind  Kind
	X, Y  []float64
	Width float64 // Bars: width of the last bar (default: the previous bin's width)
}

// Tick is a tick mark of an axis; one without a Label is a minor tick.
type Tick struct {
	Value float64
	Label string
}

// Marker is a labelled point, such as a target (similarity, probability).
type Marker struct {
	X, Y  float64
	Label string
}

// Plot is one chart.
type Plot struct {
	Title, XLabel, YLabel string
	LogY                  bool      // log-scaled Y axis (zero values are drawn at the axis floor)
	XMin, XMax            float64   // axis range; both zero: automatic
	YMin, YMax            float64   // axis range; both zero: automatic
	Series                []Series  // drawn in order, with a legend when more than one has a Name
	Markers               []Marker  // drawn on top
	VLines                []float64 // vertical reference lines (e.g. the threshold)
	// XTicks are the X axis ticks; nil: automatic. A label that would run
	// into the label before it is left out (its tick stays, as a minor one).
	XTicks []Tick
}

// ErrFormat is returned for an output format other than svg or png.
var ErrFormat = errors.New("chart: unknown format (want svg or png)")

// ErrGlyph is returned for a title, label or series name with a character
// that the chart font (Go Regular) has no glyph for.
var ErrGlyph = errors.New("chart: a character the chart font has no glyph for")

// palette is a set of colours that stay distinct on white and in print.
var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, // blue
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, // red
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, // green
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, // orange
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, // purple
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}, // brown
	color.RGBA{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff}, // cyan
	color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff}, // grey
}

// Render writes p as "svg" or "png", width x height in points (SVG) or
// pixels at 96 dpi (PNG). The format is case-insensitive; any other gives
// an error wrapping ErrFormat. Series whose X and Y differ in length, or
// that hold NaN or infinite values, give an error. An SVG is standalone:
// it embeds the glyphs of its text (see FontFaceCSS).
func (p *Plot) Render(w io.Writer, format string, width, height float64) error {
	if !(width > 0 && height > 0) {
		return fmt.Errorf("chart: size %vx%v: want positive", width, height)
	}
	format = strings.ToLower(format)
	if format != "svg" && format != "png" {
		return fmt.Errorf("%w: %q", ErrFormat, format)
	}
	var err error
	switch format {
	case "svg":
		var b []byte
		if b, err = p.svg(width, height); err != nil {
			return err
		}
		if b, err = embedFont(b); err != nil {
			return err
		}
		_, err = w.Write(b)
	default:
		const dpi = 96
		c := vgimg.NewWith(vgimg.UseWH(vg.Length(width)*vg.Inch/dpi, vg.Length(height)*vg.Inch/dpi), vgimg.UseDPI(dpi))
		if err := p.draw(c); err != nil {
			return err
		}
		_, err = vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	}
	if err != nil {
		return fmt.Errorf("chart: write %s: %w", format, err)
	}
	return nil
}

// draw builds p and draws it on c.
func (p *Plot) draw(c vg.CanvasSizer) error {
	gp, err := p.build()
	if err != nil {
		return err
	}
	dc := draw.New(c)
	if p.XTicks != nil {
		gp.X.Tick.Marker = plot.ConstantTicks(thinLabels(gp, dc, p.XTicks))
	}
	gp.Draw(dc)
	return nil
}

// svg renders p as an SVG document whose text names fontFamily, without
// embedding the font.
func (p *Plot) svg(width, height float64) ([]byte, error) {
	c := vgsvg.New(vg.Length(width), vg.Length(height))
	if err := p.draw(c); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart: write svg: %w", err)
	}
	return withFontFamily(buf.Bytes()), nil
}

// embedFont puts the @font-face of FontFaceCSS(svg) in svg, first thing in
// its root element.
func embedFont(svg []byte) ([]byte, error) {
	css := FontFaceCSS()
	i := bytes.Index(svg, []byte("<svg"))
	j := bytes.IndexByte(svg[max(i, 0):], '>')
	if i < 0 || j < 0 {
		return nil, errors.New("chart: no <svg> element in the rendering")
	}
	at := i + j + 1
	out := make([]byte, 0, len(svg)+len(css)+64)
	out = append(out, svg[:at]...)
	out = append(out, "\n<defs><style>"...)
	out = append(out, css...)
	out = append(out, "</style></defs>"...)
	return append(out, svg[at:]...), nil
}

// thinLabels returns ticks with the labels that would overlap the label
// before them (with a gap of a third of the font size) left out, where gp
// draws its X axis on dc.
func thinLabels(gp *plot.Plot, dc draw.Canvas, ticks []Tick) plot.ConstantTicks {
	out := make(plot.ConstantTicks, len(ticks))
	for i, t := range ticks {
		out[i] = plot.Tick{Value: t.Value, Label: t.Label}
	}
	gp.X.Tick.Marker = out
	da := gp.DataCanvas(dc)
	tx, _ := gp.Transforms(&da)
	sty := gp.X.Tick.Label
	gap := sty.Font.Size / 3
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(out[a].Value, out[b].Value) })
	right := vg.Length(math.Inf(-1))
	for _, i := range order {
		t := &out[i]
		if t.Label == "" {
			continue
		}
		if t.Value < gp.X.Min || t.Value > gp.X.Max {
			t.Label = ""
			continue
		}
		x, w := tx(t.Value), sty.Width(t.Label)
		if x-w/2 < right+gap {
			t.Label = ""
			continue
		}
		right = x + w/2
	}
	return out
}

// WriteFile renders p to path, the format chosen by the extension (.svg or
// .png), written atomically.
func (p *Plot) WriteFile(path string, width, height float64) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if format != "svg" && format != "png" {
		return fmt.Errorf("%w: %s: want a .svg or .png file name", ErrFormat, path)
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	if err := p.Render(f, format, width, height); err != nil {
		f.Abort()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Commit()
}

// SVG renders p as an SVG document for inlining in an HTML page, width x
// height in points. Unlike Render's, its text names the chart font without
// embedding it: the page must define it, once for all its charts, with
// FontFaceCSS.
func (p *Plot) SVG(width, height float64) ([]byte, error) {
	if !(width > 0 && height > 0) {
		return nil, fmt.Errorf("chart: size %vx%v: want positive", width, height)
	}
	return p.svg(width, height)
}

// build turns p into a gonum plot.
func (p *Plot) build() (*plot.Plot, error) {
	for i, s := range p.Series {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("chart: series %d (%q): %d x values, %d y values", i, s.Name, len(s.X), len(s.Y))
		}
		for k := range s.X {
			if !finite(s.X[k]) || !finite(s.Y[k]) {
				return nil, fmt.Errorf("chart: series %d (%q): point %d (%v, %v) is not finite", i, s.Name, k, s.X[k], s.Y[k])
			}
		}
	}
	for _, m := range p.Markers {
		if !finite(m.X) || !finite(m.Y) {
			return nil, fmt.Errorf("chart: marker %q (%v, %v) is not finite", m.Label, m.X, m.Y)
		}
	}
	if err := p.checkGlyphs(); err != nil {
		return nil, err
	}
	gp := plot.New()
	for _, sty := range []*text.Style{&gp.Title.TextStyle, &gp.X.Label.TextStyle, &gp.Y.Label.TextStyle,
		&gp.X.Tick.Label, &gp.Y.Tick.Label, &gp.Legend.TextStyle} {
		useFont(sty)
	}
	gp.Title.Text = p.Title
	gp.X.Label.Text = p.XLabel
	gp.Y.Label.Text = p.YLabel
	gp.Title.TextStyle.Font.Size = vg.Points(13)
	gp.X.Label.TextStyle.Font.Size = vg.Points(11)
	gp.Y.Label.TextStyle.Font.Size = vg.Points(11)
	gp.Add(plotter.NewGrid())

	floor := 0.0
	if p.LogY {
		floor = p.logFloor()
		gp.Y.Scale = plot.LogScale{}
		gp.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	y := func(v float64) float64 {
		if p.LogY && v < floor {
			return floor
		}
		return v
	}

	named := 0
	for _, s := range p.Series {
		if s.Name != "" {
			named++
		}
	}
	for i, s := range p.Series {
		col := palette[i%len(palette)]
		xys := make(plotter.XYs, len(s.X))
		for k := range s.X {
			xys[k] = plotter.XY{X: s.X[k], Y: y(s.Y[k])}
		}
		var th plot.Thumbnailer
		switch s.Kind {
		case Line:
			if len(xys) == 0 {
				continue
			}
			l, err := plotter.NewLine(xys)
			if err != nil {
				return nil, fmt.Errorf("chart: series %q: %w", s.Name, err)
			}
			l.LineStyle.Color = col
			l.LineStyle.Width = vg.Points(1.75)
			if i > 0 && named > 1 {
				// Vary the dash too, so series stay apart in grey print.
				l.LineStyle.Dashes = dashes[i%len(dashes)]
			}
			gp.Add(l)
			th = l
		case Points:
			if len(xys) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, fmt.Errorf("chart: series %q: %w", s.Name, err)
			}
			sc.GlyphStyle.Color = col
			sc.GlyphStyle.Radius = vg.Points(3)
			sc.GlyphStyle.Shape = draw.CircleGlyph{}
			gp.Add(sc)
			th = sc
		case Bars:
			b := newBars(s, col, floor, p.LogY)
			if b == nil {
				continue
			}
			gp.Add(b)
			th = b
		default:
			return nil, fmt.Errorf("chart: series %q: unknown kind %d", s.Name, s.Kind)
		}
		if s.Name != "" && named > 0 {
			gp.Legend.Add(s.Name, th)
		}
	}
	for _, x := range p.VLines {
		if finite(x) {
			gp.Add(vline{x: x})
		}
	}
	if len(p.Markers) > 0 {
		xys := make(plotter.XYs, len(p.Markers))
		labels := make([]string, len(p.Markers))
		for k, m := range p.Markers {
			xys[k] = plotter.XY{X: m.X, Y: y(m.Y)}
			labels[k] = m.Label
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, fmt.Errorf("chart: markers: %w", err)
		}
		sc.GlyphStyle.Color = color.Black
		sc.GlyphStyle.Radius = vg.Points(4)
		sc.GlyphStyle.Shape = draw.CrossGlyph{}
		gp.Add(sc)
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			return nil, fmt.Errorf("chart: markers: %w", err)
		}
		for i := range lb.TextStyle {
			useFont(&lb.TextStyle[i])
		}
		lb.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(-4)}
		gp.Add(lb)
	}
	if named > 0 {
		gp.Legend.Top = true
		gp.Legend.Left = !p.legendRight()
		gp.Legend.XOffs = vg.Points(8)
		if !gp.Legend.Left {
			gp.Legend.XOffs = -vg.Points(8)
		}
		gp.Legend.YOffs = -vg.Points(8)
		gp.Legend.Padding = vg.Points(2)
	}

	if p.XMin != 0 || p.XMax != 0 {
		gp.X.Min, gp.X.Max = p.XMin, p.XMax
	}
	if p.YMin != 0 || p.YMax != 0 {
		gp.Y.Min, gp.Y.Max = p.YMin, p.YMax
	}
	if p.LogY {
		// A log axis needs a positive range; the floor is its bottom.
		if !(gp.Y.Min > 0) || gp.Y.Min > floor {
			gp.Y.Min = floor
		}
		if !(gp.Y.Max > gp.Y.Min) {
			gp.Y.Max = gp.Y.Min * 10
		}
	}
	if math.IsInf(gp.X.Min, 0) || math.IsInf(gp.X.Max, 0) {
		gp.X.Min, gp.X.Max = 0, 1 // nothing to draw: a plain empty frame
	}
	if math.IsInf(gp.Y.Min, 0) || math.IsInf(gp.Y.Max, 0) {
		gp.Y.Min, gp.Y.Max = 0, 1
		if p.LogY {
			gp.Y.Min, gp.Y.Max = floor, floor*10
		}
	}
	return gp, nil
}

var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}}

// legendRight reports whether the legend goes top right: when the data in
// the left fifth of the X range reach higher than in the right fifth (an
// S-curve's right side is at the top, so its legend goes left).
func (p *Plot) legendRight() bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range p.Series {
		for _, x := range s.X {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	if !(hi > lo) {
		return true
	}
	left, right := math.Inf(-1), math.Inf(-1)
	for _, s := range p.Series {
		for k, x := range s.X {
			switch {
			case x <= lo+(hi-lo)/5:
				left = max(left, s.Y[k])
			case x >= hi-(hi-lo)/5:
				right = max(right, s.Y[k])
			}
		}
	}
	return left > right || math.IsInf(right, -1)
}

// logFloor is the bottom of a log Y axis: YMin when positive, else a
// decade below the smallest positive value (0.5 when all values are at
// least 1, as counts are, so that a count of 1 stands clear of the axis).
func (p *Plot) logFloor() float64 {
	if p.YMin > 0 {
		return p.YMin
	}
	m := math.Inf(1)
	for _, s := range p.Series {
		for _, v := range s.Y {
			if v > 0 {
				m = min(m, v)
			}
		}
	}
	for _, mk := range p.Markers {
		if mk.Y > 0 {
			m = min(m, mk.Y)
		}
	}
	switch {
	case math.IsInf(m, 1):
		return 0.5
	case m >= 1:
		return 0.5
	default:
		return math.Pow(10, math.Floor(math.Log10(m)))
	}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// bars draws a histogram from a base (0, or the log floor).
type bars struct {
	lo, hi, y []float64
	base      float64
	fill      color.Color
	line      draw.LineStyle
}

func newBars(s Series, col color.Color, floor float64, logY bool) *bars {
	n := len(s.X)
	if n == 0 {
		return nil
	}
	b := &bars{lo: make([]float64, n), hi: make([]float64, n), y: make([]float64, n), base: 0}
	if logY {
		b.base = floor
	}
	for k := range n {
		b.lo[k] = s.X[k]
		switch {
		case k+1 < n:
			b.hi[k] = s.X[k+1]
		case s.Width > 0:
			b.hi[k] = s.X[k] + s.Width
		case n > 1:
			b.hi[k] = s.X[k] + (s.X[k] - s.X[k-1])
		default:
			b.hi[k] = s.X[k] + 1
		}
		b.y[k] = max(s.Y[k], b.base)
	}
	r, g, bl, _ := col.RGBA()
	b.fill = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(bl >> 8), A: 0x99}
	b.line = draw.LineStyle{Color: col, Width: vg.Points(0.75)}
	return b
}

func (b *bars) Plot(c draw.Canvas, plt *plot.Plot) {
	tx, ty := plt.Transforms(&c)
	for k := range b.lo {
		if b.y[k] <= b.base {
			continue
		}
		x0, x1 := tx(b.lo[k]), tx(b.hi[k])
		y0, y1 := ty(b.base), ty(b.y[k])
		pts := []vg.Point{{X: x0, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}, {X: x1, Y: y0}}
		poly := c.ClipPolygonXY(pts)
		c.FillPolygon(b.fill, poly)
		c.StrokeLines(b.line, c.ClipLinesXY(append(pts, pts[0]))...)
	}
}

func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = b.lo[0], b.hi[len(b.hi)-1]
	ymin, ymax = b.base, b.base
	for k := range b.lo {
		xmin, xmax = min(xmin, b.lo[k]), max(xmax, b.hi[k])
		ymax = max(ymax, b.y[k])
	}
	return xmin, xmax, ymin, ymax
}

func (b *bars) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}}
	c.FillPolygon(b.fill, c.ClipPolygonY(pts))
	c.StrokeLines(b.line, c.ClipLinesY(append(pts, pts[0]))...)
}

// vline is a dashed vertical line across the whole data area.
type vline struct{ x float64 }

func (v vline) Plot(c draw.Canvas, plt *plot.Plot) {
	tx, _ := plt.Transforms(&c)
	x := tx(v.x)
	if x < c.Min.X || x > c.Max.X {
		return
	}
	c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 0x55}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}},
		x, c.Min.Y, x, c.Max.Y)
}

// DataRange widens only X: +Inf/-Inf leave the Y range to the data.
func (v vline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return v.x, v.x, math.Inf(1), math.Inf(-1)
}
