package main

import (
	"fmt"
	"html"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup/cmd/neardup/internal/report"
)

// variant returns text (words separated by single spaces) with the words
// at the given indices replaced.
func variant(text string, tag string, at ...int) string {
	w := strings.Fields(text)
	for _, i := range at {
		w[i] = fmt.Sprintf("%s%d", tag, i)
	}
	return strings.Join(w, " ")
}

// reportCluster is one cluster block of a report page.
type reportCluster struct {
	block   string
	copies  int      // from data-copies (0: no copies block)
	groups  []int    // data-members of each side-by-side block, in order
	heads   []string // the member head of each side-by-side block
	copyIDs []string // the ids listed in the copies block
}

var (
	clusterBlockRE = regexp.MustCompile(`(?s)<details class="cluster" data-cluster="(\d+)".*?</details>`)
	copiesRE       = regexp.MustCompile(`(?s)<div class="copies" data-copies="(\d+)">\s*<div class="head">(.*?)</div>`)
	pairHeadRE     = regexp.MustCompile(`(?s)<div class="pair" data-members="(\d+)">\s*<div class="head">.*?</div>\s*<div class="head">(.*?)</div>`)
	boldRE         = regexp.MustCompile(`<b>([^<]*)</b>`)
)

// largestBlocks returns the blocks of the first list of page (the
// largest clusters) by cluster id.
func largestBlocks(t *testing.T, page string) map[string]reportCluster {
	t.Helper()
	largest := page[strings.Index(page, `id="largest"`):strings.Index(page, `id="suspicious"`)]
	out := map[string]reportCluster{}
	for _, m := range clusterBlockRE.FindAllStringSubmatch(largest, -1) {
		c := reportCluster{block: m[0]}
		if cm := copiesRE.FindStringSubmatch(m[0]); cm != nil {
			c.copies, _ = strconv.Atoi(cm[1])
			for _, b := range boldRE.FindAllStringSubmatch(cm[2], -1)[1:] { // the first is the representative
				c.copyIDs = append(c.copyIDs, b[1])
			}
		}
		for _, pm := range pairHeadRE.FindAllStringSubmatch(m[0], -1) {
			n, _ := strconv.Atoi(pm[1])
			c.groups = append(c.groups, n)
			c.heads = append(c.heads, pm[2])
		}
		out[m[1]] = c
	}
	return out
}

// TestReportExactCopies: a cluster of identical documents shows its text
// once, with the ids of the copies and their count, and no side-by-side
// block (which would only repeat the text).
func TestReportExactCopies(t *testing.T) {
	dir := t.TempDir()
	text := "Exact copy: " + words(0, 40) + " & <tags>"
	var in strings.Builder
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&in, "{\"id\":\"e%d\",\"text\":%q}\n", i, text)
	}
	fmt.Fprintf(&in, "{\"id\":\"other\",\"text\":%q}\n", words(100, 140))
	page := reportOf(t, "", write(t, dir, "copies.jsonl", in.String()))
	checkWellFormed(t, page)
	cs := largestBlocks(t, page)
	if len(cs) != 1 {
		t.Fatalf("%d clusters shown, want 1", len(cs))
	}
	c := cs["1"]
	if c.copies != 4 || !slices.Equal(c.copyIDs, []string{"e2", "e3", "e4", "e5"}) {
		t.Errorf("copies block: %d copies, ids %q; want 4: e2 e3 e4 e5", c.copies, c.copyIDs)
	}
	if !strings.Contains(c.block, "representative <b>e1</b> and 4 members with its very text") {
		t.Errorf("the copies block does not name the representative and the count:\n%s", c.block)
	}
	if len(c.groups) != 0 {
		t.Errorf("%d side-by-side blocks for a cluster of copies, want none", len(c.groups))
	}
	if n := strings.Count(c.block, html.EscapeString(text)); n != 1 {
		t.Errorf("the text appears %d times in the cluster, want once", n)
	}
	if strings.Contains(c.block, report.Missing) || strings.Contains(c.block, `class="more"`) {
		t.Errorf("cluster of copies: text missing or members left out:\n%s", c.block)
	}
}

// TestReportGroupsIdenticalMembers: in a cluster with copies of the
// representative and near-duplicates, several of which share one text,
// the copies are one list, each distinct text is one side-by-side block
// listing its members, least similar first, and a member that differs in
// white space only (Jaccard 1) is shown and said to be so.
func TestReportGroupsIdenticalMembers(t *testing.T) {
	dir := t.TempDir()
	rep := words(0, 60)
	b := variant(rep, "bee", 30)
	c := variant(rep, "cee", 10, 40)
	ws := strings.Replace(rep, "w20 w21", "w20\n\n  w21", 1)
	docs := []struct{ id, text string }{
		{"r", rep}, {"b1", b}, {"r2", rep}, {"c1", c}, {"b2", b}, {"w1", ws}, {"r3", rep}, {"b3", b},
		{"x", words(500, 540)},
	}
	var in strings.Builder
	for _, d := range docs {
		fmt.Fprintf(&in, "{\"id\":%q,\"text\":%q}\n", d.id, d.text)
	}
	clusters := filepath.Join(dir, "clusters.jsonl")
	page := reportOf(t, "", "--clusters", clusters, write(t, dir, "mixed.jsonl", in.String()))
	checkWellFormed(t, page)
	cl := readClusters(t, clusters)
	if len(cl) != 1 || cl[0].Size != 8 {
		t.Fatalf("clusters %+v, want one of 8", cl)
	}
	jac := map[string]string{}
	for _, m := range cl[0].Members {
		f, _ := strconv.ParseFloat(string(m.Jaccard), 64)
		jac[m.ID] = strconv.FormatFloat(f, 'f', 3, 64)
	}
	if !(jac["c1"] < jac["b1"] && jac["b1"] < jac["w1"] && jac["w1"] == "1.000") {
		t.Fatalf("Jaccard c1 %s, b1 %s, w1 %s: the corpus does not do what the test needs", jac["c1"], jac["b1"], jac["w1"])
	}

	c1 := largestBlocks(t, page)["1"]
	if c1.copies != 2 || !slices.Equal(c1.copyIDs, []string{"r2", "r3"}) {
		t.Errorf("copies block: %d, ids %q; want 2: r2 r3", c1.copies, c1.copyIDs)
	}
	// Least similar first: c1, then b1-b3 as one block, then w1.
	if !slices.Equal(c1.groups, []int{1, 3, 1}) {
		t.Fatalf("side-by-side blocks of %v members, want [1 3 1]:\n%s", c1.groups, c1.block)
	}
	ids := func(head string) []string {
		var out []string
		for _, m := range boldRE.FindAllStringSubmatch(head, -1) {
			out = append(out, m[1])
		}
		return out
	}
	for i, want := range [][]string{{"c1"}, {"b1", "b2", "b3"}, {"w1"}} {
		if got := ids(c1.heads[i]); !slices.Equal(got, want) {
			t.Errorf("block %d lists %q, want %q", i, got, want)
		}
	}
	if !strings.Contains(c1.heads[0], "J = "+jac["c1"]) || !strings.Contains(c1.heads[1], "3 members with this very text") ||
		!strings.Contains(c1.heads[1], "J = "+jac["b1"]) {
		t.Errorf("block heads lack the count or the Jaccard: %q", c1.heads)
	}
	if !strings.Contains(c1.heads[2], "differs in white space only") || strings.Contains(c1.heads[1], "white space") {
		t.Errorf("the white-space note is on the wrong block: %q", c1.heads)
	}
	if !strings.Contains(c1.block, `<mark class="ins">bee30</mark>`) || !strings.Contains(c1.block, `<mark class="ins">cee10</mark>`) {
		t.Errorf("the changed words are not highlighted")
	}
	// Every member is accounted for, once.
	n := 1 + c1.copies
	for _, g := range c1.groups {
		n += g
	}
	if n != 8 || strings.Contains(c1.block, `class="more"`) {
		t.Errorf("%d members shown of 8", n)
	}
}

// TestReportLeastSimilarTexts: with more distinct texts than are shown,
// the page shows the least similar ones whatever order the inputs hold
// them in, and counts the rest with their texts.
func TestReportLeastSimilarTexts(t *testing.T) {
	dir := t.TempDir()
	rep := words(0, 150)
	// Variant k replaces k spaced words: the larger k, the lower Jaccard.
	v := func(k int) string {
		at := make([]int, k)
		for i := range at {
			at[i] = 8 + 15*i
		}
		return variant(rep, fmt.Sprintf("k%d_", k), at...)
	}
	var in strings.Builder
	fmt.Fprintf(&in, "{\"id\":\"rep\",\"text\":%q}\n", rep)
	order := []int{1, 9, 2, 8, 3, 7, 4, 6, 5}
	for copy := 1; copy <= 2; copy++ {
		for _, k := range order {
			fmt.Fprintf(&in, "{\"id\":\"v%d.%d\",\"text\":%q}\n", k, copy, v(k))
		}
	}
	clusters := filepath.Join(dir, "clusters.jsonl")
	page := reportOf(t, "", "--clusters", clusters, write(t, dir, "least.jsonl", in.String()))
	checkWellFormed(t, page)
	cl := readClusters(t, clusters)
	if len(cl) != 1 || cl[0].Size != 19 {
		t.Fatalf("clusters %+v, want one of 19", cl)
	}
	c := largestBlocks(t, page)["1"]
	if len(c.heads) != report.MemberTexts {
		t.Fatalf("%d side-by-side blocks, want %d", len(c.heads), report.MemberTexts)
	}
	for i, h := range c.heads {
		k := 9 - i
		if want := fmt.Sprintf("2 members with this very text: <b>v%d.1</b>, <b>v%d.2</b>", k, k); !strings.Contains(h, want) {
			t.Errorf("block %d: %q, want %q", i, h, want)
		}
	}
	if !strings.Contains(c.block, "and 6 more members with 3 different texts, each with J ≥ ") {
		t.Errorf("the members not shown are not counted as 6 with 3 texts:\n%s", c.block)
	}
	if strings.Contains(c.block, report.Missing) {
		t.Errorf("a shown text is missing")
	}
}
