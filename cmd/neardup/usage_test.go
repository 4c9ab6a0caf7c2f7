package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A usage error is one line naming the mistake, then a pointer to the help;
// never the whole flag list. Exit status 2.
func TestCLIUsageErrorText(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "a.txt", adA+"\n"+adC+"\n")
	f := func(args []string, want string) {
		t.Helper()
		code, stdout, stderr := cli(t, "", args...)
		if code != exitUsage || stdout != "" || stderr != want {
			t.Errorf("%q: exit %d, stdout %q, stderr\n%s\nwant exit 2, no stdout, stderr\n%s", args, code, stdout, stderr, want)
		}
	}
	f([]string{"dedup", "--treshold", "0.5", in},
		"neardup dedup: flag provided but not defined: --treshold (did you mean --threshold?)\nRun 'neardup dedup --help' for usage.\n")
	f([]string{"dedup", in, "-treshold=0.5"},
		"neardup dedup: flag provided but not defined: --treshold (did you mean --threshold?)\nRun 'neardup dedup --help' for usage.\n")
	f([]string{"dedup", "--ngarm", "3", in}, // transposition
		"neardup dedup: flag provided but not defined: --ngarm (did you mean --ngram?)\nRun 'neardup dedup --help' for usage.\n")
	f([]string{"dedup", "--thresh", "0.5", in}, // a prefix of only one flag
		"neardup dedup: flag provided but not defined: --thresh (did you mean --threshold?)\nRun 'neardup dedup --help' for usage.\n")
	f([]string{"tune", "--recal", "0.9"},
		"neardup tune: flag provided but not defined: --recal (did you mean --recall?)\nRun 'neardup tune --help' for usage.\n")
	f([]string{"dedup", "--bogus", in}, // nothing close: no guess
		"neardup dedup: flag provided but not defined: --bogus\nRun 'neardup dedup --help' for usage.\n")
	f([]string{"dedpu", in},
		"neardup: unknown command \"dedpu\" (did you mean dedup?)\nRun 'neardup --help' for usage.\n")
	f([]string{"explian"},
		"neardup: unknown command \"explian\" (did you mean explain?)\nRun 'neardup --help' for usage.\n")
	f([]string{"frobnicate"},
		"neardup: unknown command \"frobnicate\"\nRun 'neardup --help' for usage.\n")
	f([]string{"--verison"},
		"neardup: flag provided but not defined: --verison (did you mean --version?)\nRun 'neardup --help' for usage.\n")
	f([]string{"help", "dedpu"},
		"neardup: unknown command \"dedpu\" (did you mean dedup?)\nRun 'neardup --help' for usage.\n")
	f([]string{"dedup"},
		"neardup dedup: no input given\nRun 'neardup dedup --help' for usage.\n")
	f([]string{"dedup", "--pairs", "p.tsv"},
		"neardup dedup: no input given\nRun 'neardup dedup --help' for usage.\n")
	f([]string{"explain", "a", in},
		"neardup explain: want two ids and at least one input\nRun 'neardup explain --help' for usage.\n")
	f([]string{"dedup", in, "--pairs"},
		"neardup dedup: --pairs needs a value\nRun 'neardup dedup --help' for usage.\n")
	f([]string{"dedup", "--threshold", "high", in},
		"neardup dedup: --threshold \"high\": want a number\nRun 'neardup dedup --help' for usage.\n")
	f([]string{"dedup", "--num-perm", "1.5", in},
		"neardup dedup: --num-perm \"1.5\": want a whole number\nRun 'neardup dedup --help' for usage.\n")
	f([]string{"dedup", "--quiet=maybe", in},
		"neardup dedup: --quiet \"maybe\": want true or false\nRun 'neardup dedup --help' for usage.\n")
	f([]string{"dedup", "--max-cluster", "-1", in},
		"neardup dedup: --max-cluster -1: want 0 (no limit) or more\nRun 'neardup dedup --help' for usage.\n")
	f([]string{"version", "extra"},
		"neardup version: unexpected argument \"extra\"\nRun 'neardup version --help' for usage.\n")
}

// Every usage error of every command reads once: no "usage:" marker, no
// second "neardup:" prefix, no "invalid options" of a command line.
func TestCLIUsageErrorsDoNotStutter(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "a.txt", adA+"\n"+adC+"\n")
	for _, args := range [][]string{
		{"dedup", "--threshold", "1.5", in},
		{"dedup", "--recall", "1", in},
		{"dedup", "--bands", "100", "--rows", "5", in},
		{"dedup", "--num-perm", "0", in},
		{"dedup", "--ngram", "5000", in},
		{"dedup", "--verify", "maybe", in},
		{"dedup", "--keep", "middle", in},
		{"dedup", "--cluster", "chain", in},
		{"dedup", "--weight", "tf", in},
		{"dedup", "--refine", "cosine", in},
		{"dedup", "--shingle", "sentence", in},
		{"dedup", "--pairs", in, in},
		{"eval", "--threshold", "1.5", in},
		{"eval", "--sample", "-1", in},
		{"explain", "--verify", "maybe", "a", "b", in},
		{"explain", "--threshold", "2", "a", "b", in},
		{"analyze", "--sample", "1", in},
		{"analyze", "--cutoffs", "1.5", in},
		{"tune", "--threshold", "0"},
		{"tune", "--bands", "10"},
		{"tune", "stray"},
	} {
		code, stdout, stderr := cli(t, "", args...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		cmd := args[0]
		if code != exitUsage || stdout != "" || len(lines) != 2 || !strings.HasPrefix(lines[0], "neardup "+cmd+": ") ||
			lines[1] != "Run 'neardup "+cmd+" --help' for usage." {
			t.Errorf("%q: exit %d, stdout %q, stderr\n%s\nwant exit 2 and two lines: the error, the pointer to help", args, code, stdout, stderr)
			continue
		}
		msg := strings.TrimPrefix(lines[0], "neardup "+cmd+": ")
		for _, bad := range []string{"usage:", "neardup:", "invalid options"} {
			if strings.Contains(msg, bad) {
				t.Errorf("%q: %q repeats %q", args, lines[0], bad)
			}
		}
	}
}

// Help asked for goes to standard output, exit 0, with the flags spelt as
// the usage texts spell them (--name).
func TestCLIHelpToStdout(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "a.txt", adA+"\n")
	f := func(args []string, want ...string) {
		t.Helper()
		code, stdout, stderr := cli(t, "", args...)
		if code != exitOK || stderr != "" {
			t.Errorf("%q: exit %d, stderr %q; want 0 and nothing on stderr", args, code, stderr)
		}
		for _, w := range want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%q: stdout lacks %q:\n%s", args, w, stdout)
			}
		}
	}
	for _, top := range [][]string{{"--help"}, {"-h"}, {"-help"}, {"help"}, {"help", "help"}} {
		f(top, "Usage:\n  neardup <command>", "dedup", "explain", "--version")
	}
	for _, c := range commands {
		usage := "Usage: neardup " + c.name
		f([]string{c.name, "--help"}, usage)
		f([]string{c.name, "-h"}, usage)
		f([]string{"help", c.name}, usage)
		f([]string{"--help", c.name}, usage)
	}
	f([]string{"dedup", "-h"}, "\n  --threshold float\n", "\n  --pairs string\n")
	pairs := filepath.Join(dir, "p.tsv")
	f([]string{"dedup", in, "--pairs", pairs, "--help"}, "Usage: neardup dedup") // after other arguments
	f([]string{"tune", "--help"}, "\n  --num-perm int\n")
	if _, err := os.Stat(pairs); err == nil {
		t.Error("dedup --help wrote an output")
	}
	// Without any argument the overview is a usage error, on stderr.
	if code, stdout, stderr := cli(t, ""); code != exitUsage || stdout != "" || !strings.Contains(stderr, "Commands:") {
		t.Errorf("no arguments: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestCLIVersion(t *testing.T) {
	re := regexp.MustCompile(`^neardup \S.* \(` + regexp.QuoteMeta(runtime.Version()+", "+runtime.GOOS+"/"+runtime.GOARCH) + `\)\n$`)
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		code, stdout, stderr := cli(t, "", args...)
		if code != exitOK || stderr != "" || !re.MatchString(stdout) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %s", args, code, stdout, stderr, re)
		}
	}
}

// Output paths are checked before any work, and errors name the user's
// path, never a temporary file.
func TestCLIDedupOutputChecks(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "a.txt", adA+"\n"+adB+"\n"+adC+"\n")
	f := func(args []string, wantCode int, want string) {
		t.Helper()
		code, stdout, stderr := cli(t, "", append([]string{"dedup"}, args...)...)
		if code != wantCode || stdout != "" || stderr != want {
			t.Errorf("%q: exit %d, stdout %q, stderr\n%s\nwant exit %d, no stdout, stderr\n%s", args, code, stdout, stderr, wantCode, want)
		}
	}
	f([]string{"--pairs", "-", "--clusters", "-", in}, exitUsage,
		"neardup dedup: --pairs - and --clusters -: only one output can go to standard output\nRun 'neardup dedup --help' for usage.\n")
	f([]string{"--stats", "-", "--output", "-", "--report", "-", in}, exitUsage,
		"neardup dedup: --output - and --stats - and --report -: only one output can go to standard output\nRun 'neardup dedup --help' for usage.\n")
	nope := filepath.Join(dir, "nope")
	f([]string{"--quiet", "--pairs", filepath.Join(dir, "p.tsv"), "--clusters", filepath.Join(nope, "c.jsonl"), in}, exitError,
		"neardup dedup: --clusters "+filepath.Join(nope, "c.jsonl")+": directory "+nope+" does not exist\n")
	f([]string{"--quiet", "--stats", dir, in}, exitError,
		"neardup dedup: --stats "+dir+": is a directory\n")
	f([]string{"--quiet", "--report", filepath.Join(in, "r.html"), in}, exitError,
		"neardup dedup: --report "+filepath.Join(in, "r.html")+": "+in+" is not a directory\n")
	f([]string{"--quiet", "--memprofile", filepath.Join(nope, "mem.out"), in}, exitError,
		"neardup dedup: --memprofile "+filepath.Join(nope, "mem.out")+": directory "+nope+" does not exist\n")
	// A directory input: --output names a directory to create.
	docs := filepath.Join(dir, "docs")
	write(t, docs, "1.txt", adA)
	write(t, docs, "2.txt", adC)
	f([]string{"--quiet", "--output", dir, docs}, exitError,
		"neardup dedup: --output "+dir+": already exists (a directory output is never overwritten)\n")
	f([]string{"--quiet", "--output", "-", docs}, exitUsage,
		"neardup dedup: --output - cannot hold a directory\nRun 'neardup dedup --help' for usage.\n")
	f([]string{"--quiet", "--output", filepath.Join(dir, "u"), in, docs}, exitUsage,
		"neardup dedup: --output with a directory input needs that directory as the only input\nRun 'neardup dedup --help' for usage.\n")
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		f([]string{"--quiet", "--pairs", filepath.Join(ro, "p.tsv"), in}, exitError,
			"neardup dedup: --pairs "+filepath.Join(ro, "p.tsv")+": cannot create files in "+ro+": permission denied\n")
	}
	// Nothing was written, no probe left behind; a good run writes only
	// what was asked for.
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cli(t, "", "dedup", "--quiet", "--pairs", filepath.Join(out, "p.tsv"), "--output", filepath.Join(out, "u.txt"), in); code != 0 {
		t.Fatalf("dedup: exit %d: %s", code, stderr)
	}
	if names := dirNames(t, out); strings.Join(names, " ") != "p.tsv u.txt" {
		t.Errorf("output directory holds %q, want p.tsv u.txt", names)
	}
	if names := dirNames(t, dir); strings.Join(names, " ") != "a.txt docs out ro" && strings.Join(names, " ") != "a.txt docs out" {
		t.Errorf("input directory holds %q", names)
	}
	// The directory output is created when it does not exist.
	if code, _, stderr := cli(t, "", "dedup", "--quiet", "--output", filepath.Join(out, "docs"), docs); code != 0 {
		t.Fatalf("dedup of a directory: exit %d: %s", code, stderr)
	}
}

// openOutput names the user's path, not its temporary file.
func TestCLIOpenOutputNamesPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope", "pairs.tsv")
	_, err := openOutput(context.Background(), &env{}, p)
	if err == nil || !strings.HasPrefix(err.Error(), "create "+p+": ") || strings.Contains(err.Error(), ".tmp") || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("openOutput(%s) = %v", p, err)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// A signal cancels the run even while it waits for standard input; run
// returns 128 plus the signal number after removing its temporary files.
func TestCLISignalInProcess(t *testing.T) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp)
		out := t.TempDir()
		pr, pw := io.Pipe() // never closed: dedup blocks reading it
		written := make(chan struct{})
		go func() {
			pw.Write([]byte(adA + "\n" + adC + "\n"))
			close(written)
		}()
		ctx, cancel := context.WithCancelCause(context.Background())
		done := make(chan int)
		var stdout, stderr bytes.Buffer
		go func() {
			done <- run(ctx, []string{"dedup", "--quiet", "--output", filepath.Join(out, "u.txt"), "--pairs", filepath.Join(out, "p.tsv"), "-"}, pr, &stdout, &stderr)
		}()
		waitFor(t, func() bool { return len(dirNames(t, tmp)) > 0 }) // spooling standard input
		<-written
		cancel(&signalError{sig})
		select {
		case code := <-done:
			want, msg := 130, "interrupted"
			if sig == syscall.SIGTERM {
				want, msg = 143, "terminated"
			}
			if code != want || stderr.String() != "neardup dedup: "+msg+"\n" {
				t.Errorf("%v: exit %d, stderr %q; want %d, %q", sig, code, stderr.String(), want, msg)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v: run did not return", sig)
		}
		if n := dirNames(t, tmp); len(n) != 0 {
			t.Errorf("%v: temporary files left: %q", sig, n)
		}
		if n := dirNames(t, out); len(n) != 0 {
			t.Errorf("%v: output files left: %q", sig, n)
		}
		pw.Close()
	}
}

// The binary exits 130 on SIGINT and 143 on SIGTERM, after cleaning up.
func TestCLISignalProcess(t *testing.T) {
	bin := neardupBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		tmp, out := t.TempDir(), t.TempDir()
		cmd := exec.CommandContext(ctx, bin, "dedup", "--output", filepath.Join(out, "u.txt"), "--pairs", filepath.Join(out, "p.tsv"), "-")
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		stdin, err := cmd.StdinPipe() // never closed before the signal: dedup blocks reading it
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		io.WriteString(stdin, adA+"\n"+adC+"\n")
		// The spool file shows that run has started, signal handling on.
		waitFor(t, func() bool { return len(dirNames(t, tmp)) > 0 })
		if err := cmd.Process.Signal(tc.sig); err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		stdin.Close()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
			t.Errorf("%v: %v, want exit status %d (stderr %q)", tc.sig, err, tc.code, stderr.String())
		}
		if n := dirNames(t, tmp); len(n) != 0 {
			t.Errorf("%v: temporary files left: %q", tc.sig, n)
		}
		if n := dirNames(t, out); len(n) != 0 {
			t.Errorf("%v: output files left: %q", tc.sig, n)
		}
	}
}

// waitFor polls cond for up to 10 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

// A write that fails (the file size limit of `ulimit -f`, so the pairs
// file cannot grow past 32 KB while the clusters, written at the same
// time on another goroutine, fit) stops dedup with exit status 1 and the
// pairs file named, and leaves neither output behind; with room for both,
// the same run writes both.
func TestCLIWriteFailure(t *testing.T) {
	bin := neardupBinary(t)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh for ulimit")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	// 150 copies of one ad: 11,175 pairs (about 300 KB of lines) in one
	// cluster of 150 members (about 5 KB).
	var in strings.Builder
	for i := range 150 {
		fmt.Fprintf(&in, "{\"id\":\"ad%03d\",\"text\":%q}\n", i, adA)
	}
	corpus := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(corpus, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []string{"64", "unlimited"} { // 512-byte blocks
		out := t.TempDir()
		pairs, clusters := filepath.Join(out, "p.tsv"), filepath.Join(out, "c.jsonl")
		cmd := exec.CommandContext(ctx, sh, "-c", `ulimit -f "$0" && exec "$@"`, limit, bin, "dedup", "--quiet",
			"--pairs", pairs, "--clusters", clusters, corpus)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if limit == "unlimited" {
			if err != nil {
				t.Fatalf("no limit: %v (stderr %q)", err, stderr.String())
			}
			st, err := os.Stat(pairs)
			if err != nil || st.Size() < 64*512 {
				t.Fatalf("no limit: pairs file %v, %v: the limited run shows nothing", st, err)
			}
			if st, err := os.Stat(clusters); err != nil || st.Size() >= 64*512 {
				t.Fatalf("no limit: clusters file %v, %v: want one under the limit", st, err)
			}
			continue
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("limit %s: %v, want exit status 1 (stderr %q)", limit, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), pairs) {
			t.Errorf("limit %s: stderr %q does not name %s", limit, stderr.String(), pairs)
		}
		if n := dirNames(t, out); len(n) != 0 {
			t.Errorf("limit %s: files left: %q", limit, n)
		}
	}
}
