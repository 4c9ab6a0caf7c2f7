package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realData returns the path of a file in ../shared/data, or skips.
func realData(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "data", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not present: %v", p, err)
	}
	if testing.Short() {
		t.Skip("real-data run skipped with -short")
	}
	return p
}

// TestCommandsOnRealData runs tune, eval, explain and the report on the
// real TSV and CSV corpora and checks what must hold there.
func TestCommandsOnRealData(t *testing.T) {
	kijiji := realData(t, "kijiji.tsv")
	adzuna := realData(t, "adzuna_first2499.csv")
	dir := t.TempDir()

	// eval: exact verification means precision 1; LSH recall at least 0.98.
	code, out, stderr := cli(t, "", "eval", "--json", "--text-field", "Title,FullDescription", adzuna)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	var ev evalReport
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Documents != 2499 || ev.Precision != 1 || !ev.JaccardExact || ev.Recall < 0.98 || ev.TruePairs == 0 {
		t.Errorf("eval on adzuna: documents %d, true pairs %d, recall %v, precision %v, exact %v",
			ev.Documents, ev.TruePairs, ev.Recall, ev.Precision, ev.JaccardExact)
	}
	t.Logf("eval adzuna: %d true pairs, recall %.4f, lsh %.2fs, exact %.2fs", ev.TruePairs, ev.Recall, ev.LSHSeconds, ev.ExactSeconds)

	// tune with a sample of kijiji: the chosen pair is dedup's, and the
	// expected candidates per document are positive.
	code, out, stderr = cli(t, "", "tune", "--json", "--sample", kijiji, "--text-field", "Title,Short Description")
	if code != 0 {
		t.Fatalf("tune: exit %d: %s", code, stderr)
	}
	var tu map[string]any
	if err := json.Unmarshal([]byte(out), &tu); err != nil {
		t.Fatal(err)
	}
	if tu["bands"] != 35.0 || tu["rows"] != 3.0 {
		t.Errorf("tune chose %v x %v, want dedup's 35 x 3", tu["bands"], tu["rows"])
	}
	if !strings.Contains(out, "cand") {
		t.Errorf("tune --sample printed no candidates per document: %s", out)
	}

	// explain the first pair dedup reports on kijiji.
	pairs := filepath.Join(dir, "pairs.tsv")
	report := filepath.Join(dir, "report.html")
	code, _, stderr = cli(t, "", "dedup", "--quiet", "--text-field", "Title,Short Description", "--pairs", pairs, "--report", report, kijiji)
	if code != 0 {
		t.Fatalf("dedup: exit %d: %s", code, stderr)
	}
	p := parsePairs(t, read(t, pairs))
	if len(p) == 0 {
		t.Fatal("no pairs on kijiji")
	}
	code, out, stderr = cli(t, "", "explain", "--json", "--text-field", "Title,Short Description", p[0][0], p[0][1], kijiji)
	if code != 0 {
		t.Fatalf("explain: exit %d: %s", code, stderr)
	}
	var ex map[string]any
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatal(err)
	}
	if j, _ := ex["jaccard"].(float64); ex["same_component"] != true || j < 0.5 {
		t.Errorf("explain %s %s: %s", p[0][0], p[0][1], out)
	}
	if html := read(t, report); !strings.Contains(html, "<svg") || strings.Contains(html, "http://") || strings.Contains(html, "https://") {
		t.Errorf("report on kijiji: %d bytes, svg %v", len(html), strings.Contains(html, "<svg"))
	}
}
