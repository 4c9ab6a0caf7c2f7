package atomicfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("new"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Fatalf("target changed before Commit: %q", b)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("after Commit: %q", b)
	}
	if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode after Commit: %v, %v", st.Mode(), err)
	}
	if err := f.Commit(); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("second Commit: %v", err)
	}
	g, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write([]byte("half")); err != nil {
		t.Fatal(err)
	}
	g.Abort()
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("Abort changed the target: %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}
}

func TestCreateInMissingDir(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope", "x")
	_, err := Create(p)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Create in a missing directory: %v, want ErrNotExist", err)
	}
	if !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("error %q should name %s and not the temporary file", err, p)
	}
}

// TestCommitSyncsDir checks that Commit syncs the target's directory after
// the rename and reports a failure naming the target.
func TestCommitSyncsDir(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	var synced []string
	var fail error
	old := syncDirHook
	defer func() { syncDirHook = old }()
	syncDirHook = func(d string) error {
		// The rename has happened when the directory is synced.
		if b, err := os.ReadFile(p); err != nil || string(b) != "data" {
			t.Errorf("directory synced before the rename: %q, %v", b, err)
		}
		synced = append(synced, d)
		if fail != nil {
			return fail
		}
		return old(d)
	}
	commit := func() error {
		f, err := Create(p)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("data")
		return f.Commit()
	}
	if err := commit(); err != nil {
		t.Fatal(err)
	}
	if len(synced) != 1 || synced[0] != dir {
		t.Fatalf("synced %q, want [%s]", synced, dir)
	}
	fail = &fs.PathError{Op: "sync", Path: dir, Err: syscall.EIO}
	err := commit()
	if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), p) {
		t.Errorf("sync failure: %v; want EIO naming %s", err, p)
	}
	// A relative path in the working directory syncs ".".
	t.Chdir(dir)
	synced, fail = nil, nil
	p = "rel.txt"
	if err := commit(); err != nil {
		t.Fatal(err)
	}
	if len(synced) != 1 || synced[0] != "." {
		t.Errorf("synced %q, want [.]", synced)
	}
}

func TestSyncDir(t *testing.T) {
	if err := syncDir(t.TempDir()); err != nil {
		t.Errorf("syncDir: %v", err)
	}
	if err := syncDir(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("syncDir of a missing directory: %v", err)
	}
	for _, e := range []error{syscall.EINVAL, syscall.ENOTSUP, &fs.PathError{Op: "sync", Path: "d", Err: syscall.EINVAL}} {
		if err := unsupportedOK(e); err != nil {
			t.Errorf("unsupportedOK(%v) = %v, want nil", e, err)
		}
	}
	if err := unsupportedOK(syscall.EIO); err != syscall.EIO {
		t.Errorf("unsupportedOK(EIO) = %v", err)
	}
}

// TestErrorsNameTheTarget makes writes and the rename fail and checks that
// the errors name the destination, not the temporary file.
func TestErrorsNameTheTarget(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.csv")
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	tmp := f.File.Name()
	f.File.Close() // make writes fail
	check := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
		if !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), filepath.Base(tmp)) {
			t.Errorf("%s: %q should name %s, not %s", what, err, p, tmp)
		}
	}
	_, err = f.Write([]byte("x"))
	check("Write", err)
	if !errors.Is(err, os.ErrClosed) {
		t.Errorf("Write error %v does not wrap os.ErrClosed", err)
	}
	_, err = f.WriteString("x")
	check("WriteString", err)
	_, err = f.ReadFrom(strings.NewReader("x"))
	check("ReadFrom", err)
	check("Commit", f.Commit())
	if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temporary file left after a failed Commit: %v", err)
	}

	// The rename fails when the target is a non-empty directory.
	q := filepath.Join(dir, "taken")
	if err := os.MkdirAll(filepath.Join(q, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	g, err := Create(q)
	if err != nil {
		t.Fatal(err)
	}
	tmp = g.File.Name()
	g.WriteString("data")
	err = g.Commit()
	if err == nil || !strings.Contains(err.Error(), q) || strings.Contains(err.Error(), filepath.Base(tmp)) {
		t.Errorf("rename over a directory: %v", err)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temporary file left after a failed rename: %v", err)
	}
}

// TestWriteback: every WritebackBytes written through Write, WriteString
// and ReadFrom start the write-back of the bytes not started yet, in order
// and without gaps; the file's content is what was written.
func TestWriteback(t *testing.T) {
	type span struct{ off, n int64 }
	var got []span
	defer func(f func(*os.File, int64, int64)) { writebackHook = f }(writebackHook)
	writebackHook = func(f *os.File, off, n int64) {
		got = append(got, span{off, n})
		startWriteback(f, off, n) // the real call, whose errors are ignored
	}
	p := filepath.Join(t.TempDir(), "big")
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	chunk := make([]byte, WritebackBytes/3+5)
	for i := range chunk {
		chunk[i] = byte(i * 7)
	}
	for i := range 4 {
		want = append(want, chunk...)
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
		s := strings.Repeat(string(rune('a'+i)), WritebackBytes/4)
		want = append(want, s...)
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	want = append(want, chunk...)
	if _, err := f.ReadFrom(bytes.NewReader(chunk)); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p); err != nil || !bytes.Equal(b, want) {
		t.Fatalf("content: %d bytes, %v; want %d", len(b), err, len(want))
	}
	total := int64(len(want))
	if len(got) != int(total/WritebackBytes) {
		t.Fatalf("%d write-backs for %d bytes: %v", len(got), total, got)
	}
	var at int64
	for _, s := range got {
		if s.off != at || s.n < WritebackBytes {
			t.Fatalf("write-backs %v: not from %d on, or short", got, at)
		}
		at += s.n
	}
	if total-at >= WritebackBytes {
		t.Errorf("write-backs end at %d of %d bytes", at, total)
	}
}

// Files published one after the other are taken back together: Undo
// puts the previous file back, or removes a new one; Done leaves the new
// files and nothing else.
func TestPublishUndo(t *testing.T) {
	for _, undo := range []bool{true, false} {
		dir := t.TempDir()
		old := filepath.Join(dir, "old.txt")
		if err := os.WriteFile(old, []byte("OLD RESULT"), 0o644); err != nil {
			t.Fatal(err)
		}
		var pubs []*Published
		for _, name := range []string{"old.txt", "new.txt"} {
			f, err := Create(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("NEW " + name)
			if err := f.Prepare(); err != nil {
				t.Fatal(err)
			}
			p, err := f.Publish()
			if err != nil {
				t.Fatal(err)
			}
			pubs = append(pubs, p)
		}
		if b, _ := os.ReadFile(old); string(b) != "NEW old.txt" {
			t.Fatalf("published: %q", b)
		}
		for _, p := range pubs {
			var err error
			if undo {
				err = p.Undo()
			} else {
				err = p.Done()
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		b, _ := os.ReadFile(old)
		_, errNew := os.Stat(filepath.Join(dir, "new.txt"))
		names, _ := os.ReadDir(dir)
		if undo {
			if string(b) != "OLD RESULT" || !errors.Is(errNew, os.ErrNotExist) || len(names) != 1 {
				t.Fatalf("undone: old %q, new %v, files %v", b, errNew, names)
			}
		} else if string(b) != "NEW old.txt" || errNew != nil || len(names) != 2 {
			t.Fatalf("done: old %q, new %v, files %v", b, errNew, names)
		}
	}
}
