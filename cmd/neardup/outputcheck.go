package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkWritable returns an error naming flag and path, as the user gave
// them, if path cannot become an output: its directory is missing or not
// writable, or path is a directory. newDir says path is to be created as a
// directory, so it must not exist at all. It leaves nothing behind.
func checkWritable(flag, path string, newDir bool) error {
	if fi, err := os.Stat(path); err == nil {
		if newDir {
			return fmt.Errorf("%s %s: already exists (a directory output is never overwritten)", flag, path)
		}
		if fi.IsDir() {
			return fmt.Errorf("%s %s: is a directory", flag, path)
		}
	}
	dir := filepath.Dir(path)
	di, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: directory %s does not exist", flag, path, dir)
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, path, osReason(err))
	case !di.IsDir():
		return fmt.Errorf("%s %s: %s is not a directory", flag, path, dir)
	}
	// Permission bits do not tell (ACLs, read-only mounts): try.
	f, err := os.CreateTemp(dir, ".neardup-check-*")
	if err != nil {
		return fmt.Errorf("%s %s: cannot create files in %s: %w", flag, path, dir, osReason(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// namePath returns err, an error of op on path, so that it names path and
// not a temporary file the user never heard of: an error that still holds
// the *os.PathError of the temporary file becomes "op path: reason".
func namePath(op, path string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	if errors.As(err, &pe) || errors.As(err, &le) {
		return fmt.Errorf("%s %s: %w", op, path, osReason(err))
	}
	return err
}

// osReason is the reason of a file system error without the path it
// names, which may be a temporary file the user never heard of: "no such
// file or directory" rather than "open /out/.x.tmp123: no such file or
// directory".
func osReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
