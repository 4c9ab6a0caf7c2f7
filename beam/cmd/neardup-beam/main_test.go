package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const sample = "../../../testdata/sample/ads.jsonl"

// beamBin is this command, built once for the tests (a 225 MB link).
var beamBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "neardup-beam-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	beamBin = filepath.Join(dir, "neardup-beam")
	cmd := exec.Command("go", "build", "-o", beamBin, ".")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "go build:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// build builds a program into dir and returns its path.
func build(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	pre := []string{"build"}
	if len(args) > 2 && args[0] == "-C" { // -C must come first
		pre, args = append(pre, args[:2]...), args[2:]
	}
	cmd := exec.Command("go", append(append(pre, "-o", out), args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", name, err, b)
	}
	return out
}

// The binary on Prism with every worker a separate process (the PROCESS
// environment: Beam's Go boot program fetches the worker binary and runs
// it), so that state that differs between processes would show: the
// outputs equal dedup's. Every file the run leaves (worker binaries,
// staging) is under the test's temporary directory.
func TestProcessWorkersSameAsDedup(t *testing.T) {
	if testing.Short() {
		t.Skip("separate worker processes take half a minute")
	}
	dir := t.TempDir()
	bin := beamBin
	boot := build(t, dir, "boot", "github.com/apache/beam/sdks/v2/go/container")
	single := build(t, dir, "neardup", "-C", "../../..", "./cmd/neardup")
	// Prism passes --id='ID' with literal quotes (Beam 2.77); the boot
	// program wants ID.
	wrapper := filepath.Join(dir, "boot.sh")
	script := "#!/bin/sh\nfor a; do\n  shift\n  case \"$a\" in --id=\\'*\\') a=\"--id=${a#--id=\\'}\"; a=\"${a%\\'}\" ;; esac\n  set -- \"$@\" \"$a\"\ndone\n" +
		"exec " + boot + " --semi_persist_dir=" + filepath.Join(dir, "persist") + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	for _, d := range []string{tmp, filepath.Join(dir, "persist")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	sample, err := filepath.Abs(sample)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "want")
	got := filepath.Join(dir, "got")
	os.Mkdir(want, 0o755)
	os.Mkdir(got, 0o755)
	if b, err := exec.Command(single, "dedup", "--quiet", "--threshold", "0.6",
		"--pairs", filepath.Join(want, "pairs.tsv"), "--clusters", filepath.Join(want, "clusters.jsonl"),
		"--output", filepath.Join(want, "unique.jsonl"), sample).CombinedOutput(); err != nil {
		t.Fatalf("neardup dedup: %v\n%s", err, b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--environment_type=PROCESS",
		`--environment_config={"command":"`+wrapper+`"}`, "--worker_binary="+bin,
		"--threshold", "0.6", "--shards", "2", "--work", filepath.Join(dir, "work"),
		"--pairs", filepath.Join(got, "pairs.tsv"), "--clusters", filepath.Join(got, "clusters.jsonl"),
		"--output", filepath.Join(got, "unique.jsonl"), sample)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	cmd.Dir = dir // the boot program writes pipeline_options.json there
	// Workers inherit the output: a file, not a pipe, so that waiting for
	// the command does not wait for them.
	logName := filepath.Join(dir, "log")
	logFile, err := os.Create(logName)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	removeWorkerCopies(t, bin)
	err = cmd.Run()
	logFile.Close()
	out, _ := os.ReadFile(logName)
	if err != nil {
		t.Fatalf("neardup-beam: %v\n%s", err, tail(out, 40))
	}
	if !strings.Contains(string(out), "Worker exited successfully") && !strings.Contains(string(out), "persist") {
		t.Logf("no sign of a separate worker in the log:\n%s", tail(out, 20))
	}
	for _, f := range []string{"pairs.tsv", "clusters.jsonl", "unique.jsonl"} {
		w, g := sortedLines(t, filepath.Join(want, f)), sortedLines(t, filepath.Join(got, f))
		if len(w) == 0 || !slices.Equal(w, g) {
			t.Errorf("%s: dedup %d lines, neardup-beam %d, or they differ", f, len(w), len(g))
		}
	}
	// The worker binary was fetched into the semi-persistent directory:
	// the workers really were other processes.
	staged, _ := filepath.Glob(filepath.Join(dir, "persist", "*", "*"))
	if len(staged) == 0 {
		t.Error("no worker binary was staged: the workers were not separate processes")
	}
}

// removeWorkerCopies removes, when the test ends, the copies of the
// worker binary that Beam's boot program leaves in /tmp/bin*/worker (it
// does not honour TMPDIR): those made during the test, of bin's size.
func removeWorkerCopies(t *testing.T, bin string) {
	fi, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	before := map[string]bool{}
	old, _ := filepath.Glob("/tmp/bin*/worker")
	for _, p := range old {
		before[p] = true
	}
	t.Cleanup(func() {
		now, _ := filepath.Glob("/tmp/bin*/worker")
		for _, p := range now {
			if w, err := os.Stat(p); !before[p] && err == nil && w.Size() == fi.Size() {
				os.RemoveAll(filepath.Dir(p))
			}
		}
	})
}

func sortedLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	l := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	slices.Sort(l)
	return l
}

func tail(b []byte, n int) string {
	l := strings.Split(string(b), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// runBin runs the command with args in dir and returns its standard
// output, standard error and exit code.
func runBin(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, beamBin, args...)
	cmd.Dir = dir
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("%v: %v", args, err)
	}
	return o.String(), e.String(), code
}

const usagePointer = "Run 'neardup-beam --help' for usage."

// Usage mistakes exit with 2 and say what is wrong in one line, then
// where the help is, as neardup's commands do, before any pipeline (no
// Beam log, nothing written). Flags may follow the inputs.
func TestUsageErrors(t *testing.T) {
	sample, _ := filepath.Abs(sample)
	testdata := filepath.Dir(filepath.Dir(sample))
	for _, c := range []struct {
		args []string
		want string // in the first line, after "neardup-beam: "
	}{
		{nil, "no input given"},
		{[]string{"--pairs", "p.tsv"}, "no input given"},
		{[]string{sample}, "nothing to write: give --pairs, --clusters or --output"},
		{[]string{"--threshold", "0", "--pairs", "p.tsv", sample}, "--threshold 0: want a number in (0, 1]"},
		// Flags after the inputs are flags, as in neardup dedup.
		{[]string{sample, "--pairs", "p.tsv", "--threshold", "0"}, "--threshold 0: want a number in (0, 1]"},
		{[]string{"--output", "u.jsonl", testdata}, "is a directory"},
		{[]string{"--rounds", "0", "--pairs", "p.tsv", sample}, "--shards 16 --rounds 0: want positive numbers"},
		{[]string{"--foo", "--pairs", "p.tsv", sample}, "flag provided but not defined: --foo"},
		{[]string{"--pairs", "p.tsv", sample, "--threshhold", "0.8"}, "flag provided but not defined: --threshhold (did you mean --threshold?)"},
		{[]string{"--pairs", "p.tsv", "--enviroment_type=DOCKER", sample}, "flag provided but not defined: --enviroment_type (did you mean --environment_type?)"},
		{[]string{"--pairs"}, "--pairs needs a value"},
		{[]string{"--threshold", "high", "--pairs", "p.tsv", sample}, `--threshold "high": want a number`},
		// What the pipeline does not do is refused, whatever the value.
		{[]string{"--refine", "edit", "--pairs", "p.tsv", sample}, "--refine is not supported by neardup-beam (neardup dedup has it)"},
		{[]string{"--weight", "idf", "--pairs", "p.tsv", sample}, "--weight is not supported by neardup-beam (neardup dedup has it)"},
		{[]string{"--pairs", "p.tsv", sample, "--weight=none"}, "--weight is not supported by neardup-beam (neardup dedup has it)"},
		{[]string{"--workers", "2", "--pairs", "p.tsv", sample}, "--workers is not supported by neardup-beam (the runner chooses the workers)"},
		{[]string{"--stats", "s.json", "--pairs", "p.tsv", sample}, "--stats is not supported by neardup-beam (neardup dedup has it)"},
		{[]string{"--async", "--pairs", "p.tsv", sample}, "--async is not supported by neardup-beam (each pipeline must end before the next one reads its files)"},
		{[]string{"--pairs", "p.tsv", "s3://bucket/ads.jsonl"}, "s3://bucket/ads.jsonl: no file system for its scheme (neardup-beam reads and writes local paths and gs:// URLs)"},
		{[]string{"--pairs", "s3://bucket/p.tsv", sample}, "--pairs s3://bucket/p.tsv: no file system for its scheme (neardup-beam reads and writes local paths and gs:// URLs)"},
	} {
		dir := t.TempDir()
		stdout, stderr, code := runBin(t, dir, c.args...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if code != 2 || stdout != "" || len(lines) != 2 || !strings.HasPrefix(lines[0], "neardup-beam: ") || !strings.Contains(lines[0], c.want) || lines[1] != usagePointer {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s\nwant exit 2 and two lines: neardup-beam: %s / %s", c.args, code, stdout, stderr, c.want, usagePointer)
		}
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("%q: left %s in the working directory", c.args, left[0].Name())
		}
	}
}

// A missing input is one line and exit 1, before any pipeline; an input
// behind a URL is not looked for on the local disk (see
// pipeline.TestCheckInputs).
func TestMissingInput(t *testing.T) {
	for _, args := range [][]string{
		{"--pairs", "p.tsv", "missing.jsonl"},
		{"missing.jsonl", "--pairs", "p.tsv", "--clusters", "c.jsonl"},
		{"--pairs", "p.tsv", "--", "missing.jsonl"},
	} {
		dir := t.TempDir()
		stdout, stderr, code := runBin(t, dir, args...)
		want := "neardup-beam: missing.jsonl: stat: no such file or directory\n"
		if code != 1 || stdout != "" || stderr != want {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s\nwant exit 1 and %q", args, code, stdout, stderr, want)
		}
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("%q: left %s in the working directory", args, left[0].Name())
		}
	}
}

// --help goes to standard output (exit 0) and lists what works: no flag
// the pipeline refuses, and a short section of Beam's runner flags, not
// the hundred Beam registers.
func TestHelp(t *testing.T) {
	stdout, stderr, code := runBin(t, t.TempDir(), "--help")
	if code != 0 || stderr != "" {
		t.Fatalf("--help: exit %d, stderr %q", code, stderr)
	}
	listed := map[string]bool{}
	for _, l := range strings.Split(stdout, "\n") {
		if name, ok := strings.CutPrefix(l, "  --"); ok {
			name, _, _ = strings.Cut(name, " ")
			listed[name] = true
		}
	}
	for _, f := range []string{"pairs", "clusters", "output", "threshold", "text-field", "work", "verbose", "quiet", "runner", "endpoint", "environment_type", "worker_binary"} {
		if !listed[f] {
			t.Errorf("--help does not list --%s", f)
		}
	}
	for _, f := range []string{"weight", "refine", "workers", "stats", "report", "async", "worker", "id", "options", "control_endpoint", "beam_strict"} {
		if listed[f] {
			t.Errorf("--help lists --%s, which neardup-beam refuses or a worker alone takes", f)
		}
	}
	if n := strings.Count(stdout, "\n"); n > 120 {
		t.Errorf("--help is %d lines", n)
	}
	if !strings.Contains(stdout, "Not supported (neardup dedup has them): --weight, --refine") {
		t.Errorf("--help does not say which of dedup's flags are not supported:\n%s", stdout)
	}
	// -h is --help; so are both after other flags and inputs.
	if h, _, code := runBin(t, t.TempDir(), "--pairs", "p.tsv", "x.jsonl", "-h"); code != 0 || h != stdout {
		t.Errorf("-h after an input: exit %d, or another help", code)
	}
}

// smallCorpus writes the first n lines of the sample into dir.
func smallCorpus(t *testing.T, dir string, n int) string {
	t.Helper()
	b, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	name := filepath.Join(dir, "small.jsonl")
	if err := os.WriteFile(name, []byte(strings.Join(lines[:n], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// A successful run prints its summary and nothing of Beam's (Prism's job
// server and the workers log at Info); --verbose shows Beam's log and
// each pipeline as it starts.
func TestBeamLogOnlyWhenVerbose(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the pipelines twice")
	}
	dir := t.TempDir()
	in := smallCorpus(t, dir, 300)
	stdout, stderr, code := runBin(t, dir, "--pairs", "pairs.tsv", in, "--clusters", "clusters.jsonl")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, tail([]byte(stderr), 20))
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if stdout != "" || len(lines) > 30 || strings.Contains(stderr, "INFO") || strings.Contains(stderr, "level=") {
		t.Errorf("stdout %q; stderr, %d lines:\n%s\nwant the summary alone", stdout, len(lines), stderr)
	}
	for _, l := range lines {
		if f := strings.Fields(l); !strings.HasPrefix(l, "  ") || len(f) < 2 {
			t.Errorf("not a line of the summary: %q", l)
		}
	}
	if !strings.Contains(stderr, "  documents ") || !strings.Contains(stderr, "  pipelines ") {
		t.Errorf("no summary:\n%s", stderr)
	}
	for _, f := range []string{"pairs.tsv", "clusters.jsonl"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: not written (%v)", f, err)
		}
	}

	_, stderr, code = runBin(t, dir, "--verbose", "--pairs", "pairs.tsv", in)
	if code != 0 {
		t.Fatalf("--verbose: exit %d:\n%s", code, tail([]byte(stderr), 20))
	}
	for _, want := range []string{"level=INFO", "neardup-beam: pipeline 1: sketch, pairs, components", "  documents "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("--verbose: no %q in:\n%s", want, tail([]byte(stderr), 20))
		}
	}
}

// A failed pipeline is one line, its cause first (on Prism the DoFn's
// error, which ends a long error of the bundle's plan), and exit 1;
// --verbose shows the whole.
func TestPipelineErrorOneLine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.jsonl"), []byte("{\"text\": \"a b c\"}\n{\"text\": oops}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runBin(t, dir, "--pairs", "pairs.tsv", "bad.jsonl")
	want := "neardup-beam: bad.jsonl:2: record 2: malformed record: invalid JSON"
	suffix := `(pipeline "sketch, pairs, components" failed; --verbose shows Beam's log and the whole error)` + "\n"
	if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, want) || !strings.HasSuffix(stderr, suffix) {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 1 and one line: %s... %s", code, stdout, stderr, want, suffix)
	}
	if _, err := os.Stat(filepath.Join(dir, "pairs.tsv")); err == nil {
		t.Error("a failed run wrote pairs.tsv")
	}
}

// TestNoTempFilesLeft: a run on Prism in this process (the default) leaves
// nothing in the temporary directory. Beam's loopback environment leaves
// an empty placeholder file there for every pipeline it submits; the run
// gives its temporary files a directory of its own and removes it.
func TestNoTempFilesLeft(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the pipelines")
	}
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	sample, err := filepath.Abs(sample)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	pairs := filepath.Join(dir, "pairs.tsv")
	cmd := exec.CommandContext(ctx, beamBin, "--quiet", "--threshold", "0.6", "--pairs", pairs, sample)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("neardup-beam: %v\n%s", err, tail(out, 40))
	}
	if st, err := os.Stat(pairs); err != nil || st.Size() == 0 {
		t.Fatalf("no pairs written: %v", err)
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("left in the temporary directory: %s", e.Name())
	}
}
