package main

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cliBounded is cli for a command that might not end (serve): it is
// stopped after a minute, and the test fails.
func cliBounded(t *testing.T, args ...string) (code int, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errb serveBuffer
	code = run(ctx, args, strings.NewReader(""), &out, &errb)
	if ctx.Err() != nil {
		t.Fatalf("%q did not end within a minute: it was not refused", args)
	}
	return code, errb.String()
}

// index and serve open an existing index by one rule: a flag given
// explicitly must agree with the index, and is refused with the same
// message by both, naming the flag and both values; a flag not given
// takes the index's value.
func TestOpenAskedIndexAndServe(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx")
	in := write(t, dir, "d.jsonl", `{"id":"a","text":"one two three four five six"}`+"\n")
	if code, _, stderr := cli(t, "", "index", "create", "--index", idx, "--threshold", "0.6", "--ngram", "4"); code != 0 {
		t.Fatalf("index create: %d %s", code, stderr)
	}
	judge := func(args ...string) (build, serve string) {
		t.Helper()
		code, _, stderr := cli(t, "", append(append([]string{"index", "build", "--index", idx}, args...), in)...)
		if code != exitError {
			t.Errorf("index build %q: exit %d, want %d: %s", args, code, exitError, stderr)
		}
		scode, sstderr := cliBounded(t, append([]string{"serve", "--index", idx, "--addr", "127.0.0.1:0"}, args...)...)
		if scode != exitError {
			t.Errorf("serve %q: exit %d, want %d: %s", args, scode, exitError, sstderr)
		}
		return stderr, sstderr
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--threshold", "0.5"}, "was made with --threshold=0.6; --threshold=0.5 differs from it"},
		{[]string{"--ngram", "3"}, "was made with --ngram=4; --ngram=3 differs from it"},
		{[]string{"--shingle", "char"}, "was made with --shingle=word; --shingle=char differs from it"},
		{[]string{"--recall", "0.9"}, "was made with --recall=0.99; --recall=0.9 differs from it"},
		{[]string{"--normalize", "nfkc"}, "was made with --normalize=none; --normalize=nfkc differs from it"},
		{[]string{"--seed", "7", "--threshold", "0.6"}, "was made with --seed=1; --seed=7 differs from it"},
		{[]string{"--bands", "1", "--rows", "1"}, "was made with --bands=19; --bands=1 differs from it"},
	} {
		build, serve := judge(c.args...)
		want := "the index in " + idx + " " + c.want + " (leave the flag out to use the index's)"
		if !strings.Contains(build, c.want) || !strings.Contains(build, want) {
			t.Errorf("index build %q: %q, want %q", c.args, build, want)
		}
		if !strings.Contains(serve, c.want) || !strings.Contains(serve, want) {
			t.Errorf("serve %q: %q, want %q", c.args, serve, want)
		}
	}
	// The texts: each command's own flag, the same rule.
	code, _, stderr := cli(t, "", "index", "build", "--index", idx, "--no-texts", in)
	if code != exitError || !strings.Contains(stderr, "was made with --no-texts=false; --no-texts=true differs from it") {
		t.Errorf("index build --no-texts: exit %d: %q", code, stderr)
	}
	code, stderr = cliBounded(t, "serve", "--index", idx, "--addr", "127.0.0.1:0", "--keep-texts=false")
	if code != exitError || !strings.Contains(stderr, "was made with --keep-texts=true; --keep-texts=false differs from it") {
		t.Errorf("serve --keep-texts=false: exit %d: %q", code, stderr)
	}

	// Agreeing flags are accepted, and those not given are the index's:
	// --ngram is 4 although its default is 3.
	if code, _, stderr := cli(t, "", "index", "build", "--index", idx, "--threshold", "0.6", "--shingle", "word", in); code != 0 {
		t.Errorf("index build with agreeing flags: exit %d: %s", code, stderr)
	}
	_, line, stop := serveInProcess(t, "", "--index", idx, "--threshold", "0.6", "--keep-texts=true")
	if !strings.Contains(line, "word 4-grams") || !strings.Contains(line, "threshold 0.6") || !strings.Contains(line, "1 document") {
		t.Errorf("serve with agreeing flags: %q", line)
	}
	if code, stderr := stop(syscall.SIGTERM); code != 143 {
		t.Errorf("serve stopped: exit %d: %s", code, stderr)
	}
}
