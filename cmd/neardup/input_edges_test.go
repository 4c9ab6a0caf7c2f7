package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// TestIDFieldMissing: an --id-field that no JSONL record has is an error
// listing the fields seen, exit 1 as for CSV; records without it while
// others have it are numbered, and a warning counts them.
func TestIDFieldMissing(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "ads.jsonl", fmt.Sprintf(`{"id":"a","text":%q,"title":"x"}
{"id":"b","text":%q,"title":"y"}
`, adA, adC))
	code, stdout, stderr := cli(t, "", "dedup", "--id-field", "ID", "--pairs", "-", in)
	want := fmt.Sprintf("neardup dedup: %s: missing field: id field \"ID\": no record has that field (fields seen: \"id\", \"text\", \"title\")\n", in)
	if code != exitError || stderr != want || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1, %q", code, stdout, stderr, want)
	}
	// As for CSV.
	csv := write(t, dir, "ads.csv", fmt.Sprintf("id,text\na,%s\n", strings.ReplaceAll(adA, ",", "")))
	if code, _, stderr := cli(t, "", "dedup", "--id-field", "ID", csv); code != exitError || !strings.Contains(stderr, `available columns: "id", "text"`) {
		t.Errorf("CSV: exit %d, %s", code, stderr)
	}
	// --text-field likewise lists the fields.
	code, _, stderr = cli(t, "", "dedup", "--text-field", "body", in)
	if code != exitError || !strings.Contains(stderr, `no text field "body" in the object (fields seen: "id", "text", "title")`) {
		t.Errorf("--text-field: exit %d, %s", code, stderr)
	}
	// Some records lack it: numbered, with a warning.
	some := write(t, dir, "some.jsonl", fmt.Sprintf(`{"ID":"a","text":%q}
{"text":%q}
{"ID":null,"text":%q}
`, adA, adB, adC))
	code, stdout, stderr = cli(t, "", "dedup", "--quiet", "--id-field", "ID", "--pairs", "-", some)
	if code != 0 || !strings.HasPrefix(stdout, "a\t3\t") {
		t.Errorf("some without the id: exit %d, pairs %q, %s", code, stdout, stderr)
	}
	wantWarn := fmt.Sprintf("neardup dedup: warning: %s: 2 records have no \"ID\" field (or it is null or empty): their ids are their record numbers\n", some)
	if stderr != wantWarn {
		t.Errorf("stderr %q, want %q", stderr, wantWarn)
	}
	// One: singular. No --id-field: no warning.
	one := write(t, dir, "one.jsonl", fmt.Sprintf("{\"ID\":\"a\",\"text\":%q}\n{\"text\":%q}\n", adA, adB))
	if _, _, stderr := cli(t, "", "dedup", "--quiet", "--id-field", "ID", one); !strings.Contains(stderr, "1 record has no \"ID\" field (or it is null or empty): its id is its record number") {
		t.Errorf("one without the id: %q", stderr)
	}
	if code, _, stderr := cli(t, "", "dedup", "--quiet", one); code != 0 || stderr != "" {
		t.Errorf("default id field: exit %d, %q", code, stderr)
	}
}

// TestBinaryStdin: binary content on standard input, or in a named text
// file, is refused as a binary file of a directory is left out, naming
// the input; --include-binary reads it.
func TestBinaryStdin(t *testing.T) {
	bin := "\x7fELF\x02\x01\x01\x00" + strings.Repeat("\x00\x01\x02 some bytes\n", 40)
	code, _, stderr := cli(t, bin, "dedup", "-")
	want := "neardup dedup: standard input: binary content (a NUL byte in its first 8 KiB) is not read as text; --include-binary reads it anyway\n"
	if code != exitError || stderr != want {
		t.Errorf("exit %d, stderr %q; want exit 1, %q", code, stderr, want)
	}
	dir := t.TempDir()
	p := write(t, dir, "blob.txt", bin)
	if code, _, stderr := cli(t, "", "dedup", p); code != exitError || !strings.HasPrefix(stderr, "neardup dedup: "+p+": binary content") {
		t.Errorf("named file: exit %d, %q", code, stderr)
	}
	stats := filepath.Join(dir, "stats.json")
	if code, _, stderr := cli(t, bin, "dedup", "--quiet", "--include-binary", "--stats", stats, "-"); code != 0 || !strings.Contains(read(t, stats), `"documents": 40`) {
		t.Errorf("--include-binary: exit %d, %s", code, stderr)
	}
}

// TestEmptyInputWarning: an input with no documents is warned about, one
// line naming it, exit 0; others are not.
func TestEmptyInputWarning(t *testing.T) {
	dir := t.TempDir()
	empty := write(t, dir, "empty.txt", "")
	full := write(t, dir, "full.txt", adA+"\n"+adC+"\n")
	code, _, stderr := cli(t, "", "dedup", "--quiet", full, empty)
	if want := "neardup dedup: warning: " + empty + ": no documents\n"; code != 0 || stderr != want {
		t.Errorf("exit %d, stderr %q, want %q", code, stderr, want)
	}
	if code, _, stderr := cli(t, "", "dedup", "--quiet", "-"); code != 0 || stderr != "neardup dedup: warning: standard input: no documents\n" {
		t.Errorf("empty stdin: exit %d, %q", code, stderr)
	}
	// Why, when records were left out.
	bad := write(t, dir, "bad.jsonl", "{\n{\n")
	if code, _, stderr := cli(t, "", "dedup", "--quiet", "--skip-bad", bad); code != 0 || stderr != "neardup dedup: warning: "+bad+": no documents (2 records skipped as bad)\n" {
		t.Errorf("all bad: exit %d, %q", code, stderr)
	}
	bins := filepath.Join(dir, "bins")
	write(t, bins, "a.bin", "\x00\x01")
	if code, _, stderr := cli(t, "", "dedup", "--quiet", bins); code != 0 || stderr != "neardup dedup: warning: "+bins+": no documents (1 binary file left out)\n" {
		t.Errorf("only binary files: exit %d, %q", code, stderr)
	}
	// Other commands read inputs alike.
	if code, _, stderr := cli(t, "", "explain", "a", "b", empty, full); code == 0 || !strings.Contains(stderr, "warning: "+empty+": no documents") {
		t.Errorf("explain: exit %d, %q", code, stderr)
	}
	if code, _, stderr := cli(t, "", "dedup", "--quiet", full); code != 0 || stderr != "" {
		t.Errorf("no empty input: exit %d, %q", code, stderr)
	}
}

// TestTruncatedCompressedInput: a .jsonl.gz or .jsonl.zst cut short is
// reported as such, naming the file and line, not as a JSON error.
func TestTruncatedCompressedInput(t *testing.T) {
	var b bytes.Buffer
	for i := range 20000 {
		fmt.Fprintf(&b, "{\"id\":\"d%d\",\"text\":\"document %d of a file that is cut short\"}\n", i, i)
	}
	var gz, zs bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(b.Bytes())
	zw.Close()
	sw, _ := zstd.NewWriter(&zs)
	sw.Write(b.Bytes())
	sw.Close()
	dir := t.TempDir()
	for _, c := range []struct {
		name, kind string
		data       []byte
	}{{"a.jsonl.gz", "gzip", gz.Bytes()}, {"a.jsonl.zst", "zstd", zs.Bytes()}} {
		p := write(t, dir, c.name, string(c.data[:len(c.data)/2]))
		code, _, stderr := cli(t, "", "dedup", "--quiet", p)
		if code != exitError || !strings.HasPrefix(stderr, "neardup dedup: "+p+":") ||
			!strings.HasSuffix(stderr, ": truncated "+c.kind+" stream (unexpected EOF)\n") || strings.Contains(stderr, "JSON") {
			t.Errorf("%s: exit %d, %q", c.name, code, stderr)
		}
	}
	if code, _, stderr := cli(t, string(gz.Bytes()[:len(gz.Bytes())/2]), "dedup", "--quiet", "-"); code != exitError ||
		!strings.HasPrefix(stderr, "neardup dedup: standard input:") || !strings.Contains(stderr, "truncated gzip stream") {
		t.Errorf("stdin: exit %d, %q", code, stderr)
	}
}
