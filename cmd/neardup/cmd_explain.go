package main

import (
	"bufio"
	"cmp"
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
	"github.com/neardup/neardup/cluster"
	"github.com/neardup/neardup/corpus"
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
	x, err := explain(ctx, e, &f, o, idA, idB, inputs, co)
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

func explain(ctx context.Context, e *env, f *explainFlags, o neardup.Options, idA, idB string, inputs []string, co corpus.Options) (*explanation, error) {
	want := [2]string{idA, idB}
	cv := &corpusView{index: map[string]int{}}
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
	keepSets := f.pairs != "" && o.Weight == neardup.WeightIDF
	var scratch []uint64
	src := &source{}
	defer src.cleanup()
	err = readDocs(ctx, e, src, inputs, co, false, func(id string, text []byte) error {
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
		if f.pairs != "" {
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
		x.Source = "dedup run"
		res, err := b.Run(ctx)
		if err != nil {
			return nil, err
		}
		x.jac = res.Similarity(a, bb) // what dedup compares with the threshold
		pairs = res.Pairs
		canon = make([]int, len(cv.ids))
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
	} else {
		x.Source = f.pairs
		if pairs, err = readPairsFile(f.pairs, cv); err != nil {
			return nil, err
		}
		if o.Weight == neardup.WeightIDF {
			// Weights over the distinct non-empty sets, as dedup computes them.
			tab := idf.Compute(distinctSets(cv.sets, cv.fps))
			sk.Weigh(&sa, tab)
			sk.Weigh(&sb, tab)
		}
		v, err := neardup.NewVerifier(o.Params, o.Verify)
		if err != nil {
			return nil, fmt.Errorf("%w: %s", errUsage, cliflags.ErrText(err))
		}
		x.jac = v.Similarity(&sa, &sb)
		canon = identicalGroups(cv.fps)
		if x.ClusterA, x.ClusterB, err = clustersFromPairs(cv, canon, pairs, o, a, bb); err != nil {
			return nil, err
		}
	}
	x.Jaccard = jnum(x.jac)
	x.SameCluster = x.ClusterA != nil && x.ClusterB != nil && x.ClusterA.rep == x.ClusterB.rep

	// Shortest path of verified pairs, identical copies being one node (so
	// that a compact and a full pairs listing give the same path), with the
	// Jaccard of each step.
	x.Path, x.SameComponent = shortestPath(cv, canon, pairs, a, bb)

	// Longest shared runs of tokens, as package shingle cuts them.
	sh, err := shingle.New(o.Shingle)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", errUsage, cliflags.ErrText(err))
	}
	ta, tb := sh.AppendTokenStrings(nil, cv.texts[0]), sh.AppendTokenStrings(nil, cv.texts[1])
	x.MinRun = max(1, min(o.Shingle.N, len(ta), len(tb)))
	for _, r := range sharedRuns(ta, tb, x.MinRun, f.top) {
		text := strings.Join(ta[r.i:r.i+r.n], "")
		if o.Shingle.Mode == shingle.Word {
			text = shingle.JoinTokens(ta[r.i : r.i+r.n])
		}
		x.Runs = append(x.Runs, sharedRun{Tokens: r.n, Text: text})
	}
	return x, nil
}

// distinctSets returns the distinct non-empty sets (the first of each
// group of equal fingerprints): the corpus idf weights are computed over.
func distinctSets(sets [][]uint64, fps []uint64) [][]uint64 {
	seen := make(map[uint64]bool, len(fps))
	var out [][]uint64
	for i, fp := range fps {
		if fp != 0 && !seen[fp] {
			seen[fp] = true
			out = append(out, sets[i])
		}
	}
	return out
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

// identicalGroups returns, for each document, the first document with the
// same fingerprint (itself for an empty set or the first of its group).
func identicalGroups(fps []uint64) []int {
	canon := make([]int, len(fps))
	first := map[uint64]int{}
	for d, fp := range fps {
		canon[d] = d
		if fp != 0 {
			if e, ok := first[fp]; ok {
				canon[d] = e
			} else {
				first[fp] = d
			}
		}
	}
	return canon
}

// shortestPath returns a shortest path of verified pairs from a to b, each
// step with its Jaccard (none for a), where documents with identical sets
// are one node: the path runs over their groups (canon), then names a and
// b themselves at its ends. It reports whether there is a path.
func shortestPath(cv *corpusView, canon []int, pairs []neardup.Pair, a, b int) ([]pathStep, bool) {
	path := []pathStep{{ID: cv.ids[a]}}
	step := func(d int, j float64) {
		n := jnum(j)
		path = append(path, pathStep{ID: cv.ids[d], Jaccard: &n})
	}
	if a == b {
		return path, true
	}
	ca, cb := canon[a], canon[b]
	if ca == cb {
		step(b, 1)
		return path, true
	}
	jac := map[[2]int]float64{}
	var edges [][2]uint32
	for _, p := range pairs {
		x, y := canon[p.A], canon[p.B]
		if x == y {
			continue
		}
		k := [2]int{min(x, y), max(x, y)}
		if _, ok := jac[k]; !ok {
			jac[k] = p.Jaccard
			edges = append(edges, [2]uint32{uint32(x), uint32(y)})
		}
	}
	nodes := cluster.NewGraph(len(cv.ids), edges).Path(uint32(ca), uint32(cb))
	if nodes == nil {
		return []pathStep{}, false
	}
	for i := 1; i < len(nodes); i++ {
		u, v := int(nodes[i-1]), int(nodes[i])
		d := v
		if i == len(nodes)-1 {
			d = b
		}
		step(d, jac[[2]int{min(u, v), max(u, v)}])
	}
	return path, true
}

// clustersFromPairs finds the clusters of documents a and b from a pairs
// file, with neardup.Clusters as dedup does: identical sets grouped
// (canon), the pairs as edges, the --cluster mode and --keep order.
func clustersFromPairs(cv *corpusView, canon []int, pairs []neardup.Pair, o neardup.Options, a, b int) (ca, cb *clusterRef, err error) {
	n := len(cv.ids)
	docs := make([]neardup.ClusterDoc, n)
	for d := range n {
		docs[d] = neardup.ClusterDoc{Seq: uint64(d), Size: cv.sizes[d], Same: canon[d]}
	}
	edges := make([][2]int, len(pairs))
	for i, p := range pairs {
		edges[i] = [2]int{p.A, p.B}
	}
	groups, err := neardup.Clusters(docs, edges, o.Cluster, o.Keep)
	if err != nil {
		return nil, nil, err
	}
	for _, g := range groups {
		ref := &clusterRef{Representative: cv.ids[g.Representative], Size: len(g.Members),
			Review: o.MaxCluster > 0 && len(g.Members) > o.MaxCluster, rep: g.Representative}
		for _, m := range g.Members {
			if m == a {
				ca = ref
			}
			if m == b {
				cb = ref
			}
		}
	}
	return ca, cb, nil
}

type tokenRun struct{ i, j, n int }

// maxStarts bounds the occurrences of one n-gram of b that sharedRuns
// extends, so that a text repeating one phrase thousands of times cannot make
// it quadratic.
const maxStarts = 256

// sharedRuns returns up to top maximal runs of tokens common to a and b, at
// least minLen long, longest first (ties: earlier in a, then in b), leaving
// out runs whose text is that of, or inside, a run already listed. A run
// a[i:i+n] == b[j:j+n] is maximal when it cannot be extended on either side.
func sharedRuns(a, b []string, minLen, top int) []tokenRun {
	if top == 0 || len(a) < minLen || len(b) < minLen {
		return nil
	}
	key := func(t []string, i int) string { return strings.Join(t[i:i+minLen], "\x00") }
	starts := map[string][]int{}
	for j := 0; j+minLen <= len(b); j++ {
		k := key(b, j)
		if s := starts[k]; len(s) < maxStarts {
			starts[k] = append(s, j)
		}
	}
	var runs []tokenRun
	for i := 0; i+minLen <= len(a); i++ {
		for _, j := range starts[key(a, i)] {
			if i > 0 && j > 0 && a[i-1] == b[j-1] {
				continue // not left-maximal: found from an earlier start
			}
			n := minLen
			for i+n < len(a) && j+n < len(b) && a[i+n] == b[j+n] {
				n++
			}
			runs = append(runs, tokenRun{i, j, n})
		}
	}
	slices.SortFunc(runs, func(x, y tokenRun) int {
		if c := cmp.Compare(y.n, x.n); c != 0 {
			return c
		}
		if c := cmp.Compare(x.i, y.i); c != 0 {
			return c
		}
		return cmp.Compare(x.j, y.j)
	})
	var out []tokenRun
	var kept []string
	for _, r := range runs {
		k := "\x00" + strings.Join(a[r.i:r.i+r.n], "\x00") + "\x00"
		if slices.ContainsFunc(kept, func(s string) bool { return strings.Contains(s, k) }) {
			continue // the same text, or a part of a longer run already listed
		}
		kept = append(kept, k)
		out = append(out, r)
		if len(out) == top {
			break
		}
	}
	return out
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
