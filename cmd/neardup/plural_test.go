package main

import (
	"strings"
	"testing"
)

// TestPlurals: counts of one take the singular.
func TestPlurals(t *testing.T) {
	for _, c := range []struct {
		n         int
		one, many string
		want      string
	}{{0, "step", "steps", "0 steps"}, {1, "step", "steps", "1 step"}, {2, "step", "steps", "2 steps"},
		{1, "match", "matches", "1 match"}, {3, "record has", "records have", "3 records have"}} {
		if got := plural(c.n, c.one, c.many); got != c.want {
			t.Errorf("plural(%d, %q, %q) = %q", c.n, c.one, c.many, got)
		}
	}
	// explain: a path of one step.
	_, in := chainCorpus(t)
	code, stdout, stderr := cli(t, "", "explain", "a", "b", in)
	if code != 0 || !strings.Contains(stdout, "shortest path of verified pairs (1 step):") {
		t.Errorf("explain a b: exit %d, %s%s", code, stdout, stderr)
	}
	// dedup's summary: one duplicate, one candidate pair, one cluster.
	dir := t.TempDir()
	p := write(t, dir, "ads.txt", adA+"\n"+adB+"\n"+adC+"\n")
	_, _, stderr = cli(t, "", "dedup", "--no-progress", p)
	for _, want := range []string{"neardup: 3 documents,", "3 distinct sets, 0 documents identical", "; 1 candidate pair\n",
		"verified:   1 pair with exact Jaccard", "clusters:   1, largest 2 documents; 1 duplicate to drop",
		"check:      0 clusters (star mode) have members below Jaccard 0.5 with their representative"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("summary lacks %q:\n%s", want, stderr)
		}
	}
}
