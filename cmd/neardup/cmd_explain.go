package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/bits"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cluster"
	"github.com/neardup/neardup/corpus"
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
	in shingleFlags
	engineFlags

	pairs string
	json  bool
	top   int
}

func runExplain(ctx context.Context, e *env, args []string) error {
	var f explainFlags
	fs := newFlagSet(e, "explain", explainUsage)
	f.in.register(fs)
	f.engineFlags.register(fs)
	fs.StringVar(&f.pairs, "pairs", "", "read the verified pairs from this dedup --pairs file instead of running dedup")
	fs.BoolVar(&f.json, "json", false, "write JSON instead of text")
	fs.IntVar(&f.top, "top", 5, "longest shared token runs to show")
	pos, err := parseArgs(fs, args, 3, "want two ids and at least one input")
	if err != nil {
		return err
	}
	idA, idB, inputs := pos[0], pos[1], pos[2:]
	co, so, err := f.in.options()
	if err != nil {
		return err
	}
	o, err := f.engineFlags.options(so)
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
	rep int // representative document of A's cluster, -1 if none
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

// corpusView is what explain keeps of the corpus: ids, sizes, and the texts
// of A and B.
type corpusView struct {
	ids   []string
	index map[string]int
	sizes []int64
	fps   []uint64 // --pairs with star clusters: fingerprint of each set (0: empty)
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
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
	}
	sh, err := shingle.New(o.Shingle)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	needFP := f.pairs != "" && o.Cluster == neardup.ClusterStar
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
		if needFP {
			scratch = sh.AppendSet(scratch[:0], text)
			cv.fps = append(cv.fps, setFingerprint(scratch))
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
	if o.Shingle.N == 0 {
		o.Shingle.N = defaultN(o.Shingle.Mode)
	}
	x.Shingles = fmt.Sprintf("%s %d-grams", o.Shingle.Mode, o.Shingle.N)
	if o.Shingle.Bag {
		x.Shingles += " (bag)"
	}
	setA := sh.AppendSet(nil, cv.texts[0])
	setB := sh.AppendSet(nil, cv.texts[1])
	x.jac = shingle.Jaccard(setA, setB)
	x.Jaccard = jnum(x.jac)
	x.SizeA, x.SizeB, x.Shared = len(setA), len(setB), shingle.Intersection(setA, setB)

	// The pairs, as document indices, and the clusters of A and B.
	var pairs []neardup.Pair
	if b != nil {
		x.Source = "dedup run"
		res, err := b.Run(ctx)
		if err != nil {
			return nil, err
		}
		pairs = res.Pairs
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
		x.ClusterA, x.ClusterB = clustersFromPairs(cv, pairs, o, a, bb)
	}
	x.SameCluster = x.ClusterA != nil && x.ClusterB != nil && x.ClusterA.rep == x.ClusterB.rep

	// Shortest path over the pairs graph, with the Jaccard of each step.
	edges := make([][2]uint32, len(pairs))
	for i, p := range pairs {
		edges[i] = [2]uint32{uint32(p.A), uint32(p.B)}
	}
	path := cluster.NewGraph(len(cv.ids), edges).Path(uint32(a), uint32(bb))
	edges = nil
	x.SameComponent = path != nil
	if path != nil {
		step := map[[2]int]float64{}
		for i := 1; i < len(path); i++ {
			u, v := int(min(path[i-1], path[i])), int(max(path[i-1], path[i]))
			step[[2]int{u, v}] = -1
		}
		for _, p := range pairs {
			k := [2]int{min(p.A, p.B), max(p.A, p.B)}
			if _, ok := step[k]; ok {
				step[k] = p.Jaccard
			}
		}
		for i, d := range path {
			ps := pathStep{ID: cv.ids[d]}
			if i > 0 {
				j := jnum(step[[2]int{int(min(path[i-1], d)), int(max(path[i-1], d))}])
				ps.Jaccard = &j
			}
			x.Path = append(x.Path, ps)
		}
	}

	// Longest shared runs of tokens.
	ta, tb := tokens(o.Shingle.Mode, cv.texts[0]), tokens(o.Shingle.Mode, cv.texts[1])
	x.MinRun = max(1, min(o.Shingle.N, len(ta), len(tb)))
	sep := " "
	if o.Shingle.Mode == shingle.Char {
		sep = ""
	}
	for _, r := range sharedRuns(ta, tb, x.MinRun, f.top) {
		x.Runs = append(x.Runs, sharedRun{Tokens: r.n, Text: strings.Join(ta[r.i:r.i+r.n], sep)})
	}
	return x, nil
}

func defaultN(m shingle.Mode) int {
	if m == shingle.Char {
		return shingle.DefaultCharN
	}
	return shingle.DefaultWordN
}

// setFingerprint hashes a sorted set so that identical sets collide; 0 only
// for the empty set.
func setFingerprint(set []uint64) uint64 {
	if len(set) == 0 {
		return 0
	}
	h := uint64(len(set)) * 0x9e3779b97f4a7c15
	for _, v := range set {
		h = bits.RotateLeft64(h^v, 29)*0xbf58476d1ce4e5b9 + 0x94d049bb133111eb
	}
	return h | 1
}

// readPairsFile reads a dedup --pairs file: id_a, id_b, jaccard per line,
// ids escaped as escapeField does.
func readPairsFile(path string, cv *corpusView) ([]neardup.Pair, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	var pairs []neardup.Pair
	for line := 1; sc.Scan(); line++ {
		s := sc.Text()
		if s == "" {
			continue
		}
		fields := strings.Split(s, "\t")
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s:%d: want 3 tab-separated fields (id_a, id_b, jaccard), got %d", path, line, len(fields))
		}
		var ends [2]int
		for k := range 2 {
			id := unescapeField(fields[k])
			d, ok := cv.index[id]
			if !ok {
				return nil, fmt.Errorf("%s:%d: unknown id %q: the pairs file does not come from these inputs", path, line, id)
			}
			ends[k] = d
		}
		j, err := strconv.ParseFloat(fields[2], 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: jaccard: %v", path, line, err)
		}
		pairs = append(pairs, neardup.Pair{A: min(ends[0], ends[1]), B: max(ends[0], ends[1]), Jaccard: j})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return pairs, nil
}

// unescapeField reverses escapeField.
func unescapeField(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 't':
				sb.WriteByte('\t')
			case 'n':
				sb.WriteByte('\n')
			case 'r':
				sb.WriteByte('\r')
			default:
				sb.WriteByte(s[i])
			}
			continue
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// clustersFromPairs rebuilds the clusters of documents a and b from a pairs
// file as Batch.Run would: connected components, or stars over distinct sets
// (identical sets found by fingerprint) walked in --keep order.
func clustersFromPairs(cv *corpusView, pairs []neardup.Pair, o neardup.Options, a, b int) (ca, cb *clusterRef) {
	n := len(cv.ids)
	order := make([]uint32, n)
	for i := range order {
		order[i] = uint32(i)
	}
	switch o.Keep {
	case neardup.KeepLongest:
		slices.SortStableFunc(order, func(x, y uint32) int { return cmp.Compare(cv.sizes[y], cv.sizes[x]) })
	case neardup.KeepShortest:
		slices.SortStableFunc(order, func(x, y uint32) int { return cmp.Compare(cv.sizes[x], cv.sizes[y]) })
	}
	// group[d]: the cluster key of d; rep[key]: its representative.
	group := make([]uint32, n)
	repOf := map[uint32]int{}
	if o.Cluster == neardup.ClusterStar {
		setRep := make([]uint32, n) // earliest document with the same set
		first := map[uint64]uint32{}
		for d := range n {
			setRep[d] = uint32(d)
			if fp := cv.fps[d]; fp != 0 {
				if e, ok := first[fp]; ok {
					setRep[d] = e
				} else {
					first[fp] = uint32(d)
				}
			}
		}
		var edges [][2]uint32
		for _, p := range pairs {
			if x, y := setRep[p.A], setRep[p.B]; x != y {
				edges = append(edges, [2]uint32{x, y})
			}
		}
		setOrder := make([]uint32, 0, n)
		firstDoc := make([]uint32, n)
		seen := make([]bool, n)
		for _, d := range order {
			if s := setRep[d]; !seen[s] {
				seen[s] = true
				firstDoc[s] = d
				setOrder = append(setOrder, s)
			}
		}
		center := cluster.Star(cluster.NewGraph(n, edges), setOrder)
		for d := range n {
			group[d] = center[setRep[d]]
		}
		for d := range n {
			if c := group[d]; uint32(d) == c {
				repOf[c] = int(firstDoc[c])
			}
		}
	} else {
		uf := cluster.NewUnionFind(n)
		for _, p := range pairs {
			uf.Union(uint32(p.A), uint32(p.B))
		}
		for d := range n {
			group[d] = uf.Find(uint32(d))
		}
		// The representative: the first document of the component in keep order.
		for _, d := range order {
			if _, ok := repOf[group[d]]; !ok {
				repOf[group[d]] = int(d)
			}
		}
	}
	size := map[uint32]int{group[a]: 0, group[b]: 0}
	for d := range n {
		if _, ok := size[group[d]]; ok {
			size[group[d]]++
		}
	}
	ref := func(d int) *clusterRef {
		g := group[d]
		if size[g] < 2 {
			return nil
		}
		r := repOf[g]
		return &clusterRef{Representative: cv.ids[r], Size: size[g], Review: o.MaxCluster > 0 && size[g] > o.MaxCluster, rep: r}
	}
	return ref(a), ref(b)
}

// tokens returns the text as the shingle package cuts it: in word mode the
// lower-cased maximal runs of letters and digits, in char mode the code
// points of the lower-cased text with white space runs folded to one space
// and trimmed. Invalid UTF-8 bytes become U+FFFD (a separator in word mode).
func tokens(m shingle.Mode, text []byte) []string {
	var out []string
	var cur []rune
	lastSpace := true // char mode: drop leading space
	for len(text) > 0 {
		r, size := utf8.DecodeRune(text)
		text = text[size:]
		r = unicode.ToLower(r)
		if m == shingle.Char {
			if unicode.IsSpace(r) {
				if !lastSpace {
					out = append(out, " ")
				}
				lastSpace = true
				continue
			}
			lastSpace = false
			out = append(out, string(r))
			continue
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			cur = append(cur, r)
			continue
		}
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	if len(cur) > 0 {
		out = append(out, string(cur))
	}
	if m == shingle.Char && len(out) > 0 && out[len(out)-1] == " " {
		out = out[:len(out)-1]
	}
	return out
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
	fmt.Fprintf(w, "  jaccard:        %s (%d shared shingles; %d and %d in all), %s the threshold\n", x.Jaccard, x.Shared, x.SizeA, x.SizeB, rel)
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
		fmt.Fprintf(w, "  same component: yes, shortest path of verified pairs (%d steps):\n", len(x.Path)-1)
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
