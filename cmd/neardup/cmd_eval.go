package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/allpairs"
	"github.com/neardup/neardup/cliflags"
	"github.com/neardup/neardup/cmd/neardup/internal/chart"
	"github.com/neardup/neardup/cmd/neardup/internal/truth"
	"github.com/neardup/neardup/cmd/neardup/internal/tune"
	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/internal/pairscore"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/shingle"
)

const evalUsage = `Usage: neardup eval [flags] INPUT...

Checks an LSH configuration against the truth. It runs the dedup engine
(MinHash, LSH, exact verification) and an exact all-pairs join on the same
documents and reports the time of each, the pairs each found, recall and
precision, overall and per similarity bin. A true pair (Jaccard >= t) counts
as found when dedup reported it, when the two documents have identical
shingle sets, or when the earliest documents of their identical groups were
reported (dedup pairs identical copies as a star around the earliest).

It also measures the S-curve itself: the fraction of exact pairs in each
0.05 bin from --plot-from to 1 that become LSH candidates (package lsh,
no bucket limit, before verification) next to the formula 1-(1-s^r)^b.

Precision is 1 by construction with exact verification; eval checks it.

Examples:
  neardup eval --threshold 0.8 ads.jsonl
  neardup eval --sample 20000 --plot scurve.png --json ads.jsonl

Flags:
`

type evalFlags struct {
	in cliflags.Input
	cliflags.Engine

	sample     int
	sampleSeed uint64
	plotFrom   float64
	jsonOut    bool
	plot       string
	truth      string
	quiet      bool
	noProgress bool
}

// evalBin is one similarity bin [Lo, Hi) (the last includes 1).
type evalBin struct {
	Lo, Hi float64 `json:"-"`
	From   float64 `json:"from"`
	To     float64 `json:"to"`
	Pairs  int     `json:"pairs"` // exact pairs in the bin
	// recall bins
	Found  int      `json:"found,omitempty"`
	Recall *float64 `json:"recall,omitempty"`
	// candidate bins
	Candidates *int     `json:"candidates,omitempty"`
	Fraction   *float64 `json:"candidate_fraction,omitempty"` // measured
	Formula    *float64 `json:"formula,omitempty"`            // 1-(1-s^r)^b at the bin's mean Jaccard
	MeanJ      *float64 `json:"mean_jaccard,omitempty"`
}

type evalReport struct {
	Documents     int            `json:"documents"`
	Read          int            `json:"read"`
	Empty         int            `json:"empty"`
	Threshold     float64        `json:"threshold"`
	NumPerm       int            `json:"num_perm"`
	Bands         int            `json:"bands"`
	Rows          int            `json:"rows"`
	LSHSeconds    float64        `json:"lsh_seconds"`
	ExactSeconds  float64        `json:"exact_seconds"`
	ShingleSecs   float64        `json:"shingle_seconds"`
	TruePairs     int            `json:"true_pairs"`
	LSHPairs      int            `json:"lsh_pairs"`
	Intersection  int            `json:"intersection"`
	Found         int            `json:"found"`
	Candidates    int64          `json:"candidates"`
	Recall        float64        `json:"recall"`
	Precision     float64        `json:"precision"`
	JaccardExact  bool           `json:"jaccard_exact"`
	Verify        string         `json:"verify"`
	RecallBins    []*evalBin     `json:"recall_bins"`
	CandidateBins []*evalBin     `json:"candidate_bins"`
	Planted       *truth.Planted `json:"planted,omitempty"` // --truth
	// Weighted is set with --weight idf: the exact join is unweighted, so
	// recall, precision and the bins are not computed then.
	Weighted bool `json:"weighted,omitempty"`
	// Clusters describes the clusters the run made (--cluster).
	Clusters evalClusters `json:"clusters"`
}

// evalClusters is how far clusters stray from the promise that a dropped
// document is a near-duplicate of the kept one.
type evalClusters struct {
	Mode      string `json:"mode"`
	Clusters  int    `json:"clusters"`
	Largest   int    `json:"largest"`
	Dropped   int    `json:"dropped"`             // members other than the representatives
	Below     int    `json:"below_threshold"`     // of those, below t with their representative
	WithBelow int    `json:"clusters_with_below"` // clusters with such a member
}

func runEval(ctx context.Context, e *env, args []string) error {
	var f evalFlags
	fs := newFlagSet(e, "eval", evalUsage)
	f.in.Register(fs)
	f.Engine.Register(fs)
	fs.IntVar(&f.sample, "sample", 0, "evaluate a seeded random sample of this many documents (0: all)")
	fs.Uint64Var(&f.sampleSeed, "sample-seed", 1, "seed of --sample")
	fs.Float64Var(&f.plotFrom, "plot-from", 0.2, "lowest similarity of the measured S-curve (exact join at this threshold)")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON instead of tables")
	fs.StringVar(&f.plot, "plot", "", "draw the measured candidate fraction per bin over the S-curve to FILE.svg or FILE.png")
	fs.BoolVar(&f.quiet, "quiet", false, "no stage lines or progress on standard error")
	fs.BoolVar(&f.noProgress, "no-progress", false, "no progress line even on a terminal")
	fs.StringVar(&f.truth, "truth", "", "score reported pairs against planted relations: a TSV with columns id, source[, family] (bench/gencorpus -truth)")
	inputs, err := parseArgs(fs, args, 1, "no input given")
	if err != nil {
		return err
	}
	co, so, err := f.in.Options()
	if err != nil {
		return err
	}
	if f.sample < 0 {
		return fmt.Errorf("%w: --sample %d: want a count", errUsage, f.sample)
	}
	if !(f.plotFrom > 0 && f.plotFrom <= 1) {
		return fmt.Errorf("%w: --plot-from %v: want a similarity in (0, 1]", errUsage, f.plotFrom)
	}
	if err := checkPlotPath(f.plot); err != nil {
		return err
	}
	o, err := f.Engine.Options(so)
	if err != nil {
		return err
	}
	if o.Weight == neardup.WeightIDF && f.plot != "" {
		return fmt.Errorf("%w: --plot needs the exact join, which --weight idf skips", errUsage)
	}
	var origin map[string]string
	if f.truth != "" {
		if origin, err = readTruth(f.truth); err != nil {
			return err
		}
	}
	rep, err := evaluate(ctx, e, &f, inputs, o, co, origin)
	if err != nil {
		return err
	}
	if f.plot != "" {
		if err := evalPlot(rep).WriteFile(f.plot, 720, 450); err != nil {
			return err
		}
	}
	if f.jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return printEval(e.stdout, rep)
}

func evaluate(ctx context.Context, e *env, f *evalFlags, inputs []string, o neardup.Options, co corpus.Options, origin map[string]string) (*evalReport, error) {
	params := o.LSH
	// Each stage is announced on standard error when it ends (--quiet: not),
	// and a progress line runs while it goes on.
	say := func(format string, args ...any) {
		if !f.quiet {
			fmt.Fprintf(e.stderr, "eval: "+format+"\n", args...)
		}
	}
	src := &source{}
	defer src.cleanup()
	pr := &progress{src: src}
	stop := startProgress(e, f.quiet || f.noProgress, pr)
	defer stop()
	t0 := time.Now()
	pr.set("reading", 0)
	ids, texts, read, err := sampleTexts(ctx, e, src, inputs, co, f.sample, f.sampleSeed)
	if err != nil {
		return nil, err
	}
	say("read %s, kept %d, in %s", plural(read, "document", "documents"), len(texts), dur(time.Since(t0)))
	t := f.Threshold
	rep := &evalReport{Documents: len(texts), Read: read, Threshold: t, NumPerm: f.NumPerm,
		Bands: params.Bands, Rows: params.Rows, Verify: o.Verify.String()}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	t0 = time.Now()
	res, err := evalEngine(ctx, pr, rep, texts, o)
	if err != nil {
		return nil, err
	}
	say("dedup engine: %s, %s, %s", dur(time.Since(t0)), plural(rep.Candidates, "candidate", "candidates"), plural(rep.LSHPairs, "pair", "pairs"))
	if origin != nil {
		if rep.Planted, err = truth.Score(f.truth, origin, ids, res.Pairs, o.Refine == neardup.RefineEdit); err != nil {
			return nil, err
		}
	}
	if o.Weight == neardup.WeightIDF {
		rep.Weighted = true
		return rep, nil
	}

	// (b) the exact join on the same shingle sets.
	sets, ranked, truth, err := evalExact(ctx, pr, rep, texts, o.Shingle, workers)
	if err != nil {
		return nil, err
	}
	say("exact all-pairs join: %s, %s", dur(time.Duration(rep.ExactSeconds*float64(time.Second))), plural(rep.TruePairs, "pair", "pairs"))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rep.scoreRecall(res, truth)

	// The measured S-curve: exact pairs down to --plot-from, and which of
	// them share a band (lsh.Candidates, no bucket limit, no verification).
	t0 = time.Now()
	bins, err := candidateCurve(ctx, pr, sets, ranked, min(f.plotFrom, t), o.Params, workers)
	if err != nil {
		return nil, err
	}
	say("measured S-curve (exact pairs from %g, LSH candidates): %s", min(f.plotFrom, t), dur(time.Since(t0)))
	rep.CandidateBins = bins
	return rep, nil
}

// evalExact shingles texts and joins the sets exactly at the threshold
// (allpairs): it returns the sets, their ranking (shared with the S-curve's
// join) and the true pairs (pairscore.Key -> Jaccard) of non-empty sets,
// and fills rep's timings, empty count and true pairs.
func evalExact(ctx context.Context, pr *progress, rep *evalReport, texts [][]byte, so shingle.Options, workers int) ([][]uint64, *allpairs.Ranked, map[uint64]float64, error) {
	t := rep.Threshold
	t0 := time.Now()
	pr.set("shingling for the exact join", 0)
	sets, err := shingleAll(so, texts, workers)
	if err != nil {
		return nil, nil, nil, err
	}
	rep.ShingleSecs = time.Since(t0).Seconds()
	for _, s := range sets {
		if len(s) == 0 {
			rep.Empty++
		}
	}
	var mu sync.Mutex
	truth := map[uint64]float64{}
	t0 = time.Now()
	pr.set(fmt.Sprintf("exact all-pairs join at t = %g", t), 0)
	ranked := allpairs.Rank(sets, workers) // shared with the S-curve's join
	ranked.Join(t, workers, func(i, j int, jac float64) {
		if len(sets[i]) == 0 || len(sets[j]) == 0 {
			return
		}
		mu.Lock()
		truth[pairscore.Key(i, j)] = jac
		mu.Unlock()
	})
	rep.ExactSeconds = time.Since(t0).Seconds()
	rep.TruePairs = len(truth)
	return sets, ranked, truth, nil
}

// evalEngine runs the dedup engine on texts, timed from the first Add to
// the end of Run, and fills rep's engine figures and clusters.
func evalEngine(ctx context.Context, pr *progress, rep *evalReport, texts [][]byte, o neardup.Options) (*neardup.Result, error) {
	t0 := time.Now()
	b, err := neardup.NewBatch(o)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", errUsage, cliflags.ErrText(err))
	}
	defer b.Close()
	pr.watch(b)
	for i, text := range texts {
		if err := b.Add(strconv.Itoa(i), text); err != nil {
			return nil, err
		}
	}
	res, err := b.Run(ctx)
	if err != nil {
		return nil, err
	}
	rep.LSHSeconds = time.Since(t0).Seconds()
	rep.Candidates = res.Stats.Candidates
	rep.LSHPairs = len(res.Pairs)
	rep.Clusters = evalClusters{Mode: o.Cluster.String(), Clusters: len(res.Clusters)}
	for _, c := range res.Clusters {
		rep.Clusters.Largest = max(rep.Clusters.Largest, len(c.Members))
		rep.Clusters.Dropped += len(c.Members) - 1
		below := c.Below(rep.Threshold)
		rep.Clusters.Below += below
		if below > 0 {
			rep.Clusters.WithBelow++
		}
	}
	return res, nil
}

// scoreRecall compares the engine's pairs with the exact join's (truth:
// pairscore.Key -> Jaccard): precision, recall overall and per 0.05 bin
// from the threshold, and whether every reported Jaccard is exact.
func (rep *evalReport) scoreRecall(res *neardup.Result, truth map[uint64]float64) {
	t := rep.Threshold
	reported := pairscore.NewReported(res.Canonical, len(res.Pairs))
	score := pairscore.Score{Exact: len(truth), Reported: len(res.Pairs)}
	rep.JaccardExact = true
	for _, p := range res.Pairs {
		reported.Add(p.A, p.B)
		if jac, ok := truth[pairscore.Key(p.A, p.B)]; ok {
			score.Correct++
			if math.Abs(jac-p.Jaccard) > 1e-9 {
				rep.JaccardExact = false
			}
		}
	}
	bins, found := pairscore.RecallBins(truth, t, reported)
	score.Found = found
	for _, b := range bins {
		bin := &evalBin{Lo: b.Lo, Hi: b.Hi, From: round3(b.Lo), To: round3(b.Hi), Pairs: b.Pairs, Found: b.Found}
		if b.Pairs > 0 {
			bin.Recall = ptr(float64(b.Found) / float64(b.Pairs))
		}
		rep.RecallBins = append(rep.RecallBins, bin)
	}
	rep.Intersection, rep.Found = score.Correct, score.Found
	rep.Recall, rep.Precision = score.Recall(), score.Precision()
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// candidateCurve runs tune.Curve, its banding shown on pr, and turns its
// bins into the report's.
func candidateCurve(ctx context.Context, pr *progress, sets [][]uint64, ranked *allpairs.Ranked, from float64, params neardup.Params, workers int) ([]*evalBin, error) {
	bins, err := tune.Curve(ctx, sets, ranked, from, params, workers, func(bands int) *atomic.Int64 {
		pr.set("LSH candidates per band", int64(bands))
		return &pr.done
	})
	if err != nil {
		return nil, err
	}
	out := make([]*evalBin, 0, len(bins))
	for _, b := range bins {
		mj, cand := b.SumJ/float64(b.Pairs), int(b.Candidates)
		out = append(out, &evalBin{Lo: b.Lo, Hi: b.Lo + 0.05, From: round3(b.Lo), To: round3(b.Lo + 0.05), Pairs: b.Pairs,
			Candidates: &cand, Fraction: ptr(float64(b.Candidates) / float64(b.Pairs)),
			MeanJ: &mj, Formula: ptr(params.LSH.Probability(mj))})
	}
	return out, nil
}

func printEval(w io.Writer, r *evalReport) error {
	fmt.Fprintf(w, "%s (%d read, %d empty); t = %v, %s, %s x %s, %s verification\n",
		plural(r.Documents, "document", "documents"), r.Read, r.Empty, r.Threshold, plural(r.NumPerm, "slot", "slots"), plural(r.Bands, "band", "bands"), plural(r.Rows, "row", "rows"), r.Verify)
	fmt.Fprintf(w, "lsh (dedup engine):   %8.3f s  %s, %s\n", r.LSHSeconds, plural(r.LSHPairs, "pair", "pairs"), plural(r.Candidates, "candidate", "candidates"))
	c := r.Clusters
	fmt.Fprintf(w, "clusters (%s): %d, largest %d; %s dropped, %d of them below t with the kept one (%.1f%%), in %s\n",
		c.Mode, c.Clusters, c.Largest, plural(c.Dropped, "document", "documents"), c.Below, 100*ratioOr0(c.Below, c.Dropped), plural(c.WithBelow, "cluster", "clusters"))
	if r.Weighted {
		fmt.Fprintln(w, "idf-weighted Jaccard: no exact join to compare with (it is unweighted)")
		if r.Planted != nil {
			return printPlanted(w, r.Planted)
		}
		return nil
	}
	fmt.Fprintf(w, "exact all-pairs join: %8.3f s  %s (plus %.3f s shingling)\n", r.ExactSeconds, plural(r.TruePairs, "pair", "pairs"), r.ShingleSecs)
	fmt.Fprintf(w, "both: %s; %s found (identical sets included)\n", plural(r.Intersection, "reported pair is a true pair", "reported pairs are true pairs"), plural(r.Found, "true pair", "true pairs"))
	fmt.Fprintf(w, "recall %.6f  precision %.6f", r.Recall, r.Precision)
	switch {
	case r.Verify != "exact":
		fmt.Fprintf(w, " (%s verification: pairs are kept by their signature estimate, so some may be below t)\n", r.Verify)
	case r.Precision == 1 && r.JaccardExact:
		fmt.Fprintf(w, " (1 as it must be with exact verification; every reported Jaccard equals the exact one)\n")
	default:
		fmt.Fprintf(w, " (WARNING: exact verification should give precision 1 and exact Jaccard values)\n")
	}
	fmt.Fprintln(w, "\nrecall per similarity bin:")
	var rows [][]string
	for _, b := range r.RecallBins {
		rec := "-"
		if b.Recall != nil {
			rec = strconv.FormatFloat(*b.Recall, 'f', 4, 64)
		}
		rows = append(rows, []string{fmt.Sprintf("[%.3f, %.3f%s", b.From, b.To, closeBr(b.To)), strconv.Itoa(b.Pairs), strconv.Itoa(b.Found), rec})
	}
	if err := printTable(w, []string{"jaccard", "pairs", "found", "recall"}, rows); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nLSH candidates per similarity bin (before verification, no bucket limit) vs 1-(1-s^r)^b:")
	rows = rows[:0]
	for _, b := range r.CandidateBins {
		rows = append(rows, []string{fmt.Sprintf("[%.2f, %.2f%s", b.From, b.To, closeBr(b.To)), strconv.Itoa(b.Pairs), strconv.Itoa(*b.Candidates),
			strconv.FormatFloat(*b.Fraction, 'f', 4, 64), strconv.FormatFloat(*b.Formula, 'f', 4, 64)})
	}
	if err := printTable(w, []string{"jaccard", "pairs", "candidates", "measured", "formula"}, rows); err != nil {
		return err
	}
	if r.Planted != nil {
		return printPlanted(w, r.Planted)
	}
	return nil
}

func closeBr(to float64) string {
	if to >= 1 {
		return "]"
	}
	return ")"
}

func evalPlot(r *evalReport) *chart.Plot {
	p := lsh.Params{Bands: r.Bands, Rows: r.Rows}
	curve := sCurveSeries(p, 200)
	curve.Name = fmt.Sprintf("1-(1-s^%d)^%d", r.Rows, r.Bands)
	meas := chart.Series{Name: "measured (exact pairs per 0.05 bin)", Kind: chart.Points}
	for _, b := range r.CandidateBins {
		meas.X = append(meas.X, *b.MeanJ)
		meas.Y = append(meas.Y, *b.Fraction)
	}
	return &chart.Plot{
		Title:  fmt.Sprintf("Pairs that become LSH candidates: %s x %s, %s", plural(r.Bands, "band", "bands"), plural(r.Rows, "row", "rows"), plural(r.Documents, "document", "documents")),
		XLabel: "Jaccard similarity", YLabel: "fraction of pairs that are candidates",
		XMin: 0, XMax: 1, YMin: 0, YMax: 1.02,
		Series: []chart.Series{curve, meas},
		VLines: []float64{r.Threshold},
	}
}

func ratioOr0(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
