package pipeline

// Stage 3: clusters within each component, and the outputs.

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/internal/dedupout"
)

// Node is a non-empty document with the earliest document of its set.
type Node struct {
	Seq, Rep int64
	ID       string
	Size     int64
}

// Group is an identical-set group: its documents in sequence order, the
// first being the one that names it.
type Group struct {
	Seqs []int64
	IDs  []string
}

// EdgeGroup is a verified pair with the group of its A side.
type EdgeGroup struct {
	Edge
	A Group
}

// ClusterOut is a cluster, numbered later by its first document.
type ClusterOut struct {
	First int64 // the smallest sequence number of its members
	Line  dedupout.Cluster
}

// Outputs are the outputs a run writes; "" leaves one out.
type Outputs struct {
	Pairs        string // dedup's --pairs, every pair
	PairsCompact bool   // --pairs-compact
	Clusters     string
	Output       string
}

var (
	cClusters   = beam.NewCounter("neardup", "clusters")
	cDuplicates = beam.NewCounter("neardup", "duplicates")
	cReview     = beam.NewCounter("neardup", "review_clusters")
	cBelow      = beam.NewCounter("neardup", "clusters_below_threshold")
	cPairs      = beam.NewCounter("neardup", "reported_pairs")
	cSize       = beam.NewDistribution("neardup", "cluster_size")
)

func init() {
	register.Function2x0(decodeDoc)
	register.Emitter2[int64, Doc]()
	register.Function2x0(decodeCopy)
	register.Emitter2[int64, Copy]()
	register.Function2x0(decodeEdge)
	register.Emitter1[Edge]()
	register.Function2x0(decodeSigned)
	register.Function1x1(encodeDoc)
	register.Function1x1(encodeCopy)
	register.Function1x1(encodeEdge)
	register.Function1x1(encodeSigned)
	register.Function4x0(nodeOf)
	register.Iter1[Doc]()
	register.Iter1[Copy]()
	register.Emitter2[int64, Node]()
	register.Function4x0(componentOf)
	register.Iter1[Node]()
	register.Function4x0(edgeComponent)
	register.Iter1[Edge]()
	register.Emitter2[int64, Edge]()
	register.Function4x0(signedComponent)
	beam.RegisterType(reflect.TypeFor[clusterFn]())
	register.Emitter2[int64, ClusterOut]()
	register.Emitter2[int, int64]()
	register.Function2x2(countOne)
	register.Function2x1(sumCount)
	beam.RegisterType(reflect.TypeFor[numberFn]())
	register.Iter1[ClusterOut]()
	register.Iter2[int64, int64]()
	register.Emitter1[string]()
	beam.RegisterType(reflect.TypeFor[groupFn]())
	register.Emitter2[int64, Group]()
	register.Function4x0(edgeWithA)
	register.Iter1[Group]()
	register.Emitter2[int64, EdgeGroup]()
	beam.RegisterType(reflect.TypeFor[pairLinesFn]())
	register.Iter1[EdgeGroup]()
	beam.RegisterType(reflect.TypeFor[filterFn]())
	register.Iter1[string]()
	register.Function2x0(decodeStar)
	register.Function1x2(fileKey)
}

// The work files' records.

func encodeDoc(d Doc) string {
	e := int64(0)
	if d.Empty {
		e = 1
	}
	return rec(nil).int(d.Seq).str(d.ID).int(d.Size).int(e).line()
}

func decodeDoc(line string, emit func(int64, Doc)) {
	x := decode(line)
	d := Doc{Seq: x.int(), ID: x.str(), Size: x.int(), Empty: x.int() == 1}
	must(x)
	emit(d.Seq, d)
}

func encodeCopy(c Copy) string { return rec(nil).int(c.Seq).int(c.Rep).line() }

func decodeCopy(line string, emit func(int64, Copy)) {
	x := decode(line)
	c := Copy{Seq: x.int(), Rep: x.int()}
	must(x)
	emit(c.Seq, c)
}

func encodeEdge(e Edge) string { return rec(nil).int(e.A).int(e.B).float(e.Jaccard).line() }

func decodeEdge(line string, emit func(Edge)) {
	x := decode(line)
	e := Edge{A: x.int(), B: x.int(), Jaccard: x.float()}
	must(x)
	emit(e)
}

func encodeSigned(u Signed) string {
	return rec(nil).int(u.Seq).int(int64(u.Size)).u64s(u.Set).u32s(u.Sig).line()
}

func decodeSigned(line string, emit func(int64, Signed)) {
	x := decode(line)
	u := Signed{Seq: x.int(), Size: int(x.int()), Set: x.u64s(), Sig: x.u32s()}
	must(x)
	if len(u.Set) == 0 {
		u.Set = nil
	}
	emit(u.Seq, u)
}

// must panics on a work file record this package did not write: the run
// stops with the error rather than go on with a wrong result.
func must(x *dec) {
	if err := x.done(); err != nil {
		panic(err)
	}
}

// nodeOf joins a document and its copy record (if any): a Node keyed by
// the earliest document of its set. Empty documents are left out.
func nodeOf(seq int64, docs func(*Doc) bool, copies func(*Copy) bool, emit func(int64, Node)) {
	var d Doc
	if !docs(&d) || d.Empty {
		return
	}
	n := Node{Seq: d.Seq, Rep: d.Seq, ID: d.ID, Size: d.Size}
	var c Copy
	if copies(&c) {
		n.Rep = c.Rep
	}
	emit(n.Rep, n)
}

// componentOf keys the nodes of a set by its component: the root its star
// edge names, or the set itself.
func componentOf(rep int64, nodes func(*Node) bool, roots func(*int64) bool, emit func(int64, Node)) {
	comp := rep
	var r int64
	if roots(&r) {
		comp = r
	}
	var n Node
	for nodes(&n) {
		emit(comp, n)
	}
}

func edgeComponent(a int64, edges func(*Edge) bool, roots func(*int64) bool, emit func(int64, Edge)) {
	comp := a
	var r int64
	if roots(&r) {
		comp = r
	}
	var e Edge
	for edges(&e) {
		emit(comp, e)
	}
}

func signedComponent(seq int64, sets func(*Signed) bool, roots func(*int64) bool, emit func(int64, Signed)) {
	comp := seq
	var r int64
	if roots(&r) {
		comp = r
	}
	var u Signed
	for sets(&u) {
		emit(comp, u)
	}
}

// clusterFn runs the engine's Clusters on one component: its documents,
// their identical-set groups and its verified pairs. Star clusters depend
// only on the documents and pairs of their component, so the clusters are
// the batch's. Each member's similarity to its representative is 1 for a
// copy, else the verified pair's (star), or computed from the sets
// (components, where a member need not be paired with the representative).
type clusterFn struct {
	C Config
	v *neardup.Verifier
	t float64
}

func (f *clusterFn) Setup() error {
	p, err := f.C.params()
	if err != nil {
		return err
	}
	f.v, err = neardup.NewVerifier(p, f.C.Verify)
	f.t = p.Threshold
	return err
}

func (f *clusterFn) ProcessElement(ctx context.Context, _ int64, nodes func(*Node) bool, edges func(*Edge) bool, sets func(*Signed) bool,
	emit func(int64, ClusterOut), drop func(int, int64)) error {
	ns := collect(nodes)
	if len(ns) < 2 {
		return nil
	}
	slices.SortFunc(ns, func(a, b Node) int { return cmp.Compare(a.Seq, b.Seq) })
	at := make(map[int64]int, len(ns))
	for i, n := range ns {
		at[n.Seq] = i
	}
	docs := make([]neardup.ClusterDoc, len(ns))
	for i, n := range ns {
		r, ok := at[n.Rep]
		if !ok {
			return fmt.Errorf("neardup: document %d names set %d, which is not in its component", n.Seq, n.Rep)
		}
		docs[i] = neardup.ClusterDoc{Seq: uint64(n.Seq), Size: n.Size, Same: r}
	}
	var es [][2]int
	jac := map[[2]int64]float64{}
	var e Edge
	for edges(&e) {
		a, oka := at[e.A]
		b, okb := at[e.B]
		if !oka || !okb {
			return fmt.Errorf("neardup: pair (%d, %d) outside its component", e.A, e.B)
		}
		es = append(es, [2]int{a, b})
		jac[[2]int64{e.A, e.B}] = e.Jaccard
	}
	sk := map[int64]Signed{}
	var u Signed
	for sets(&u) {
		sk[u.Seq] = u
	}
	groups, err := neardup.Clusters(docs, es, f.C.Cluster, f.C.Keep)
	if err != nil {
		return err
	}
	for _, g := range groups {
		r := ns[g.Representative]
		c := neardup.Cluster{Representative: g.Representative}
		for _, m := range g.Members {
			j := 1.0
			if a, b := ns[m].Rep, r.Rep; a != b {
				var ok bool
				if j, ok = jac[[2]int64{min(a, b), max(a, b)}]; !ok {
					sa, oka := sk[a]
					sb, okb := sk[b]
					if !oka || !okb {
						return fmt.Errorf("neardup: no similarity for members %d and %d", ns[m].Seq, r.Seq)
					}
					x, y := sketchOf(sa.Size, sa.Set, sa.Sig), sketchOf(sb.Size, sb.Set, sb.Sig)
					j = f.v.Similarity(&x, &y)
				}
			}
			c.Members = append(c.Members, neardup.Member{Doc: m, Jaccard: j})
		}
		c.Review = f.C.MaxCluster > 0 && len(c.Members) > f.C.MaxCluster
		line := dedupout.Cluster{Size: len(c.Members), Representative: r.ID,
			MinJaccard: dedupout.Number(c.MinJaccard()), BelowThreshold: c.Below(f.t), Review: c.Review}
		for _, m := range c.Members {
			line.Members = append(line.Members, dedupout.Member{ID: ns[m.Doc].ID, Jaccard: dedupout.Number(m.Jaccard)})
			if !c.Review && m.Doc != g.Representative {
				drop(fileOf(ns[m.Doc].Seq), int64(numOf(ns[m.Doc].Seq)))
			}
		}
		first := ns[g.Members[0]].Seq
		emit(first>>16, ClusterOut{First: first, Line: line})
		cClusters.Inc(ctx, 1)
		cSize.Update(ctx, int64(len(c.Members)))
		if c.Review {
			cReview.Inc(ctx, 1)
		} else {
			cDuplicates.Inc(ctx, int64(len(c.Members)-1))
		}
		if line.BelowThreshold > 0 {
			cBelow.Inc(ctx, 1)
		}
	}
	return nil
}

func countOne(part int64, _ ClusterOut) (int64, int64) { return part, 1 }

func sumCount(a, b int64) int64 { return a + b }

// numberFn numbers the clusters of one part (clusters whose first
// document's sequence number has the same high bits) after those of every
// earlier part, whose counts come as a side input, so cluster ids are
// 1, 2, ... in order of the clusters' earliest documents, as dedup numbers
// them, without collecting every cluster on one worker.
type numberFn struct {
	parts  []int64 // ascending
	before []int64 // clusters in the parts before parts[i]
}

func (f *numberFn) ProcessElement(part int64, clusters func(*ClusterOut) bool, counts func(*int64, *int64) bool, emit func(string)) error {
	if f.parts == nil {
		type pc struct{ p, n int64 }
		var all []pc
		var p, n int64
		for counts(&p, &n) {
			all = append(all, pc{p, n})
		}
		slices.SortFunc(all, func(a, b pc) int { return cmp.Compare(a.p, b.p) })
		f.parts, f.before = make([]int64, len(all)), make([]int64, len(all))
		sum := int64(0)
		for i, x := range all {
			f.parts[i], f.before[i] = x.p, sum
			sum += x.n
		}
	}
	i := sort.Search(len(f.parts), func(i int) bool { return f.parts[i] >= part })
	if i == len(f.parts) || f.parts[i] != part {
		return fmt.Errorf("neardup: cluster part %d was not counted", part)
	}
	cs := collect(clusters)
	slices.SortFunc(cs, func(a, b ClusterOut) int { return cmp.Compare(a.First, b.First) })
	var buf []byte
	for k := range cs {
		cs[k].Line.Cluster = int(f.before[i]) + k + 1
		var err error
		if buf, err = dedupout.AppendCluster(buf[:0], &cs[k].Line); err != nil {
			return err
		}
		emit(strings.TrimSuffix(string(buf), "\n"))
	}
	return nil
}

// groupFn gathers an identical-set group and writes the pairs among its
// documents: every pair (Jaccard 1), or with Compact the first document
// with each other one.
type groupFn struct{ Compact bool }

func (f *groupFn) ProcessElement(ctx context.Context, rep int64, nodes func(*Node) bool, line func(string), group func(int64, Group)) {
	ns := collect(nodes)
	slices.SortFunc(ns, func(a, b Node) int { return cmp.Compare(a.Seq, b.Seq) })
	g := Group{Seqs: make([]int64, len(ns)), IDs: make([]string, len(ns))}
	for i, n := range ns {
		g.Seqs[i], g.IDs[i] = n.Seq, n.ID
	}
	group(rep, g)
	var buf []byte
	count := int64(0)
	for i := range ns {
		for j := i + 1; j < len(ns); j++ {
			buf = dedupout.AppendPair(buf[:0], g.IDs[i], g.IDs[j], 1)
			line(string(buf))
			count++
		}
		if f.Compact {
			break
		}
	}
	cPairs.Inc(ctx, count)
}

func edgeWithA(a int64, edges func(*Edge) bool, groups func(*Group) bool, emit func(int64, EdgeGroup)) {
	var g Group
	if !groups(&g) {
		panic(fmt.Sprintf("neardup: pairs of set %d, which has no documents", a))
	}
	var e Edge
	for edges(&e) {
		emit(e.B, EdgeGroup{Edge: e, A: g})
	}
}

// pairLinesFn writes the pairs of verified pairs between two groups:
// every combination of their documents, the earlier document first, or
// with Compact the pair of the groups' first documents only.
type pairLinesFn struct{ Compact bool }

func (f *pairLinesFn) ProcessElement(ctx context.Context, b int64, edges func(*EdgeGroup) bool, groups func(*Group) bool, line func(string)) {
	var gb Group
	if !groups(&gb) {
		panic(fmt.Sprintf("neardup: pairs of set %d, which has no documents", b))
	}
	var buf []byte
	var e EdgeGroup
	count := int64(0)
	for edges(&e) {
		ga := e.A
		for i := range ga.Seqs {
			for j := range gb.Seqs {
				if ga.Seqs[i] < gb.Seqs[j] {
					buf = dedupout.AppendPair(buf[:0], ga.IDs[i], gb.IDs[j], e.Jaccard)
				} else {
					buf = dedupout.AppendPair(buf[:0], gb.IDs[j], ga.IDs[i], e.Jaccard)
				}
				line(string(buf))
				count++
				if f.Compact {
					break
				}
			}
			if f.Compact {
				break
			}
		}
	}
	cPairs.Inc(ctx, count)
}

func fileKey(i int) (int, string) { return i, "" }

// filterFn writes input file i without its dropped records, in its own
// format (corpus.Filter: the records' bytes as read), to the work
// directory; Run moves it in place.
type filterFn struct {
	C   Config
	Out []string // the final output name of each input, for compression
}

func (f *filterFn) ProcessElement(ctx context.Context, i int, drops func(*int64) bool, _ func(*string) bool) error {
	nums := collect(drops)
	slices.Sort(nums)
	return createFile(ctx, f.C.path(fmt.Sprintf("out-corpus-%05d", i)), func(w *bufio.Writer) error {
		cw, err := corpus.NewCompressWriter(w, f.Out[i])
		if err != nil {
			return err
		}
		err = corpus.Filter(cw, []string{f.C.Files[i]}, f.C.Corpus, func(_, num int) bool {
			_, found := slices.BinarySearch(nums, int64(num))
			return !found
		})
		if err != nil {
			return fmt.Errorf("filter %s: %w", f.C.Names[i], err)
		}
		return cw.Close()
	})
}
