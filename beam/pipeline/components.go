package pipeline

// Stage 2: connected components by large-star and small-star rounds
// (Kiveris, Lattanzi, Mirrokni, Rastogi, Vassilvitskii: "Connected
// Components in MapReduce and Beyond", SoCC 2014). The graph is a
// PCollection of edges KV<int64, int64> between distinct sets; a round
// keeps the components and moves every node closer to its component's
// smallest node. Once each component is a star around its smallest node
// (every node is either a root, whose neighbours are all larger, or a leaf
// with the root as its only neighbour), rounds change nothing and a leaf's
// neighbour is its component.

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	register.Function3x0(bothWays)
	register.Emitter2[int64, int64]()
	beam.RegisterType(reflect.TypeFor[largeStarFn]())
	register.Iter1[int64]()
	register.Emitter2[int, int]()
	register.Function2x2(toLarger)
	beam.RegisterType(reflect.TypeFor[smallStarFn]())
	register.Function2x1(sumInts)
	register.Function2x1(formatRound)
	register.Function1x2(zeroRound)
	register.Function1x2(edgeNodes)
	register.Function2x1(encodeStar)
	register.Function2x0(decodeStar)
}

// rounds adds n rounds to the graph edges, the first numbered first, and
// returns the new edges and, per round number, a line "round violations":
// the number of nodes that were not yet in star shape when that round began
// (rounds first to first+n, the last one checking the result).
func rounds(s beam.Scope, edges beam.PCollection, first, n int) (beam.PCollection, beam.PCollection) {
	var counts []beam.PCollection
	var checks []int
	for r := first; r <= first+n; r++ {
		checks = append(checks, r)
		rs := s.Scope(fmt.Sprintf("round %d", r))
		last := r == first+n
		out, viol := beam.ParDo2(rs.Scope("large-star"), &largeStarFn{Round: r, Check: last},
			beam.GroupByKey(rs, beam.ParDo(rs, bothWays, edges)))
		counts = append(counts, viol)
		if last {
			break
		}
		edges = beam.ParDo(rs.Scope("small-star"), &smallStarFn{},
			beam.GroupByKey(rs, beam.ParDo(rs, toLarger, out)))
	}
	counts = append(counts, beam.ParDo(s, zeroRound, beam.CreateList(s, checks)))
	sums := beam.CombinePerKey(s, sumInts, beam.Flatten(s, counts...))
	return edges, beam.ParDo(s, formatRound, sums)
}

func bothWays(a, b int64, emit func(int64, int64)) {
	emit(a, b)
	emit(b, a)
}

func toLarger(a, b int64) (int64, int64) { return max(a, b), min(a, b) }

func sumInts(a, b int) int { return a + b }

func zeroRound(r int) (int, int) { return r, 0 }

func formatRound(r, n int) string { return fmt.Sprintf("%d %d", r, n) }

func edgeNodes(e Edge) (int64, int64) { return e.A, e.B }

func encodeStar(a, b int64) string { return rec(nil).int(a).int(b).line() }

func decodeStar(line string, emit func(int64, int64)) {
	d := decode(line)
	a, b := d.int(), d.int()
	if err := d.done(); err != nil {
		panic(err) // only this package writes these files
	}
	emit(a, b)
}

// neighbours returns the distinct values of next, ascending.
func neighbours(next func(*int64) bool) []int64 {
	ns := collect(next)
	slices.Sort(ns)
	return slices.Compact(ns)
}

// starShaped reports whether node u with neighbours ns (ascending) is a
// root (all neighbours larger) or a leaf (one smaller neighbour only).
func starShaped(u int64, ns []int64) bool {
	return ns[0] > u || len(ns) == 1
}

// largeStarFn is the large-star step at node u: every larger neighbour is
// connected to the smallest node of u's neighbourhood (u included). It
// also counts u when it is not in star shape; with Check it only counts.
type largeStarFn struct {
	Round int
	Check bool
}

func (f *largeStarFn) ProcessElement(ctx context.Context, u int64, next func(*int64) bool, emit func(int64, int64), viol func(int, int)) {
	ns := neighbours(next)
	if !starShaped(u, ns) {
		viol(f.Round, 1)
	}
	if f.Check {
		return
	}
	m := min(ns[0], u)
	for _, v := range ns {
		if v > u {
			emit(v, m)
		}
	}
}

// smallStarFn is the small-star step at node u, given its smaller
// neighbours: u and each of them are connected to the smallest of them.
type smallStarFn struct{}

func (smallStarFn) ProcessElement(u int64, next func(*int64) bool, emit func(int64, int64)) {
	ns := neighbours(next)
	m := ns[0]
	for _, v := range ns[1:] {
		emit(v, m)
	}
	emit(u, m)
}
