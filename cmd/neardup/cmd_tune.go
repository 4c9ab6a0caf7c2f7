package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cliflags"
	"github.com/neardup/neardup/cmd/neardup/internal/chart"
	"github.com/neardup/neardup/cmd/neardup/internal/tune"
	"github.com/neardup/neardup/lsh"
)

const tuneUsage = `Usage: neardup tune [flags]

Lists the LSH (bands, rows) worth considering for --num-perm slots and marks
the one chosen, with the chance P(s) = 1-(1-s^r)^b that a pair of Jaccard s
becomes a candidate.

Modes:
  --threshold T [--recall R]    for each r the fewest bands b with P(T) >= R;
                                the choice is dedup's own (lsh.Choose): the
                                fewest expected false candidates below T
  --low S1 --max-fp P1 --high S2 [--min-recall P2]
                                every r with some b giving P(S1) <= P1 and
                                P(S2) >= P2, with its b of most margin; the
                                choice is the one of most margin: the
                                smallest worse error relative to its budget,
                                min(ln(P1/P(S1)), ln((1-P2)/(1-P(S2))))
  --bands B --rows R            evaluate that pair only

Columns: P at the targets (and at --at similarities), thr = (1/b)^(1/r)
(the usual threshold approximation), steep = ((1-1/r)/(b-1/r))^(1/r) (where
the S-curve is steepest), fcr = mean P(s) for s uniform below T (or S2).
With --sample, cand/doc is the expected number of LSH candidates per
document, from the exact Jaccard of all pairs of a sample of the corpus
(identical sets, merged before LSH, and empty documents not counted),
scaled to --corpus-docs documents if given.

Examples:
  neardup tune --threshold 0.8
  neardup tune --low 0.05 --max-fp 0.005 --high 0.5 --min-recall 0.99
  neardup tune --threshold 0.5 --sample ads.jsonl --corpus-docs 1000000 --plot scurve.svg

Flags:
`

type tuneFlags struct {
	in cliflags.Input

	numPerm     int
	threshold   float64
	recall      float64
	low, high   float64
	maxFP       float64
	minRecall   float64
	bands, rows int
	at          string
	sample      string
	sampleSize  int
	sampleSeed  uint64
	corpusDocs  int64
	jsonOut     bool
	plot        string
	workers     int
}

// tuneRow is one (b, r) of the table.
type tuneRow struct {
	Bands           int                `json:"bands"`
	Rows            int                `json:"rows"`
	Chosen          bool               `json:"chosen"`
	PThreshold      *float64           `json:"p_threshold,omitempty"`
	PLow            *float64           `json:"p_low,omitempty"`
	PHigh           *float64           `json:"p_high,omitempty"`
	Margin          *float64           `json:"margin,omitempty"`
	ThresholdApprox float64            `json:"threshold_approx"`
	Steepest        float64            `json:"steepest"`
	FalseCandidate  float64            `json:"false_candidate_rate"`
	At              map[string]float64 `json:"at,omitempty"`
	CandPerDoc      *float64           `json:"expected_candidates_per_doc,omitempty"`
	CandTotal       *float64           `json:"expected_candidates,omitempty"`
}

type tuneReport struct {
	Mode       string    `json:"mode"` // threshold, targets or given
	NumPerm    int       `json:"num_perm"`
	Threshold  float64   `json:"threshold,omitempty"`
	Recall     float64   `json:"recall,omitempty"`
	Low        float64   `json:"low,omitempty"`
	MaxFP      float64   `json:"max_fp,omitempty"`
	High       float64   `json:"high,omitempty"`
	MinRecall  float64   `json:"min_recall,omitempty"`
	Bands      int       `json:"bands"`
	Rows       int       `json:"rows"`
	Candidates []tuneRow `json:"candidates"`
	Sample     *struct {
		Documents  int   `json:"documents"`
		Read       int   `json:"read"`
		Pairs      int64 `json:"pairs"`
		CorpusDocs int64 `json:"corpus_docs,omitempty"`
	} `json:"sample,omitempty"`
}

func runTune(ctx context.Context, e *env, args []string) error {
	var f tuneFlags
	fs := newFlagSet(e, "tune", tuneUsage)
	f.register(fs)
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: unexpected argument %q (a corpus sample goes in --sample)", errUsage, rest[0])
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	at, err := f.validate(set)
	if err != nil {
		return err
	}
	twoPoint := set["low"] || set["high"]
	rep, list, chosen, err := f.search(twoPoint)
	if err != nil {
		return err
	}

	var hist *tune.Hist
	if f.sample != "" {
		h, read, err := sampleHist(ctx, e, &f)
		if err != nil {
			return err
		}
		hist = h
		rep.Sample = &struct {
			Documents  int   `json:"documents"`
			Read       int   `json:"read"`
			Pairs      int64 `json:"pairs"`
			CorpusDocs int64 `json:"corpus_docs,omitempty"`
		}{h.Docs, read, h.Pairs, f.corpusDocs}
	}
	for _, p := range list {
		rep.Candidates = append(rep.Candidates, f.row(p, chosen, twoPoint, at, hist))
	}

	if f.plot != "" {
		if err := tunePlot(&f, rep, list, chosen, twoPoint).WriteFile(f.plot, 720, 450); err != nil {
			return err
		}
	}
	if f.jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return printTune(e.stdout, &f, rep, at, twoPoint)
}

// register defines tune's flags on fs.
func (f *tuneFlags) register(fs *flag.FlagSet) {
	f.in.Register(fs)
	fs.IntVar(&f.numPerm, "num-perm", 128, "MinHash signature slots K: b*r <= K")
	fs.Float64Var(&f.threshold, "threshold", neardup.DefaultThreshold, "Jaccard threshold T (threshold mode)")
	fs.Float64Var(&f.recall, "recall", neardup.DefaultRecall, "required P(T) (threshold mode)")
	fs.Float64Var(&f.low, "low", 0, "similarity S1 that should rarely become a candidate (two-point mode)")
	fs.Float64Var(&f.maxFP, "max-fp", 0, "largest acceptable P(S1) (two-point mode)")
	fs.Float64Var(&f.high, "high", 0, "similarity S2 that should become a candidate (two-point mode)")
	fs.Float64Var(&f.minRecall, "min-recall", 0.99, "smallest acceptable P(S2) (two-point mode)")
	fs.IntVar(&f.bands, "bands", 0, "evaluate this many bands (with --rows)")
	fs.IntVar(&f.rows, "rows", 0, "rows per band (with --bands)")
	fs.StringVar(&f.at, "at", "", "comma-separated similarities to add P(s) columns for, e.g. 0.2,0.3,0.4")
	fs.StringVar(&f.sample, "sample", "", "corpus file to estimate candidates per document from (input flags apply)")
	fs.IntVar(&f.sampleSize, "sample-size", 2000, "documents sampled from --sample (all pairs are compared)")
	fs.Uint64Var(&f.sampleSeed, "sample-seed", 1, "seed of the sample")
	fs.Int64Var(&f.corpusDocs, "corpus-docs", 0, "scale candidates per document to a corpus of this many documents")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON instead of a table")
	fs.StringVar(&f.plot, "plot", "", "draw the chosen S-curve and alternatives to FILE.svg or FILE.png")
	fs.IntVar(&f.workers, "workers", 0, "goroutines for the sample's pairs (default: the number of CPUs)")
}

// search returns the report's header, the parameters to list (the best
// per rows, or the given ones) and the chosen parameters, with lsh's own
// choice (the code dedup uses). twoPoint: --low/--high targets.
func (f *tuneFlags) search(twoPoint bool) (*tuneReport, []lsh.Params, lsh.Params, error) {
	rep := &tuneReport{NumPerm: f.numPerm}
	var chosen lsh.Params
	switch {
	case f.bands > 0:
		rep.Mode = "given"
		chosen = lsh.Params{Bands: f.bands, Rows: f.rows}
	case twoPoint:
		rep.Mode = "targets"
	default:
		rep.Mode = "threshold"
	}
	if twoPoint {
		rep.Low, rep.MaxFP, rep.High, rep.MinRecall = f.low, f.maxFP, f.high, f.minRecall
	} else {
		rep.Threshold, rep.Recall = f.threshold, f.recall
	}

	var list []lsh.Params
	var err error
	switch rep.Mode {
	case "given":
		list = []lsh.Params{chosen}
	case "targets":
		list, err = lsh.TargetsPerRows(f.numPerm, f.low, f.maxFP, f.high, f.minRecall)
		if err == nil {
			chosen, err = lsh.ChooseTargets(f.numPerm, f.low, f.maxFP, f.high, f.minRecall)
		}
	default:
		list, err = lsh.PerRows(f.numPerm, f.threshold, f.recall)
		if err == nil {
			// The same code dedup uses.
			chosen, err = lsh.Choose(f.numPerm, f.threshold, f.recall)
		}
	}
	switch {
	case errors.Is(err, lsh.ErrNoParams) && twoPoint:
		return nil, nil, chosen, fmt.Errorf("%w: no bands and rows within --num-perm %d meet both targets (--low %v --max-fp %v --high %v --min-recall %v); use more slots or looser targets",
			errUsage, f.numPerm, f.low, f.maxFP, f.high, f.minRecall)
	case errors.Is(err, lsh.ErrNoParams):
		return nil, nil, chosen, fmt.Errorf("%w: no bands and rows within --num-perm %d reach --recall %v at --threshold %v; use more slots or a lower recall",
			errUsage, f.numPerm, f.recall, f.threshold)
	case err != nil:
		return nil, nil, chosen, fmt.Errorf("%w: %v", errUsage, err)
	}
	rep.Bands, rep.Rows = chosen.Bands, chosen.Rows
	return rep, list, chosen, nil
}

// row is the table row of parameters p: its S-curve at the targets and at
// the --at similarities, and with a sample (hist), the expected candidates.
func (f *tuneFlags) row(p, chosen lsh.Params, twoPoint bool, at []float64, hist *tune.Hist) tuneRow {
	fcrAt := f.threshold
	if twoPoint {
		fcrAt = f.high
	}
	row := tuneRow{Bands: p.Bands, Rows: p.Rows, Chosen: p == chosen,
		ThresholdApprox: tune.ThresholdApprox(p),
		Steepest:        tune.Steepest(p),
		FalseCandidate:  lsh.FalseCandidateRate(p, fcrAt)}
	if twoPoint {
		row.PLow, row.PHigh = ptr(p.Probability(f.low)), ptr(p.Probability(f.high))
		m := lsh.Margin(p, f.low, f.maxFP, f.high, f.minRecall)
		if !math.IsInf(m, 0) && !math.IsNaN(m) {
			row.Margin = &m
		}
	} else {
		row.PThreshold = ptr(p.Probability(f.threshold))
	}
	if len(at) > 0 {
		row.At = map[string]float64{}
		for _, s := range at {
			row.At[fmtSim(s)] = p.Probability(s)
		}
	}
	if hist != nil {
		per, total := hist.Expected(p, f.corpusDocs)
		row.CandPerDoc = &per
		if f.corpusDocs > 0 {
			row.CandTotal = &total
		}
	}
	return row
}

func (f *tuneFlags) validate(set map[string]bool) ([]float64, error) {
	if f.numPerm < 1 {
		return nil, fmt.Errorf("%w: --num-perm %d: want at least 1", errUsage, f.numPerm)
	}
	if (f.bands == 0) != (f.rows == 0) || f.bands < 0 || f.rows < 0 {
		return nil, fmt.Errorf("%w: --bands and --rows go together and must be positive", errUsage)
	}
	if f.bands > 0 && f.bands*f.rows > f.numPerm {
		return nil, fmt.Errorf("%w: %s x %s need %d slots, more than --num-perm %d", errUsage, plural(f.bands, "band", "bands"), plural(f.rows, "row", "rows"), f.bands*f.rows, f.numPerm)
	}
	twoPoint := set["low"] || set["high"] || set["max-fp"] || set["min-recall"]
	if twoPoint {
		if set["threshold"] || set["recall"] {
			return nil, fmt.Errorf("%w: --threshold/--recall and --low/--high are different modes: give one", errUsage)
		}
		if !set["low"] || !set["high"] || !set["max-fp"] {
			return nil, fmt.Errorf("%w: two-point mode needs --low, --max-fp and --high (and --min-recall, default 0.99)", errUsage)
		}
		switch {
		case !(f.low > 0 && f.low < f.high && f.high < 1):
			return nil, fmt.Errorf("%w: want 0 < --low < --high < 1, got %v and %v", errUsage, f.low, f.high)
		case !(f.maxFP > 0 && f.maxFP < 1):
			return nil, fmt.Errorf("%w: --max-fp %v: want a probability in (0, 1)", errUsage, f.maxFP)
		case !(f.minRecall > 0 && f.minRecall < 1):
			return nil, fmt.Errorf("%w: --min-recall %v: want a probability in (0, 1)", errUsage, f.minRecall)
		}
	} else {
		if !(f.threshold > 0 && f.threshold <= 1) {
			return nil, fmt.Errorf("%w: --threshold %v: want a similarity in (0, 1]", errUsage, f.threshold)
		}
		if !(f.recall > 0 && f.recall < 1) {
			return nil, fmt.Errorf("%w: --recall %v: want a probability in (0, 1)", errUsage, f.recall)
		}
	}
	var at []float64
	if f.at != "" {
		for _, s := range strings.Split(f.at, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || !(v >= 0 && v <= 1) {
				return nil, fmt.Errorf("%w: --at %q: want similarities in [0, 1]", errUsage, s)
			}
			at = append(at, v)
		}
	}
	if f.sample == "" && (set["sample-size"] || set["corpus-docs"] || set["sample-seed"]) {
		return nil, fmt.Errorf("%w: --sample-size, --sample-seed and --corpus-docs need --sample", errUsage)
	}
	if f.sampleSize < 2 {
		return nil, fmt.Errorf("%w: --sample-size %d: want at least 2", errUsage, f.sampleSize)
	}
	if f.corpusDocs < 0 {
		return nil, fmt.Errorf("%w: --corpus-docs %d: want a positive count", errUsage, f.corpusDocs)
	}
	if err := checkPlotPath(f.plot); err != nil {
		return nil, err
	}
	return at, nil
}

// checkPlotPath refuses a --plot file that chart cannot write, before any work.
func checkPlotPath(p string) error {
	if p == "" {
		return nil
	}
	switch strings.ToLower(filepath.Ext(p)) {
	case ".svg", ".png":
		return nil
	}
	return fmt.Errorf("%w: --plot %s: want a .svg or .png file", errUsage, p)
}

func printTune(w io.Writer, f *tuneFlags, rep *tuneReport, at []float64, twoPoint bool) error {
	switch rep.Mode {
	case "threshold":
		fmt.Fprintf(w, "%s, threshold %v, recall %v: for each r the fewest bands with P(%v) >= %v; * = lsh.Choose (fewest false candidates, as dedup)\n",
			plural(f.numPerm, "slot", "slots"), f.threshold, f.recall, f.threshold, f.recall)
	case "targets":
		fmt.Fprintf(w, "%s, P(%v) <= %v and P(%v) >= %v: for each r the bands of most margin; * = most margin overall\n",
			plural(f.numPerm, "slot", "slots"), f.low, f.maxFP, f.high, f.minRecall)
	default:
		fmt.Fprintf(w, "%s, %s x %s\n", plural(f.numPerm, "slot", "slots"), plural(f.bands, "band", "bands"), plural(f.rows, "row", "rows"))
	}
	if rep.Sample != nil {
		fmt.Fprintf(w, "sample: %d of %s, %s", rep.Sample.Documents, plural(rep.Sample.Read, "document", "documents"), plural(rep.Sample.Pairs, "pair", "pairs"))
		if rep.Sample.CorpusDocs > 0 {
			fmt.Fprintf(w, "; scaled to %s", plural(rep.Sample.CorpusDocs, "document", "documents"))
		}
		fmt.Fprintln(w)
	}
	header := []string{"", "b", "r", "b*r"}
	if twoPoint {
		header = append(header, "P("+fmtSim(f.low)+")", "P("+fmtSim(f.high)+")", "margin")
	} else {
		header = append(header, "P("+fmtSim(f.threshold)+")")
	}
	for _, s := range at {
		header = append(header, "P("+fmtSim(s)+")")
	}
	header = append(header, "thr", "steep", "fcr")
	if rep.Sample != nil {
		header = append(header, "cand/doc")
		if f.corpusDocs > 0 {
			header = append(header, "candidates")
		}
	}
	var rows [][]string
	for _, c := range rep.Candidates {
		mark := ""
		if c.Chosen {
			mark = "*"
		}
		row := []string{mark, strconv.Itoa(c.Bands), strconv.Itoa(c.Rows), strconv.Itoa(c.Bands * c.Rows)}
		if twoPoint {
			m := "inf"
			if c.Margin != nil {
				m = strconv.FormatFloat(*c.Margin, 'f', 3, 64)
			}
			row = append(row, fmtProb(*c.PLow), fmtProb(*c.PHigh), m)
		} else {
			row = append(row, fmtProb(*c.PThreshold))
		}
		for _, s := range at {
			row = append(row, fmtProb(c.At[fmtSim(s)]))
		}
		row = append(row, strconv.FormatFloat(c.ThresholdApprox, 'f', 3, 64), strconv.FormatFloat(c.Steepest, 'f', 3, 64), fmtProb(c.FalseCandidate))
		if c.CandPerDoc != nil {
			row = append(row, strconv.FormatFloat(*c.CandPerDoc, 'g', 4, 64))
			if c.CandTotal != nil {
				row = append(row, strconv.FormatFloat(*c.CandTotal, 'g', 4, 64))
			}
		}
		rows = append(rows, row)
	}
	return printTable(w, header, rows)
}

// tunePlot draws the chosen S-curve and up to three alternatives (its
// neighbours in the list), the targets marked.
func tunePlot(f *tuneFlags, rep *tuneReport, list []lsh.Params, chosen lsh.Params, twoPoint bool) *chart.Plot {
	curves := []lsh.Params{chosen}
	ci := 0
	for i, p := range list {
		if p == chosen {
			ci = i
		}
	}
	for d := 1; len(curves) < 4 && d < len(list); d++ {
		for _, i := range []int{ci - d, ci + d} {
			if i >= 0 && i < len(list) && len(curves) < 4 {
				curves = append(curves, list[i])
			}
		}
	}
	if rep.Mode == "targets" && len(curves) < 3 {
		// Few rows meet both targets: compare with dedup's choice for
		// threshold S2 and recall P2.
		if auto, err := lsh.Choose(f.numPerm, f.high, f.minRecall); err == nil && auto != chosen {
			curves = append(curves, auto)
		}
	}
	if rep.Mode == "given" {
		var auto lsh.Params
		var err error
		if twoPoint {
			auto, err = lsh.ChooseTargets(f.numPerm, f.low, f.maxFP, f.high, f.minRecall)
		} else {
			auto, err = lsh.Choose(f.numPerm, f.threshold, f.recall)
		}
		if err == nil && auto != chosen {
			curves = append(curves, auto)
		}
	}
	p := &chart.Plot{
		Title:  fmt.Sprintf("LSH S-curve, %s", plural(f.numPerm, "slot", "slots")),
		XLabel: "Jaccard similarity s", YLabel: "P(candidate) = 1-(1-s^r)^b",
		XMin: 0, XMax: 1, YMin: 0, YMax: 1.02,
	}
	for i, c := range curves {
		s := sCurveSeries(c, 200)
		s.Name = fmt.Sprintf("b=%d r=%d", c.Bands, c.Rows)
		if i == 0 {
			s.Name += " (chosen)"
		}
		p.Series = append(p.Series, s)
	}
	if twoPoint {
		p.Markers = []chart.Marker{
			{X: f.low, Y: f.maxFP, Label: fmt.Sprintf("P(%v) <= %v", f.low, f.maxFP)},
			{X: f.high, Y: f.minRecall, Label: fmt.Sprintf("P(%v) >= %v", f.high, f.minRecall)},
		}
		p.VLines = []float64{f.low, f.high}
	} else {
		p.Markers = []chart.Marker{{X: f.threshold, Y: f.recall, Label: fmt.Sprintf("P(%v) >= %v", f.threshold, f.recall)}}
		p.VLines = []float64{f.threshold}
	}
	return p
}

// sCurveSeries samples P(s) of p at n+1 evenly spaced similarities.
func sCurveSeries(p lsh.Params, n int) chart.Series {
	s := chart.Series{Kind: chart.Line}
	for i := 0; i <= n; i++ {
		x := float64(i) / float64(n)
		s.X = append(s.X, x)
		s.Y = append(s.Y, p.Probability(x))
	}
	return s
}

// sampleHist reads --sample, keeps a seeded uniform sample of up to
// --sample-size documents (reservoir sampling) and computes the exact
// Jaccard of all their pairs. It returns the histogram and how many
// documents were read.
func sampleHist(ctx context.Context, e *env, f *tuneFlags) (*tune.Hist, int, error) {
	co, so, err := f.in.Options()
	if err != nil {
		return nil, 0, err
	}
	src := &source{}
	defer src.cleanup()
	pr := &progress{src: src}
	stop := startProgress(e, false, pr)
	defer stop()
	pr.set("reading", 0)
	_, texts, read, err := sampleTexts(ctx, e, src, []string{f.sample}, co, f.sampleSize, f.sampleSeed)
	if err != nil {
		return nil, 0, err
	}
	sets, err := shingleAll(so, texts, f.workers)
	if err != nil {
		return nil, 0, err
	}
	workers := f.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	pr.set("all pairs of the sample", int64(len(sets)-1))
	h, err := tune.SampleHist(ctx, sets, workers, func() { pr.add(1) })
	if err != nil {
		return nil, 0, err
	}
	return h, read, nil
}
