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

// Usage mistakes exit with 2 and say what is wrong, before any pipeline.
func TestUsageErrors(t *testing.T) {
	bin := beamBin
	sample, _ := filepath.Abs(sample)
	testdata := filepath.Dir(filepath.Dir(sample))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--pairs", "p.tsv"}, "no input given"},
		{[]string{sample}, "nothing to write"},
		{[]string{"--threshold", "0", "--pairs", "p.tsv", sample}, "--threshold 0"},
		{[]string{"--weight", "idf", "--pairs", "p.tsv", sample}, "not supported by the Beam pipeline"},
		{[]string{"--output", "u.jsonl", testdata}, "is a directory"},
		{[]string{"--rounds", "0", "--pairs", "p.tsv", sample}, "--rounds 0"},
	} {
		cmd := exec.Command(bin, c.args...)
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: %v\n%s\nwant exit code 2 and %q", c.args, err, out, c.want)
		}
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
