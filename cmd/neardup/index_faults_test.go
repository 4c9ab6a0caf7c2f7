package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/indextest"
)

// A damaged index: every command refuses it, naming what is damaged, and
// changes nothing; index repair copies what can be read and says what is
// lost; the copy checks out.
func TestIndexDamagedCommands(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i, text := range indextest.GenDocs(t, 3000, 11) {
		fmt.Fprintf(&b, "{\"id\":\"d%d\",\"text\":%q}\n", i, text)
	}
	in := write(t, dir, "c.jsonl", b.String())
	ix := filepath.Join(dir, "ix")
	if code, _, stderr := cli(t, "", "index", "build", "--quiet", "--index", ix, in); code != 0 {
		t.Fatalf("build: %d %s", code, stderr)
	}
	logs, _ := filepath.Glob(filepath.Join(ix, "*.log"))
	sort.Strings(logs)
	live := logs[len(logs)-1]
	data, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x08
	if err := os.WriteFile(live, data, 0o644); err != nil {
		t.Fatal(err)
	}
	before := indextest.DirSums(t, ix)
	for _, args := range [][]string{
		{"index", "stats", "--index", ix},
		{"index", "check", "--index", ix},
		{"index", "query", "--index", ix, in},
		{"index", "add", "--index", ix, in},
		{"index", "remove", "--index", ix, "d1"},
		{"serve", "--index", ix, "--addr", "127.0.0.1:0"},
	} {
		code, _, stderr := cli(t, "", args...)
		if code != 1 || !strings.Contains(stderr, "write-ahead log") || !strings.Contains(stderr, filepath.Base(live)) || !strings.Contains(stderr, "offset") {
			t.Errorf("%v: exit %d, %q; want exit 1 naming the log and the offset", args[:2], code, stderr)
		}
		if after := indextest.DirSums(t, ix); after != before {
			t.Fatalf("%v changed the damaged index", args[:2])
		}
	}
	out := filepath.Join(dir, "repaired")
	code, stdout, stderr := cli(t, "", "index", "repair", "--index", ix, "--out", out)
	if code != 0 || !strings.Contains(stdout, "lost: write-ahead log "+filepath.Base(live)) || !strings.Contains(stdout, "check of "+out+": ok") {
		t.Fatalf("repair: exit %d, %q %q", code, stdout, stderr)
	}
	if after := indextest.DirSums(t, ix); after != before {
		t.Fatal("repair changed the damaged index")
	}
	if code, stdout, stderr := cli(t, "", "index", "check", "--index", out); code != 0 || !strings.Contains(stdout, "check: ok") {
		t.Fatalf("check of the repaired index: %d %q %q", code, stdout, stderr)
	}

	// Without its manifest marker: refused, nothing deleted (Pebble would
	// take the directory for a new database and delete every table).
	noMarker := filepath.Join(dir, "nomarker")
	if code, _, stderr := cli(t, "", "index", "build", "--quiet", "--index", noMarker, in); code != 0 {
		t.Fatal(stderr)
	}
	cli(t, "", "index", "remove", "--index", noMarker, "nobody") // an open for writing: the log goes to tables
	markers, _ := filepath.Glob(filepath.Join(noMarker, "marker.manifest.*"))
	for _, m := range markers {
		os.Remove(m)
	}
	before = indextest.DirSums(t, noMarker)
	for _, args := range [][]string{{"index", "stats", "--index", noMarker}, {"index", "add", "--index", noMarker, in}, {"serve", "--index", noMarker, "--addr", "127.0.0.1:0"}} {
		code, _, stderr := cli(t, "", args...)
		if code != 1 || !strings.Contains(stderr, "no manifest marker") || !strings.Contains(stderr, "nothing in it was changed") {
			t.Errorf("%v without a marker: exit %d, %q", args[:2], code, stderr)
		}
	}
	if after := indextest.DirSums(t, noMarker); after != before {
		t.Fatal("a command changed an index without its marker")
	}
	code, stdout, _ = cli(t, "", "index", "repair", "--index", noMarker, "--out", filepath.Join(dir, "nomarker2"))
	if code != 0 || !strings.Contains(stdout, "nothing lost") {
		t.Fatalf("repair without a marker: %d %q", code, stdout)
	}
}

// An index another process has open: every command says so.
func TestIndexInUse(t *testing.T) {
	dir := t.TempDir()
	ix := filepath.Join(dir, "ix")
	if code, _, stderr := cli(t, "", "index", "create", "--index", ix); code != 0 {
		t.Fatal(stderr)
	}
	st, err := index.OpenPebble(context.Background(), ix, index.PebbleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, args := range [][]string{{"index", "stats", "--index", ix}, {"index", "remove", "--index", ix, "a"}, {"serve", "--index", ix, "--addr", "127.0.0.1:0"}} {
		code, _, stderr := cli(t, "", args...)
		if code != 1 || !strings.Contains(stderr, "index "+ix+" is in use by another process") {
			t.Errorf("%v: exit %d, %q; want exit 1 saying it is in use", args[:2], code, stderr)
		}
	}
}
