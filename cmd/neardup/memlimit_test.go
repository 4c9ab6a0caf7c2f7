package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/corpus"
)

// TestMemoryLimitTwoPasses: a --memory-limit below what one pass needs
// makes dedup take two passes, with byte-identical outputs (pairs, compact
// pairs, clusters, the deduplicated corpus), over files and over standard
// input (spooled), and says so in the summary and --stats.
func TestMemoryLimitTwoPasses(t *testing.T) {
	sample, err := os.ReadFile(reportSample)
	if err != nil {
		t.Fatal(err)
	}
	outputs := func(limit string, stdin bool, extra ...string) (map[string]string, string) {
		dir := t.TempDir()
		args := []string{"dedup", "--memory-limit", limit, "--pairs", filepath.Join(dir, "pairs.tsv"),
			"--clusters", filepath.Join(dir, "clusters.jsonl"), "--output", filepath.Join(dir, "out.jsonl"),
			"--stats", filepath.Join(dir, "stats.json")}
		args = append(args, extra...)
		in := ""
		if stdin {
			args = append(args, "--format", "jsonl", "-")
			in = string(sample)
		} else {
			args = append(args, reportSample)
		}
		code, _, stderr := cli(t, in, args...)
		if code != 0 {
			t.Fatalf("dedup --memory-limit %s: exit %d: %s", limit, code, stderr)
		}
		got := map[string]string{}
		for _, f := range []string{"pairs.tsv", "clusters.jsonl", "out.jsonl"} {
			got[f] = read(t, filepath.Join(dir, f))
		}
		var st struct {
			Passes   int `json:"passes"`
			Reread   int `json:"reread_documents"`
			Held     int `json:"held_pairs"`
			Verified int `json:"verified_pairs"`
		}
		if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, "stats.json"))), &st); err != nil {
			t.Fatal(err)
		}
		want := 1
		if limit != "none" {
			want = 2
		}
		if st.Passes != want || (want == 2) != (st.Reread > 0) || (want == 2) != (st.Held >= st.Verified) || st.Verified == 0 {
			t.Errorf("--memory-limit %s: stats passes %d, reread %d, held %d, verified %d", limit, st.Passes, st.Reread, st.Held, st.Verified)
		}
		if want == 2 && !strings.Contains(stderr, "passes:     2 (") {
			t.Errorf("the summary does not say two passes were taken:\n%s", stderr)
		}
		return got, stderr
	}
	for _, extra := range [][]string{nil, {"--cluster", "components", "--keep", "longest", "--pairs-compact"}} {
		one, _ := outputs("none", false, extra...)
		for _, stdin := range []bool{false, true} {
			two, _ := outputs("100KB", stdin, extra...)
			for f, want := range one {
				if two[f] != want {
					t.Errorf("%v stdin=%v: %s differs between one and two passes", extra, stdin, f)
				}
			}
		}
	}
	// The default takes one pass here: the sample is far below rereadAbove
	// (TestPlanPasses covers the rest of the automatic choice).
	code, _, stderr := cli(t, "", "dedup", reportSample)
	if code != 0 || strings.Contains(stderr, "passes:") {
		t.Errorf("default limit: exit %d, %s", code, stderr)
	}
	for _, bad := range []string{"lots", "-5GB", "12XB", ""} {
		if code, _, stderr := cli(t, "", "dedup", "--memory-limit", bad, reportSample); code != exitUsage || !strings.Contains(stderr, "memory-limit") {
			t.Errorf("--memory-limit %q: exit %d, %q; want a usage error", bad, code, stderr)
		}
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{"800MB": 800e6, "8GiB": 8 << 30, "1.5G": 3 << 29, "123": 123, "4 kib": 4096, "2TB": 2e12} {
		if got, err := parseSize(s); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
}

// TestGoMemoryLimit: a --memory-limit becomes the runtime's soft limit for
// the run and the previous one comes back after; GOMEMLIMIT and "none"
// leave it alone.
func TestGoMemoryLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	restore := setGoMemoryLimit(memoryLimit(3 << 30))
	if got := debug.SetMemoryLimit(-1); got != 3<<30 {
		t.Errorf("during the run: soft limit %d, want %d", got, int64(3<<30))
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("after the run: soft limit %d, want %d back", got, before)
	}
	setGoMemoryLimit(memoryLimit(0))()
	t.Setenv("GOMEMLIMIT", "5GiB")
	restore = setGoMemoryLimit(memoryLimit(3 << 30))
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("with GOMEMLIMIT set: soft limit %d, want it untouched (%d)", got, before)
	}
	restore()
}

// TestMaxBucketSameResult: --max-bucket changes the work, not the result:
// with buckets over the limit (compared by signature) the pairs and
// clusters are byte for byte those of -1; the summary says how many such
// buckets there were and how large the largest, and --stats has both
// counts; with no limit it says nothing of them.
func TestMaxBucketSameResult(t *testing.T) {
	dir := t.TempDir()
	stats := filepath.Join(dir, "stats.json")
	var outs []string
	for _, mb := range []string{"3", "-1"} {
		pairs, clusters := filepath.Join(dir, "pairs"+mb), filepath.Join(dir, "clusters"+mb)
		code, _, stderr := cli(t, "", "dedup", "--max-bucket", mb, "--stats", stats, "--pairs", pairs, "--clusters", clusters, reportSample)
		if code != 0 {
			t.Fatalf("--max-bucket %s: exit %d: %s", mb, code, stderr)
		}
		var st struct {
			Large   int `json:"large_buckets"`
			Largest int `json:"largest_bucket"`
		}
		if err := json.Unmarshal([]byte(read(t, stats)), &st); err != nil {
			t.Fatal(err)
		}
		said := strings.Contains(stderr, "compared by signature, the largest of "+strconv.Itoa(st.Largest))
		if st.Largest <= 3 || (mb == "3") != (st.Large > 0) || (mb == "3") != said {
			t.Errorf("--max-bucket %s: %d large buckets, largest %d, said %v:\n%s", mb, st.Large, st.Largest, said, stderr)
		}
		outs = append(outs, read(t, pairs)+"\n--\n"+read(t, clusters))
	}
	if outs[0] != outs[1] || len(outs[0]) < 1000 {
		t.Errorf("--max-bucket 3 and -1 wrote different pairs or clusters (%d and %d bytes)", len(outs[0]), len(outs[1]))
	}
}

// TestPlanPasses: the automatic limit takes two passes over plain files
// large enough for the memory to matter, and one over small, compressed or
// Parquet files, directories and standard input; none always takes one; an
// explicit limit takes two only when one pass would need more.
func TestPlanPasses(t *testing.T) {
	dir := t.TempDir()
	sized := func(name string, size int64) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil { // sparse: no disk used
			t.Fatal(err)
		}
		return p
	}
	big := sized("big.jsonl", 200<<20)    // 500 MiB in one pass, > rereadAbove
	small := sized("small.jsonl", 50<<20) // 125 MiB, < rereadAbove
	half := sized("half.csv", 60<<20)     // with small: 275 MiB
	gz := sized("big.jsonl.gz", 200<<20)
	pq := sized("big.parquet", 200<<20)
	exact := neardup.Options{Verify: neardup.VerifyExact}
	auto, none, budget := memoryLimit(-1), memoryLimit(0), memoryLimit(1<<30)
	if physicalMemory() < 4<<30 {
		t.Skip("the automatic limit needs a few GiB of memory for these sizes")
	}
	for _, c := range []struct {
		m      memoryLimit
		inputs []string
		format corpus.Format
		o      neardup.Options
		two    bool
	}{
		{auto, []string{big}, corpus.Auto, exact, true},
		{auto, []string{small}, corpus.Auto, exact, false},
		{auto, []string{small, half}, corpus.Auto, exact, true}, // several files are one corpus
		{auto, []string{small, gz}, corpus.Auto, exact, false},
		{auto, []string{pq}, corpus.Auto, exact, false},
		{auto, []string{big}, corpus.Parquet, exact, false},
		{auto, []string{dir}, corpus.Auto, exact, false},
		{auto, []string{big, "-"}, corpus.Auto, exact, false},
		{auto, []string{big}, corpus.Auto, neardup.Options{Verify: neardup.VerifyExact, Params: neardup.Params{Weight: neardup.WeightIDF}}, false},
		{auto, []string{big}, corpus.Auto, neardup.Options{Verify: neardup.VerifyEstimate}, false},
		{none, []string{big}, corpus.Auto, exact, false},
		{budget, []string{big}, corpus.Auto, exact, false}, // 500 MiB fits 1 GiB
		{memoryLimit(400 << 20), []string{big}, corpus.Auto, exact, true},
		{budget, []string{"-"}, corpus.Auto, exact, true},
	} {
		why := planPasses(c.o, c.m, c.inputs, c.format)
		if (why != "") != c.two {
			t.Errorf("limit %v, inputs %v, format %v: two passes %q, want %v", &c.m, c.inputs, c.format, why, c.two)
		}
	}
}

// TestPeakRSS: the peak resident memory is in bytes: at least what a
// slice just written holds, at most the machine's memory.
func TestPeakRSS(t *testing.T) {
	if _, ok := peakRSS(); !ok {
		t.Skip("the peak resident memory is not known on this system")
	}
	const size = 64 << 20
	buf := make([]byte, size)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	peak, _ := peakRSS()
	if peak < size {
		t.Errorf("peak resident memory %d bytes after writing %d", peak, size)
	}
	if phys := physicalMemory(); phys > 0 && peak > phys {
		t.Errorf("peak resident memory %d bytes, more than the machine's %d", peak, phys)
	}
	buf[len(buf)-1] = 2 // keep buf alive until peakRSS has run
}

// TestMemorySummary: the summary and --stats give the peak memory beside
// --memory-limit, and the summary warns with the reason when the peak is
// over the limit.
func TestMemorySummary(t *testing.T) {
	if _, ok := peakRSS(); !ok {
		t.Skip("the peak resident memory is not known on this system")
	}
	for _, c := range []struct {
		limit string
		extra []string
		bytes int64  // memory_limit_bytes
		warn  string // "": no warning
	}{
		{"none", nil, 0, ""},
		{"64TiB", nil, 64 << 40, ""},
		{"1KB", nil, 1000, "two passes still keep"},
		{"1KB", []string{"--weight", "idf"}, 1000, "cannot take two passes"},
		{"1KB", []string{"--verify", "estimate"}, 1000, "--verify estimate keeps"},
	} {
		stats := filepath.Join(t.TempDir(), "stats.json")
		args := append([]string{"dedup", "--memory-limit", c.limit, "--stats", stats}, c.extra...)
		code, _, stderr := cli(t, "", append(args, reportSample)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		lim := c.limit
		if c.bytes > 0 {
			lim = humanBytes(c.bytes)
		}
		if !strings.Contains(stderr, "  memory:     peak ") || !strings.Contains(stderr, "resident (--memory-limit "+lim+")") {
			t.Errorf("%v: no memory line with the limit %s:\n%s", args, lim, stderr)
		}
		warned := strings.Contains(stderr, "warning:    the peak was over --memory-limit")
		if warned != (c.warn != "") || !strings.Contains(stderr, c.warn) {
			t.Errorf("%v: want warning %q:\n%s", args, c.warn, stderr)
		}
		var st struct {
			Peak  int64 `json:"peak_rss_bytes"`
			Limit int64 `json:"memory_limit_bytes"`
		}
		if err := json.Unmarshal([]byte(read(t, stats)), &st); err != nil {
			t.Fatal(err)
		}
		if st.Peak <= 0 || st.Limit != c.bytes {
			t.Errorf("%v: stats peak_rss_bytes %d, memory_limit_bytes %d; want a peak and %d", args, st.Peak, st.Limit, c.bytes)
		}
	}
}
