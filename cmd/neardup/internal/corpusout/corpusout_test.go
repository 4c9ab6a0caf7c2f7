package corpusout_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/cmd/neardup/internal/corpusout"
	"github.com/neardup/neardup/corpus"
)

func TestDropped(t *testing.T) {
	// Documents 1 and 3 (file 0 record 2, file 1 record 1) and 4 (file 1
	// record 3) are duplicates.
	dup := []bool{false, true, false, true, true}
	fileOf := []int32{0, 0, 1, 1, 1}
	numOf := []int32{1, 2, 0, 1, 3}
	dr := corpusout.NewDropped(3, dup, fileOf, numOf)
	// file, record: left out?
	for _, c := range []struct {
		file, num int
		want      bool
	}{{0, 1, false}, {0, 2, true}, {1, 0, false}, {1, 1, true}, {1, 2, false}, {1, 3, true}, {2, 1, false}} {
		if got := dr.Has(c.file, c.num); got != c.want {
			t.Errorf("Has(%d, %d) = %v, want %v", c.file, c.num, got, c.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { dr.Has(1, 3) }); n != 0 {
		t.Errorf("Has allocates %v times", n)
	}
}

func TestWriteCorpus(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(in, []byte("one\ntwo\nthree\nfour\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	keep := func(file, num int) bool { return num%2 == 1 }
	if err := corpusout.WriteCorpus(&buf, "out.txt.gz", []string{in}, corpus.Options{Format: corpus.Text}, keep); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if want := "one\nthree\n"; string(got) != want {
		t.Errorf("got %q, want %q (records 1 and 3, gzip closed)", got, want)
	}
}

func TestWriteCorpusDir(t *testing.T) {
	src := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "out")
	if err := os.MkdirAll(corpusout.TempDir(path)+"/stale", 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := corpusout.WriteCorpusDir(path, src, func(num int) bool { return num != 2 })
	if err != nil {
		t.Fatal(err)
	}
	if tmp != corpusout.TempDir(path) || !strings.HasPrefix(filepath.Base(tmp), ".out.tmp") || filepath.Dir(tmp) != filepath.Dir(path) {
		t.Errorf("temporary directory %s, want a hidden name beside %s", tmp, path)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "a.txt c.txt" {
		t.Errorf("copied %q, want a.txt c.txt (file 2 left out, the stale directory removed)", got)
	}
}
