package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/neardup/neardup/cliflags"
	"github.com/neardup/neardup/cmd/neardup/internal/analyze"
	"github.com/neardup/neardup/cmd/neardup/internal/chart"
	"github.com/neardup/neardup/cmd/neardup/internal/termcol"
	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/shingle"
)

const analyzeUsage = `Usage: neardup analyze [flags] INPUT...

Helps choose a shingle length and a threshold for dedup: takes a seeded
random sample of the inputs (reservoir sampling, so any corpus size works)
and, for every shingle length asked for, computes the exact Jaccard of all
pairs of the sample. Prints per length a histogram of the pairs in bins of
0.05, the number of pairs at or above each cutoff, and for each cutoff the
pairs whose Jaccard is closest to it, side by side, so you can see what 0.2
or 0.5 means on your data. Documents with no token are left out (counted).

Inputs are read as by dedup (same --format, --text-field, --id-field).

Examples:
  neardup analyze ads.jsonl
  neardup analyze --text-field "Title,Short Description" --ngram 2,3,5 --char 3-7 ads.tsv
  neardup analyze --sample 5000 --cutoffs 0.3,0.5,0.7 --json jobs.csv > analyze.json
  neardup analyze --plot hist.svg --examples 0 jobs.csv

Flags:
`

type analyzeFlags struct {
	in         cliflags.Input // corpus part only: mode and ngram are ours
	sample     int
	seed       uint64
	ngram      string
	char       string
	bag        bool
	nfkc       bool // --normalize nfkc
	cutoffs    string
	examples   int
	width      int
	lines      int
	json       bool
	plot       string
	workers    int
	quiet      bool
	noProgress bool
}

func runAnalyze(ctx context.Context, e *env, args []string) error {
	var f analyzeFlags
	fs := newFlagSet(e, "analyze", analyzeUsage)
	f.register(fs)
	inputs, err := parseArgs(fs, args, 1, "no input given")
	if err != nil {
		return err
	}
	co, so, err := f.in.Options()
	if err != nil {
		return err
	}
	f.nfkc = so.NFKC
	lens, cutoffs, err := f.validate(inputs)
	if err != nil {
		return err
	}
	workers := f.workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}

	start := time.Now()
	src := &source{}
	defer src.cleanup()
	pr := &progress{src: src}
	stop := startProgress(e, f.quiet || f.noProgress, pr)
	defer stop()
	pr.set("reading", 0)
	smp, err := readSample(ctx, e, src, inputs, co, f.sample, f.seed, f.nfkc)
	if err != nil {
		return err
	}
	readTime := time.Since(start)
	if len(smp.Docs) < 2 {
		return fmt.Errorf("the inputs have %d non-empty documents: at least 2 are needed", len(smp.Docs))
	}
	tp := time.Now()
	res := make([]*analyze.Result, len(lens))
	for i, l := range lens {
		pr.set(fmt.Sprintf("all pairs of the sample, %s %d-grams (%d of %d lengths)", l.Mode, l.N, i+1, len(lens)), int64(len(smp.Docs)-1))
		if res[i], err = analyzeLength(ctx, smp, l, shingle.Options{Bag: f.bag, NFKC: f.nfkc}, cutoffs, f.examples, workers, pr); err != nil {
			return err
		}
	}
	pairTime := time.Since(tp)

	rep := &analyzeReport{smp: smp, seed: f.seed, skipped: src.skipped, cutoffs: cutoffs, lens: res}
	if f.plot != "" {
		if err := rep.writePlot(f.plot); err != nil {
			return err
		}
	}
	if f.json {
		err = rep.writeJSON(e.stdout)
	} else {
		err = rep.writeText(e.stdout, f.width, f.lines)
	}
	if err != nil {
		return err
	}
	if !f.quiet {
		fmt.Fprintf(e.stderr, "analyze: sampled %d of %s (%d empty left out) in %.2fs; %s x %s in %.2fs on %s\n",
			len(smp.Docs), plural(smp.Seen, "document", "documents"), smp.Empty, readTime.Seconds(), plural(len(lens), "length", "lengths"),
			plural(res[0].Pairs, "pair", "pairs"), pairTime.Seconds(), plural(workers, "worker", "workers"))
	}
	return nil
}

// register defines analyze's flags on fs.
func (f *analyzeFlags) register(fs *flag.FlagSet) {
	// The input flags of dedup, by hand: cliflags.Input.Register would also
	// define --shingle and --ngram, which mean something else here.
	f.in.RegisterInput(fs)
	f.in.RegisterNormalize(fs)
	fs.IntVar(&f.sample, "sample", 2000, "documents in the sample (all pairs: n(n-1)/2 per length)")
	fs.Uint64Var(&f.seed, "sample-seed", 1, "seed of the random sample: same seed and input, same sample")
	fs.StringVar(&f.ngram, "ngram", "1-7", "word shingle lengths: a list of lengths and ranges, e.g. 1-7 or 2,3,5 (\"\": none)")
	fs.StringVar(&f.char, "char", "5", "char shingle lengths, e.g. 5 or 3-7 (\"\": none)")
	fs.BoolVar(&f.bag, "bag", false, "count repeated shingles (multiset Jaccard)")
	fs.StringVar(&f.cutoffs, "cutoffs", "0.05,0.2,0.5,0.8", "Jaccard cutoffs: pairs at or above each are counted, pairs closest to each shown")
	fs.IntVar(&f.examples, "examples", 2, "example pairs per cutoff per length")
	fs.IntVar(&f.width, "width", 60, "width of each text column of the examples, in characters")
	fs.IntVar(&f.lines, "lines", 12, "at most this many lines of each example text (0: all)")
	fs.BoolVar(&f.json, "json", false, "print a JSON object instead of the tables")
	fs.StringVar(&f.plot, "plot", "", "write a chart of the histograms (log counts per bin, one line per length) to FILE.svg or FILE.png")
	fs.IntVar(&f.workers, "workers", 0, "worker goroutines (default: the number of CPUs)")
	fs.BoolVar(&f.quiet, "quiet", false, "no summary or progress on standard error")
	fs.BoolVar(&f.noProgress, "no-progress", false, "no progress line even on a terminal")
}

// validate checks the flags and returns the shingle lengths to analyze
// and the Jaccard cutoffs; its errors are usage errors.
func (f *analyzeFlags) validate(inputs []string) ([]analyze.Length, []float64, error) {
	var lens []analyze.Length
	for _, m := range []struct {
		flag, spec string
		mode       shingle.Mode
	}{{"--ngram", f.ngram, shingle.Word}, {"--char", f.char, shingle.Char}} {
		ns, err := parseLengths(m.spec)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %s %v", errUsage, m.flag, err)
		}
		for _, n := range ns {
			lens = append(lens, analyze.Length{Mode: m.mode, N: n})
		}
	}
	if len(lens) == 0 {
		return nil, nil, fmt.Errorf("%w: no shingle length: --ngram and --char are both empty", errUsage)
	}
	cutoffs, err := parseCutoffs(f.cutoffs)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: --cutoffs %v", errUsage, err)
	}
	switch {
	case f.sample < 2:
		return nil, nil, fmt.Errorf("%w: --sample %d: want at least 2 documents", errUsage, f.sample)
	case f.examples < 0:
		return nil, nil, fmt.Errorf("%w: --examples %d: want 0 or more", errUsage, f.examples)
	case f.width < 10:
		return nil, nil, fmt.Errorf("%w: --width %d: want at least 10", errUsage, f.width)
	case f.lines < 0:
		return nil, nil, fmt.Errorf("%w: --lines %d: want 0 (all) or more", errUsage, f.lines)
	case f.workers < 0:
		return nil, nil, fmt.Errorf("%w: --workers %d: want 0 (all CPUs) or more", errUsage, f.workers)
	}
	if f.plot != "" {
		if ext := strings.ToLower(f.plot[strings.LastIndexByte(f.plot, '.')+1:]); ext != "svg" && ext != "png" {
			return nil, nil, fmt.Errorf("%w: --plot %s: want a .svg or .png file", errUsage, f.plot)
		}
		for _, in := range inputs {
			if in != "-" && absPath(in) == absPath(f.plot) {
				return nil, nil, fmt.Errorf("%w: --plot %s would overwrite input %s", errUsage, f.plot, in)
			}
		}
	}
	return lens, cutoffs, nil
}

// parseLengths parses a list of shingle lengths and ranges ("1-7",
// "2,3,5", "1-3,5") into sorted distinct lengths. "" is no length.
func parseLengths(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil {
			return nil, fmt.Errorf("%q is not a length or a range", part)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil {
				return nil, fmt.Errorf("%q is not a length or a range", part)
			}
		}
		if a < 1 || b > shingle.MaxN || a > b {
			return nil, fmt.Errorf("%q: want lengths from 1 to %d, low-high", part, shingle.MaxN)
		}
		for n := a; n <= b; n++ {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// parseCutoffs parses a comma-separated list of Jaccard values in (0, 1],
// returned sorted and distinct.
func parseCutoffs(s string) ([]float64, error) {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		c, err := strconv.ParseFloat(part, 64)
		if err != nil || !(c > 0 && c <= 1) {
			return nil, fmt.Errorf("%q: want a number in (0, 1]", part)
		}
		out = append(out, c)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// readSample reads every document of the inputs into an analyze.Sampler.
func readSample(ctx context.Context, e *env, src *source, inputs []string, co corpus.Options, k int, seed uint64, nfkc bool) (*analyze.Sample, error) {
	s, err := analyze.NewSampler(k, seed, nfkc)
	if err != nil {
		return nil, err
	}
	if err := readDocs(ctx, e, src, inputs, co, false, s.Add); err != nil {
		return nil, err
	}
	return s.Sample(), nil
}

// analyzeLength runs analyze.Pairs for one length, counting rows on pr.
func analyzeLength(ctx context.Context, smp *analyze.Sample, l analyze.Length, base shingle.Options, cutoffs []float64, examples, workers int, pr *progress) (*analyze.Result, error) {
	sh, err := shingle.New(shingle.Options{Mode: l.Mode, N: l.N, Bag: base.Bag, NFKC: base.NFKC})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	return analyze.Pairs(ctx, smp, sh, l, cutoffs, examples, workers, func() { pr.add(1) })
}

type analyzeReport struct {
	smp     *analyze.Sample
	seed    uint64
	skipped int
	cutoffs []float64
	lens    []*analyze.Result
}

func binEdges() []float64 {
	e := make([]float64, analyze.NumBins+1)
	for i := range e {
		e[i] = float64(i) / analyze.NumBins
	}
	return e
}

func (r *analyzeReport) writeJSON(w io.Writer) error {
	type jsonExample struct {
		A       string  `json:"a"`
		B       string  `json:"b"`
		Jaccard float64 `json:"jaccard"`
	}
	type jsonCutoff struct {
		Cutoff   float64       `json:"cutoff"`
		Pairs    int64         `json:"pairs"` // at or above the cutoff
		Examples []jsonExample `json:"examples"`
	}
	type jsonLength struct {
		Mode     string       `json:"mode"`
		N        int          `json:"n"`
		Pairs    int64        `json:"pairs"`
		MeanSet  float64      `json:"mean_set_size"`
		BinEdges []float64    `json:"bin_edges"`
		Counts   []int64      `json:"counts"`
		Cutoffs  []jsonCutoff `json:"cutoffs"`
	}
	out := struct {
		Sample  int          `json:"sample"`
		Seed    uint64       `json:"sample_seed"`
		IDs     []string     `json:"sample_ids"` // in input order
		Docs    int          `json:"documents"`  // non-empty documents read
		Empty   int          `json:"empty"`
		Skipped int          `json:"skipped"`
		Cutoffs []float64    `json:"cutoffs"`
		Lengths []jsonLength `json:"lengths"`
	}{Sample: len(r.smp.Docs), Seed: r.seed, Docs: r.smp.Seen, Empty: r.smp.Empty, Skipped: r.skipped, Cutoffs: r.cutoffs}
	for _, d := range r.smp.Docs {
		out.IDs = append(out.IDs, d.ID)
	}
	for _, l := range r.lens {
		jl := jsonLength{Mode: l.Length.Mode.String(), N: l.Length.N, Pairs: l.Pairs, MeanSet: math.Round(l.MeanSet*100) / 100,
			BinEdges: binEdges(), Counts: l.Hist[:]}
		for c, cut := range r.cutoffs {
			jc := jsonCutoff{Cutoff: cut, Pairs: l.AtLeast[c], Examples: []jsonExample{}}
			for _, p := range l.Examples[c] {
				jc.Examples = append(jc.Examples, jsonExample{r.smp.Docs[p.A].ID, r.smp.Docs[p.B].ID, p.Jaccard})
			}
			jl.Cutoffs = append(jl.Cutoffs, jc)
		}
		out.Lengths = append(out.Lengths, jl)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func (r *analyzeReport) writePlot(path string) error {
	p := chart.Plot{
		Title:  fmt.Sprintf("Exact Jaccard of all pairs of %d sampled %s", len(r.smp.Docs), pick(len(r.smp.Docs), "document", "documents")),
		XLabel: "Jaccard (bins of 0.05)",
		YLabel: "pairs",
		LogY:   true,
		XMin:   0, XMax: 1,
		VLines: r.cutoffs,
	}
	for _, l := range r.lens {
		s := chart.Series{Name: l.Length.String(), Kind: chart.Line, X: make([]float64, analyze.NumBins), Y: make([]float64, analyze.NumBins)}
		for b, v := range l.Hist {
			s.X[b] = (float64(b) + 0.5) / analyze.NumBins
			s.Y[b] = float64(v)
		}
		p.Series = append(p.Series, s)
	}
	if err := p.WriteFile(path, 800, 500); err != nil {
		return fmt.Errorf("--plot %s: %w", path, err)
	}
	return nil
}

func (r *analyzeReport) writeText(w io.Writer, width, maxLines int) error {
	var b strings.Builder
	n := len(r.smp.Docs)
	fmt.Fprintf(&b, "Sample: %d of %d non-empty %s (seed %d); %d empty left out", n, r.smp.Seen, pick(r.smp.Seen, "document", "documents"), r.seed, r.smp.Empty)
	if r.skipped > 0 {
		fmt.Fprintf(&b, ", %s skipped", plural(r.skipped, "bad record", "bad records"))
	}
	fmt.Fprintf(&b, ".\nExact Jaccard of all %s, per shingle length:\n\n", plural(r.lens[0].Pairs, "pair", "pairs"))

	// One row per bin, one column per length.
	rows := [][]string{{"jaccard"}}
	for _, l := range r.lens {
		rows[0] = append(rows[0], l.Length.String())
	}
	row := func(label string, cell func(l *analyze.Result) string) {
		x := []string{label}
		for _, l := range r.lens {
			x = append(x, cell(l))
		}
		rows = append(rows, x)
	}
	for k := analyze.NumBins - 1; k >= 0; k-- {
		row(fmt.Sprintf("%.2f-%.2f", float64(k)/analyze.NumBins, float64(k+1)/analyze.NumBins), func(l *analyze.Result) string { return strconv.FormatInt(l.Hist[k], 10) })
	}
	rows = append(rows, nil)
	for c, cut := range r.cutoffs {
		row(">= "+strconv.FormatFloat(cut, 'g', -1, 64), func(l *analyze.Result) string { return strconv.FormatInt(l.AtLeast[c], 10) })
	}
	row("mean set", func(l *analyze.Result) string { return strconv.FormatFloat(l.MeanSet, 'f', 1, 64) })
	colW := make([]int, len(rows[0]))
	for _, x := range rows {
		for i, c := range x {
			colW[i] = max(colW[i], len(c))
		}
	}
	for _, x := range rows {
		if x == nil {
			b.WriteByte('\n')
			continue
		}
		fmt.Fprintf(&b, "%-*s", colW[0], x[0])
		for i := 1; i < len(x); i++ {
			fmt.Fprintf(&b, "  %*s", colW[i], x[i])
		}
		b.WriteByte('\n')
	}

	// Examples, per length and cutoff.
	for _, l := range r.lens {
		for c, cut := range r.cutoffs {
			for _, p := range l.Examples[c] {
				b.WriteByte('\n')
				writeExample(&b, fmt.Sprintf("%s, near %g", l.Length, cut), r.smp.Docs[p.A], r.smp.Docs[p.B], p.Jaccard, width, maxLines)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeExample writes a pair as two columns of wrapped text under a header
// with the ids and the Jaccard.
func writeExample(b *strings.Builder, what string, da, db analyze.Doc, jac float64, width, maxLines int) {
	head := fmt.Sprintf("── %s: J = %.4f ", what, jac)
	b.WriteString(head)
	b.WriteString(strings.Repeat("─", max(3, 2*width+3-termcol.Width([]rune(head)))))
	b.WriteByte('\n')
	left, right := termcol.Wrap(string(da.Text), width), termcol.Wrap(string(db.Text), width)
	fmt.Fprintf(b, "%s │ %s\n", termcol.Pad(termcol.Clip(da.ID, width), width), termcol.Clip(db.ID, width))
	fmt.Fprintf(b, "%s ┼ %s\n", strings.Repeat("─", width), strings.Repeat("─", width))
	lines := max(len(left), len(right))
	shown := lines
	if maxLines > 0 && lines > maxLines {
		shown = maxLines
	}
	for i := range shown {
		var x, y string
		if i < len(left) {
			x = left[i]
		}
		if i < len(right) {
			y = right[i]
		}
		fmt.Fprintf(b, "%s │ %s\n", termcol.Pad(x, width), y)
	}
	if shown < lines {
		more := func(ls []string) string {
			if len(ls) > shown {
				return fmt.Sprintf("[... %d more %s]", len(ls)-shown, pick(len(ls)-shown, "line", "lines"))
			}
			return ""
		}
		fmt.Fprintf(b, "%s │ %s\n", termcol.Pad(more(left), width), more(right))
	}
}
