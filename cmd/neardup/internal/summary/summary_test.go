package summary_test

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cmd/neardup/internal/summary"
)

// run returns resolved options and a result with clusters of 2, 3, 6, 21
// and 101 members (one per size class), the first under review, and LSH
// buckets of 4-7 members.
func run() (neardup.Options, *neardup.Result) {
	o, err := neardup.Options{Workers: 2, MaxCluster: 100}.Resolve()
	if err != nil {
		panic(err)
	}
	res := &neardup.Result{Stats: neardup.Stats{Documents: 140, Empty: 1, Shingles: 900, Distinct: 120, Identical: 20,
		Candidates: 300, Verified: 130, Pairs: 150, CompactPairs: 140, Clusters: 5, Duplicates: 128, LargestCluster: 101,
		Review: 1, ReviewDocs: 101, Passes: 1}}
	res.Stats.Buckets[2].Buckets, res.Stats.Buckets[2].Members, res.Stats.Buckets[2].Pairs = 3, 15, 30
	doc := 0
	for i, n := range []int{101, 2, 3, 6, 21} {
		c := neardup.Cluster{ID: i + 1, Representative: doc, Review: i == 0}
		for range n {
			c.Members = append(c.Members, neardup.Member{Doc: doc, Jaccard: 0.75})
			doc++
		}
		c.Members[0].Jaccard = 1
		res.Clusters = append(res.Clusters, c)
	}
	return o, res
}

// keys returns the keys of the JSON object at the start of d, in order.
func keys(t *testing.T, d *json.Decoder) []string {
	t.Helper()
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("want an object, got %v, %v", tok, err)
	}
	var ks []string
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		ks = append(ks, tok.(string))
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	return ks
}

// TestStatsFields pins the names and order of the --stats document's
// fields, which programs read.
func TestStatsFields(t *testing.T) {
	o, res := run()
	st := summary.MakeStats(summary.Input{Names: []string{"a.jsonl"}, Bytes: 5000}, o, res)
	st.PeakRSS, st.MemoryLimit = 1<<20, 1<<30
	var buf bytes.Buffer
	if err := summary.WriteStats(&buf, &st); err != nil {
		t.Fatal(err)
	}
	want := []string{"inputs", "documents", "empty_documents", "skipped_bad_records", "skipped_binary_files",
		"invalid_utf8_documents", "shingles", "distinct_shingle_sets", "identical_documents", "candidate_pairs",
		"large_buckets", "largest_bucket", "bucket_pairs", "bucket_members", "bucket_sizes", "verified_pairs",
		"reported_pairs", "compact_pairs", "duplicate_ids", "clusters", "duplicates", "largest_cluster",
		"cluster_sizes", "clusters_below_threshold", "review_clusters", "review_documents", "params", "passes",
		"reread_documents", "held_pairs", "peak_rss_bytes", "memory_limit_bytes", "seconds", "text_bytes"}
	if got := keys(t, json.NewDecoder(bytes.NewReader(buf.Bytes()))); !slices.Equal(got, want) {
		t.Errorf("fields\n got %q\nwant %q", got, want)
	}
	var m struct {
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	wantParams := []string{"shingle", "ngram", "bag", "num_perm", "seed", "threshold", "recall", "bands", "rows",
		"p_candidate_at_threshold", "verify", "weight", "refine", "keep", "cluster", "max_cluster", "workers", "max_bucket"}
	if got := keys(t, json.NewDecoder(bytes.NewReader(m.Params))); !slices.Equal(got, wantParams) {
		t.Errorf("params\n got %q\nwant %q", got, wantParams)
	}
	if !strings.HasPrefix(buf.String(), "{\n  \"inputs\": [\n    \"a.jsonl\"\n  ],\n") || !strings.HasSuffix(buf.String(), "}\n") {
		t.Errorf("not indented by two spaces with a final newline:\n%s", buf.String())
	}
}

// TestStatsClasses checks the size classes of clusters and buckets and
// that the optional fields are left out when zero.
func TestStatsClasses(t *testing.T) {
	o, res := run()
	st := summary.MakeStats(summary.Input{}, o, res)
	for _, class := range []string{"2", "3-5", "6-20", "21-100", ">100"} {
		if st.ClusterSizes[class] != 1 {
			t.Errorf("cluster_sizes[%q] = %d, want 1 (%v)", class, st.ClusterSizes[class], st.ClusterSizes)
		}
	}
	if len(st.BucketSizes) != 1 || st.BucketSizes["4-7"] != (summary.Buckets{Buckets: 3, Members: 15, Pairs: 30}) {
		t.Errorf("bucket_sizes = %v, want only 4-7", st.BucketSizes)
	}
	if st.BucketMembers != 15 || st.BucketPairs != 30 {
		t.Errorf("bucket members, pairs = %d, %d, want 15, 30", st.BucketMembers, st.BucketPairs)
	}
	var buf bytes.Buffer
	if err := summary.WriteStats(&buf, &st); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); strings.Contains(s, "peak_rss_bytes") || strings.Contains(s, "memory_limit_bytes") {
		t.Errorf("zero peak and limit written:\n%s", s)
	}
}

// TestPrintMemory checks that the memory line is left out where the peak
// is not known and that the warning comes only over the limit.
func TestPrintMemory(t *testing.T) {
	o, res := run()
	f := func(r summary.Run, memory, warning bool) {
		t.Helper()
		var buf bytes.Buffer
		summary.Print(&buf, o, res, r)
		s := buf.String()
		if strings.Contains(s, "  memory:") != memory || strings.Contains(s, "the peak was over --memory-limit: why") != warning {
			t.Errorf("%+v: memory line %v, warning %v, got\n%s", r, memory, warning, s)
		}
	}
	f(summary.Run{OverLimit: "why"}, false, false)
	f(summary.Run{Peak: 10, PeakKnown: true, OverLimit: "why"}, true, false)
	f(summary.Run{Peak: 10, PeakKnown: true, Limit: 10, OverLimit: "why"}, true, false)
	f(summary.Run{Peak: 11, PeakKnown: true, Limit: 10, OverLimit: "why"}, true, true)
}

func ExamplePrint() {
	o, res := run()
	summary.Print(os.Stdout, o, res, summary.Run{Input: summary.Input{Bytes: 5000}, Write: 1500 * time.Microsecond, Total: 2 * time.Second})
	// Output:
	// neardup: 140 documents, 4.9 KiB of text (1 empty, 0 skipped as bad, 0 with invalid UTF-8)
	//   shingles:   900 word 3-grams; 120 distinct sets, 20 documents identical to an earlier one
	//   lsh:        128 slots, 35 bands x 3 rows, P(candidate | J=0.50) = 0.9907; 300 candidate pairs
	//   verified:   130 pairs with exact Jaccard >= 0.5 (150 reported, identical sets included)
	//   clusters:   5, largest 101 documents; 128 duplicates to drop
	//   sizes:      2: 1, 3-5: 1, 6-20: 1, 21-100: 1, >100: 1; largest: cluster 1, 101 documents, min Jaccard 0.750 with its representative
	//   check:      0 clusters (star mode) have members below Jaccard 0.5 with their representative
	//   review:     1 cluster over --max-cluster 100 (101 documents) kept whole, not deduplicated
	//   time:       read+shingle 0µs, identical 0µs, sign 0µs, lsh+verify 0µs, cluster 0µs, write 1ms; total 2.00s
}
