package atomicfile

import (
	"os"
	"path/filepath"
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
	f.WriteString("new")
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Fatalf("target changed before Commit: %q", b)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("after Commit: %q", b)
	}
	g, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	g.WriteString("half")
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
	if _, err := Create(filepath.Join(t.TempDir(), "nope", "x")); err == nil {
		t.Fatal("want an error for a missing directory")
	}
}
