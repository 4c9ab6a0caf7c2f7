package chart

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func sCurve(b, r int) Series {
	s := Series{Name: "b=" + itoa(b) + " r=" + itoa(r), Kind: Line}
	for i := 0; i <= 100; i++ {
		x := float64(i) / 100
		s.X = append(s.X, x)
		s.Y = append(s.Y, 1-math.Pow(1-math.Pow(x, float64(r)), float64(b)))
	}
	return s
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// plots returns one Plot of each kind, plus the awkward cases.
func plots() map[string]*Plot {
	found := Series{Name: "found", Kind: Points}
	for i := 0; i < 20; i++ {
		x := 0.025 + float64(i)*0.05
		found.X = append(found.X, x)
		found.Y = append(found.Y, 1-math.Pow(1-math.Pow(x, 3), 35))
	}
	hist := Series{Name: "pairs", Kind: Bars, Width: 0.05}
	for i := 0; i < 20; i++ {
		hist.X = append(hist.X, float64(i)*0.05)
		hist.Y = append(hist.Y, math.Floor(1e6*math.Exp(-float64(i)))) // ends in zeros
	}
	return map[string]*Plot{
		"line": {Title: "S-curve", XLabel: "Jaccard similarity", YLabel: "P(candidate)",
			Series: []Series{sCurve(35, 3), sCurve(20, 4), sCurve(42, 3)}, XMin: 0, XMax: 1,
			Markers: []Marker{{X: 0.5, Y: 0.99, Label: "P(0.5)>=0.99"}, {X: 0.05, Y: 0.005, Label: "low"}}, VLines: []float64{0.5}},
		"points": {Title: "found fraction", XLabel: "Jaccard", YLabel: "fraction",
			Series: []Series{sCurve(35, 3), found}, YMin: 0, YMax: 1.05},
		"bars-log": {Title: "pairs per bin", XLabel: "Jaccard", YLabel: "pairs", LogY: true,
			Series: []Series{hist}, VLines: []float64{0.5}},
		"line-log-zero": {LogY: true, Series: []Series{{Kind: Line, X: []float64{0, 0.5, 1}, Y: []float64{0, 1e-9, 1}}}},
		"empty":         {Title: "nothing"},
		"empty-series":  {Series: []Series{{Name: "a"}, {Name: "b", Kind: Points}, {Name: "c", Kind: Bars}}, LogY: true},
		"one-bar":       {Series: []Series{{Kind: Bars, X: []float64{0.3}, Y: []float64{0}}}, LogY: true},
	}
}

func TestRenderSVG(t *testing.T) {
	for name, p := range plots() {
		t.Run(name, func(t *testing.T) {
			b, err := p.SVG(600, 400)
			if err != nil {
				t.Fatal(err)
			}
			checkSVG(t, b)
		})
	}
}

func checkSVG(t *testing.T, b []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("invalid SVG: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
}

func TestRenderPNG(t *testing.T) {
	for name, p := range plots() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := p.Render(&buf, "png", 640, 400); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if r := img.Bounds(); r.Dx() != 640 || r.Dy() != 400 {
				t.Fatalf("PNG is %dx%d, want 640x400", r.Dx(), r.Dy())
			}
		})
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := plots()["bars-log"]
	for _, name := range []string{"a.svg", "a.png", "B.PNG"} {
		path := filepath.Join(dir, name)
		if err := p.WriteFile(path, 500, 300); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Ext(name) == ".svg" {
			checkSVG(t, b)
		} else if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if err := p.WriteFile(filepath.Join(dir, "a.pdf"), 500, 300); !errors.Is(err, ErrFormat) {
		t.Fatalf("a.pdf: got %v, want ErrFormat", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 3 {
		t.Fatalf("%d files in dir, want 3 (no temporary left)", len(ents))
	}
	if os.Getenv("CHART_KEEP") != "" {
		// For looking at the charts: CHART_KEEP=/tmp/x go test -run WriteFile
		for name, p := range plots() {
			if err := p.WriteFile(filepath.Join(os.Getenv("CHART_KEEP"), name+".png"), 800, 500); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	p := &Plot{Series: []Series{{X: []float64{1, 2}, Y: []float64{1}}}}
	if _, err := p.SVG(100, 100); err == nil {
		t.Error("mismatched X and Y: no error")
	}
	p = &Plot{Series: []Series{{X: []float64{1}, Y: []float64{math.NaN()}}}}
	if _, err := p.SVG(100, 100); err == nil {
		t.Error("NaN: no error")
	}
	if err := (&Plot{}).Render(io.Discard, "gif", 100, 100); !errors.Is(err, ErrFormat) {
		t.Errorf("gif: got %v, want ErrFormat", err)
	}
	if err := (&Plot{}).Render(io.Discard, "svg", 0, 100); err == nil {
		t.Error("zero width: no error")
	}
	// Text the font cannot draw is refused, wherever it is; the labels
	// neardup writes (×, ≥, Greek, Cyrillic) are drawn.
	ok := &Plot{Title: "35 bands × 3 rows, P ≥ 0.99, α, Жаккар", XLabel: "Jaccard similarity s", YLabel: "P(candidate) = 1-(1-s^r)^b",
		Series:  []Series{{Name: "exact", X: []float64{0, 1}, Y: []float64{0, 1}}},
		Markers: []Marker{{X: 0.5, Y: 0.5, Label: "t = 0.5"}}, XTicks: []Tick{{Value: 0, Label: "0"}, {Value: 1, Label: "1"}}}
	if _, err := ok.SVG(300, 200); err != nil {
		t.Errorf("labels in Latin, Greek and Cyrillic: %v", err)
	}
	for _, bad := range []func(p *Plot){
		func(p *Plot) { p.Title = "重複" },
		func(p *Plot) { p.XLabel = "similarity 類似度" },
		func(p *Plot) { p.YLabel = "쌍" },
		func(p *Plot) { p.Series[0].Name = "ドキュメント" },
		func(p *Plot) { p.Markers[0].Label = "t = 0.5 😀" },
		func(p *Plot) { p.XTicks[1].Label = "一" },
	} {
		p := *ok
		p.Series = slices.Clone(ok.Series)
		p.Markers = slices.Clone(ok.Markers)
		p.XTicks = slices.Clone(ok.XTicks)
		bad(&p)
		if _, err := p.SVG(300, 200); !errors.Is(err, ErrGlyph) {
			t.Errorf("%+v: got %v, want ErrGlyph", p, err)
		}
	}
}
