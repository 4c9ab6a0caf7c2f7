package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup"
)

// MaxRounds bounds the component rounds of a run. Large-star and
// small-star need O(log^2 n) rounds at worst and a handful in practice.
const MaxRounds = 64

// ErrDuplicateID is returned by Run under StrictIDs when two documents
// have one id.
var ErrDuplicateID = neardup.ErrDuplicateID

// Executor runs a pipeline and waits for it: beamx.RunWithMetrics, or
// prism.Execute in tests.
type Executor func(context.Context, *beam.Pipeline) (beam.PipelineResult, error)

// Summary is what a run found and did, from the pipelines' counters.
type Summary struct {
	Counters  map[string]int64 // the "neardup" counters, summed over steps
	Largest   int64            // the largest cluster
	Rounds    int              // component rounds until every component was a star
	Pipelines int
	Seconds   []float64 // wall time of each pipeline
}

func init() {
	register.Function1x2(idOne)
	register.Emitter2[string, int64]()
}

func idOne(d Doc) (string, int64) { return d.ID, 1 }

var cDupIDs = beam.NewCounter("neardup", "duplicate_ids")

func init() { beam.RegisterType(reflect.TypeFor[dupIDFn]()) }

type dupIDFn struct{}

func (dupIDFn) ProcessElement(ctx context.Context, _ string, n int64) {
	if n > 1 {
		cDupIDs.Inc(ctx, n-1)
	}
}

// PipelineError is the failure of one of a run's pipelines, as the runner
// reported it (on Prism, the failed bundle's plan and the DoFn's error
// after the last "caused by:").
type PipelineError struct {
	Name string // what the pipeline does: "sketch, pairs, components", ...
	Err  error
}

func (e *PipelineError) Error() string { return fmt.Sprintf("pipeline %q: %v", e.Name, e.Err) }
func (e *PipelineError) Unwrap() error { return e.Err }

// Run runs the whole dedup: the first pipeline (sketch, pairs, the first
// component rounds), more component rounds until they converge, and the
// last (clusters and outputs), then moves the outputs from the work
// directory to their places. strictIDs makes a run with two documents of
// one id fail after the first pipeline. Progress goes to log.
func Run(ctx context.Context, c Config, out Outputs, strictIDs bool, exec Executor, log io.Writer) (*Summary, error) {
	if c.Rounds < 1 || c.Shards < 1 {
		return nil, fmt.Errorf("%w: rounds %d and shards %d must be positive", neardup.ErrOptions, c.Rounds, c.Shards)
	}
	sum := &Summary{Counters: map[string]int64{}}
	run := func(name string, p *beam.Pipeline) error {
		t := time.Now()
		fmt.Fprintf(log, "neardup-beam: pipeline %d: %s\n", sum.Pipelines+1, name)
		pr, err := exec(ctx, p)
		sum.Pipelines++
		sum.Seconds = append(sum.Seconds, time.Since(t).Seconds())
		if err != nil {
			return &PipelineError{Name: name, Err: err}
		}
		if pr != nil {
			addMetrics(sum, pr)
		}
		return nil
	}

	// 1. Sketch, pairs, the first rounds.
	p, s := beam.NewPipelineWithRoot()
	docs, copies, uniq, edges := sketched(s, c)
	writeShards(s, c.path("docs"), c.Shards, beam.ParDo(s, encodeDoc, docs))
	writeShards(s, c.path("copies"), c.Shards, beam.ParDo(s, encodeCopy, copies))
	writeShards(s, c.path("edges"), c.Shards, beam.ParDo(s, encodeEdge, edges))
	if c.Cluster == neardup.ClusterComponents {
		writeShards(s, c.path("sets"), c.Shards, beam.ParDo(s, encodeSigned, uniq))
	}
	beam.ParDo0(s, &dupIDFn{}, beam.CombinePerKey(s, sumCount, beam.ParDo(s, idOne, docs)))
	star, viol := rounds(s.Scope("components"), beam.ParDo(s, edgeNodes, edges), 1, c.Rounds)
	writeShards(s, c.path("star-1"), c.Shards, beam.ParDo(s, encodeStar, star))
	textio.Write(s, c.path("rounds-1.txt"), viol)
	if err := run("sketch, pairs, components", p); err != nil {
		return sum, err
	}
	if n := sum.Counters["duplicate_ids"]; strictIDs && n > 0 {
		return sum, fmt.Errorf("%w: %d documents repeat an earlier id", ErrDuplicateID, n)
	}

	// 2. More rounds until the components are stars.
	for k, first := 1, 1; ; k++ {
		conv, err := converged(ctx, c.path(fmt.Sprintf("rounds-%d.txt", k)))
		if err != nil {
			return sum, err
		}
		if conv > 0 {
			sum.Rounds = conv - 1
			break
		}
		first += c.Rounds
		if first > MaxRounds {
			return sum, fmt.Errorf("neardup: components did not converge in %d rounds", MaxRounds)
		}
		p, s := beam.NewPipelineWithRoot()
		prev := beam.ParDo(s, decodeStar, readShards(s, c.path(fmt.Sprintf("star-%d", k))))
		star, viol := rounds(s.Scope("components"), prev, first, c.Rounds)
		writeShards(s, c.path(fmt.Sprintf("star-%d", k+1)), c.Shards, beam.ParDo(s, encodeStar, star))
		textio.Write(s, c.path(fmt.Sprintf("rounds-%d.txt", k+1)), viol)
		if err := run(fmt.Sprintf("components, rounds %d-%d", first, first+c.Rounds-1), p); err != nil {
			return sum, err
		}
		c.lastStar = k + 1
	}

	// 3. Clusters and outputs.
	p, s = beam.NewPipelineWithRoot()
	finalOutputs(s, c, out)
	if err := run("clusters, outputs", p); err != nil {
		return sum, err
	}
	return sum, moveOutputs(ctx, c, out)
}

// converged reads a rounds file ("round violations" lines) and returns the
// first round that began with every component a star, or 0.
func converged(ctx context.Context, name string) (int, error) {
	b, err := readAll(ctx, name)
	if err != nil {
		return 0, err
	}
	best := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		r, n, ok := strings.Cut(line, " ")
		ri, err1 := strconv.Atoi(r)
		ni, err2 := strconv.Atoi(n)
		if !ok || err1 != nil || err2 != nil {
			return 0, fmt.Errorf("%s: a malformed line %q", name, line)
		}
		if ni == 0 && (best == 0 || ri < best) {
			best = ri
		}
	}
	return best, nil
}

func readAll(ctx context.Context, name string) ([]byte, error) {
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	return filesystem.Read(ctx, fs, name)
}

// addMetrics adds a pipeline's counters to sum.
func addMetrics(sum *Summary, pr beam.PipelineResult) {
	m := pr.Metrics().AllMetrics()
	for _, r := range m.Counters() {
		if r.Namespace() == "neardup" {
			sum.Counters[r.Name()] += r.Result()
		}
	}
	for _, r := range m.Distributions() {
		if r.Namespace() == "neardup" && r.Name() == "cluster_size" {
			sum.Largest = max(sum.Largest, r.Result().Max)
		}
	}
}

// finalOutputs adds the last stage: components, clusters and outputs.
func finalOutputs(s beam.Scope, c Config, out Outputs) {
	docs := beam.ParDo(s, decodeDoc, readShards(s, c.path("docs")))
	copies := beam.ParDo(s, decodeCopy, readShards(s, c.path("copies")))
	edges := beam.ParDo(s, decodeEdge, readShards(s, c.path("edges")))
	roots := beam.ParDo(s, toLarger, beam.ParDo(s, decodeStar, readShards(s, c.path(fmt.Sprintf("star-%d", c.star())))))
	nodes := beam.ParDo(s, nodeOf, beam.CoGroupByKey(s, docs, copies))

	if out.Clusters != "" || out.Output != "" {
		cs := s.Scope("clusters")
		byComp := beam.ParDo(cs, componentOf, beam.CoGroupByKey(cs, nodes, roots))
		edgeComp := beam.ParDo(cs, edgeComponent, beam.CoGroupByKey(cs, beam.ParDo(cs, edgeByA, edges), roots))
		var sets beam.PCollection
		if c.Cluster == neardup.ClusterComponents {
			u := beam.ParDo(cs, decodeSigned, readShards(cs, c.path("sets")))
			sets = beam.ParDo(cs, signedComponent, beam.CoGroupByKey(cs, u, roots))
		} else {
			sets = beam.CreateList(cs, []KVSigned{})
			sets = beam.ParDo(cs, unKVSigned, sets)
		}
		clusters, drops := beam.ParDo2(cs, &clusterFn{C: c}, beam.CoGroupByKey(cs, byComp, edgeComp, sets))
		if out.Clusters != "" {
			counts := beam.CombinePerKey(cs, sumCount, beam.ParDo(cs, countOne, clusters))
			lines := beam.ParDo(cs, &numberFn{}, beam.GroupByKey(cs, clusters), beam.SideInput{Input: counts})
			textio.Write(cs, c.path("out-clusters"), lines)
		}
		if out.Output != "" {
			var files []int
			for i := range c.Files {
				files = append(files, i)
			}
			fileCol := beam.ParDo(cs, fileKey, beam.CreateList(cs, files))
			beam.ParDo0(cs, &filterFn{C: c, Out: outputNames(c, out)}, beam.CoGroupByKey(cs, drops, fileCol))
		}
	}
	if out.Pairs != "" {
		ps := s.Scope("pairs")
		groupLines, groups := beam.ParDo2(ps, &groupFn{Compact: out.PairsCompact}, beam.GroupByKey(ps, nodes))
		halves := beam.ParDo(ps, edgeWithA, beam.CoGroupByKey(ps, beam.ParDo(ps, edgeByA, edges), groups))
		edgeLines := beam.ParDo(ps, &pairLinesFn{Compact: out.PairsCompact}, beam.CoGroupByKey(ps, halves, groups))
		textio.Write(ps, c.path("out-pairs"), beam.Flatten(ps, groupLines, edgeLines))
	}
}

// KVSigned only gives an empty PCollection of KV<int64, Signed> its type.
type KVSigned struct {
	Comp int64
	Set  Signed
}

func unKVSigned(x KVSigned) (int64, Signed) { return x.Comp, x.Set }

func edgeByA(e Edge) (int64, Edge) { return e.A, e }

func init() {
	register.Function1x2(unKVSigned)
	register.Function1x2(edgeByA)
}

// outputNames are the final names of the deduplicated inputs: Output
// itself for one input, else Output/BASE for each input.
func outputNames(c Config, out Outputs) []string {
	if len(c.Files) == 1 {
		return []string{out.Output}
	}
	names := make([]string, len(c.Files))
	for i, f := range c.Files {
		names[i] = joinPath(out.Output, baseName(f))
	}
	return names
}

func baseName(p string) string {
	return p[strings.LastIndexAny(p, `/\`)+1:]
}

// CheckInputs looks at the inputs before any pipeline runs, so that a
// mistake is one line and not a failed pipeline: a local input (a path
// without a scheme) must exist and be readable; its error reads as
// corpus.Open's ("ads.jsonl: stat: no such file or directory"). A URL is
// not looked at (the workers read it, with their credentials), but its
// scheme must be a file system Beam has registered in this binary.
func CheckInputs(files []string) error {
	for _, f := range files {
		if isURL(f) {
			if err := CheckScheme(f); err != nil {
				return err
			}
			continue
		}
		if f == "-" {
			continue // standard input: no file to look at
		}
		if _, err := os.Stat(f); err != nil {
			return pathError(f, err)
		}
		in, err := os.Open(f) // a directory too: its listing must be readable
		if err != nil {
			return pathError(f, err)
		}
		in.Close()
	}
	return nil
}

// pathError is err, an *fs.PathError of path, as corpus.Open words it.
func pathError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %s: %w", path, pe.Op, pe.Err)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// ErrScheme is returned by CheckInputs and CheckScheme for a URL whose
// scheme no file system of the binary serves.
var ErrScheme = errors.New("no file system for its scheme")

// CheckScheme returns an error wrapping ErrScheme when path is a URL and
// no Beam file system is registered for its scheme; nil for local paths.
func CheckScheme(path string) (err error) {
	if !isURL(path) {
		return nil
	}
	defer func() {
		if recover() != nil { // filesystem.ValidateScheme panics
			err = fmt.Errorf("%s: %w (neardup-beam reads and writes local paths and gs:// URLs)", path, ErrScheme)
		}
	}()
	filesystem.ValidateScheme(path)
	return nil
}

// CheckOutputs refuses outputs Run could not write: the corpus output of
// directory inputs or inputs behind URLs, and inputs whose base names
// collide when each gets its own output file.
func CheckOutputs(c Config, out Outputs) error {
	if out.Output == "" {
		return nil
	}
	seen := map[string]string{}
	for _, f := range c.Files {
		if isURL(f) {
			return fmt.Errorf("%w: --output: %s: the deduplicated corpus is written from local (or mounted) inputs only", neardup.ErrOptions, f)
		}
		if fi, err := os.Stat(f); err == nil && fi.IsDir() {
			return fmt.Errorf("%w: --output: %s is a directory; neardup-beam writes no directory output", neardup.ErrOptions, f)
		}
		b := baseName(f)
		if prev, ok := seen[b]; ok && len(c.Files) > 1 {
			return fmt.Errorf("%w: --output: %s and %s would both be written as %s", neardup.ErrOptions, prev, f, joinPath(out.Output, b))
		}
		seen[b] = f
	}
	return nil
}

// moveOutputs moves the outputs from the work directory to their places.
func moveOutputs(ctx context.Context, c Config, out Outputs) error {
	// textio.Write writes no file for an empty collection: a corpus
	// without near-duplicates has an empty pairs file, as dedup's.
	type mv struct {
		from, to string
		text     bool // written by textio.Write
	}
	var moves []mv
	if out.Pairs != "" {
		moves = append(moves, mv{c.path("out-pairs"), out.Pairs, true})
	}
	if out.Clusters != "" {
		moves = append(moves, mv{c.path("out-clusters"), out.Clusters, true})
	}
	if out.Output != "" {
		if len(c.Files) > 1 && !isURL(out.Output) {
			if err := os.MkdirAll(out.Output, 0o755); err != nil {
				return err
			}
		}
		for i, name := range outputNames(c, out) {
			moves = append(moves, mv{c.path(fmt.Sprintf("out-corpus-%05d", i)), name, false})
		}
	}
	for _, m := range moves {
		if m.text {
			if ok, err := exists(ctx, m.from); err != nil {
				return err
			} else if !ok {
				if err := writeEmpty(ctx, m.from); err != nil {
					return fmt.Errorf("write the empty output %s: %w", m.to, err)
				}
			}
		}
		if err := move(ctx, m.from, m.to); err != nil {
			return fmt.Errorf("move the output to %s: %w", m.to, err)
		}
	}
	return nil
}

// exists reports whether the file name (local or URL) exists.
func exists(ctx context.Context, name string) (bool, error) {
	if !isURL(name) {
		_, err := os.Stat(name)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return err == nil, err
	}
	fsys, err := filesystem.New(ctx, name)
	if err != nil {
		return false, err
	}
	defer fsys.Close()
	names, err := fsys.List(ctx, name) // a glob without wildcards
	return len(names) > 0, err
}

// writeEmpty creates the empty file name (local or URL).
func writeEmpty(ctx context.Context, name string) error {
	if !isURL(name) {
		return os.WriteFile(name, nil, 0o644)
	}
	fsys, err := filesystem.New(ctx, name)
	if err != nil {
		return err
	}
	defer fsys.Close()
	w, err := fsys.OpenWrite(ctx, name)
	if err != nil {
		return err
	}
	return w.Close()
}

// move renames from to to, or copies it when they are on different file
// systems.
func move(ctx context.Context, from, to string) error {
	if !isURL(from) && !isURL(to) {
		if err := os.Rename(from, to); err == nil {
			return nil
		}
		tmp := filepath.Join(filepath.Dir(to), "."+filepath.Base(to)+".tmp")
		if err := copyLocal(from, tmp); err != nil {
			os.Remove(tmp)
			return err
		}
		return os.Rename(tmp, to)
	}
	fs, err := filesystem.New(ctx, from)
	if err != nil {
		return err
	}
	defer fs.Close()
	if isURL(to) && strings.SplitN(to, "://", 2)[0] == strings.SplitN(from, "://", 2)[0] {
		return filesystem.Rename(ctx, fs, from, to)
	}
	b, err := filesystem.Read(ctx, fs, from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

func copyLocal(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	o, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(o, in); err != nil {
		o.Close()
		return err
	}
	return o.Close()
}
