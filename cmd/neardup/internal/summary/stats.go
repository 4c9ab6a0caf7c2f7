package summary

// The --stats document: the run's counts, parameters and timings as JSON,
// for programs (dedup writes it to the path --stats names).

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/neardup/neardup"
)

// Input is what the command knows of its inputs and the engine does not.
type Input struct {
	Names   []string // the inputs as given
	Bytes   int64    // text bytes read
	Skipped int      // records skipped as bad
	Binary  int      // binary files of directory inputs left out
}

// Stats is the --stats document. Its fields are written in this order,
// under these names: programs read them, so neither may change.
type Stats struct {
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
	BucketPairs    int64              `json:"bucket_pairs"`   // pairs of members of the LSH buckets paired, over the bands (each candidate once a band it shares a bucket in)
	BucketMembers  int64              `json:"bucket_members"` // members of those buckets, over the bands
	BucketSizes    map[string]Buckets `json:"bucket_sizes"`   // those buckets by size class: "2-3", "4-7", ..., powers of two
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
	Params         Params             `json:"params"`
	Passes         int                `json:"passes"`                       // 2 when the sets were read again for the candidates only (--memory-limit)
	Reread         int                `json:"reread_documents"`             // documents read again in the second pass
	Held           int64              `json:"held_pairs"`                   // candidate pairs held for the second pass
	PeakRSS        int64              `json:"peak_rss_bytes,omitempty"`     // the process's peak resident memory when the stats were written (getrusage; absent where not known)
	MemoryLimit    int64              `json:"memory_limit_bytes,omitempty"` // --memory-limit in bytes, auto resolved (absent for none)
	Seconds        map[string]float64 `json:"seconds"`
	Bytes          int64              `json:"text_bytes"`
}

// Buckets is one size class of LSH buckets in Stats.
type Buckets struct {
	Buckets int64 `json:"buckets"`
	Members int64 `json:"members"`
	Pairs   int64 `json:"pairs"`
}

// Params is the run's options in Stats.
type Params struct {
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

// bucketClasses returns the Stats view of Stats.Buckets: the non-empty
// size classes by name, and the members and pairs of all of them.
func bucketClasses(s neardup.Stats) (classes map[string]Buckets, members, pairs int64) {
	classes = map[string]Buckets{}
	for k, c := range s.Buckets {
		if c.Buckets == 0 {
			continue
		}
		classes[fmt.Sprintf("%d-%d", 1<<k, 2<<k-1)] = Buckets(c)
		members += c.Members
		pairs += c.Pairs
	}
	return classes, members, pairs
}

// MakeStats returns the document of a run with options o that read in and
// gave res. Its Seconds hold the engine's stages; the caller adds the
// outputs' times, PeakRSS and MemoryLimit. Inputs aliases in.Names.
func MakeStats(in Input, o neardup.Options, res *neardup.Result) Stats {
	s := res.Stats
	buckets, members, pairs := bucketClasses(s)
	return Stats{
		BucketSizes: buckets, BucketMembers: members, BucketPairs: pairs,
		Inputs: in.Names, Documents: s.Documents, Empty: s.Empty, Skipped: in.Skipped, SkippedBinary: in.Binary, InvalidUTF8: s.InvalidUTF8,
		Shingles: s.Shingles, Distinct: s.Distinct, Identical: s.Identical, Candidates: s.Candidates,
		LargeBuckets: s.LargeBuckets, LargestBucket: s.LargestBucket, Verified: s.Verified, Pairs: s.Pairs, CompactPairs: s.CompactPairs,
		DuplicateIDs: s.DuplicateIDs, Clusters: s.Clusters,
		Duplicates: s.Duplicates, LargestCluster: s.LargestCluster, Bytes: in.Bytes,
		ClusterSizes: sizeClasses(res.Clusters), BelowClusters: s.BelowClusters, Review: s.Review, ReviewDocs: s.ReviewDocs,
		Params: Params{Shingle: o.Shingle.Mode.String(), Ngram: o.Shingle.N, Bag: o.Shingle.Bag, Slots: o.Slots,
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

// WriteStats writes st to w as indented JSON and a newline, the --stats
// file. It returns w's error.
func WriteStats(w io.Writer, st *Stats) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(st)
}

// sizeBounds are the upper bounds of the cluster size classes of the
// summary and Stats; the last class is open.
var sizeBounds = []struct {
	max  int
	name string
}{{2, "2"}, {5, "3-5"}, {20, "6-20"}, {100, "21-100"}, {math.MaxInt, ">100"}}

// sizeClasses counts the clusters in each size class.
func sizeClasses(clusters []neardup.Cluster) map[string]int {
	m := make(map[string]int, len(sizeBounds))
	for _, sb := range sizeBounds {
		m[sb.name] = 0
	}
	for _, c := range clusters {
		for _, sb := range sizeBounds {
			if len(c.Members) <= sb.max {
				m[sb.name]++
				break
			}
		}
	}
	return m
}
