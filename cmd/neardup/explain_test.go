package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// words returns the words w<lo> ... w<hi-1>.
func words(lo, hi int) string {
	var s []string
	for i := lo; i < hi; i++ {
		s = append(s, fmt.Sprintf("w%d", i))
	}
	return strings.Join(s, " ")
}

// chainCorpus writes a chain a~b~c (word 3-gram Jaccard 68/128 = 0.53125
// between neighbours, 38/158 = 0.240506 between a and c) and an unrelated d.
func chainCorpus(t *testing.T) (dir, in string) {
	t.Helper()
	dir = t.TempDir()
	in = write(t, dir, "chain.jsonl", fmt.Sprintf(`{"id":"a","text":%q}
{"id":"b","text":%q}
{"id":"c","text":%q}
{"id":"d","text":%q}
`, words(0, 100), words(30, 130), words(60, 160), words(500, 520)))
	return dir, in
}

type explainOut struct {
	A, B          string
	Jaccard       json.Number
	SameCluster   bool `json:"same_cluster"`
	SameComponent bool `json:"same_component"`
	ClusterA      *struct {
		Representative string
		Size           int
		Review         bool
	} `json:"cluster_a"`
	Path []struct {
		ID      string
		Jaccard *json.Number
	}
	Runs []struct {
		Tokens int
		Text   string
	} `json:"shared_runs"`
}

func explainJSON(t *testing.T, args ...string) explainOut {
	t.Helper()
	code, stdout, stderr := cli(t, "", append([]string{"explain", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("explain %v: exit %d: %s", args, code, stderr)
	}
	var x explainOut
	if err := json.Unmarshal([]byte(stdout), &x); err != nil {
		t.Fatalf("explain %v: %v\n%s", args, err, stdout)
	}
	return x
}

func pathOf(x explainOut) string {
	var s []string
	for _, p := range x.Path {
		if p.Jaccard == nil {
			s = append(s, p.ID)
		} else {
			s = append(s, fmt.Sprintf("%s(%s)", p.ID, *p.Jaccard))
		}
	}
	return strings.Join(s, " ")
}

func TestExplainChain(t *testing.T) {
	dir, in := chainCorpus(t)
	pairs := filepath.Join(dir, "pairs.tsv")
	if code, _, stderr := cli(t, "", "dedup", "--quiet", "--pairs", pairs, in); code != 0 {
		t.Fatalf("dedup: %s", stderr)
	}
	for _, from := range [][]string{nil, {"--pairs", pairs}} {
		for _, mode := range []string{"components", "star"} {
			args := append(append([]string{"--cluster", mode}, from...), "a", "c", in)
			x := explainJSON(t, args...)
			if x.Jaccard != "0.240506" || !x.SameComponent {
				t.Errorf("%v: jaccard %s, same component %v", args, x.Jaccard, x.SameComponent)
			}
			if got, want := pathOf(x), "a b(0.531250) c(0.531250)"; got != want {
				t.Errorf("%v: path %s, want %s", args, got, want)
			}
			// components chain a and c together; a star around a takes b only.
			if x.SameCluster != (mode == "components") {
				t.Errorf("%v: same_cluster %v", args, x.SameCluster)
			}
			if x.ClusterA == nil || x.ClusterA.Representative != "a" || x.ClusterA.Size != map[string]int{"components": 3, "star": 2}[mode] {
				t.Errorf("%v: cluster of a %+v", args, x.ClusterA)
			}
			if len(x.Runs) != 1 || x.Runs[0].Tokens != 40 || x.Runs[0].Text != words(60, 100) {
				t.Errorf("%v: shared runs %+v, want w60..w99", args, x.Runs)
			}

			x = explainJSON(t, append(append([]string{"--cluster", mode}, from...), "a", "d", in)...)
			if x.SameCluster || x.SameComponent || len(x.Path) != 0 || x.Jaccard != "0.000000" || len(x.Runs) != 0 {
				t.Errorf("%v a d: %+v", from, x)
			}
		}
	}
	// Human-readable output.
	code, stdout, stderr := cli(t, "", "explain", "--cluster", "components", "c", "a", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"jaccard:        0.240506", "below the threshold", "same cluster:   yes", "(2 steps)", "b  0.531250", `"w60 w61`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

func TestExplainErrors(t *testing.T) {
	dir, in := chainCorpus(t)
	code, _, stderr := cli(t, "", "explain", "a", "zz", in)
	if code != 1 || !strings.Contains(stderr, `unknown id "zz"`) {
		t.Errorf("unknown id: exit %d, %s", code, stderr)
	}
	bad := write(t, dir, "bad.tsv", "a\tq\t0.9\n")
	code, _, stderr = cli(t, "", "explain", "--pairs", bad, "a", "b", in)
	if code != 1 || !strings.Contains(stderr, `unknown id "q"`) {
		t.Errorf("pairs with unknown id: exit %d, %s", code, stderr)
	}
	// A malformed line is refused with the file and its line (CRLF line
	// ends and blank lines are read).
	for _, c := range []struct{ body, want string }{
		{"a\tb\t0.9\r\n\nb\tc\t0.8\tx\n", `bad2.tsv:3: not a pairs line: edit "x"`},
		{"a\tb\n", "bad2.tsv:1: not a pairs line: want 3 or 4 tab-separated fields"},
		{"a\tb\t1.2\n", `bad2.tsv:1: not a pairs line: jaccard "1.2" is not a number in [0, 1]`},
	} {
		bad := write(t, dir, "bad2.tsv", c.body)
		code, _, stderr = cli(t, "", "explain", "--pairs", bad, "a", "b", in)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("pairs %q: exit %d, %s; want %q", c.body, code, stderr, c.want)
		}
	}
	if code, _, _ = cli(t, "", "explain", "a", in); code != 2 {
		t.Errorf("missing argument: exit %d, want 2", code)
	}
	if code, _, _ = cli(t, "", "explain", "--cluster", "blob", "a", "b", in); code != 2 {
		t.Errorf("bad --cluster: exit %d, want 2", code)
	}
}

// TestExplainCopies: two identical copies are one step apart at 1.
func TestExplainCopies(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "c.jsonl", fmt.Sprintf(`{"id":"a","text":%q}
{"id":"b","text":%q}
{"id":"c","text":%q}
`, words(0, 50), words(300, 350), words(0, 50)))
	x := explainJSON(t, "c", "a", in)
	if got := pathOf(x); got != "c a(1.000000)" || !x.SameCluster {
		t.Errorf("path %q, same cluster %v", got, x.SameCluster)
	}
	if x := explainJSON(t, "a", "b", in); x.SameComponent || len(x.Path) != 0 {
		t.Errorf("unrelated documents: %+v", x)
	}
}

// TestExplainIdentical: with --pairs, copies are grouped as dedup groups
// them (stars over identical sets), and the ids in the pairs file are
// unescaped.
func TestExplainIdentical(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "c.jsonl", fmt.Sprintf(`{"id":"x\ty","text":%q}
{"id":"y","text":%q}
{"id":"z","text":%q}
{"id":"x2","text":%q}
`, words(0, 100), words(20, 120), words(40, 140), words(0, 100)+"!"))
	pairs := filepath.Join(dir, "pairs.tsv")
	if code, _, stderr := cli(t, "", "dedup", "--quiet", "--pairs", pairs, in); code != 0 {
		t.Fatalf("dedup: %s", stderr)
	}
	for _, from := range [][]string{nil, {"--pairs", pairs}} {
		x := explainJSON(t, append(from, "x2", "z", in)...)
		// x takes its copy x2 and y; z is alone.
		if x.SameCluster || x.ClusterA == nil || x.ClusterA.Representative != "x\ty" || x.ClusterA.Size != 3 {
			t.Errorf("%v: %+v", from, x)
		}
		// Identical copies are one node: x2 steps to y as x would, from
		// a dedup run (compact pairs) and from the full pairs file alike.
		if got, want := pathOf(x), "x2 y(0.661017) z(0.661017)"; got != want {
			t.Errorf("%v: path %q, want %q", from, got, want)
		}
	}
}
