package main

import (
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/internal/chart"
	"github.com/neardup/neardup/internal/textdiff"
)

// The --report page: one self-contained HTML file (inline CSS, inline SVG
// charts, a few lines of inline JavaScript, no external resource; a
// Content-Security-Policy forbids fetching any).

//go:embed report.html.tmpl
var reportTemplateText string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"j": func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) },
}).Parse(reportTemplateText))

// Limits of the cluster sections.
const (
	reportClusters  = 10       // clusters per list (largest, most suspicious)
	reportMembers   = 6        // members shown per cluster, the least similar first
	reportTextBytes = 64 << 10 // text kept per shown document
	reportDiffWords = 2000     // words compared per document
	reportHistBins  = 20       // similarity histogram bins over [0, 1]
	reportSizeBars  = 60       // cluster sizes drawn one bar each up to this size
	reportChartW    = 420      // chart size, points
	reportChartH    = 260      //
	reportCurvePts  = 200      // S-curve resolution
	reportOpen      = 2        // clusters of each list shown expanded
	reportMissing   = "(text not available: the input could not be read again)"
)

type reportRow struct {
	Label, Value string
}

type histRow struct {
	From, To string
	Pairs    int
	Below    bool // under the threshold: no pair can be here
}

type sizeRow struct {
	Sizes               string
	Clusters, Documents int
}

type memberView struct {
	ID      string
	Jaccard float64
	Left    []textdiff.Span
	Right   []textdiff.Span
	TruncL  bool
	TruncR  bool
	Coarse  bool
}

type clusterView struct {
	ID, Size   int
	Rep        string
	MinJaccard float64
	T          float64      // the threshold
	Members    []memberView // shown side by side
	Same       []string     // members with the representative's very text
	More       int          // members not shown
	MoreFrom   float64      // the members not shown have at least this Jaccard
	Open       bool
}

type reportData struct {
	Inputs     string
	Summary    []reportRow
	Params     []reportRow
	Timing     []reportRow
	SCurve     template.HTML
	Hist       template.HTML
	Sizes      template.HTML
	HistRows   []histRow
	SizeRows   []sizeRow
	Threshold  float64
	Largest    []clusterView
	Suspicious []clusterView
	Notes      []string
}

// writeReport writes the --report page for a finished run. It re-reads the
// inputs (with the reader settings co of the first pass) for the texts of
// the documents it shows, and only those.
func writeReport(w io.Writer, e *env, src *source, co corpus.Options, b *neardup.Batch, res *neardup.Result) error {
	st := makeStats(src, b, res)
	o := b.Options()
	s := res.Stats
	d := &reportData{Inputs: strings.Join(src.names, ", "), Threshold: o.Threshold}

	num := func(n int64) string { return groupDigits(n) }
	d.Summary = []reportRow{
		{"documents", num(int64(s.Documents))},
		{"text", humanBytes(st.Bytes)},
		{"empty documents", num(int64(s.Empty))},
		{"skipped as bad", num(int64(src.skipped))},
		{"invalid UTF-8", num(int64(s.InvalidUTF8))},
		{"shingles", num(s.Shingles)},
		{"distinct shingle sets", num(int64(s.Distinct))},
		{"identical to an earlier document", num(int64(s.Identical))},
		{"LSH candidate pairs", num(s.Candidates)},
		{"buckets joined as chains", num(s.LargeBuckets)},
		{"verified pairs", num(int64(s.Verified))},
		{"reported pairs (identical included)", num(int64(s.Pairs))},
		{"clusters", num(int64(s.Clusters))},
		{"duplicates (to drop)", num(int64(s.Duplicates))},
		{"largest cluster", num(int64(s.LargestCluster))},
	}
	p := st.Params
	mode := fmt.Sprintf("%s %d-grams", p.Shingle, p.Ngram)
	if p.Bag {
		mode += " (bag)"
	}
	d.Params = []reportRow{
		{"shingles", mode},
		{"MinHash slots", strconv.Itoa(p.Slots)},
		{"seed", strconv.FormatUint(p.Seed, 10)},
		{"threshold t", strconv.FormatFloat(p.Threshold, 'g', -1, 64)},
		{"bands × rows", fmt.Sprintf("%d × %d", p.Bands, p.Rows)},
		{fmt.Sprintf("P(candidate | J = %g)", p.Threshold), strconv.FormatFloat(p.PAtT, 'f', 4, 64)},
		{"verification", p.Verify},
		{"keep", p.Keep},
		{"max bucket", strconv.Itoa(p.MaxBucket)},
		{"workers", strconv.Itoa(p.Workers)},
	}
	d.Timing = []reportRow{
		{"read + shingle", dur(s.ReadShingle)},
		{"identical sets", dur(s.Collapse)},
		{"signatures", dur(s.Sign)},
		{"LSH + verification", dur(s.Candidate)},
		{"clusters", dur(s.Group)},
	}

	var err error
	if d.SCurve, err = sCurveChart(b); err != nil {
		return err
	}
	if d.Hist, d.HistRows, err = histogramChart(res, o.Threshold); err != nil {
		return err
	}
	if d.Sizes, d.SizeRows, err = sizeChart(res); err != nil {
		return err
	}

	largest, suspicious := pickClusters(res)
	want := map[int]bool{}
	for _, cs := range [][]clusterPick{largest, suspicious} {
		for _, c := range cs {
			want[c.c.Representative] = true
			for _, m := range c.shown {
				want[m.Doc] = true
			}
		}
	}
	texts, notes, err := reportTexts(e, src, co, want)
	if err != nil {
		return fmt.Errorf("read the inputs again for the report: %w", err)
	}
	d.Notes = notes
	for i, c := range largest {
		d.Largest = append(d.Largest, clusterViewOf(b, c, texts, o.Threshold, i < reportOpen))
	}
	for i, c := range suspicious {
		d.Suspicious = append(d.Suspicious, clusterViewOf(b, c, texts, o.Threshold, i < reportOpen))
	}
	return reportTemplate.Execute(w, d)
}

// groupDigits formats n with thin spaces between groups of three digits.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ","...)
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// svgPrologue matches what precedes the <svg element in a standalone SVG
// document; svgNS matches the namespace declarations, which HTML does not
// need (and which would put http:// strings in the page).
var (
	svgNS = regexp.MustCompile(`\s+xmlns(:xlink)?="[^"]*"`)
	svgWH = regexp.MustCompile(`^<svg width="[^"]*" height="[^"]*"`)
)

// inlineSVG renders p for embedding in the page.
func inlineSVG(p *chart.Plot, label string) (template.HTML, error) {
	raw, err := p.SVG(reportChartW, reportChartH)
	if err != nil {
		return "", fmt.Errorf("chart %q: %w", p.Title, err)
	}
	s := string(raw)
	i := strings.Index(s, "<svg")
	if i < 0 {
		return "", fmt.Errorf("chart %q: no <svg> element in the rendering", p.Title)
	}
	s = svgNS.ReplaceAllString(s[i:], "")
	s = svgWH.ReplaceAllString(s, `<svg class="chart" role="img" aria-label="`+template.HTMLEscapeString(label)+`"`)
	return template.HTML(s), nil // the chart package escapes its text
}

func sCurveChart(b *neardup.Batch) (template.HTML, error) {
	o := b.Options()
	pr := o.Params
	x := make([]float64, reportCurvePts+1)
	y := make([]float64, reportCurvePts+1)
	for i := range x {
		x[i] = float64(i) / reportCurvePts
		y[i] = pr.Probability(x[i])
	}
	pt := pr.Probability(o.Threshold)
	p := &chart.Plot{
		Title:  fmt.Sprintf("LSH S-curve: %d bands × %d rows", pr.Bands, pr.Rows),
		XLabel: "Jaccard similarity s", YLabel: "P(candidate) = 1-(1-s^r)^b",
		XMax: 1, YMax: 1,
		Series:  []chart.Series{{Kind: chart.Line, X: x, Y: y}},
		VLines:  []float64{o.Threshold},
		Markers: []chart.Marker{{X: o.Threshold, Y: pt, Label: fmt.Sprintf("t = %g, P = %.4f", o.Threshold, pt)}},
	}
	return inlineSVG(p, "S-curve")
}

// histBin returns the bin of similarity j among n bins over [0, 1].
func histBin(j float64, n int) int {
	return min(max(int(math.Floor(j*float64(n)+1e-9)), 0), n-1)
}

func histogramChart(res *neardup.Result, t float64) (template.HTML, []histRow, error) {
	counts := make([]float64, reportHistBins)
	for _, p := range res.Pairs {
		counts[histBin(p.Jaccard, reportHistBins)]++
	}
	x := make([]float64, reportHistBins)
	rows := make([]histRow, reportHistBins)
	lo, hi := math.Inf(1), 0.0
	for i := range x {
		x[i] = float64(i) / reportHistBins
		to := float64(i+1) / reportHistBins
		rows[i] = histRow{From: strconv.FormatFloat(x[i], 'f', 2, 64), To: strconv.FormatFloat(to, 'f', 2, 64),
			Pairs: int(counts[i]), Below: to <= t}
		if counts[i] > 0 {
			lo, hi = min(lo, counts[i]), max(hi, counts[i])
		}
	}
	p := &chart.Plot{
		Title:  "Exact Jaccard of the reported pairs",
		XLabel: "Jaccard similarity", YLabel: "pairs",
		XMax:   1,
		LogY:   hi > 0 && hi/lo > 50,
		Series: []chart.Series{{Kind: chart.Bars, X: x, Y: counts, Width: 1.0 / reportHistBins}},
		VLines: []float64{t},
	}
	if p.LogY {
		p.YLabel = "pairs (log scale)"
	}
	svg, err := inlineSVG(p, "similarity histogram")
	// Only the populated end of the table is useful.
	first := 0
	for first < len(rows) && rows[first].Below && rows[first].Pairs == 0 {
		first++
	}
	return svg, rows[first:], err
}

func sizeChart(res *neardup.Result) (template.HTML, []sizeRow, error) {
	bySize := map[int]int{}
	largest := 0
	for _, c := range res.Clusters {
		bySize[len(c.Members)]++
		largest = max(largest, len(c.Members))
	}
	// Table: sizes 2..10 one row each, then ranges [11, 16], [17, 32], ...
	var rows []sizeRow
	for lo := 2; lo <= largest; {
		hi := lo
		if lo > 10 {
			hi = min(1<<bits.Len(uint(lo-1)), largest)
		}
		r := sizeRow{Sizes: strconv.Itoa(lo)}
		if hi > lo {
			r.Sizes = fmt.Sprintf("%d–%d", lo, hi)
		}
		for s := lo; s <= hi; s++ {
			r.Clusters += bySize[s]
			r.Documents += bySize[s] * s
		}
		if r.Clusters > 0 {
			rows = append(rows, r)
		}
		lo = hi + 1
	}
	if largest == 0 {
		return "", nil, nil
	}
	p := &chart.Plot{Title: "Cluster sizes", YLabel: "clusters"}
	if largest <= reportSizeBars {
		x := make([]float64, 0, largest-1)
		y := make([]float64, 0, largest-1)
		for s := 2; s <= largest; s++ {
			x = append(x, float64(s)-0.5)
			y = append(y, float64(bySize[s]))
		}
		p.XLabel = "documents in the cluster"
		p.Series = []chart.Series{{Kind: chart.Bars, X: x, Y: y, Width: 1}}
	} else {
		// One bar per power of two: [2, 4), [4, 8), ...
		var x, y []float64
		for s, n := range bySize {
			k := bits.Len(uint(s)) - 1
			for len(x) <= k {
				x = append(x, float64(len(x)))
				y = append(y, 0)
			}
			y[k] += float64(n)
		}
		x, y = x[1:], y[1:]
		p.XLabel = "log2(documents in the cluster)"
		p.Series = []chart.Series{{Kind: chart.Bars, X: x, Y: y, Width: 1}}
	}
	var lo, hi float64 = math.Inf(1), 0
	for _, v := range p.Series[0].Y {
		if v > 0 {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	p.LogY = hi/lo > 50
	if p.LogY {
		p.YLabel = "clusters (log scale)"
	}
	svg, err := inlineSVG(p, "cluster sizes")
	return svg, rows, err
}

// clusterPick is a cluster chosen for the report and the members shown.
type clusterPick struct {
	c     *neardup.Cluster
	minJ  float64
	shown []neardup.Member // least similar to the representative first
}

// pickClusters returns the largest clusters and the most suspicious ones
// (lowest Jaccard of a member with the representative), reportClusters of
// each, ties broken by cluster id.
func pickClusters(res *neardup.Result) (largest, suspicious []clusterPick) {
	all := make([]clusterPick, len(res.Clusters))
	for i := range res.Clusters {
		c := &res.Clusters[i]
		var others []neardup.Member
		for _, m := range c.Members {
			if m.Doc != c.Representative {
				others = append(others, m)
			}
		}
		slices.SortStableFunc(others, func(a, b neardup.Member) int {
			if a.Jaccard != b.Jaccard {
				if a.Jaccard < b.Jaccard {
					return -1
				}
				return 1
			}
			return a.Doc - b.Doc
		})
		minJ := 1.0
		if len(others) > 0 {
			minJ = others[0].Jaccard
		}
		all[i] = clusterPick{c: c, minJ: minJ, shown: others[:min(len(others), reportMembers)]}
	}
	largest = slices.Clone(all)
	slices.SortStableFunc(largest, func(a, b clusterPick) int {
		return len(b.c.Members) - len(a.c.Members)
	})
	suspicious = slices.Clone(all)
	slices.SortStableFunc(suspicious, func(a, b clusterPick) int {
		switch {
		case a.minJ < b.minJ:
			return -1
		case a.minJ > b.minJ:
			return 1
		}
		return len(b.c.Members) - len(a.c.Members)
	})
	return largest[:min(len(largest), reportClusters)], suspicious[:min(len(suspicious), reportClusters)]
}

func clusterViewOf(b *neardup.Batch, p clusterPick, texts map[int]string, t float64, open bool) clusterView {
	c := p.c
	v := clusterView{ID: c.ID, Size: len(c.Members), Rep: b.ID(c.Representative), MinJaccard: p.minJ,
		T: t, More: len(c.Members) - 1 - len(p.shown), Open: open}
	if len(p.shown) > 0 {
		v.MoreFrom = p.shown[len(p.shown)-1].Jaccard
	}
	rep, repOK := texts[c.Representative]
	for _, m := range p.shown {
		mv := memberView{ID: b.ID(m.Doc), Jaccard: m.Jaccard}
		text, ok := texts[m.Doc]
		switch {
		case !ok || !repOK:
			mv.Left = []textdiff.Span{{Text: reportMissing}}
			mv.Right = mv.Left
		case text == rep:
			v.Same = append(v.Same, mv.ID)
			continue
		default:
			r := textdiff.Diff(rep, text, reportDiffWords)
			mv.Left, mv.Right, mv.TruncL, mv.TruncR, mv.Coarse = r.A, r.B, r.TruncatedA, r.TruncatedB, r.Coarse
		}
		v.Members = append(v.Members, mv)
	}
	return v
}

// reportTexts reads the inputs again and returns the texts of the wanted
// documents (cut to reportTextBytes, invalid UTF-8 replaced), and notes on
// inputs that could not be read again.
func reportTexts(e *env, src *source, co corpus.Options, want map[int]bool) (map[int]string, []string, error) {
	texts := make(map[int]string, len(want))
	byFile := make(map[int]map[int32]int) // input -> record number -> document
	for doc := range want {
		f := int(src.fileOf[doc])
		if byFile[f] == nil {
			byFile[f] = map[int32]int{}
		}
		byFile[f][src.numOf[doc]] = doc
	}
	var notes []string
	files := make([]int, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		recs := byFile[f]
		path, name := src.inputs[f], src.names[f]
		if path == "-" {
			notes = append(notes, "standard input was not kept, so its texts are not shown")
			continue
		}
		tmp := &source{}
		r, err := openInput(e, tmp, path, name, co)
		if err != nil {
			tmp.cleanup()
			return nil, nil, err
		}
		err = func() error {
			defer tmp.cleanup()
			defer r.Close()
			for len(recs) > 0 {
				rec, err := r.Next()
				if errors.Is(err, io.EOF) {
					return fmt.Errorf("%s: ended before record %d (changed since it was read?)", name, minKey(recs))
				}
				if err != nil {
					return err
				}
				doc, ok := recs[int32(rec.Num)]
				if !ok {
					continue
				}
				delete(recs, int32(rec.Num))
				texts[doc] = reportText(rec.Text)
			}
			return nil
		}()
		if err != nil {
			return nil, nil, err
		}
	}
	return texts, notes, nil
}

func minKey(m map[int32]int) int32 {
	first := true
	var k int32
	for x := range m {
		if first || x < k {
			k, first = x, false
		}
	}
	return k
}

// reportText copies text for display: at most reportTextBytes, cut on a
// character boundary, invalid UTF-8 replaced by U+FFFD.
func reportText(text []byte) string {
	if len(text) > reportTextBytes {
		n := reportTextBytes
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		text = text[:n]
	}
	return strings.ToValidUTF8(string(text), "\uFFFD")
}

// reportRereadsStdin reports whether --report needs standard input spooled
// to a file, to read the texts it shows a second time.
func reportRereadsStdin(f *dedupFlags, inputs []string) bool {
	return f.report != "" && slices.Contains(inputs, "-")
}
