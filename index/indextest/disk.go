package indextest

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// Disk is a file system whose disk is as full as a test says, for tests of
// what an index does on a full disk: GetDiskUsage reports Free bytes
// free, and while Full is on, writes to the files that Match accepts (all
// when Match is nil) fail with ENOSPC, injected by Pebble's errorfs. While
// Block is not nil, writes to a MANIFEST wait until it is closed (a disk
// that does not answer). Set Match and Block before the file system is
// used.
type Disk struct {
	*errorfs.FS
	Free  atomic.Int64
	Full  atomic.Bool
	Match func(path string) bool
	Block chan struct{}
}

// NewDisk wraps base; its disk reports 1 TiB free.
func NewDisk(base vfs.FS) *Disk {
	d := &Disk{}
	d.Free.Store(1 << 40)
	d.FS = errorfs.Wrap(base, errorfs.InjectorFunc(func(op errorfs.Op) error {
		if d.Block != nil && strings.Contains(op.Path, "MANIFEST") && op.Kind.ReadOrWrite() == errorfs.OpIsWrite {
			<-d.Block
		}
		if !d.Full.Load() || op.Kind.ReadOrWrite() != errorfs.OpIsWrite || op.Kind == errorfs.OpRemove {
			return nil
		}
		if d.Match != nil && !d.Match(op.Path) {
			return nil
		}
		return syscall.ENOSPC
	}))
	return d
}

// GetDiskUsage reports Free bytes free.
func (d *Disk) GetDiskUsage(string) (vfs.DiskUsage, error) {
	free := uint64(max(d.Free.Load(), 0))
	return vfs.DiskUsage{AvailBytes: free, TotalBytes: 1 << 41, UsedBytes: 1<<41 - free}, nil
}

// Suffix matches the paths that end with one of the suffixes.
func Suffix(suffixes ...string) func(string) bool {
	return func(p string) bool {
		for _, s := range suffixes {
			if strings.HasSuffix(p, s) {
				return true
			}
		}
		return false
	}
}

// DirSums returns the SHA-256 of every file of an index directory but its
// LOCK, one "name sum" line each in name order: two calls give the same
// string unless a file changed, appeared or went away.
func DirSums(t testing.TB, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries { // ReadDir sorts by name
		if e.Name() == "LOCK" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %x\n", e.Name(), sha256.Sum256(data))
	}
	return b.String()
}
