package index

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/neardup/neardup"
)

// Opening an index directory safely. Pebble, asked to open a directory
// whose manifest marker is missing, takes it for a new database and
// deletes every table and blob file in it as obsolete; asked to open one
// whose MANIFEST or write-ahead log is damaged in the middle, it reads up
// to the damage and, opened for writing, makes what it read the new state
// and deletes the rest. So OpenPebble first looks at the directory
// (inspectDir), then opens it read-only, with every log Pebble replays
// scanned first (guardFS, scanLog), and compares what it finds with the
// state the index recorded at its last close (the witness file); only
// then, for writing, does it open it again read-write.

// witnessName is the file in which a PebbleStore records, at Init, at
// Close and about once a second while it takes writes, how many write
// transactions it has made durable. Pebble ignores files it does not
// know.
const witnessName = "NEARDUP"

// dirKind is what a directory holds.
type dirKind int

const (
	dirMissing dirKind = iota
	dirEmpty           // exists, holds nothing (or only a LOCK file)
	dirIndex           // a manifest marker and the MANIFEST it names
	dirDamaged         // index files, but no marker or no MANIFEST for it
	dirForeign         // other files only
)

// dirInfo describes an index directory.
type dirInfo struct {
	kind     dirKind
	counts   map[string]int // index files by kind: ".sst", ".blob", ".log", "MANIFEST", "OPTIONS", "marker", witnessName
	marker   string         // the manifest marker's target, "MANIFEST-000123"
	manifest []string       // MANIFEST files present, ascending
	logs     []string       // write-ahead logs present, ascending
	other    []string       // files that are not an index's
}

// inspectDir classifies dir without changing anything in it.
func inspectDir(fs vfs.FS, dir string) (dirInfo, error) {
	d := dirInfo{counts: map[string]int{}}
	if _, err := fs.Stat(dir); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return d, nil // dirMissing
		}
		return d, err
	}
	names, err := fs.List(dir)
	if err != nil {
		return d, err
	}
	sort.Strings(names)
	for _, n := range names {
		switch k := fileKind(n); k {
		case "":
			d.other = append(d.other, n)
		case "LOCK":
		case "marker":
			d.counts[k]++
			if t, ok := strings.CutPrefix(n, "marker.manifest."); ok {
				// marker.manifest.NNNNNN.MANIFEST-XXXXXX
				if _, target, ok := strings.Cut(t, "."); ok {
					d.marker = max(d.marker, target)
				}
			}
		default:
			d.counts[k]++
			switch k {
			case "MANIFEST":
				d.manifest = append(d.manifest, n)
			case ".log":
				d.logs = append(d.logs, n)
			}
		}
	}
	switch {
	case len(d.counts) == 0 && len(d.other) == 0:
		d.kind = dirEmpty
	case d.marker != "" && slicesContains(d.manifest, d.marker):
		d.kind = dirIndex
	case len(d.counts) > 0:
		d.kind = dirDamaged
	default:
		d.kind = dirForeign
	}
	return d, nil
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// fileKind is the kind of an index file by its name, "" for a file that
// is not one.
func fileKind(n string) string {
	switch {
	case n == "LOCK":
		return "LOCK"
	case n == witnessName:
		return witnessName
	case strings.HasPrefix(n, "MANIFEST-"):
		return "MANIFEST"
	case strings.HasPrefix(n, "OPTIONS-"):
		return "OPTIONS"
	case strings.HasPrefix(n, "marker."):
		return "marker"
	}
	for _, ext := range []string{".sst", ".blob", ".log"} {
		if num, ok := strings.CutSuffix(n, ext); ok && num != "" && strings.Trim(num, "0123456789") == "" {
			return ext
		}
	}
	return ""
}

// describe lists the index files of d, "21 .sst, 43 .blob, 1 .log, a
// MANIFEST".
func (d dirInfo) describe() string {
	var parts []string
	for _, k := range []string{".sst", ".blob", ".log", "MANIFEST", "OPTIONS", "marker", witnessName} {
		if n := d.counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	return strings.Join(parts, ", ")
}

// damage says what is missing from a damaged directory.
func (d dirInfo) damage(dir string) error {
	what := "no manifest marker (marker.manifest.*)"
	if d.marker != "" {
		what = fmt.Sprintf("a manifest marker naming %s, which is missing", d.marker)
	}
	return fmt.Errorf("%w: index %s holds index files (%s) but %s: it is damaged; nothing in it was changed (neardup index repair copies what can be read to a new index)",
		neardup.ErrCorrupt, dir, d.describe(), what)
}

// witness is the state a PebbleStore recorded as durable, and the size
// its MANIFEST had then (a MANIFEST only grows, until Pebble starts
// another: one found shorter was cut, and the edits cut are lost).
type witness struct {
	updates, nextSeq, nextGroup uint64
	manifest                    string // "MANIFEST-000123", "" if unknown
	manifestSize                int64
}

// appendWitness encodes w as the witness file's text, with a checksum.
func appendWitness(dst []byte, w witness) []byte {
	body := fmt.Sprintf("neardup index witness 1\nupdates %d\nnext-seq %d\nnext-group %d\n", w.updates, w.nextSeq, w.nextGroup)
	if w.manifest != "" {
		body += fmt.Sprintf("manifest %s %d\n", w.manifest, w.manifestSize)
	}
	dst = append(dst, body...)
	return fmt.Appendf(dst, "crc32c %08x\n", crc32.Checksum([]byte(body), castagnoli))
}

// parseWitness decodes a witness file.
func parseWitness(b []byte) (witness, error) {
	var w witness
	i := bytes.LastIndex(b, []byte("crc32c "))
	if i < 0 || !bytes.HasPrefix(b, []byte("neardup index witness 1\n")) {
		return w, fmt.Errorf("%w: %s: not a witness file", neardup.ErrCorrupt, witnessName)
	}
	sum, err := strconv.ParseUint(strings.TrimSpace(string(b[i+7:])), 16, 32)
	if err != nil || uint32(sum) != crc32.Checksum(b[:i], castagnoli) {
		return w, fmt.Errorf("%w: %s: checksum mismatch", neardup.ErrCorrupt, witnessName)
	}
	sc := bufio.NewScanner(bytes.NewReader(b[:i]))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		if k == "manifest" {
			name, size, _ := strings.Cut(v, " ")
			n, err := strconv.ParseInt(size, 10, 64)
			if err != nil || !strings.HasPrefix(name, "MANIFEST-") {
				return w, fmt.Errorf("%w: %s: %q", neardup.ErrCorrupt, witnessName, sc.Text())
			}
			w.manifest, w.manifestSize = name, n
			continue
		}
		n, err := strconv.ParseUint(v, 10, 64)
		switch k {
		case "updates":
			w.updates = n
		case "next-seq":
			w.nextSeq = n
		case "next-group":
			w.nextGroup = n
		default:
			continue
		}
		if err != nil {
			return w, fmt.Errorf("%w: %s: %q", neardup.ErrCorrupt, witnessName, sc.Text())
		}
	}
	return w, nil
}

// readWitness reads dir's witness file; ok is false when there is none.
func readWitness(fs vfs.FS, dir string) (w witness, ok bool, err error) {
	f, err := fs.Open(fs.PathJoin(dir, witnessName))
	if errors.Is(err, os.ErrNotExist) {
		return w, false, nil
	}
	if err != nil {
		return w, false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return w, false, err
	}
	w, err = parseWitness(b)
	return w, err == nil, err
}

// writeWitness replaces dir's witness file atomically: a temporary file,
// synced, renamed over it, the directory synced.
func writeWitness(fs vfs.FS, dir string, w witness) error {
	tmp := fs.PathJoin(dir, witnessName+".tmp")
	f, err := fs.Create(tmp, vfs.WriteCategoryUnspecified)
	if err != nil {
		return err
	}
	_, err = f.Write(appendWitness(nil, w))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fs.Rename(tmp, fs.PathJoin(dir, witnessName))
	}
	if err != nil {
		fs.Remove(tmp)
		return err
	}
	d, err := fs.OpenDir(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// guardFS is the file system Pebble opens an index through. With scan
// set, every write-ahead log and MANIFEST Pebble opens for reading is
// first read whole by scanLog, and one damaged in its middle is refused
// (the open fails with an error naming the file and the offset) before
// Pebble reads a byte of it. Other calls pass through.
type guardFS struct {
	vfs.FS
	scan bool
	// failed is the last file Pebble could not open or read whole, for
	// the message of a panic of Pebble's that does not name it.
	failed atomic.Pointer[string]
}

// noteFailed records a file that failed.
func (g *guardFS) noteFailed(name string, err error) {
	msg := name + ": " + err.Error()
	g.failed.Store(&msg)
}

// logNumber returns the number of a write-ahead log's file name, and
// whether name is a log's or a MANIFEST's (whose records carry no number).
func logNumber(name string) (uint32, bool) {
	if num, ok := strings.CutSuffix(name, ".log"); ok {
		n, err := strconv.ParseUint(num, 10, 64)
		return uint32(n), err == nil
	}
	return 0, strings.HasPrefix(name, "MANIFEST-")
}

func (g *guardFS) Open(name string, opts ...vfs.OpenOption) (vfs.File, error) {
	if g.scan {
		if num, ok := logNumber(g.PathBase(name)); ok {
			if err := g.check(name, num); err != nil {
				return nil, err
			}
		}
	}
	f, err := g.FS.Open(name, opts...)
	if err != nil {
		g.noteFailed(name, err)
		return nil, err
	}
	return &guardFile{File: f, g: g, name: name}, nil
}

// guardFile records failed reads.
type guardFile struct {
	vfs.File
	g    *guardFS
	name string
}

func (f *guardFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	if err != nil {
		f.g.noteFailed(f.name, fmt.Errorf("read %d bytes at offset %d: %w", len(p), off, err))
	}
	return n, err
}

// check scans one log.
func (g *guardFS) check(name string, num uint32) error {
	f, err := g.FS.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	d, err := scanLog(io.NewSectionReader(f, 0, 1<<62), num)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	if d != nil && d.After >= 0 {
		return &damagedLogError{name: name, manifest: num == 0, d: *d}
	}
	return nil
}

// damagedLogError is a write-ahead log or MANIFEST damaged in its
// middle; it wraps neardup.ErrCorrupt.
type damagedLogError struct {
	name     string
	manifest bool
	d        logDamage
}

func (e *damagedLogError) Error() string {
	what := "write-ahead log"
	if e.manifest {
		what = "MANIFEST"
	}
	return fmt.Sprintf("%v: %s %s: %v: the writes after it would be lost; nothing in the index was changed (neardup index repair copies what can be read to a new index)",
		neardup.ErrCorrupt, what, e.name, &e.d)
}

func (e *damagedLogError) Unwrap() error { return neardup.ErrCorrupt }

// openError words an error of pebble.Open for people: a lock held by
// another process, corruption.
func openError(dir string, err error) error {
	switch {
	case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EACCES) && strings.Contains(err.Error(), "LOCK"),
		strings.Contains(err.Error(), "lock held by current process"):
		return &inUseError{dir}
	case errors.As(err, new(*damagedLogError)):
		var d *damagedLogError
		errors.As(err, &d)
		return d // without Pebble's wrapping
	case errors.Is(err, neardup.ErrCorrupt):
		return err
	case pebble.IsCorruptionError(err):
		return fmt.Errorf("%w: open index %s: %s", neardup.ErrCorrupt, dir, firstLine(err))
	case isNoSpace(err):
		return fmt.Errorf("%w: open index %s: %s", ErrNoSpace, dir, firstLine(err))
	}
	return fmt.Errorf("open index %s: %w", dir, err)
}

// inUseError is an index another process has open; it wraps ErrInUse.
type inUseError struct{ dir string }

func (e *inUseError) Error() string {
	return fmt.Sprintf("index %s is in use by another process (a neardup serve, or another command, has it open)", e.dir)
}

func (e *inUseError) Unwrap() error { return ErrInUse }

// isNoSpace reports whether err is a full disk.
func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || err != nil && strings.Contains(err.Error(), "no space left on device")
}
