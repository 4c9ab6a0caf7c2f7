package corpus

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// dirSrc: one document per regular file below a directory.
type dirSrc struct {
	r      *Reader
	root   string
	files  []string // slash-separated, relative to root
	i      int
	binary bool // include binary files
	buf    []byte
	dec    []byte
	gz     *gzip.Reader
	zd     *zstd.Decoder
}

// binarySniffLen is how much of a file's (decompressed) content isBinary
// looks at, as git and ripgrep do.
const binarySniffLen = 8 << 10

// isBinary reports whether content holds a NUL byte in its first 8 KiB.
func isBinary(content []byte) bool {
	return bytes.IndexByte(content[:min(len(content), binarySniffLen)], 0) >= 0
}

// walkDir lists the regular files below root in the order of
// filepath.WalkDir (lexical within each directory), skipping files and
// directories whose name starts with '.'. Symbolic links are not followed.
func walkDir(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return files, err
}

func (r *Reader) openDir(root string, o Options) error {
	files, err := walkDir(root)
	if err != nil {
		return err
	}
	d := &dirSrc{r: r, root: root, files: files, binary: o.IncludeBinary}
	r.closers = append(r.closers, func() error {
		if d.zd != nil {
			d.zd.Close()
		}
		return nil
	})
	r.src = d
	return nil
}

func (d *dirSrc) next(rec *Record) error {
	for {
		if d.i >= len(d.files) {
			return io.EOF
		}
		rel := d.files[d.i]
		d.i++
		text, err := d.read(filepath.Join(d.root, filepath.FromSlash(rel)))
		if err != nil {
			return badRecord{&Error{File: filepath.Join(d.root, filepath.FromSlash(rel)), Record: d.i, Err: err}}
		}
		if !d.binary && isBinary(text) {
			d.r.skippedBinary++
			continue
		}
		*rec = Record{Num: d.i, ID: rel, Text: text}
		return nil
	}
}

// read returns the content of the file at path, decompressed when it starts
// with a gzip or zstd magic number. The result aliases d's buffers.
func (d *dirSrc) read(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d.buf, err = readAll(d.buf[:0], f)
	if err != nil {
		return nil, err
	}
	switch {
	case bytes.HasPrefix(d.buf, gzipMagic):
		if d.gz == nil {
			d.gz = new(gzip.Reader)
		}
		if err := d.gz.Reset(bytes.NewReader(d.buf)); err != nil {
			return nil, decompressError("gzip", err)
		}
		if d.dec, err = readAll(d.dec[:0], d.gz); err != nil {
			return nil, decompressError("gzip", err)
		}
		return d.dec, nil
	case bytes.HasPrefix(d.buf, zstdMagic):
		if d.zd == nil {
			if d.zd, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1)); err != nil {
				return nil, err
			}
		}
		if d.dec, err = d.zd.DecodeAll(d.buf, d.dec[:0]); err != nil {
			return nil, decompressError("zstd", err)
		}
		return d.dec, nil
	}
	return d.buf, nil
}

// readAll appends the rest of r to dst.
func readAll(dst []byte, r io.Reader) ([]byte, error) {
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}
