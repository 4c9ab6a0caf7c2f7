package index_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/indextest"
)

// The tests of this file damage real index files on disk, one kind at a
// time, the way a failing disk, a careless copy or an rm would, and check
// what the issue of faults asks: an index whose files lost acknowledged
// writes does not open (naming the file), opening touches nothing, every
// answer of an index that opens is right or an error wrapping
// neardup.ErrCorrupt (never an empty text, never fewer matches), no
// panic reaches the caller, and repair copies what can be read and says
// what it could not.

// faultCorpus is an index on disk and the documents in it.
type faultCorpus struct {
	dir  string
	docs map[string]string // id -> text
	ids  []string
}

// buildFaultIndex makes an index of n generated documents in a new
// directory: the first half flushed to tables and blob files (by closing
// and opening it again), the second half in the live write-ahead log,
// written in transactions of 40 documents; then it is closed.
func buildFaultIndex(t *testing.T, n int) faultCorpus {
	t.Helper()
	texts := indextest.GenDocs(t, n, 7)
	fc := faultCorpus{dir: filepath.Join(t.TempDir(), "ix"), docs: map[string]string{}}
	for i, text := range texts {
		id := fmt.Sprintf("d%05d", i)
		fc.docs[id] = text
		fc.ids = append(fc.ids, id)
	}
	build := func(ids []string, create bool) {
		st, err := index.OpenPebble(ctx, fc.dir, index.PebbleOptions{Create: create})
		if err != nil {
			t.Fatal(err)
		}
		var ix *index.Index
		if create {
			ix, err = index.Create(ctx, st, index.Meta{Params: faultParams(t), KeepTexts: true}, index.Options{})
		} else {
			ix, err = index.Open(ctx, st, index.Options{})
		}
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		_, err = ix.Build(ctx, func() (string, []byte, error) {
			if i == len(ids) {
				return "", nil, errEOF
			}
			i++
			return ids[i-1], []byte(fc.docs[ids[i-1]]), nil
		}, index.BuildOptions{Batch: 40})
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
	}
	build(fc.ids[:n/2], true)
	build(fc.ids[n/2:], false) // opening flushes the first half's log to tables
	// Keep the ids indexed (a text without shingles is not).
	ix := openReadOnly(t, fc.dir)
	defer ix.Close()
	fc.ids = slices.DeleteFunc(fc.ids, func(id string) bool {
		_, err := ix.Get(ctx, id)
		if err != nil && !errors.Is(err, index.ErrNotFound) {
			t.Fatal(err)
		}
		return err != nil
	})
	return fc
}

var (
	errEOF = io.EOF
	ctx    = context.Background()
)

func faultParams(t *testing.T) neardup.Params {
	t.Helper()
	p, err := neardup.Options{}.Params.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// files returns the names of dir's files of a kind ("*.log", "*.sst",
// "*.blob", "MANIFEST-*", ...), ascending.
func files(t *testing.T, dir, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(m)
	return m
}

// openReadOnly opens the index in dir for reading.
func openReadOnly(t *testing.T, dir string) *index.Index {
	t.Helper()
	st, err := index.OpenPebble(ctx, dir, index.PebbleOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(ctx, st, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// currentManifest is the MANIFEST the marker names.
func currentManifest(t *testing.T, dir string) string {
	t.Helper()
	m := files(t, dir, "marker.manifest.*")
	if len(m) != 1 {
		t.Fatalf("manifest markers: %v", m)
	}
	_, name, _ := strings.Cut(strings.TrimPrefix(filepath.Base(m[0]), "marker.manifest."), ".")
	return filepath.Join(dir, name)
}

// flip flips a bit of the byte at off (negative: from the end).
func flip(t *testing.T, path string, off int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if off < 0 {
		off += int64(len(b))
	}
	b[off] ^= 0x10
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func size(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// copyDir copies the index to a new directory for one damage.
func (fc faultCorpus) copy(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "ix")
	if err := os.CopyFS(dst, os.DirFS(fc.dir)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// The kinds of damage, each with what must follow: refused (the open
// fails with an error wrapping ErrCorrupt that names want), or opened
// with every answer right or ErrCorrupt.
var damages = []struct {
	name   string
	damage func(t *testing.T, dir string)
	refuse string // "" if the index may open
}{
	{"wal-flip-middle", func(t *testing.T, dir string) {
		logs := files(t, dir, "*.log")
		last := logs[len(logs)-1]
		flip(t, last, size(t, last)/2)
	}, ".log"},
	{"wal-cut", func(t *testing.T, dir string) {
		logs := files(t, dir, "*.log")
		last := logs[len(logs)-1]
		if err := os.Truncate(last, size(t, last)/3); err != nil {
			t.Fatal(err)
		}
	}, "lost acknowledged writes"},
	{"wal-deleted", func(t *testing.T, dir string) {
		logs := files(t, dir, "*.log")
		os.Remove(logs[len(logs)-1])
	}, "lost acknowledged writes"},
	{"manifest-flip-first", func(t *testing.T, dir string) { flip(t, currentManifest(t, dir), 3) }, "MANIFEST"},
	{"manifest-flip-last", func(t *testing.T, dir string) { flip(t, currentManifest(t, dir), -3) }, "MANIFEST"},
	{"manifest-cut", func(t *testing.T, dir string) {
		m := currentManifest(t, dir)
		if err := os.Truncate(m, size(t, m)-20); err != nil {
			t.Fatal(err)
		}
	}, "MANIFEST"},
	{"manifest-deleted", func(t *testing.T, dir string) { os.Remove(currentManifest(t, dir)) }, "which is missing"},
	{"marker-deleted", func(t *testing.T, dir string) {
		for _, m := range files(t, dir, "marker.manifest.*") {
			os.Remove(m)
		}
	}, "no manifest marker"},
	{"witness-ahead", func(t *testing.T, dir string) {
		// A witness that recorded more than the records hold: the
		// records lost writes.
		index.BumpWitnessForTest(t, dir)
	}, "lost acknowledged writes"},
	{"witness-garbled", func(t *testing.T, dir string) { flip(t, filepath.Join(dir, "NEARDUP"), 30) }, "NEARDUP"},
	{"options-flip", func(t *testing.T, dir string) { flip(t, files(t, dir, "OPTIONS-*")[0], 40) }, ""},
	{"options-deleted", func(t *testing.T, dir string) { os.Remove(files(t, dir, "OPTIONS-*")[0]) }, ""},
	{"sst-flip", func(t *testing.T, dir string) {
		for _, f := range files(t, dir, "*.sst") {
			flip(t, f, size(t, f)/3)
		}
	}, ""},
	{"blob-flip", func(t *testing.T, dir string) {
		for _, f := range files(t, dir, "*.blob") {
			flip(t, f, size(t, f)/2)
		}
	}, ""},
	{"blob-cut", func(t *testing.T, dir string) {
		for _, f := range files(t, dir, "*.blob") {
			os.Truncate(f, size(t, f)/2)
		}
	}, ""},
	{"blob-deleted", func(t *testing.T, dir string) {
		for _, f := range files(t, dir, "*.blob") {
			os.Remove(f)
		}
	}, ""},
}

func TestDamagedIndexFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an index on disk")
	}
	fc := buildFaultIndex(t, 1200)
	if n := len(files(t, fc.dir, "*.sst")); n == 0 {
		t.Fatal("the index has no table files to damage")
	}
	if n := len(files(t, fc.dir, "*.blob")); n == 0 {
		t.Fatal("the index has no blob files to damage")
	}
	// The answers of the undamaged index.
	want := answers(t, fc, fc.dir)
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			dir := fc.copy(t)
			d.damage(t, dir)
			before := indextest.DirSums(t, dir)
			for _, ro := range []bool{true, false} {
				st, err := index.OpenPebble(ctx, dir, index.PebbleOptions{ReadOnly: ro})
				if d.refuse != "" {
					if err == nil {
						st.Close()
						t.Fatalf("read-only %v: opened; want an error naming %q", ro, d.refuse)
					}
					if !errors.Is(err, neardup.ErrCorrupt) || !strings.Contains(err.Error(), d.refuse) {
						t.Fatalf("read-only %v: %v; want an error wrapping ErrCorrupt naming %q", ro, err, d.refuse)
					}
					if after := indextest.DirSums(t, dir); after != before {
						t.Fatalf("read-only %v: the refused open changed the directory", ro)
					}
					continue
				}
				if err != nil {
					if errors.Is(err, neardup.ErrCorrupt) {
						continue // refusing is right too
					}
					t.Fatalf("read-only %v: %v", ro, err)
				}
				checkAnswers(t, fc, st, want)
				if ro {
					if after := indextest.DirSums(t, dir); after != before {
						t.Fatal("a read-only open changed the directory")
					}
				}
			}
			checkSalvage(t, fc, dir)
		})
	}
}

// answer is what an index says of one document.
type answer struct {
	text    string
	matches string
}

// answers reads every document and queries a sample through a read-only
// open of dir.
func answers(t *testing.T, fc faultCorpus, dir string) map[string]answer {
	t.Helper()
	ix := openReadOnly(t, dir)
	defer ix.Close()
	if _, err := ix.Check(ctx); err != nil {
		t.Fatal(err)
	}
	out := map[string]answer{}
	for i, id := range fc.ids {
		d, err := ix.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		a := answer{text: string(d.Text)}
		if i%7 == 0 {
			ms, err := ix.Query(ctx, []byte(fc.docs[id]), index.QueryOptions{})
			if err != nil {
				t.Fatal(err)
			}
			a.matches = fmt.Sprint(ms)
		}
		out[id] = a
	}
	return out
}

// checkAnswers reads and queries the damaged index: each answer is the
// undamaged index's or an error wrapping ErrCorrupt, and Check fails
// with ErrCorrupt unless everything was answered.
func checkAnswers(t *testing.T, fc faultCorpus, st index.Store, want map[string]answer) {
	t.Helper()
	ix, err := index.Open(ctx, st, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := ix.Close(); err != nil {
			t.Logf("close: %v", err) // a damaged file may make Close complain; it must not panic
		}
	}()
	corrupt := 0
	for i, id := range fc.ids {
		d, err := ix.Get(ctx, id)
		switch {
		case err != nil && errors.Is(err, neardup.ErrCorrupt):
			corrupt++
		case err != nil:
			t.Fatalf("get %s: %v; want the text or ErrCorrupt", id, err)
		case string(d.Text) != want[id].text:
			t.Fatalf("get %s: a text of %d bytes, want %d", id, len(d.Text), len(want[id].text))
		}
		if i%7 == 0 {
			ms, err := ix.Query(ctx, []byte(fc.docs[id]), index.QueryOptions{})
			switch {
			case err != nil && errors.Is(err, neardup.ErrCorrupt):
				corrupt++
			case err != nil:
				t.Fatalf("query %s: %v; want the matches or ErrCorrupt", id, err)
			case fmt.Sprint(ms) != want[id].matches:
				t.Fatalf("query %s: %v, want %v", id, ms, want[id].matches)
			}
		}
	}
	_, err = ix.Check(ctx)
	if corrupt > 0 && (err == nil || !errors.Is(err, neardup.ErrCorrupt) && !errors.Is(err, index.ErrInconsistent)) {
		t.Fatalf("%d reads failed as corrupt, yet Check says %v", corrupt, err)
	}
	t.Logf("%d reads corrupt; check: %v", corrupt, err)
}

// checkSalvage repairs dir into a new index: it checks out, every
// document in it is the original's (same text), and the report accounts
// for what is not.
func checkSalvage(t *testing.T, fc faultCorpus, dir string) {
	t.Helper()
	before := indextest.DirSums(t, dir)
	out := filepath.Join(t.TempDir(), "repaired")
	rep, err := index.Salvage(ctx, dir, out, index.PebbleOptions{})
	if err != nil {
		if errors.Is(err, neardup.ErrCorrupt) {
			t.Logf("salvage refused: %v", err)
			return
		}
		t.Fatalf("salvage: %v", err)
	}
	if after := indextest.DirSums(t, dir); after != before {
		t.Fatal("salvage changed the damaged index")
	}
	ix := openReadOnly(t, out)
	defer ix.Close()
	cr, err := ix.Check(ctx)
	if err != nil {
		t.Fatalf("the repaired index: %v", err)
	}
	present := 0
	var missing []string
	for _, id := range fc.ids {
		d, err := ix.Get(ctx, id)
		if errors.Is(err, index.ErrNotFound) {
			missing = append(missing, id)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if string(d.Text) != fc.docs[id] {
			t.Fatalf("repaired %s: another text", id)
		}
		present++
	}
	if int64(present) != rep.Documents || cr.Documents != rep.Documents {
		t.Fatalf("report says %d documents copied; the repaired index has %d (check %d)", rep.Documents, present, cr.Documents)
	}
	// What is missing is accounted for: by the lost log's ids, the
	// unreadable records, the lost sequence numbers or the counters.
	accounted := int64(len(rep.Unreadable) + len(rep.UnreadableIDs))
	var lostIDs []string
	for _, l := range rep.Logs {
		lostIDs = append(lostIDs, l.Added...)
	}
	if rep.Witnessed > rep.Recorded {
		accounted += int64(rep.Witnessed - rep.Recorded)
	}
	if rep.Counted > rep.Documents {
		accounted = max(accounted, rep.Counted-rep.Documents)
	}
	for _, id := range lostIDs {
		if !slices.Contains(missing, id) {
			t.Fatalf("report lists %s as lost after a log's damage, but it is in the repaired index", id)
		}
	}
	if int64(len(missing)) > accounted+int64(len(lostIDs)) {
		t.Fatalf("%d documents missing from the repaired index, the report accounts for %d (%+v)", len(missing), accounted+int64(len(lostIDs)), rep)
	}
	t.Logf("repaired: %d documents, %d missing (report: %d unreadable, %d lost in logs, witnessed %d recorded %d counted %d)",
		present, len(missing), len(rep.Unreadable)+len(rep.UnreadableIDs), len(lostIDs), rep.Witnessed, rep.Recorded, rep.Counted)
}

// An open of an undamaged index for writing after a read-only one leaves
// every document, and reopening after Close is clean.
func TestOpenRoundTrip(t *testing.T) {
	fc := buildFaultIndex(t, 200)
	dir := fc.copy(t)
	st, err := index.OpenPebble(ctx, dir, index.PebbleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(ctx, st, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Add(ctx, "new", []byte(fc.docs[fc.ids[0]]+" and a tail of new words"), index.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = index.OpenPebble(ctx, dir, index.PebbleOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ix, err = index.Open(ctx, st, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	r := indextest.Check(t, ix)
	if r.Documents != int64(len(fc.ids)+1) || r.Texts != r.Documents {
		t.Fatalf("check: %+v; want %d documents, all texts", r, len(fc.ids)+1)
	}
	if _, err := ix.Add(ctx, "x", []byte("a read-only index takes no writes at all"), index.AddOptions{}); !errors.Is(err, index.ErrReadOnly) {
		t.Fatalf("add to a read-only index: %v; want ErrReadOnly", err)
	}
}

// A directory of other files is not an index and is not written to; a
// new index is made only in a missing or empty directory when asked to
// create; a missing directory opened read-only is ErrNoIndex.
func TestOpenDirectoryKinds(t *testing.T) {
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := index.OpenPebble(ctx, other, index.PebbleOptions{}); !errors.Is(err, neardup.ErrInvalid) || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("a directory of other files: %v", err)
	}
	if names, _ := os.ReadDir(other); len(names) != 1 {
		t.Fatalf("the directory of other files was written to: %v", names)
	}
	if _, err := index.OpenPebble(ctx, filepath.Join(t.TempDir(), "none"), index.PebbleOptions{ReadOnly: true}); !errors.Is(err, index.ErrNoIndex) {
		t.Fatalf("a missing directory, read-only: %v", err)
	}
	fc := buildFaultIndex(t, 20)
	if _, err := index.OpenPebble(ctx, fc.dir, index.PebbleOptions{Create: true}); !errors.Is(err, index.ErrExists) {
		t.Fatalf("create over an index: %v", err)
	}
	// A second open of one index, as another process would, is ErrInUse.
	st, err := index.OpenPebble(ctx, fc.dir, index.PebbleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := index.OpenPebble(context.Background(), fc.dir, index.PebbleOptions{ReadOnly: true}); !errors.Is(err, index.ErrInUse) || !strings.Contains(err.Error(), "in use by another process") {
		t.Fatalf("an index open elsewhere: %v", err)
	}
}
