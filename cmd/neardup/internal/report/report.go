// Package report writes neardup dedup's --report page: one self-contained
// HTML file (inline CSS, inline SVG charts with their font embedded as a
// data: URL, a few lines of inline JavaScript, no external resource; a
// Content-Security-Policy forbids fetching any) on a finished run: its
// figures, charts of its similarities and cluster sizes, and the texts of
// its largest and most suspicious clusters side by side, their
// differences marked.
package report

import (
	"context"
	_ "embed"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	// The standard library's html/template, less the calls of methods by
	// name: with those, the linker keeps every exported method of every
	// type used through an interface (golang/go#72895), 14.75 MB of the
	// binary's 62. The report's template calls no method.
	template "github.com/DataDog/datadog-agent/pkg/template/html"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cmd/neardup/internal/chart"
	"github.com/neardup/neardup/cmd/neardup/internal/human"
	"github.com/neardup/neardup/cmd/neardup/internal/textdiff"
)

//go:embed report.html.tmpl
var reportTemplateText string

// reportTemplate is parsed on first use, not at every start of the
// program (about a millisecond).
var reportTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"j": func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) },
		// ids is the argument of the "ids" template: n members, ids the
		// first of their ids, what says what they have in common.
		"ids": func(n int, ids []string, what string) idList { return idList{N: n, IDs: ids, What: what} },
	}).Parse(reportTemplateText))
})

type idList struct {
	N    int
	IDs  []string
	What string
}

// Missing is shown in place of a text that could not be read again.
const Missing = "(text not available: the input could not be read again)"

// Limits of the cluster sections: Clusters clusters per list (largest,
// most suspicious), MemberTexts distinct member texts shown per cluster,
// the least similar first.
const (
	Clusters    = 10
	MemberTexts = 6
)

// Other limits of the cluster sections.
const (
	reportIDList    = 50       // ids listed per text
	reportTextBytes = 64 << 10 // text kept per shown document
	reportDiffWords = 2000     // words compared per document
	reportHistBins  = 20       // similarity histogram bins over [0, 1]
	reportSizeBars  = 60       // cluster sizes drawn one bar each up to this size
	reportChartW    = 420      // chart size, points
	reportChartH    = 260      //
	reportCurvePts  = 200      // S-curve resolution
	reportOpen      = 2        // clusters of each list shown expanded
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

// memberView is one text of a cluster's members, shown side by side with
// the representative's.
type memberView struct {
	IDs     []string // of the members with this text, the first reportIDList
	N       int      // members with this text
	Jaccard float64
	Left    []textdiff.Span
	Right   []textdiff.Span
	TruncL  bool
	TruncR  bool
	Coarse  bool
	Spacing bool // the texts differ in white space only
}

type clusterView struct {
	ID, Size   int
	Rep        string
	MinJaccard float64
	T          float64      // the threshold
	Members    []memberView // texts other than the representative's, side by side
	Copies     []string     // members with the representative's very text, the first reportIDList
	NCopies    int          // how many
	RepText    string       // the representative's text when no side-by-side block shows it
	More       int          // members not shown
	MoreTexts  int          // their distinct texts
	MoreFrom   float64      // the members not shown have at least this Jaccard
	Open       bool
}

type reportData struct {
	Inputs     string
	FontCSS    template.CSS // the charts' font
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

// RereadFunc reads the inputs of the run again and calls visit with the
// text of each document d for which want(d), in document order; text is
// valid only during the call. It returns visit's first error, ctx's error
// when cancelled, and notes (shown on the page) on inputs that could not
// be read again.
type RereadFunc func(ctx context.Context, want func(doc int) bool, visit func(doc int, text []byte) error) (notes []string, err error)

// Run is what the page shows of a run besides its batch and result.
type Run struct {
	Inputs  []string      // the inputs' names
	Bytes   int64         // text read
	Skipped int           // records skipped as bad
	Start   time.Time     // the run's start
	Write   time.Duration // writing the other outputs, done before the report
	Reread  RereadFunc    // the texts of the clusters shown
}

// Write writes the page of the finished run of b, res, to w. It reads the
// inputs again (r.Reread) for the texts of the clusters it shows, and is
// meant to be the last output written, so that its timing panel covers
// the others. It returns the error of a chart, of r.Reread (wrapped) or of
// w.
func Write(w io.Writer, b *neardup.Batch, res *neardup.Result, r Run) error {
	began := time.Now()
	o := b.Options()
	d := &reportData{Inputs: strings.Join(r.Inputs, ", "), Threshold: o.Threshold}
	d.Summary = summaryRows(res.Stats, r)
	d.Params = paramRows(o)
	d.Timing = timingRows(o, res.Stats, r.Write)
	if err := d.charts(b, res); err != nil {
		return err
	}
	largest, suspicious := pickClusters(res)
	views, notes, err := clusterViews(r.Reread, b, o.Threshold, largest, suspicious)
	if err != nil {
		return fmt.Errorf("read the inputs again for the report: %w", err)
	}
	d.Largest, d.Suspicious, d.Notes = views[0], views[1], notes
	d.Timing = append(d.Timing, reportRow{"write this report", human.Duration(time.Since(began))}, reportRow{"total", human.Duration(time.Since(r.Start))})
	return reportTemplate().Execute(w, d)
}

// summaryRows is the summary panel: the run's figures.
func summaryRows(s neardup.Stats, r Run) []reportRow {
	num := func(n int64) string { return groupDigits(n) }
	return []reportRow{
		{"documents", num(int64(s.Documents))},
		{"text", human.Bytes(r.Bytes)},
		{"empty documents", num(int64(s.Empty))},
		{"skipped as bad", num(int64(r.Skipped))},
		{"invalid UTF-8", num(int64(s.InvalidUTF8))},
		{"shingles", num(s.Shingles)},
		{"distinct shingle sets", num(int64(s.Distinct))},
		{"identical to an earlier document", num(int64(s.Identical))},
		{"LSH candidate pairs", num(s.Candidates)},
		{"buckets compared by signature (over --max-bucket)", num(s.LargeBuckets)},
		{"verified pairs", num(int64(s.Verified))},
		{"reported pairs (identical included)", num(int64(s.Pairs))},
		{"clusters", num(int64(s.Clusters))},
		{"duplicates (to drop)", num(int64(s.Duplicates))},
		{"largest cluster", num(int64(s.LargestCluster))},
	}
}

// paramRows is the parameters panel, as the stats JSON names them.
func paramRows(o neardup.Options) []reportRow {
	mode := fmt.Sprintf("%s %d-grams", o.Shingle.Mode.String(), o.Shingle.N)
	if o.Shingle.Bag {
		mode += " (bag)"
	}
	return []reportRow{
		{"shingles", mode},
		{"MinHash slots", strconv.Itoa(o.Slots)},
		{"seed", strconv.FormatUint(o.Seed, 10)},
		{"threshold t", strconv.FormatFloat(o.Threshold, 'g', -1, 64)},
		{"bands × rows", fmt.Sprintf("%d × %d", o.LSH.Bands, o.LSH.Rows)},
		{fmt.Sprintf("P(candidate | J = %g)", o.Threshold), strconv.FormatFloat(o.LSH.Probability(o.Threshold), 'f', 4, 64)},
		{"verification", o.Verify.String()},
		{"keep", o.Keep.String()},
		{"max bucket", strconv.Itoa(o.MaxBucket)},
		{"workers", strconv.Itoa(o.Workers)},
	}
}

// timingRows is the timing panel but for the report's own time and the
// total: the engine's stages and write, the other outputs' time.
func timingRows(o neardup.Options, s neardup.Stats, write time.Duration) []reportRow {
	rows := []reportRow{
		{"read + shingle", human.Duration(s.ReadShingle)},
		{"identical sets", human.Duration(s.Collapse)},
		{"signatures", human.Duration(s.Sign)},
		{"LSH + verification", human.Duration(s.Candidate)},
	}
	if s.Passes == 2 {
		rows = append(rows, reportRow{"second pass (candidates read again)", human.Duration(s.Second)})
	}
	if o.Refine == neardup.RefineEdit {
		rows = append(rows, reportRow{"edit similarities", human.Duration(s.Refine)})
	}
	return append(rows, reportRow{"clusters", human.Duration(s.Group)}, reportRow{"write the other outputs", human.Duration(write)})
}

// charts draws d's charts: the S-curve, the similarity histogram and the
// cluster sizes, with their tables and font.
func (d *reportData) charts(b *neardup.Batch, res *neardup.Result) error {
	inline := func(p *chart.Plot, label string) (template.HTML, error) {
		if p == nil {
			return "", nil
		}
		raw, err := p.SVG(reportChartW, reportChartH)
		if err != nil {
			return "", fmt.Errorf("chart %q: %w", p.Title, err)
		}
		return inlineSVG(raw, p.Title, label)
	}
	var err error
	if d.SCurve, err = inline(sCurveChart(b), "S-curve"); err != nil {
		return err
	}
	hist, histRows := histogramChart(res, d.Threshold)
	if d.Hist, err = inline(hist, "similarity histogram"); err != nil {
		return err
	}
	d.HistRows = histRows
	sizes, sizeRows := sizeChart(res)
	if d.Sizes, err = inline(sizes, "cluster sizes"); err != nil {
		return err
	}
	d.SizeRows = sizeRows
	d.FontCSS = template.CSS(chart.FontFaceCSS())
	return nil
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
	svgNS = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s+xmlns(:xlink)?="[^"]*"`) })
	svgWH = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^<svg width="[^"]*" height="[^"]*"`) })
)

// inlineSVG makes raw, the SVG document of the chart titled title, an
// element of the page.
func inlineSVG(raw []byte, title, label string) (template.HTML, error) {
	s := string(raw)
	i := strings.Index(s, "<svg")
	if i < 0 {
		return "", fmt.Errorf("chart %q: no <svg> element in the rendering", title)
	}
	s = svgNS().ReplaceAllString(s[i:], "")
	s = svgWH().ReplaceAllString(s, `<svg class="chart" role="img" aria-label="`+template.HTMLEscapeString(label)+`"`)
	return template.HTML(s), nil // the chart package escapes its text
}

func sCurveChart(b *neardup.Batch) *chart.Plot {
	o := b.Options()
	pr := o.LSH
	x := make([]float64, reportCurvePts+1)
	y := make([]float64, reportCurvePts+1)
	for i := range x {
		x[i] = float64(i) / reportCurvePts
		y[i] = pr.Probability(x[i])
	}
	pt := pr.Probability(o.Threshold)
	return &chart.Plot{
		Title:  fmt.Sprintf("LSH S-curve: %s × %s", human.Plural(pr.Bands, "band", "bands"), human.Plural(pr.Rows, "row", "rows")),
		XLabel: "Jaccard similarity s", YLabel: "P(candidate) = 1-(1-s^r)^b",
		XMax: 1, YMax: 1,
		Series:  []chart.Series{{Kind: chart.Line, X: x, Y: y}},
		VLines:  []float64{o.Threshold},
		Markers: []chart.Marker{{X: o.Threshold, Y: pt, Label: fmt.Sprintf("t = %g, P = %.4f", o.Threshold, pt)}},
	}
}

// histBin returns the bin of similarity j among n bins over [0, 1].
func histBin(j float64, n int) int {
	return min(max(int(math.Floor(j*float64(n)+1e-9)), 0), n-1)
}

func histogramChart(res *neardup.Result, t float64) (*chart.Plot, []histRow) {
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
	// Only the populated end of the table is useful.
	first := 0
	for first < len(rows) && rows[first].Below && rows[first].Pairs == 0 {
		first++
	}
	return p, rows[first:]
}

// sizeChart returns the chart of cluster sizes (nil when there is no
// cluster) and its table.
func sizeChart(res *neardup.Result) (*chart.Plot, []sizeRow) {
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
		return nil, nil
	}
	p := &chart.Plot{Title: "Cluster sizes", YLabel: "clusters"}
	if largest <= reportSizeBars {
		// One bar per size s, centred on s; a label on 2 and on the
		// multiples of a step that leaves about a dozen.
		x := make([]float64, 0, largest-1)
		y := make([]float64, 0, largest-1)
		step := 1
		for _, s := range []int{2, 5, 10} {
			if largest/step <= 12 {
				break
			}
			step = s
		}
		for s := 2; s <= largest; s++ {
			x = append(x, float64(s)-0.5)
			y = append(y, float64(bySize[s]))
			t := chart.Tick{Value: float64(s)}
			if s == 2 || s%step == 0 {
				t.Label = strconv.Itoa(s)
			}
			p.XTicks = append(p.XTicks, t)
		}
		p.XLabel = "documents in the cluster"
		p.Series = []chart.Series{{Kind: chart.Bars, X: x, Y: y, Width: 1}}
	} else {
		// One bar per power of two, [2, 4), [4, 8), ..., drawn at equal
		// widths: bar k spans [k, k+1) and its edges are labelled with the
		// sizes 2^k and 2^(k+1).
		top := bits.Len(uint(largest)) - 1 // the bar of the largest cluster
		x := make([]float64, 0, top)
		y := make([]float64, top)
		for k := 1; k <= top; k++ {
			x = append(x, float64(k))
		}
		for s, n := range bySize {
			y[bits.Len(uint(s))-2] += float64(n)
		}
		for k := 1; k <= top+1; k++ {
			p.XTicks = append(p.XTicks, chart.Tick{Value: float64(k), Label: strconv.Itoa(1 << k)})
		}
		p.XLabel = "documents in the cluster (bins of powers of 2)"
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
	return p, rows
}

// clusterPick is a cluster chosen for the report.
type clusterPick struct {
	c    *neardup.Cluster
	minJ float64 // lowest Jaccard of a member with the representative
}

// pickClusters returns the largest clusters and the most suspicious ones
// (lowest Jaccard of a member with the representative), Clusters of
// each, ties broken by cluster id.
func pickClusters(res *neardup.Result) (largest, suspicious []clusterPick) {
	all := make([]clusterPick, len(res.Clusters))
	for i := range res.Clusters {
		c := &res.Clusters[i]
		minJ := 1.0
		for _, m := range c.Members {
			if m.Doc != c.Representative {
				minJ = min(minJ, m.Jaccard)
			}
		}
		all[i] = clusterPick{c: c, minJ: minJ}
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
	return largest[:min(len(largest), Clusters)], suspicious[:min(len(suspicious), Clusters)]
}

// textKey identifies a text: identical texts have equal keys, and
// different ones different keys but for a collision of a 64-bit hash.
type textKey struct {
	hash uint64
	size int
}

// textGroup is the members of a cluster other than the representative that
// have one text.
type textGroup struct {
	docs    []int   // in document order
	jaccard float64 // with the representative: the same for all, whose shingle sets are the same
	text    string  // when kept
	kept    bool
}

// before orders groups least similar to the representative first, ties by
// their first document.
func (g *textGroup) before(h *textGroup) bool {
	if g.jaccard != h.jaccard {
		return g.jaccard < h.jaccard
	}
	return g.docs[0] < h.docs[0]
}

// clusterTexts groups the members of one cluster by text while the inputs
// are read again (add is called in document order). It keeps the
// representative's text and those of the MemberTexts+1 least similar
// other texts seen so far, one more than are shown: a copy of the
// representative read before it (when the keep policy picks a later
// document) is taken for another text until the representative comes.
// Only the kept texts are held, so the memory is bounded per cluster
// whatever its size.
type clusterTexts struct {
	pick    clusterPick
	seed    maphash.Seed
	rep     string
	repKey  textKey
	repSeen bool
	groups  map[textKey]*textGroup
	kept    []*textGroup
	seen    []bool // by index in pick.c.Members
}

func (ct *clusterTexts) add(member int, text []byte) {
	c := ct.pick.c
	m := c.Members[member]
	ct.seen[member] = true
	key := textKey{maphash.Bytes(ct.seed, text), len(text)}
	if m.Doc == c.Representative {
		ct.rep, ct.repKey, ct.repSeen = reportText(text), key, true
		return
	}
	if g := ct.groups[key]; g != nil {
		g.docs = append(g.docs, m.Doc)
		return
	}
	g := &textGroup{docs: []int{m.Doc}, jaccard: m.Jaccard}
	ct.groups[key] = g
	if ct.repSeen && key == ct.repKey {
		return // the copies of the representative: listed, not shown
	}
	if len(ct.kept) <= MemberTexts {
		g.text, g.kept = reportText(text), true
		ct.kept = append(ct.kept, g)
		return
	}
	worst := 0
	for i, k := range ct.kept {
		if ct.kept[worst].before(k) {
			worst = i
		}
	}
	if w := ct.kept[worst]; g.before(w) {
		w.text, w.kept = "", false
		g.text, g.kept = reportText(text), true
		ct.kept[worst] = g
	}
}

// view returns what the report shows of the cluster: the members with the
// representative's very text as one list, and the MemberTexts least
// similar other texts side by side with the representative's, each with
// the list of members that have it.
func (ct *clusterTexts) view(b *neardup.Batch, t float64, open bool) clusterView {
	c := ct.pick.c
	v := clusterView{ID: c.ID, Size: len(c.Members), Rep: b.ID(c.Representative), MinJaccard: ct.pick.minJ, T: t, Open: open}
	var others []*textGroup
	for k, g := range ct.groups {
		if ct.repSeen && k == ct.repKey {
			v.Copies, v.NCopies = reportIDs(b, g.docs), len(g.docs)
			continue
		}
		others = append(others, g)
	}
	// Members whose text was not read (an input not kept) are shown one by
	// one, as the text is not there to group them.
	for i, m := range c.Members {
		if !ct.seen[i] && m.Doc != c.Representative {
			others = append(others, &textGroup{docs: []int{m.Doc}, jaccard: m.Jaccard})
		}
	}
	slices.SortFunc(others, func(g, h *textGroup) int {
		switch {
		case g.before(h):
			return -1
		case h.before(g):
			return 1
		}
		return 0
	})
	shown := others[:min(len(others), MemberTexts)]
	for _, g := range shown {
		mv := memberView{IDs: reportIDs(b, g.docs), N: len(g.docs), Jaccard: g.jaccard}
		if !ct.repSeen || !g.kept {
			mv.Left = []textdiff.Span{{Text: Missing}}
			mv.Right = mv.Left
		} else {
			r := textdiff.Diff(ct.rep, g.text, reportDiffWords)
			mv.Left, mv.Right, mv.TruncL, mv.TruncR, mv.Coarse = r.A, r.B, r.TruncatedA, r.TruncatedB, r.Coarse
			mv.Spacing = !r.TruncatedA && !r.TruncatedB && !slices.ContainsFunc(r.A, changed) && !slices.ContainsFunc(r.B, changed)
		}
		v.Members = append(v.Members, mv)
	}
	for _, g := range others[len(shown):] {
		v.More += len(g.docs)
		v.MoreTexts++
	}
	if len(shown) > 0 {
		v.MoreFrom = shown[len(shown)-1].jaccard
	}
	if len(v.Members) == 0 {
		// Nothing but copies: the text once, above their list.
		v.RepText = Missing
		if ct.repSeen {
			v.RepText = ct.rep
		}
	}
	return v
}

func changed(s textdiff.Span) bool { return s.Changed }

// reportIDs returns the ids of the first reportIDList of docs.
func reportIDs(b *neardup.Batch, docs []int) []string {
	ids := make([]string, 0, min(len(docs), reportIDList))
	for _, d := range docs[:min(len(docs), reportIDList)] {
		ids = append(ids, b.ID(d))
	}
	return ids
}

// clusterViews reads the inputs again for the texts of the picked clusters
// and returns their views, in the order of picks, and notes on inputs that
// could not be read again. A cluster in both lists is read once.
func clusterViews(reread RereadFunc, b *neardup.Batch, t float64, lists ...[]clusterPick) ([][]clusterView, []string, error) {
	n := b.Len()
	where := make([]int32, n) // doc -> 1 + index in cts, 0: not wanted
	pos := make([]int32, n)   // doc -> index in its cluster's Members
	var cts []*clusterTexts
	byID := map[int]*clusterTexts{}
	seed := maphash.MakeSeed()
	for _, l := range lists {
		for _, p := range l {
			if byID[p.c.ID] != nil {
				continue
			}
			ct := &clusterTexts{pick: p, seed: seed, groups: map[textKey]*textGroup{}, seen: make([]bool, len(p.c.Members))}
			cts = append(cts, ct)
			byID[p.c.ID] = ct
			for i, m := range p.c.Members {
				where[m.Doc], pos[m.Doc] = int32(len(cts)), int32(i)
			}
		}
	}
	notes, err := reread(context.Background(), func(doc int) bool { return where[doc] != 0 }, func(doc int, text []byte) error {
		cts[where[doc]-1].add(int(pos[doc]), text)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	out := make([][]clusterView, len(lists))
	for i, l := range lists {
		for k, p := range l {
			out[i] = append(out[i], byID[p.c.ID].view(b, t, k < reportOpen))
		}
	}
	return out, notes, nil
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
