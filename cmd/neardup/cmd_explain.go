package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cliflags"
	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/explain"
	"github.com/neardup/neardup/idf"
	"github.com/neardup/neardup/internal/dedupout"
	"github.com/neardup/neardup/shingle"
)

const explainUsage = `Usage: neardup explain [flags] A B INPUT...

Says why documents A and B (ids as dedup names them) are or are not in one
cluster: their exact Jaccard, whether dedup with the same flags puts them in
one cluster, the shortest path of verified pairs from A to B with the Jaccard
of each step, and the longest runs of tokens they share.

The pairs come from a dedup run over the inputs with the given flags, or,
with --pairs, from a pairs file written by "neardup dedup --pairs" over the
same inputs (the corpus is still read, for the texts and the ids).

Examples:
  neardup explain ad00012 ad00345 ads.jsonl
  neardup explain --pairs pairs.tsv --json ad00012 ad00345 ads.jsonl

Output (--json): {"a", "b", "jaccard", "threshold", "cluster_mode",
"same_cluster", "same_component", "cluster_a", "cluster_b" (null when not in
a cluster: {"representative", "size", "review"}), "path": [{"id", "jaccard"}]
from A to B (jaccard: with the previous step, null for A; [] when there is
no path), "shared_runs": [{"tokens", "text"}]}.

Flags:
`

type explainFlags struct {
	in cliflags.Input
	cliflags.Engine

	pairs string
	json  bool
	top   int
}

func runExplain(ctx context.Context, e *env, args []string) error {
	var f explainFlags
	fs := newFlagSet(e, "explain", explainUsage)
	f.in.Register(fs)
	f.Engine.Register(fs)
	fs.StringVar(&f.pairs, "pairs", "", "read the verified pairs from this dedup --pairs file instead of running dedup")
	fs.BoolVar(&f.json, "json", false, "write JSON instead of text")
	fs.IntVar(&f.top, "top", 5, "longest shared token runs to show")
	pos, err := parseArgs(fs, args, 3, "want two ids and at least one input")
	if err != nil {
		return err
	}
	idA, idB, inputs := pos[0], pos[1], pos[2:]
	co, so, err := f.in.Options()
	if err != nil {
		return err
	}
	o, err := f.Engine.Options(so)
	if err != nil {
		return err
	}
	if f.top < 0 {
		return fmt.Errorf("%w: --top %d: want a count", errUsage, f.top)
	}
	x, err := explainPair(ctx, e, &f, o, idA, idB, inputs, co)
	if err != nil {
		return err
	}
	if f.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(x)
	}
	x.print(e.stdout)
	return nil
}

// explanation is the result of explain, and its JSON form.
type explanation struct {
	A             string      `json:"a"`
	B             string      `json:"b"`
	Jaccard       json.Number `json:"jaccard"`
	Threshold     float64     `json:"threshold"`
	Shingles      string      `json:"shingles"` // e.g. "word 3-grams"
	SizeA         int         `json:"shingles_a"`
	SizeB         int         `json:"shingles_b"`
	Shared        int         `json:"shared_shingles"`
	Mode          string      `json:"cluster_mode"`
	Source        string      `json:"pairs_from"` // "dedup run" or the --pairs file
	SameCluster   bool        `json:"same_cluster"`
	SameComponent bool        `json:"same_component"`
	ClusterA      *clusterRef `json:"cluster_a"`
	ClusterB      *clusterRef `json:"cluster_b"`
	Path          []pathStep  `json:"path"`
	Runs          []sharedRun `json:"shared_runs"`
	MinRun        int         `json:"min_run"` // shortest run reported, in tokens (code points in char mode)

	jac float64
}

type clusterRef struct {
	Representative string `json:"representative"`
	Size           int    `json:"size"`
	Review         bool   `json:"review"`
	rep            int
}

type pathStep struct {
	ID      string       `json:"id"`
	Jaccard *json.Number `json:"jaccard"` // with the previous step; null for A
}

type sharedRun struct {
	Tokens int    `json:"tokens"`
	Text   string `json:"text"`
}

// corpusView is what explain keeps of the corpus: ids, sizes, the texts
// of A and B, and with --pairs what clustering and weighting need.
type corpusView struct {
	ids   []string
	index map[string]int
	sizes []int64
	fps   []uint64   // --pairs: fingerprint of each set (0: empty), for identical groups
	sets  [][]uint64 // --pairs with --weight idf: every set, for the idf weights
	texts [2][]byte
	found [2]bool
}

func explainPair(ctx context.Context, e *env, f *explainFlags, o neardup.Options, idA, idB string, inputs []string, co corpus.Options) (*explanation, error) {
	var b *neardup.Batch
	var err error
	if f.pairs == "" {
		if b, err = neardup.NewBatch(o); err != nil {
			return nil, fmt.Errorf("%w: %s", errUsage, cliflags.ErrText(err))
		}
		defer b.Close()
	}
	sk, err := neardup.NewSketcher(o.Params)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", errUsage, cliflags.ErrText(err))
	}
	cv, err := readCorpusView(ctx, e, f.pairs != "", o.Weight == neardup.WeightIDF, b, sk, [2]string{idA, idB}, inputs, co)
	if err != nil {
		return nil, err
	}
	a, bb := cv.index[idA], cv.index[idB]

	x := &explanation{A: idA, B: idB, Threshold: o.Threshold, Mode: o.Cluster.String(), Path: []pathStep{}, Runs: []sharedRun{}}
	x.Shingles = fmt.Sprintf("%s %d-grams", o.Shingle.Mode, o.Shingle.N)
	if o.Shingle.Bag {
		x.Shingles += " (bag)"
	}
	if o.Weight == neardup.WeightIDF {
		x.Shingles += ", idf-weighted"
	}
	var sa, sb neardup.Sketch
	sk.Sketch(&sa, cv.texts[0], nil)
	sk.Sketch(&sb, cv.texts[1], nil)
	x.SizeA, x.SizeB, x.Shared = len(sa.Set), len(sb.Set), shingle.Intersection(sa.Set, sb.Set)

	// The pairs, as document indices, the clusters of A and B, and
	// canon[d], the document standing for d's identical-set group.
	var pairs []neardup.Pair
	var canon []int
	if b != nil {
		pairs, canon, err = x.fromRun(ctx, b, cv, a, bb)
	} else {
		pairs, canon, err = x.fromFile(f.pairs, cv, sk, &sa, &sb, o, a, bb)
	}
	if err != nil {
		return nil, err
	}
	x.Jaccard = jnum(x.jac)
	x.SameCluster = x.ClusterA != nil && x.ClusterB != nil && x.ClusterA.rep == x.ClusterB.rep

	// Shortest path of verified pairs, identical copies being one node (so
	// that a compact and a full pairs listing give the same path), with the
	// Jaccard of each step.
	x.setPath(cv, canon, pairs, a, bb)

	// Longest shared runs of tokens, as package shingle cuts them.
	if err := x.setRuns(cv, o.Shingle, f.top); err != nil {
		return nil, err
	}
	return x, nil
}

// fromRun takes the pairs, the identical groups (canon[d]: the document
// standing for d's group) and the clusters of A (a) and B (bb) from a
// dedup run over the documents added to b.
func (x *explanation) fromRun(ctx context.Context, b *neardup.Batch, cv *corpusView, a, bb int) ([]neardup.Pair, []int, error) {
	x.Source = "dedup run"
	res, err := b.Run(ctx)
	if err != nil {
		return nil, nil, err
	}
	x.jac = res.Similarity(a, bb) // what dedup compares with the threshold
	canon := make([]int, len(cv.ids))
	for d := range canon {
		canon[d] = res.Canonical(d)
	}
	for _, c := range res.Clusters {
		for _, m := range c.Members {
			ref := &clusterRef{Representative: cv.ids[c.Representative], Size: len(c.Members), Review: c.Review, rep: c.Representative}
			if m.Doc == a {
				x.ClusterA = ref
			}
			if m.Doc == bb {
				x.ClusterB = ref
			}
		}
	}
	return res.Pairs, canon, nil
}

// fromFile is fromRun for a --pairs file: the groups come from the sets'
// fingerprints, the clusters from explain.ClustersOf, and the similarity of
// A and B (sketches sa and sb, weighed here with idf) from a verifier.
func (x *explanation) fromFile(path string, cv *corpusView, sk *neardup.Sketcher, sa, sb *neardup.Sketch, o neardup.Options, a, bb int) ([]neardup.Pair, []int, error) {
	x.Source = path
	pairs, err := readPairsFile(path, cv)
	if err != nil {
		return nil, nil, err
	}
	if o.Weight == neardup.WeightIDF {
		// Weights over the distinct non-empty sets, as dedup computes them.
		tab := idf.Compute(explain.DistinctSets(cv.sets, cv.fps))
		sk.Weigh(sa, tab)
		sk.Weigh(sb, tab)
	}
	v, err := neardup.NewVerifier(o.Params, o.Verify)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s", errUsage, cliflags.ErrText(err))
	}
	x.jac = v.Similarity(sa, sb)
	canon := explain.Groups(cv.fps)
	ca, cb, err := explain.ClustersOf(cv.sizes, canon, pairs, o, a, bb)
	if err != nil {
		return nil, nil, err
	}
	x.ClusterA, x.ClusterB = cv.clusterRef(ca), cv.clusterRef(cb)
	return pairs, canon, nil
}

// setPath sets the shortest path of verified pairs from a to bb (Path)
// and whether there is one (SameComponent), naming its documents by id.
func (x *explanation) setPath(cv *corpusView, canon []int, pairs []neardup.Pair, a, bb int) {
	steps, ok := explain.Path(len(cv.ids), canon, pairs, a, bb)
	x.Path, x.SameComponent = make([]pathStep, len(steps)), ok
	for k, st := range steps {
		x.Path[k].ID = cv.ids[st.Doc]
		if k > 0 {
			n := jnum(st.Jaccard)
			x.Path[k].Jaccard = &n
		}
	}
}

// setRuns sets the top longest runs of tokens A and B share (Runs,
// MinRun), the tokens cut as package shingle cuts them with so.
func (x *explanation) setRuns(cv *corpusView, so shingle.Options, top int) error {
	sh, err := shingle.New(so)
	if err != nil {
		return fmt.Errorf("%w: %s", errUsage, cliflags.ErrText(err))
	}
	ta, tb := sh.AppendTokenStrings(nil, cv.texts[0]), sh.AppendTokenStrings(nil, cv.texts[1])
	x.MinRun = max(1, min(so.N, len(ta), len(tb)))
	for _, r := range explain.SharedRuns(ta, tb, x.MinRun, top) {
		text := strings.Join(ta[r.I:r.I+r.N], "")
		if so.Mode == shingle.Word {
			text = shingle.JoinTokens(ta[r.I : r.I+r.N])
		}
		x.Runs = append(x.Runs, sharedRun{Tokens: r.N, Text: text})
	}
	return nil
}

// readCorpusView reads the inputs into a corpusView, adding every
// document to b when it is not nil (a dedup run). fromFile: the pairs come
// from a --pairs file, so the view keeps each set's fingerprint (and with
// idf, every set). It fails on an id of want that no document has.
func readCorpusView(ctx context.Context, e *env, fromFile, weighted bool, b *neardup.Batch, sk *neardup.Sketcher, want [2]string, inputs []string, co corpus.Options) (*corpusView, error) {
	cv := &corpusView{index: map[string]int{}}
	keepSets := fromFile && weighted
	var scratch []uint64
	src := &source{}
	defer src.cleanup()
	err := readDocs(ctx, e, src, inputs, co, false, func(id string, text []byte) error {
		d := len(cv.ids)
		cv.ids = append(cv.ids, id)
		if _, dup := cv.index[id]; !dup {
			cv.index[id] = d
		}
		cv.sizes = append(cv.sizes, int64(len(text)))
		for k := range want {
			if id == want[k] && !cv.found[k] {
				cv.texts[k], cv.found[k] = slices.Clone(text), true
			}
		}
		if fromFile {
			scratch = sk.AppendSet(scratch[:0], text)
			cv.fps = append(cv.fps, neardup.Fingerprint(scratch))
			if keepSets {
				cv.sets = append(cv.sets, slices.Clone(scratch))
			}
		}
		if b != nil {
			return b.Add(id, text)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k := range want {
		if !cv.found[k] {
			return nil, fmt.Errorf("unknown id %q: no document of %s has it", want[k], strings.Join(inputs, ", "))
		}
	}
	return cv, nil
}

// readPairsFile reads a dedup --pairs file: id_a, id_b, jaccard[, edit]
// per line (dedupout.ParsePair), every id one of the inputs'.
func readPairsFile(path string, cv *corpusView) ([]neardup.Pair, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	var pairs []neardup.Pair
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSuffix(sc.Text(), "\r")
		if s == "" {
			continue
		}
		idA, idB, j, _, err := dedupout.ParsePair(s)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		var ends [2]int
		for k, id := range [2]string{idA, idB} {
			d, ok := cv.index[id]
			if !ok {
				return nil, fmt.Errorf("%s:%d: unknown id %q: the pairs file does not come from these inputs", path, line, id)
			}
			ends[k] = d
		}
		pairs = append(pairs, neardup.Pair{A: min(ends[0], ends[1]), B: max(ends[0], ends[1]), Jaccard: j})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", path, line+1, err)
	}
	return pairs, nil
}

// clusterRef names a cluster of explain.ClustersOf by its ids (nil: none).
func (cv *corpusView) clusterRef(c *explain.Cluster) *clusterRef {
	if c == nil {
		return nil
	}
	return &clusterRef{Representative: cv.ids[c.Representative], Size: c.Size, Review: c.Review, rep: c.Representative}
}

// print writes the explanation for people.
func (x *explanation) print(w io.Writer) {
	fmt.Fprintf(w, "%s vs %s (%s, threshold %g, %s clusters, pairs from %s)\n", x.A, x.B, x.Shingles, x.Threshold, x.Mode, x.Source)
	rel := "at or above"
	if x.jac < x.Threshold {
		rel = "below"
	}
	fmt.Fprintf(w, "  jaccard:        %s (%s; %d and %d in all), %s the threshold\n", x.Jaccard, plural(x.Shared, "shared shingle", "shared shingles"), x.SizeA, x.SizeB, rel)
	where := func(id string, c *clusterRef) string {
		if c == nil {
			return id + " is in no cluster"
		}
		s := fmt.Sprintf("%s is in the cluster of %d represented by %s", id, c.Size, c.Representative)
		if c.Review {
			s += " (set aside for review)"
		}
		return s
	}
	if x.SameCluster {
		fmt.Fprintf(w, "  same cluster:   yes: %s\n", where(x.A, x.ClusterA))
	} else {
		fmt.Fprintf(w, "  same cluster:   no: %s; %s\n", where(x.A, x.ClusterA), where(x.B, x.ClusterB))
	}
	if !x.SameComponent {
		fmt.Fprintf(w, "  same component: no: no path of verified pairs joins them\n")
	} else {
		fmt.Fprintf(w, "  same component: yes, shortest path of verified pairs (%s):\n", plural(len(x.Path)-1, "step", "steps"))
		width := 0
		for _, p := range x.Path {
			width = max(width, len(p.ID))
		}
		for _, p := range x.Path {
			if p.Jaccard == nil {
				fmt.Fprintf(w, "    %s\n", p.ID)
			} else {
				fmt.Fprintf(w, "    %-*s  %s\n", width, p.ID, *p.Jaccard)
			}
		}
	}
	if len(x.Runs) == 0 {
		fmt.Fprintf(w, "  shared runs:    none of %d or more tokens\n", x.MinRun)
		return
	}
	fmt.Fprintf(w, "  longest shared runs (%d or more tokens):\n", x.MinRun)
	for _, r := range x.Runs {
		text := r.Text
		if utf8.RuneCountInString(text) > 300 {
			text = string([]rune(text)[:300]) + "…"
		}
		fmt.Fprintf(w, "    %4d  %q\n", r.Tokens, text)
	}
}
