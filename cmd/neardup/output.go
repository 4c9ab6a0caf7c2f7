package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/internal/atomicfile"
	"github.com/neardup/neardup/internal/dedupout"
	"github.com/neardup/neardup/internal/prefetch"
)

// pending is an output being written: committed only when every output of
// the run has been written without error.
type pending struct {
	name   string
	file   *atomicfile.File // nil for standard output
	w      *bufio.Writer
	commit func() error // for directories
	abort  func()
}

// openOutput starts writing path ("-": standard output).
func openOutput(e *env, path string) (*pending, error) {
	if path == "-" {
		return &pending{name: "standard output", w: bufio.NewWriterSize(e.stdout, 1<<16)}, nil
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, namePath("create", path, err)
	}
	return &pending{name: path, file: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

// writeErr names the output of a failed write, unless err names a file
// already (the output's writer reports its own path).
func writeErr(name string, err error) error {
	if _, ok := errors.AsType[*fs.PathError](err); ok {
		return err
	}
	return fmt.Errorf("write %s: %w", name, err)
}

func (p *pending) finish() error {
	if p.commit != nil {
		return p.commit()
	}
	if err := p.w.Flush(); err != nil {
		return writeErr(p.name, err)
	}
	if p.file != nil {
		return p.file.Commit()
	}
	return nil
}

func (p *pending) discard() {
	if p.abort != nil {
		p.abort()
	}
	if p.file != nil {
		p.file.Abort()
	}
}

// writeOutputs writes every requested output to a temporary file, then
// renames them all; on any error none is renamed. start is when the run
// began, for the report's timing; pr shows how the writing goes.
func writeOutputs(e *env, f *dedupFlags, src *source, co corpus.Options, b *neardup.Batch, res *neardup.Result, start time.Time, pr *progress) (err error) {
	began := time.Now()
	var outs []*pending
	defer func() {
		if err != nil {
			for _, p := range outs {
				p.discard()
			}
		}
	}()
	open := func(path string) (*pending, error) {
		p, err := openOutput(e, path)
		if err == nil {
			outs = append(outs, p)
		}
		return p, err
	}
	if f.pairs != "" {
		p, err := open(f.pairs)
		if err != nil {
			return err
		}
		if err := writePairs(p.w, b, res, f.pairsCompact, pr); err != nil {
			return writeErr(p.name, err)
		}
	}
	if f.clusters != "" {
		p, err := open(f.clusters)
		if err != nil {
			return err
		}
		pr.set("writing clusters", 0)
		if err := writeClusters(p.w, b, res); err != nil {
			return writeErr(p.name, err)
		}
	}
	if f.output != "" {
		pr.set("writing the deduplicated corpus", int64(len(res.Dup)))
		p, err := writeCorpus(e, f.output, src, co, res, pr)
		if p != nil {
			outs = append(outs, p)
		}
		if err != nil {
			return err
		}
	}
	if f.stats != "" {
		p, err := open(f.stats)
		if err != nil {
			return err
		}
		if err := writeStats(p.w, f, src, b, res); err != nil {
			return writeErr(p.name, err)
		}
	}
	if f.report != "" {
		// Last, so that its timing panel covers the other outputs.
		pr.set("writing the report", 0)
		p, err := open(f.report)
		if err != nil {
			return err
		}
		if err := writeReport(p.w, e, src, co, b, res, reportTiming{start: start, write: time.Since(began)}); err != nil {
			return writeErr(p.name, err)
		}
	}
	for i, p := range outs {
		if err := p.finish(); err != nil {
			for _, q := range outs[i+1:] {
				q.discard()
			}
			outs = nil
			return err
		}
	}
	return nil
}

// writePairs writes id_a, id_b, jaccard, and with --refine edit a fourth
// column, the edit similarity: every pair (Result.AllPairs, streamed), or
// with compact the compact listing (Result.Pairs: identical copies as a
// star around the earliest, pairs with other documents for the earliest
// copy only). Each written pair is counted in pr.
func writePairs(w *bufio.Writer, b *neardup.Batch, res *neardup.Result, compact bool, pr *progress) error {
	edit := b.Options().Refine == neardup.RefineEdit
	// The ids that need escaping, found once: checking both ids of every
	// line cost more than a third of the formatting of 258 million lines.
	n := b.Len()
	plain := make([]uint64, (n+63)/64)
	for i := range n {
		if !dedupout.NeedsEscape(b.ID(i)) {
			plain[i/64] |= 1 << (i % 64)
		}
	}
	// Both steps of reading an id (its header, then its bytes) are
	// prefetched: B's ids are at random places (the pairs are sorted by A),
	// and waiting for them was most of the formatting of a large corpus.
	ids := b.IDs()
	id := func(i int) string {
		if plain[i/64]&(1<<(i%64)) != 0 {
			return ids[i]
		}
		return dedupout.EscapeField(ids[i])
	}
	const ahead = 16 // pairs: the header ahead, its bytes ahead/2
	format := func(buf []byte, ps []neardup.Pair) []byte {
		for k, p := range ps {
			if k+ahead < len(ps) {
				prefetch.Line(&ids[ps[k+ahead].B])
			}
			if k+ahead/2 < len(ps) {
				if s := ids[ps[k+ahead/2].B]; len(s) > 0 {
					prefetch.Line(unsafe.StringData(s))
				}
			}
			buf = dedupout.AppendEscapedPair(buf, id(p.A), id(p.B), p.Jaccard)
			if edit {
				buf = append(buf, '\t')
				buf = strconv.AppendFloat(buf, p.Edit, 'f', 6, 64)
			}
			buf = append(buf, '\n')
		}
		return buf
	}
	pairs := res.AllPairs()
	total := int64(res.Stats.Pairs)
	if compact {
		pairs, total = slices.Values(res.Pairs), int64(len(res.Pairs))
	}
	pr.set("writing pairs", total)
	return writeOrdered(w, pairs, format, max(runtime.GOMAXPROCS(0)-1, 1), pr)
}

// pairBatch is the number of pairs formatted together by writeOrdered.
const pairBatch = 1 << 14

// writeOrdered writes the pairs of seq to w, in order, formatted by format
// in batches of pairBatch on workers goroutines while seq goes on yielding
// (formatting is most of the time of writing a large pairs file, and seq
// runs on the calling goroutine). At most 2*workers+2 batches are in
// flight, so memory does not grow with the pairs. After a write error it
// stops and returns it.
func writeOrdered(w *bufio.Writer, seq iter.Seq[neardup.Pair], format func([]byte, []neardup.Pair) []byte, workers int, pr *progress) error {
	type job struct {
		pairs []neardup.Pair
		out   []byte
		done  chan struct{}
	}
	jobs := make(chan *job, workers)
	queue := make(chan *job, 2*workers+2) // in order, for the writer
	free := make(chan *job, 2*workers+2)
	for range cap(free) {
		free <- &job{pairs: make([]neardup.Pair, 0, pairBatch), done: make(chan struct{}, 1)}
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				j.out = format(j.out[:0], j.pairs)
				j.done <- struct{}{}
			}
		})
	}
	errc := make(chan error, 1)
	stopped := make(chan struct{}) // closed when the writer stops early
	go func() {
		var err error
		for j := range queue {
			<-j.done
			if err == nil {
				if _, err = w.Write(j.out); err != nil {
					close(stopped)
				}
				pr.add(int64(len(j.pairs)))
			}
			j.pairs = j.pairs[:0]
			free <- j
		}
		errc <- err
	}()
	var cur *job
	send := func() bool {
		select {
		case <-stopped:
			return false
		case queue <- cur:
		}
		jobs <- cur
		cur = nil
		return true
	}
	for p := range seq {
		if cur == nil {
			select {
			case cur = <-free:
			case <-stopped:
			}
			if cur == nil {
				break
			}
		}
		cur.pairs = append(cur.pairs, p)
		if len(cur.pairs) == pairBatch && !send() {
			break
		}
	}
	if cur != nil && len(cur.pairs) > 0 {
		send()
	}
	close(jobs)
	close(queue)
	wg.Wait()
	return <-errc
}

// escapeField, clusterJSON, memberJSON and jnum are dedupout's, shared
// with the Beam pipeline so that both write the same bytes.
var escapeField = dedupout.EscapeField

type (
	clusterJSON = dedupout.Cluster
	memberJSON  = dedupout.Member
)

func jnum(x float64) json.Number { return dedupout.Number(x) }

func writeClusters(w *bufio.Writer, b *neardup.Batch, res *neardup.Result) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	var line clusterJSON
	for _, c := range res.Clusters {
		line.Cluster = c.ID
		line.Size = len(c.Members)
		line.Representative = b.ID(c.Representative)
		line.Members = line.Members[:0]
		for _, m := range c.Members {
			mj := memberJSON{ID: b.ID(m.Doc), Jaccard: jnum(m.Jaccard)}
			if b.Options().Refine == neardup.RefineEdit {
				e := jnum(m.Edit)
				mj.Edit = &e
			}
			line.Members = append(line.Members, mj)
		}
		line.MinJaccard = jnum(c.MinJaccard())
		line.BelowThreshold = c.Below(b.Options().Threshold)
		line.Review = c.Review
		if err := enc.Encode(&line); err != nil {
			return err
		}
	}
	return nil
}

// writeCorpus writes the inputs without their duplicates.
func writeCorpus(e *env, path string, src *source, co corpus.Options, res *neardup.Result, pr *progress) (*pending, error) {
	// dropped[file] lists the record numbers to leave out, ascending.
	dropped := make([][]int32, len(src.inputs))
	for d, dup := range res.Dup {
		if dup {
			f := src.fileOf[d]
			dropped[f] = append(dropped[f], src.numOf[d])
		}
	}
	keep := func(file, num int) bool {
		pr.add(1)
		_, found := slices.BinarySearch(dropped[file], int32(num))
		return !found
	}
	co.Format = src.format
	if src.format == corpus.Dir {
		if len(src.inputs) != 1 {
			return nil, fmt.Errorf("%w: --output with a directory input needs that directory as the only input", errUsage)
		}
		if path == "-" {
			return nil, fmt.Errorf("%w: --output - cannot hold a directory", errUsage)
		}
		if _, err := os.Lstat(path); err == nil {
			return nil, fmt.Errorf("--output %s: already exists (a directory output is never overwritten)", path)
		}
		tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp"+strconv.Itoa(os.Getpid()))
		os.RemoveAll(tmp)
		p := &pending{name: path,
			commit: func() error {
				if err := os.Rename(tmp, path); err != nil {
					os.RemoveAll(tmp)
					return fmt.Errorf("write %s: %w", path, err)
				}
				return nil
			},
			abort: func() { os.RemoveAll(tmp) },
		}
		if err := corpus.FilterDir(tmp, src.inputs[0], func(num int) bool { return keep(0, num) }); err != nil {
			os.RemoveAll(tmp)
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		return p, nil
	}
	p, err := openOutput(e, path)
	if err != nil {
		return nil, err
	}
	cw, err := corpus.NewCompressWriter(p.w, path)
	if err != nil {
		p.discard()
		return nil, err
	}
	if err := corpus.Filter(cw, src.inputs, co, keep); err != nil {
		p.discard()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if err := cw.Close(); err != nil {
		p.discard()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return p, nil
}

// statsJSON is the --stats document.
type statsJSON struct {
	Inputs         []string           `json:"inputs"`
	Documents      int                `json:"documents"`
	Empty          int                `json:"empty_documents"`
	Skipped        int                `json:"skipped_bad_records"`
	SkippedBinary  int                `json:"skipped_binary_files"`
	InvalidUTF8    int                `json:"invalid_utf8_documents"`
	Shingles       int64              `json:"shingles"`
	Distinct       int                `json:"distinct_shingle_sets"`
	Identical      int                `json:"identical_documents"`
	Candidates     int64              `json:"candidate_pairs"`
	LargeBuckets   int64              `json:"large_buckets"`
	LargestBucket  int                `json:"largest_bucket"`
	Verified       int                `json:"verified_pairs"`
	Pairs          int                `json:"reported_pairs"` // every pair, as --pairs lists them
	CompactPairs   int                `json:"compact_pairs"`  // as --pairs-compact lists them
	DuplicateIDs   int                `json:"duplicate_ids"`  // documents repeating an earlier document's id
	Clusters       int                `json:"clusters"`
	Duplicates     int                `json:"duplicates"`
	LargestCluster int                `json:"largest_cluster"`
	ClusterSizes   map[string]int     `json:"cluster_sizes"`            // clusters per size class: "2", "3-5", "6-20", "21-100", ">100"
	BelowClusters  int                `json:"clusters_below_threshold"` // clusters with a member below t with its representative
	Review         int                `json:"review_clusters"`          // clusters over --max-cluster, not deduplicated
	ReviewDocs     int                `json:"review_documents"`
	Params         paramsJSON         `json:"params"`
	Passes         int                `json:"passes"`           // 2 when the sets were read again for the candidates only (--memory-limit)
	Reread         int                `json:"reread_documents"` // documents read again in the second pass
	Held           int64              `json:"held_pairs"`       // candidate pairs held for the second pass
	Seconds        map[string]float64 `json:"seconds"`
	Bytes          int64              `json:"text_bytes"`
}

type paramsJSON struct {
	Shingle   string  `json:"shingle"`
	Ngram     int     `json:"ngram"`
	Bag       bool    `json:"bag"`
	Slots     int     `json:"num_perm"`
	Seed      uint64  `json:"seed"`
	Threshold float64 `json:"threshold"`
	Recall    float64 `json:"recall"`
	Bands     int     `json:"bands"`
	Rows      int     `json:"rows"`
	PAtT      float64 `json:"p_candidate_at_threshold"`
	Verify    string  `json:"verify"`
	Weight    string  `json:"weight"`
	Refine    string  `json:"refine"`
	Keep      string  `json:"keep"`
	Cluster   string  `json:"cluster"`
	MaxClust  int     `json:"max_cluster"`
	Workers   int     `json:"workers"`
	MaxBucket int     `json:"max_bucket"`
}

func makeStats(src *source, b *neardup.Batch, res *neardup.Result) statsJSON {
	o := b.Options()
	s := res.Stats
	return statsJSON{
		Inputs: src.names, Documents: s.Documents, Empty: s.Empty, Skipped: src.skipped, SkippedBinary: src.binary, InvalidUTF8: s.InvalidUTF8,
		Shingles: s.Shingles, Distinct: s.Distinct, Identical: s.Identical, Candidates: s.Candidates,
		LargeBuckets: s.LargeBuckets, LargestBucket: s.LargestBucket, Verified: s.Verified, Pairs: s.Pairs, CompactPairs: s.CompactPairs,
		DuplicateIDs: s.DuplicateIDs, Clusters: s.Clusters,
		Duplicates: s.Duplicates, LargestCluster: s.LargestCluster, Bytes: src.bytes.Load(),
		ClusterSizes: sizeClasses(res), BelowClusters: s.BelowClusters, Review: s.Review, ReviewDocs: s.ReviewDocs,
		Params: paramsJSON{Shingle: o.Shingle.Mode.String(), Ngram: o.Shingle.N, Bag: o.Shingle.Bag, Slots: o.Slots,
			Seed: o.Seed, Threshold: o.Threshold, Recall: o.Recall, Bands: o.LSH.Bands, Rows: o.LSH.Rows,
			PAtT: o.LSH.Probability(o.Threshold), Verify: o.Verify.String(), Weight: o.Weight.String(), Refine: o.Refine.String(), Keep: o.Keep.String(),
			Cluster: o.Cluster.String(), MaxClust: o.MaxCluster,
			Workers: o.Workers, MaxBucket: o.MaxBucket},
		Seconds: map[string]float64{
			"read_shingle": s.ReadShingle.Seconds(), "collapse": s.Collapse.Seconds(), "sign": s.Sign.Seconds(),
			"lsh_verify": s.Candidate.Seconds(), "cluster": s.Group.Seconds(), "refine": s.Refine.Seconds(),
			"second_pass": s.Second.Seconds(), "second_pass_verify": s.SecondVerify.Seconds(),
		},
		Passes: s.Passes, Reread: s.Reread, Held: s.Held,
	}
}

func writeStats(w io.Writer, f *dedupFlags, src *source, b *neardup.Batch, res *neardup.Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(makeStats(src, b, res))
}

// printSummary writes the run's summary; why says why it took two passes.
func printSummary(w io.Writer, b *neardup.Batch, src *source, res *neardup.Result, why string, write, total time.Duration) {
	o := b.Options()
	s := res.Stats
	mode := fmt.Sprintf("%s %d-grams", o.Shingle.Mode, o.Shingle.N)
	if o.Shingle.Bag {
		mode += " (bag)"
	}
	fmt.Fprintf(w, "neardup: %d documents, %s of text (%d empty, %d skipped as bad, %d with invalid UTF-8)\n",
		s.Documents, humanBytes(src.bytes.Load()), s.Empty, src.skipped, s.InvalidUTF8)
	if src.binary > 0 {
		fmt.Fprintf(w, "  binary:     %d files of directory inputs left out (--include-binary reads them)\n", src.binary)
	}
	if s.DuplicateIDs > 0 {
		var ex []string
		for _, d := range res.DuplicateIDs[:min(3, len(res.DuplicateIDs))] {
			ex = append(ex, describeDuplicate(src, d))
		}
		fmt.Fprintf(w, "  warning:    %d documents repeat an earlier id (--strict-ids makes this an error), e.g. %s\n",
			s.DuplicateIDs, strings.Join(ex, "; "))
	}
	fmt.Fprintf(w, "  shingles:   %d %s; %d distinct sets, %d documents identical to an earlier one\n",
		s.Shingles, mode, s.Distinct, s.Identical)
	fmt.Fprintf(w, "  lsh:        %d slots, %d bands x %d rows, P(candidate | J=%.2f) = %.4f; %d candidate pairs",
		o.Slots, o.LSH.Bands, o.LSH.Rows, o.Threshold, o.LSH.Probability(o.Threshold), s.Candidates)
	if s.LargeBuckets > 0 {
		fmt.Fprintf(w, " (%d buckets over --max-bucket %d compared by signature, the largest of %d)", s.LargeBuckets, o.MaxBucket, s.LargestBucket)
	}
	fmt.Fprintln(w)
	kind := o.Verify.String()
	if o.Weight == neardup.WeightIDF {
		kind += " idf-weighted"
	}
	fmt.Fprintf(w, "  verified:   %d pairs with %s Jaccard >= %g (%d reported, identical sets included)\n",
		s.Verified, kind, o.Threshold, s.Pairs)
	fmt.Fprintf(w, "  clusters:   %d, largest %d documents; %d duplicates to drop\n", s.Clusters, s.LargestCluster, s.Duplicates)
	printClusterCheck(w, o, res)
	if o.Refine == neardup.RefineEdit {
		fmt.Fprintf(w, "  refine:     edit similarity of %d pairs and cluster members in %s\n", len(res.Pairs), dur(s.Refine))
	}
	if s.Passes == 2 {
		fmt.Fprintf(w, "  passes:     2 (%s): %d candidate pairs held after the signature pre-filter, the %d documents in them read again and the pairs verified in %s\n", why, s.Held, s.Reread, dur(s.Second))
	}
	second := ""
	if s.Passes == 2 {
		second = ", second pass " + dur(s.Second)
	}
	fmt.Fprintf(w, "  time:       read+shingle %s, identical %s, sign %s%s, lsh+verify %s, cluster %s, write %s; total %s\n",
		dur(s.ReadShingle), dur(s.Collapse), dur(s.Sign), second, dur(s.Candidate), dur(s.Group), dur(write), dur(total))
}

// sizeBounds are the upper bounds of the cluster size classes of the
// summary and --stats; the last class is open.
var sizeBounds = []struct {
	max  int
	name string
}{{2, "2"}, {5, "3-5"}, {20, "6-20"}, {100, "21-100"}, {math.MaxInt, ">100"}}

// sizeClasses counts the clusters in each size class.
func sizeClasses(res *neardup.Result) map[string]int {
	m := make(map[string]int, len(sizeBounds))
	for _, sb := range sizeBounds {
		m[sb.name] = 0
	}
	for _, c := range res.Clusters {
		for _, sb := range sizeBounds {
			if len(c.Members) <= sb.max {
				m[sb.name]++
				break
			}
		}
	}
	return m
}

// printClusterCheck prints the lines that flag suspicious clusters: the size
// distribution and largest cluster, the clusters with members below the
// threshold, and those set aside by --max-cluster.
func printClusterCheck(w io.Writer, o neardup.Options, res *neardup.Result) {
	s := res.Stats
	if s.Clusters == 0 {
		return
	}
	classes := sizeClasses(res)
	var parts []string
	for _, sb := range sizeBounds {
		parts = append(parts, fmt.Sprintf("%s: %d", sb.name, classes[sb.name]))
	}
	big := &res.Clusters[0]
	for i := range res.Clusters {
		if len(res.Clusters[i].Members) > len(big.Members) {
			big = &res.Clusters[i]
		}
	}
	fmt.Fprintf(w, "  sizes:      %s; largest: cluster %d, %d documents, min Jaccard %.3f with its representative\n",
		strings.Join(parts, ", "), big.ID, len(big.Members), big.MinJaccard())
	fmt.Fprintf(w, "  check:      %d clusters (%s mode) have members below Jaccard %g with their representative\n",
		s.BelowClusters, o.Cluster, o.Threshold)
	if o.MaxCluster > 0 {
		fmt.Fprintf(w, "  review:     %d clusters over --max-cluster %d (%d documents) kept whole, not deduplicated\n",
			s.Review, o.MaxCluster, s.ReviewDocs)
	}
}

func dur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
