// Package atomicfile writes a file so that readers see either the old file
// or the complete new one: data goes to a temporary file in the same
// directory, which Commit syncs and renames over the target.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// File is a pending file. Write to it, then Commit or Abort. It is not safe
// for concurrent use.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts writing path. Nothing appears at path until Commit.
func Create(path string) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &File{File: f, path: path}, nil
}

// Commit flushes the data to disk and renames it to the target path.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("commit %s: already finished", f.path)
	}
	f.done = true
	tmp := f.File.Name()
	if err := f.File.Sync(); err != nil {
		f.File.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	if err := f.File.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	// CreateTemp makes the file 0600; give it the usual permissions.
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	if err := os.Rename(tmp, f.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	return nil
}

// Abort discards the data. It is safe to call after Commit (it does nothing then).
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	tmp := f.File.Name()
	f.File.Close()
	os.Remove(tmp)
}
