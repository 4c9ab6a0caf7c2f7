package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/cmd/neardup/internal/summary"
)

type clusterLine struct {
	Cluster        int
	Size           int
	Representative string
	Members        []struct {
		ID      string
		Jaccard json.Number
	}
	MinJaccard     *json.Number `json:"min_jaccard"`
	BelowThreshold *int         `json:"below_threshold"`
	Review         *bool        `json:"review"`
}

func readClusters(t *testing.T, p string) []clusterLine {
	t.Helper()
	var out []clusterLine
	for _, line := range strings.Split(strings.TrimSpace(read(t, p)), "\n") {
		if line == "" {
			continue
		}
		var c clusterLine
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if c.MinJaccard == nil || c.BelowThreshold == nil || c.Review == nil {
			t.Fatalf("cluster line lacks min_jaccard, below_threshold or review: %s", line)
		}
		out = append(out, c)
	}
	return out
}

// TestDedupClusterFields: on the chain a~b~c (+ the copy e of d), the
// cluster lines flag the members below the threshold, in both modes.
func TestDedupClusterFields(t *testing.T) {
	dir, in := chainCorpus(t)
	in = write(t, dir, "chain2.jsonl", read(t, in)+fmt.Sprintf(`{"id":"e","text":%q}`+"\n", words(500, 520)))
	clusters := filepath.Join(dir, "clusters.jsonl")
	stats := filepath.Join(dir, "stats.json")

	code, _, stderr := cli(t, "", "dedup", "--cluster", "components", "--clusters", clusters, "--stats", stats, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	cs := readClusters(t, clusters)
	if len(cs) != 2 {
		t.Fatalf("clusters %+v", cs)
	}
	c := cs[0]
	if c.Size != 3 || c.Representative != "a" || *c.MinJaccard != "0.240506" || *c.BelowThreshold != 1 || *c.Review ||
		c.Members[2].ID != "c" || c.Members[2].Jaccard != "0.240506" {
		t.Errorf("chain cluster %+v", c)
	}
	if c := cs[1]; c.Size != 2 || *c.MinJaccard != "1.000000" || *c.BelowThreshold != 0 {
		t.Errorf("copy cluster %+v", c)
	}
	for _, want := range []string{"clusters:   2, largest 3", "sizes:      2: 1, 3-5: 1, 6-20: 0, 21-100: 0, >100: 0; largest: cluster 1, 3 documents, min Jaccard 0.241",
		"check:      1 cluster (components mode) has members below Jaccard 0.5"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("summary lacks %q:\n%s", want, stderr)
		}
	}
	var st summary.Stats
	if err := json.Unmarshal([]byte(read(t, stats)), &st); err != nil {
		t.Fatal(err)
	}
	if st.BelowClusters != 1 || st.ClusterSizes["3-5"] != 1 || st.ClusterSizes["2"] != 1 || st.Params.Cluster != "components" {
		t.Errorf("stats %+v", st)
	}

	// star (the default): a takes b; c is left alone; nothing below t.
	code, _, stderr = cli(t, "", "dedup", "--clusters", clusters, "--stats", stats, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	cs = readClusters(t, clusters)
	if len(cs) != 2 || cs[0].Size != 2 || cs[0].Members[1].ID != "b" || *cs[0].MinJaccard != "0.531250" || *cs[0].BelowThreshold != 0 {
		t.Errorf("star clusters %+v", cs)
	}
	if !strings.Contains(stderr, "check:      0 clusters (star mode)") {
		t.Errorf("summary:\n%s", stderr)
	}
	if err := json.Unmarshal([]byte(read(t, stats)), &st); err != nil {
		t.Fatal(err)
	}
	if st.Params.Cluster != "star" || st.BelowClusters != 0 || st.Duplicates != 2 {
		t.Errorf("star stats %+v", st)
	}
}

// TestDedupMaxCluster: a cluster over --max-cluster is listed for review and
// none of its documents is dropped from --output.
func TestDedupMaxCluster(t *testing.T) {
	dir, in := chainCorpus(t)
	in = write(t, dir, "chain2.jsonl", read(t, in)+fmt.Sprintf(`{"id":"e","text":%q}`+"\n", words(500, 520)))
	clusters := filepath.Join(dir, "clusters.jsonl")
	output := filepath.Join(dir, "out.jsonl")
	stats := filepath.Join(dir, "stats.json")
	code, _, stderr := cli(t, "", "dedup", "--cluster", "components", "--max-cluster", "2",
		"--clusters", clusters, "--output", output, "--stats", stats, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	cs := readClusters(t, clusters)
	if len(cs) != 2 || !*cs[0].Review || cs[0].Size != 3 || *cs[1].Review {
		t.Errorf("clusters %+v", cs)
	}
	out := read(t, output)
	for _, id := range []string{`"a"`, `"b"`, `"c"`, `"d"`} {
		if !strings.Contains(out, `"id":`+id) {
			t.Errorf("output lacks %s:\n%s", id, out)
		}
	}
	if strings.Contains(out, `"id":"e"`) {
		t.Errorf("output keeps the copy e:\n%s", out)
	}
	var st summary.Stats
	if err := json.Unmarshal([]byte(read(t, stats)), &st); err != nil {
		t.Fatal(err)
	}
	if st.Review != 1 || st.ReviewDocs != 3 || st.Duplicates != 1 || st.Clusters != 2 || st.Params.MaxClust != 2 {
		t.Errorf("stats %+v", st)
	}
	if !strings.Contains(stderr, "review:     1 cluster over --max-cluster 2 (3 documents)") {
		t.Errorf("summary:\n%s", stderr)
	}
	if code, _, _ := cli(t, "", "dedup", "--max-cluster", "-1", in); code != 2 {
		t.Errorf("--max-cluster -1: exit %d, want 2", code)
	}
	if code, _, _ := cli(t, "", "dedup", "--cluster", "chain", in); code != 2 {
		t.Errorf("--cluster chain: exit %d, want 2", code)
	}
}
