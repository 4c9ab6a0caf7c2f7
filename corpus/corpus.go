// Package corpus reads documents from text, JSONL, CSV, TSV and Parquet files
// (optionally gzip- or zstd-compressed), standard input and directories, and
// writes the records a caller keeps back out in the input's format.
//
// STUB: contract only; the implementation replaces the bodies.
package corpus

import (
	"errors"
	"io"
)

// Format is an input format.
type Format uint8

const (
	Auto    Format = iota // by extension (after .gz/.zst), a directory is Dir; stdin is sniffed
	Text                  // one document per line
	JSONL                 // one JSON object per line
	CSV                   // comma-separated, header row
	TSV                   // tab-separated, header row
	Parquet               // Apache Parquet
	Dir                   // one document per regular file, id = slash-separated relative path
)

// Sentinel errors, wrapped in *Error.
var (
	ErrMalformed    = errors.New("malformed record")
	ErrMissingField = errors.New("missing field")
)

// ParseFormat parses auto|text|jsonl|csv|tsv|parquet|dir.
func ParseFormat(s string) (Format, error) { panic("unimplemented") }

// String returns the name ParseFormat accepts.
func (f Format) String() string { panic("unimplemented") }

// Detect returns the format Auto resolves to for path.
func Detect(path string) (Format, error) { panic("unimplemented") }

// Options say how to read.
type Options struct {
	Format     Format
	TextFields []string // joined by one space; nil: "text"
	IDField    string   // "": "id" when the file has it, else records are numbered
	SkipBad    bool     // skip malformed records (counted) instead of failing
}

// Error is a problem with one input, naming the file and the line/record.
type Error struct {
	File   string
	Line   int // 1-based line where the record starts; 0 when not applicable
	Record int // 1-based record number; 0 when not applicable
	Err    error
}

func (e *Error) Error() string { panic("unimplemented") }
func (e *Error) Unwrap() error { return e.Err }

// Record is one document.
type Record struct {
	Num  int    // 1-based record number in its file (data records only, header excluded)
	Line int    // 1-based line where it starts (0 for Parquet and Dir)
	ID   string // id field value; "" when the input has no id field
	Text []byte // text fields joined by one space; aliases the reader's buffers until the next Next
}

// Reader reads records from one input. Not safe for concurrent use.
type Reader struct{}

// Open opens path ("-" for standard input) for reading.
func Open(path string, o Options) (*Reader, error) { panic("unimplemented") }

// Next returns the next record, or io.EOF after the last. The record and its
// Text are valid until the next call.
func (r *Reader) Next() (*Record, error) { panic("unimplemented") }

// Skipped returns how many bad records SkipBad skipped so far.
func (r *Reader) Skipped() int { panic("unimplemented") }

// Close releases the input.
func (r *Reader) Close() error { panic("unimplemented") }

// Filter writes to w, in the format of inputs (all of one format), the records
// of inputs for which keep(fileIndex, recordNum) is true, in input order.
// CSV/TSV: one header row; Parquet: the schema of the first file. Dir inputs
// are not supported here (use FilterDir).
func Filter(w io.Writer, inputs []string, o Options, keep func(file, num int) bool) error {
	panic("unimplemented")
}

// FilterDir copies the files of directory src whose record number satisfies
// keep into dst (which must not exist), keeping relative paths.
func FilterDir(dst, src string, keep func(num int) bool) error { panic("unimplemented") }

// NewCompressWriter wraps w in gzip or zstd compression when name ends in .gz
// or .zst, and returns a no-op closer otherwise. Close flushes but does not close w.
func NewCompressWriter(w io.Writer, name string) (io.WriteCloser, error) { panic("unimplemented") }
