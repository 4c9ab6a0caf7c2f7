// Package chart draws the few kinds of chart neardup needs (S-curves,
// histograms with log-scaled counts, found-fraction per similarity bin) as
// SVG or PNG with gonum/plot.
//
// STUB: contract only; the implementation replaces the bodies.
package chart

import "io"

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
}

// Render writes p as "svg" or "png", width x height in points (SVG) or
// pixels at 96 dpi (PNG).
func (p *Plot) Render(w io.Writer, format string, width, height float64) error {
	panic("unimplemented")
}

// WriteFile renders p to path, the format chosen by the extension (.svg or
// .png), written atomically.
func (p *Plot) WriteFile(path string, width, height float64) error { panic("unimplemented") }

// SVG renders p as an SVG document for embedding in HTML.
func (p *Plot) SVG(width, height float64) ([]byte, error) { panic("unimplemented") }
