package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// oldOutputs writes "OLD RESULT" files at the outputs of a run and
// returns the paths (pairs, clusters, output).
func oldOutputs(t *testing.T, dir string) []string {
	t.Helper()
	paths := []string{filepath.Join(dir, "p.tsv"), filepath.Join(dir, "c.jsonl"), filepath.Join(dir, "u.jsonl")}
	for _, p := range paths {
		if err := os.WriteFile(p, []byte("OLD RESULT "+filepath.Base(p)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// checkOld fails unless every output holds what it held before the run
// and the directory holds nothing else.
func checkOld(t *testing.T, dir string, paths []string) {
	t.Helper()
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || string(b) != "OLD RESULT "+filepath.Base(p) {
			t.Errorf("%s after the signal: %q %v; want the old file", filepath.Base(p), b, err)
		}
	}
	if n := dirNames(t, dir); len(n) != len(paths) {
		t.Errorf("files left beside the outputs: %q", n)
	}
}

// A signal that arrives while the outputs are being put in place (after
// one of three is, in this test) takes back those already in place: the
// files that were there are restored, exit 130, nothing else left.
func TestSignalWhilePublishing(t *testing.T) {
	for _, at := range []int{0, 1, 2, 3} {
		dir := t.TempDir()
		in := write(t, t.TempDir(), "in.jsonl", fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n{\"id\":\"c\",\"text\":%q}\n", adA, adC))
		paths := oldOutputs(t, dir)
		ctx, cancel := context.WithCancelCause(context.Background())
		beforePublish = func(i int) {
			if i == at || at == 3 && i == 2 {
				cancel(&signalError{syscall.SIGINT})
			}
		}
		var stdout, stderr bytes.Buffer
		code := run(ctx, []string{"dedup", "--quiet", "--pairs", paths[0], "--clusters", paths[1], "--output", paths[2], in}, nil, &stdout, &stderr)
		beforePublish = nil
		if code != 130 || stderr.String() != "neardup dedup: interrupted\n" {
			t.Errorf("signal before output %d: exit %d, %q", at, code, stderr.String())
		}
		checkOld(t, dir, paths)
	}
}

// The binary, signalled while it writes large outputs: it stops within
// seconds (not after writing them), exits 130 or 143, and the files that
// were at the outputs are as they were.
func TestSignalWhileWriting(t *testing.T) {
	bin := neardupBinary(t)
	// 2500 copies of one ad: 3.1 million pairs, about 55 MB of pairs.
	var b strings.Builder
	for i := range 2500 {
		fmt.Fprintf(&b, "{\"id\":\"ad%04d\",\"text\":%q}\n", i, adA)
	}
	in := write(t, t.TempDir(), "in.jsonl", b.String())
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir := t.TempDir()
		paths := oldOutputs(t, dir)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, bin, "dedup", "--quiet", "--pairs", paths[0], "--clusters", paths[1], "--output", paths[2], in)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Signal once a temporary output holds something: writing.
		waitFor(t, func() bool {
			for _, n := range dirNames(t, dir) {
				if strings.Contains(n, ".tmp") {
					if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && fi.Size() > 0 {
						return true
					}
				}
			}
			return false
		})
		signalled := time.Now()
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		took := time.Since(signalled)
		cancel()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
			t.Errorf("%v: %v, want exit status %d (stderr %q)", sig, err, 128+int(sig), stderr.String())
		}
		if took > 3*time.Second {
			t.Errorf("%v: exited %v after the signal", sig, took)
		}
		checkOld(t, dir, paths)
		t.Logf("%v: exited %v after the signal", sig, took.Round(time.Millisecond))
	}
}
