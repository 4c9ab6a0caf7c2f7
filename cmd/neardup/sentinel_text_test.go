package main

import (
	"path/filepath"
	"testing"
)

// TestOutputMismatchText: an --output named for another format than the
// input's is a usage error whose text says it once, without the name of the
// sentinel error that marks it ("corpus: output format mismatch").
func TestOutputMismatchText(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "ads.jsonl", `{"id":"a","text":"`+adA+`"}`+"\n")
	out := filepath.Join(dir, "kept.csv")
	code, _, stderr := cli(t, "", "dedup", "--output", out, in)
	want := "neardup dedup: --output " + out + ": the extension .csv says csv, but the output is written in the input's format, jsonl; name it kept.jsonl\nRun 'neardup dedup --help' for usage.\n"
	if code != exitUsage || stderr != want {
		t.Errorf("exit %d, stderr %q; want exit %d, %q", code, stderr, exitUsage, want)
	}
}
