// Package summary describes a finished dedup run: the summary printed for
// people on standard error (Print) and the --stats JSON document for
// programs (MakeStats, WriteStats). It formats what the engine's Result
// and the command's Input say; it reads no flags and writes only to the
// writer it is given.
package summary

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cmd/neardup/internal/human"
)

// Run is what Print says of a run beyond its options and result.
type Run struct {
	Input
	// TwoPass says why the run took two passes (shown when it did).
	TwoPass string
	// Limit is --memory-limit in bytes (0: none).
	Limit int64
	// Peak is the process's peak resident memory; PeakKnown is false
	// where it is not known, and the memory line is left out.
	Peak      int64
	PeakKnown bool
	// OverLimit says why the peak can be over Limit, shown when it is.
	OverLimit string
	// Write is the time taken by the outputs, Total the whole run's.
	Write, Total time.Duration
	// Describe names a document whose id repeats an earlier one, for the
	// warning's examples.
	Describe func(neardup.DuplicateID) string
}

// Print writes the summary of a run with options o that gave res.
func Print(w io.Writer, o neardup.Options, res *neardup.Result, r Run) {
	s := res.Stats
	mode := fmt.Sprintf("%s %d-grams", o.Shingle.Mode, o.Shingle.N)
	if o.Shingle.Bag {
		mode += " (bag)"
	}
	fmt.Fprintf(w, "neardup: %s, %s of text (%d empty, %d skipped as bad, %d with invalid UTF-8)\n",
		human.Plural(s.Documents, "document", "documents"), human.Bytes(r.Bytes), s.Empty, r.Skipped, s.InvalidUTF8)
	if r.Binary > 0 {
		fmt.Fprintf(w, "  binary:     %s of directory inputs left out (--include-binary reads %s)\n", human.Plural(r.Binary, "file", "files"), human.Pick(r.Binary, "it", "them"))
	}
	if s.DuplicateIDs > 0 {
		var ex []string
		for _, d := range res.DuplicateIDs[:min(3, len(res.DuplicateIDs))] {
			ex = append(ex, r.Describe(d))
		}
		fmt.Fprintf(w, "  warning:    %s an earlier id (--strict-ids makes this an error), e.g. %s\n",
			human.Plural(s.DuplicateIDs, "document repeats", "documents repeat"), strings.Join(ex, "; "))
	}
	fmt.Fprintf(w, "  shingles:   %d %s; %s, %s identical to an earlier one\n",
		s.Shingles, mode, human.Plural(s.Distinct, "distinct set", "distinct sets"), human.Plural(s.Identical, "document", "documents"))
	fmt.Fprintf(w, "  lsh:        %s, %s x %s, P(candidate | J=%.2f) = %.4f; %s",
		human.Plural(o.Slots, "slot", "slots"), human.Plural(o.LSH.Bands, "band", "bands"), human.Plural(o.LSH.Rows, "row", "rows"), o.Threshold, o.LSH.Probability(o.Threshold), human.Plural(s.Candidates, "candidate pair", "candidate pairs"))
	if s.LargeBuckets > 0 {
		fmt.Fprintf(w, " (%s over --max-bucket %d compared by signature, the largest of %d)", human.Plural(s.LargeBuckets, "bucket", "buckets"), o.MaxBucket, s.LargestBucket)
	}
	fmt.Fprintln(w)
	kind := o.Verify.String()
	if o.Weight == neardup.WeightIDF {
		kind += " idf-weighted"
	}
	fmt.Fprintf(w, "  verified:   %s with %s Jaccard >= %g (%d reported, identical sets included)\n",
		human.Plural(s.Verified, "pair", "pairs"), kind, o.Threshold, s.Pairs)
	fmt.Fprintf(w, "  clusters:   %d, largest %s; %s to drop\n", s.Clusters, human.Plural(s.LargestCluster, "document", "documents"), human.Plural(s.Duplicates, "duplicate", "duplicates"))
	printClusterCheck(w, o, res)
	if o.Refine == neardup.RefineEdit {
		fmt.Fprintf(w, "  refine:     edit similarity of %s and cluster members in %s\n", human.Plural(len(res.Pairs), "pair", "pairs"), human.Duration(s.Refine))
	}
	if s.Passes == 2 {
		fmt.Fprintf(w, "  passes:     2 (%s): %s held after the signature pre-filter, the %s in them read again and the pairs verified in %s\n", r.TwoPass, human.Plural(s.Held, "candidate pair", "candidate pairs"), human.Plural(s.Reread, "document", "documents"), human.Duration(s.Second))
	}
	printMemory(w, r)
	second := ""
	if s.Passes == 2 {
		second = ", second pass " + human.Duration(s.Second)
	}
	fmt.Fprintf(w, "  time:       read+shingle %s, identical %s, sign %s%s, lsh+verify %s, cluster %s, write %s; total %s\n",
		human.Duration(s.ReadShingle), human.Duration(s.Collapse), human.Duration(s.Sign), second, human.Duration(s.Candidate), human.Duration(s.Group), human.Duration(r.Write), human.Duration(r.Total))
}

// printMemory writes the summary's memory line: the process's peak
// resident memory beside --memory-limit, and a warning with the reason
// when the peak went over the limit, which is a plan and a soft limit for
// the Go runtime, not a hard cap.
func printMemory(w io.Writer, r Run) {
	if !r.PeakKnown {
		return
	}
	lim := "none"
	if r.Limit > 0 {
		lim = human.Bytes(r.Limit)
	}
	fmt.Fprintf(w, "  memory:     peak %s resident (--memory-limit %s)\n", human.Bytes(r.Peak), lim)
	if r.Limit <= 0 || r.Peak <= r.Limit {
		return
	}
	fmt.Fprintf(w, "  warning:    the peak was over --memory-limit: %s\n", r.OverLimit)
}

// printClusterCheck prints the lines that flag suspicious clusters: the size
// distribution and largest cluster, the clusters with members below the
// threshold, and those set aside by --max-cluster.
func printClusterCheck(w io.Writer, o neardup.Options, res *neardup.Result) {
	s := res.Stats
	if s.Clusters == 0 {
		return
	}
	classes := sizeClasses(res.Clusters)
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
	fmt.Fprintf(w, "  check:      %s (%s mode) %s below Jaccard %g with %s representative\n",
		human.Plural(s.BelowClusters, "cluster", "clusters"), o.Cluster, human.Pick(s.BelowClusters, "has members", "have members"), o.Threshold, human.Pick(s.BelowClusters, "its", "their"))
	if o.MaxCluster > 0 {
		fmt.Fprintf(w, "  review:     %s over --max-cluster %d (%s) kept whole, not deduplicated\n",
			human.Plural(s.Review, "cluster", "clusters"), o.MaxCluster, human.Plural(s.ReviewDocs, "document", "documents"))
	}
}
