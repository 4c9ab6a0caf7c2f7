// Package atomicfile writes a file so that readers see either the old file
// or the complete new one: data goes to a temporary file in the same
// directory, which Commit syncs, renames over the target and makes durable
// by syncing the directory.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// File is a pending file. Write to it, then Commit or Abort. It is not safe
// for concurrent use. Errors from Create, Commit, Write, WriteString and
// ReadFrom name the destination path given to Create, never the temporary
// file (other methods of the embedded *os.File report its own name).
//
// On Linux, every WritebackBytes written through Write, WriteString or
// ReadFrom start the kernel's write-back of those bytes (sync_file_range
// with SYNC_FILE_RANGE_WRITE, which does not wait for the disk): the data
// goes to the disk while the caller produces more, instead of piling up
// as dirty pages for Commit's fsync to wait on (a 12 GB pairs file left
// about 1.5 s of writing to that fsync, 28 ms for a 95 MB one). Writes
// through the embedded *os.File's other methods are not counted.
type File struct {
	*os.File
	path     string
	done     bool
	prepared bool
	direct   bool // path is not a regular file: written in place

	written, started int64 // bytes written, and those whose write-back was started
}

// WritebackBytes is how many bytes written start their write-back (Linux).
const WritebackBytes = 8 << 20

// Create starts writing path. Nothing appears at path until Commit. The
// temporary file is created in path's directory, named "." + base + ".tmp*".
//
// A path that exists and is not a regular file or a directory (/dev/null,
// /dev/stdout, a named pipe) cannot be replaced atomically, and renaming
// over it would destroy it: it is opened and written in place instead,
// Commit closes it and Abort leaves what was written.
func Create(path string) (*File, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("create %s: %w", path, pathless(err))
		}
		return &File{File: f, path: path, direct: true}, nil
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, pathless(err))
	}
	return &File{File: f, path: path}, nil
}

// Write writes b to the pending file. An error is the *os.PathError the
// write gave, with the destination path in place of the temporary name.
func (f *File) Write(b []byte) (int, error) {
	n, err := f.File.Write(b)
	f.wrote(int64(n))
	return n, f.dest(err)
}

// WriteString is Write for a string.
func (f *File) WriteString(s string) (int, error) {
	n, err := f.File.WriteString(s)
	f.wrote(int64(n))
	return n, f.dest(err)
}

// ReadFrom copies r to the pending file until io.EOF (see io.ReaderFrom).
// Errors of the file are reported as for Write.
func (f *File) ReadFrom(r io.Reader) (int64, error) {
	n, err := f.File.ReadFrom(r)
	f.wrote(n)
	return n, f.dest(err)
}

// wrote counts n more bytes written and starts the write-back of the
// bytes not started yet once they reach WritebackBytes. Write-back is a
// hint: its errors are left to Commit's fsync, which reports them.
func (f *File) wrote(n int64) {
	f.written += n
	if f.direct || f.written-f.started < WritebackBytes {
		return
	}
	writebackHook(f.File, f.started, f.written-f.started)
	f.started = f.written
}

// writebackHook is startWriteback; tests replace it.
var writebackHook = startWriteback

// dest replaces the temporary file's name in a *os.PathError by the
// destination path.
func (f *File) dest(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Path == f.File.Name() {
		return &os.PathError{Op: pe.Op, Path: f.path, Err: pe.Err}
	}
	return err
}

// Commit makes the file durable and renames it over the path: Prepare,
// Publish and Published.Done in one step.
func (f *File) Commit() error {
	if err := f.Prepare(); err != nil {
		return err
	}
	p, err := f.Publish()
	if err != nil {
		return err
	}
	return p.Done()
}

// Prepare makes the file durable (fsync) and closes it, ready for
// Publish; nothing appears at the path yet. After an error the temporary
// file is removed.
func (f *File) Prepare() error {
	if f.done || f.prepared {
		return fmt.Errorf("commit %s: already finished", f.path)
	}
	f.prepared = true
	if f.direct {
		if err := f.File.Close(); err != nil {
			return fmt.Errorf("write %s: %w", f.path, pathless(err))
		}
		return nil
	}
	tmp := f.File.Name()
	fail := func(err error) error {
		f.done = true
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", f.path, pathless(err))
	}
	if err := f.File.Sync(); err != nil {
		f.File.Close()
		return fail(err)
	}
	if err := f.File.Close(); err != nil {
		return fail(err)
	}
	// CreateTemp makes the file 0600; give it the usual permissions.
	if err := os.Chmod(tmp, 0o644); err != nil {
		return fail(err)
	}
	return nil
}

// Published is a file renamed into place whose predecessor is kept
// aside (a hard link beside it) until Done, so that Undo can put it
// back: several files published one after the other can be taken back
// together when a later one fails or the run is stopped.
type Published struct {
	path, tmp, backup string // backup: "" when there was no file at path
	direct            bool
}

// Publish renames the prepared file over its path, keeping the file that
// was there aside until Done or Undo. After an error nothing changed at
// the path and the temporary file is removed.
func (f *File) Publish() (*Published, error) {
	if !f.prepared || f.done {
		return nil, fmt.Errorf("publish %s: not prepared, or finished", f.path)
	}
	f.done = true
	if f.direct {
		return &Published{path: f.path, direct: true}, nil
	}
	tmp := f.File.Name()
	p := &Published{path: f.path, tmp: tmp}
	if fi, err := os.Lstat(f.path); err == nil && fi.Mode().IsRegular() {
		dir, base := filepath.Split(f.path)
		if dir == "" {
			dir = "."
		}
		for i := 0; ; i++ {
			b := filepath.Join(dir, fmt.Sprintf(".%s.old%d-%d", base, os.Getpid(), i))
			err := os.Link(f.path, b)
			if err == nil {
				p.backup = b
				break
			}
			if !errors.Is(err, os.ErrExist) || i == 100 {
				os.Remove(tmp)
				return nil, fmt.Errorf("write %s: keep the previous file aside: %w", f.path, pathless(err))
			}
		}
	}
	if err := os.Rename(tmp, f.path); err != nil {
		if p.backup != "" {
			os.Remove(p.backup)
		}
		os.Remove(tmp)
		return nil, fmt.Errorf("write %s: %w", f.path, pathless(err))
	}
	return p, nil
}

// Done removes the predecessor kept aside and makes the rename durable
// by syncing the directory.
func (p *Published) Done() error {
	if p.direct {
		return nil
	}
	if p.backup != "" {
		os.Remove(p.backup)
	}
	if err := syncDirHook(filepath.Dir(p.path)); err != nil {
		return fmt.Errorf("write %s: sync directory: %w", p.path, pathless(err))
	}
	return nil
}

// Undo puts back the file that was at the path before Publish (or
// removes the published one when there was none). A file written in
// place (not a regular file) cannot be taken back.
func (p *Published) Undo() error {
	if p.direct {
		return nil
	}
	var err error
	if p.backup != "" {
		err = os.Rename(p.backup, p.path)
	} else {
		err = os.Remove(p.path)
	}
	if err != nil {
		return fmt.Errorf("restore %s: %w", p.path, pathless(err))
	}
	return unsupportedOK(syncDirHook(filepath.Dir(p.path)))
}

// Abort discards the data. It is safe to call after Commit (it does nothing then).
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	if !f.direct {
		os.Remove(f.File.Name())
	}
}

// syncDir fsyncs directory dir, so that a rename into it is durable. File
// systems that do not support syncing a directory (EINVAL, ENOTSUP) are
// accepted silently: there is nothing more to do on them. On Windows it
// does nothing.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil // directories cannot be opened for syncing; NTFS journals renames
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return unsupportedOK(err)
}

// syncDirHook is syncDir; tests replace it.
var syncDirHook = syncDir

// unsupportedOK returns nil for the errors of a file system that cannot sync
// a directory (EINVAL, ENOTSUP), else err.
func unsupportedOK(err error) error {
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		return nil
	}
	return err
}

// pathless drops the *os.PathError around err, whose path is the temporary
// file's name: the caller's message names the destination instead.
func pathless(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return fmt.Errorf("%s: %w", le.Op, le.Err)
	}
	return err
}
