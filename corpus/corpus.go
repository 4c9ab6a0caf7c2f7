// Package corpus reads documents from text, JSONL, CSV, TSV and Parquet files
// (optionally gzip- or zstd-compressed), standard input and directories, and
// writes the records a caller keeps back out in the input's format.
//
// Who uses it from outside: the neardup command reads and writes every
// input through it; a library user takes it to feed a neardup.Batch or an
// index from files in those formats (Open, Reader.Next), and to write the
// records a run keeps (Filter).
//
// A Reader yields one Record per document. Record numbers (Record.Num) are
// 1-based and count every data record of the file in order, including
// malformed records that Options.SkipBad skips, so numbers are stable between
// two reads of the same file and Filter can select records by the numbers a
// Reader gave. Blank lines in JSONL, CSV and TSV are not records; in text
// files every line is one.
//
// Invalid UTF-8 is passed through unchanged. A UTF-8 byte order mark at the
// start of a text, JSONL, CSV or TSV input is dropped (Filter writes it
// back). Compression (gzip, zstd) is recognised by magic bytes, so a
// mislabeled file still reads; the .gz/.zst suffix only matters for
// detecting the format from the name. Filter copies the records of text,
// JSONL, CSV and TSV inputs byte for byte; Parquet rows are re-encoded.
//
// JSONL: the text is the TextFields joined by one space, each a string
// (unescaped), a number, bool, object or array as its JSON text, or empty when
// null or absent; a record with none of them is ErrMissingField (with
// SkipBad it is skipped, but an input none of whose records has one ends
// with ErrMissingField). The id is the IDField ("id" by default) as string
// or JSON text, "" when absent. An IDField given explicitly must be in the
// input: when none of the first 1000 records has it (IDProbeRecords), or
// none at all of a shorter input, reading ends with ErrMissingField, whose
// message lists the fields of the records seen. Records that lack it while
// others have it get the id "" (Reader.NoID counts them). The errors about
// missing text fields list the fields seen too.
//
// CSV is strict (encoding/csv); a malformed row costs itself only, see
// Options.SkipBad. TSV accepts CSV-style quoted fields but reads a field with
// stray quotes literally, as real TSV exports need. Default column names
// ("text", "id") match a header case-insensitively; explicit names exactly.
//
// Parquet: leaf columns are named by their dotted path. Before reading, the
// footer and every page header are checked against the file, so that a
// corrupt or forged file cannot make the reader allocate what its metadata
// claims: lengths and list sizes must fit in the bytes that hold them,
// column chunks and pages in the file, a page may claim at most 1024 times
// its compressed size plus 1 MiB uncompressed, and at most as many values
// as its bytes can encode plus 1 Mi (for runs of nulls). A file that breaks
// these is an *Error wrapping ErrCorrupt; encrypted files are not read.
//
// Dir: files whose content is gzip or zstd are decompressed. Binary files,
// whose (decompressed) content has a NUL byte in its first 8 KiB as git and
// ripgrep judge, are skipped and counted (Reader.SkippedBinary) unless
// Options.IncludeBinary; they keep their record number. A text input
// (standard input or a file, whether the format was given, detected or
// sniffed) whose content is binary by the same test is refused at Open with
// ErrBinary unless Options.IncludeBinary.
//
// A compressed stream that ends early is an error naming the file and the
// line it cuts, "truncated gzip stream (unexpected EOF)" (wrapping
// io.ErrUnexpectedEOF); the cut line is not returned as a record.
//
// Standard input ("-" for Open and NewReader) is named "standard input" in
// errors.
package corpus

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/neardup/neardup/internal/sentinel"
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

// prefix starts the messages of this package's sentinel errors.
const prefix = "corpus: "

var formatNames = [...]string{"auto", "text", "jsonl", "csv", "tsv", "parquet", "dir"}

// Sentinel errors, wrapped in *Error. Their messages start with "corpus: ",
// which *Error leaves out: the file and line it names say where the
// message comes from.
var (
	// ErrMalformed: a record that cannot be decoded (invalid JSON, a CSV
	// line with a stray quote, a JSON text field that is not a string).
	ErrMalformed = errors.New("corpus: malformed record")
	// ErrMissingField: a record, or the whole input, without the text or
	// id field the options name.
	ErrMissingField = errors.New("corpus: missing field")
	// ErrUnknownFormat: the format cannot be told from the name (Detect) or
	// from the content of standard input; Options.Format must say it.
	ErrUnknownFormat = errors.New("corpus: unknown format")
	// ErrNoFields: Options.TextFields or IDField name fields of an input
	// that has none (text, or a directory).
	ErrNoFields = errors.New("corpus: input has no fields")
	// ErrCorrupt is neardup.ErrCorrupt, which *Error wraps for a Parquet
	// file whose metadata is inconsistent, or claims more (sizes, counts)
	// than the file can hold.
	ErrCorrupt = sentinel.Corrupt
	// ErrFormatMismatch: an output name's extension names another format
	// than the one the output is written in (CheckOutputName).
	ErrFormatMismatch = errors.New("corpus: output format mismatch")
	// ErrBinary: a text input's content is binary (a NUL byte in its first
	// 8 KiB) and Options.IncludeBinary is not set.
	ErrBinary = errors.New("corpus: binary content")
)

// IDProbeRecords is how many JSONL records are read, at most, looking for
// an explicit Options.IDField before the input is taken to have none.
const IDProbeRecords = 1000

// stdinName names standard input in errors.
const stdinName = "standard input"

// ParseFormat parses auto|text|jsonl|csv|tsv|parquet|dir (case-insensitive).
func ParseFormat(s string) (Format, error) {
	for i, n := range formatNames {
		if strings.EqualFold(s, n) {
			return Format(i), nil
		}
	}
	return Auto, fmt.Errorf("corpus: unknown format %q (want %s)", s, strings.Join(formatNames[:], "|"))
}

// String returns the name ParseFormat accepts.
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// Detect returns the format Auto resolves to for path: Dir for a directory,
// otherwise the format named by the extension after removing a .gz or .zst
// suffix (.txt .text, .jsonl .ndjson .json, .csv, .tsv .tab, .parquet .pq,
// case-insensitive). For "-" (standard input) it returns Auto: Open sniffs
// the content. An unknown extension is an *Error wrapping ErrUnknownFormat
// and suggesting --format.
func Detect(path string) (Format, error) {
	if path == "-" {
		return Auto, nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return Dir, nil
	}
	f, ext, _ := nameFormat(path)
	if f != Auto {
		return f, nil
	}
	what := "no extension"
	if ext != "" {
		what = "unknown extension " + strconv.Quote(ext)
	}
	return Auto, &Error{File: path, Err: fmt.Errorf("%w: cannot detect the format (%s); use --format text|jsonl|csv|tsv|parquet", ErrUnknownFormat, what)}
}

// nameFormat returns the format path's extension names (Auto for none or
// an unknown one), the extension (lower case, after removing a .gz or .zst
// suffix) and that compression suffix.
func nameFormat(path string) (f Format, ext, comp string) {
	base := strings.ToLower(filepath.Base(path))
	for _, c := range []string{".gz", ".zst"} {
		if strings.HasSuffix(base, c) {
			base, comp = strings.TrimSuffix(base, c), c
			break
		}
	}
	ext = filepath.Ext(base)
	switch ext {
	case ".txt", ".text":
		return Text, ext, comp
	case ".jsonl", ".ndjson", ".json":
		return JSONL, ext, comp
	case ".csv":
		return CSV, ext, comp
	case ".tsv", ".tab":
		return TSV, ext, comp
	case ".parquet", ".pq":
		return Parquet, ext, comp
	}
	return Auto, ext, comp
}

// formatExt is the usual extension of each format that has one.
var formatExt = [...]string{Text: ".txt", JSONL: ".jsonl", CSV: ".csv", TSV: ".tsv", Parquet: ".parquet"}

// CheckOutputName checks, before any work is done, the name of an output
// that Filter will write in the input's format: it returns an *Error
// wrapping ErrFormatMismatch, which says how to name the output, when the
// extension of path (after removing a .gz or .zst suffix, as Detect reads
// it) names a known format other than input. A name with no extension or
// an unknown one is accepted, and so are "-" (standard output), a Dir input
// (whose output is a directory of any name) and input Auto (not known yet).
func CheckOutputName(path string, input Format) error {
	if path == "-" || input == Auto || input >= Dir {
		return nil
	}
	f, ext, comp := nameFormat(path)
	if f == Auto || f == input {
		return nil
	}
	name := filepath.Base(path)
	stem := name[:len(name)-len(ext)-len(comp)]
	return &Error{File: path, Err: fmt.Errorf("%w: the extension %s says %v, but the output is written in the input's format, %v; name it %s",
		ErrFormatMismatch, ext, f, input, stem+formatExt[input]+name[len(name)-len(comp):])}
}

// Options say how to read.
type Options struct {
	Format     Format
	TextFields []string // joined by one space; nil: "text"; an error for text and Dir inputs
	IDField    string   // "": "id" when the file has it, else records are numbered; an error for text and Dir inputs; given, it must be in the input (JSONL: see the package doc)
	SkipBad    bool     // skip malformed records (counted) instead of failing

	// IncludeBinary makes a Dir input read binary files (a NUL byte in the
	// first 8 KiB of the decompressed content) as documents, and a text
	// input whose content is binary read as text. By default such files
	// of a Dir input are skipped and counted by Reader.SkippedBinary, and
	// a binary text input is refused with ErrBinary. Other formats ignore
	// it.
	IncludeBinary bool
}

// Error is a problem with one input, naming the file and the line/record.
type Error struct {
	File   string
	Line   int // 1-based line where the record starts; 0 when not applicable
	Record int // 1-based record number; 0 when not applicable
	Err    error
}

// Error formats e as "FILE:LINE: record N: what", leaving out the parts that
// are empty or zero, and the "corpus: " that starts this package's sentinel
// errors: the file and line say where what comes from.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(e.Line))
		b.WriteString(": ")
	}
	if e.Record > 0 {
		b.WriteString("record ")
		b.WriteString(strconv.Itoa(e.Record))
		b.WriteString(": ")
	}
	if e.Err != nil {
		b.WriteString(strings.TrimPrefix(e.Err.Error(), prefix))
	} else {
		b.WriteString("error")
	}
	return b.String()
}

// Unwrap returns e.Err, so that errors.Is finds the sentinel it wraps
// (ErrMalformed, ErrCorrupt, ...).
func (e *Error) Unwrap() error { return e.Err }

// Record is one document.
type Record struct {
	Num  int    // 1-based record number in its file (data records only, header excluded)
	Line int    // 1-based line where it starts (0 for Parquet and Dir)
	ID   string // id field value; "" when the input has no id field
	Text []byte // text fields joined by one space; aliases the reader's buffers until the next Next
}

// Reader reads records from one input. Not safe for concurrent use.
type Reader struct {
	name    string // file name used in errors
	format  Format // resolved format, never Auto
	src     source
	rec     Record
	opts    Options
	skipBad bool
	skipped int
	// skippedBinary counts the binary files a Dir input skipped.
	skippedBinary int
	noID          int   // records with an empty id although Options.IDField was given
	bom           bool  // a UTF-8 byte order mark was dropped at the start
	sniffed       bool  // the format was sniffed from the content
	err           error // sticky error (io.EOF after the end)
	closers       []func() error
}

// source is one format implementation. next fills rec and returns nil, or
// io.EOF at the end, a badRecord for a record SkipBad may skip, or another
// error that ends reading.
type source interface {
	next(rec *Record) error
}

// skipper is a source that can pass over records without decoding them.
type skipper interface {
	// skipTo reads past the records before record num.
	skipTo(num int) error
}

// badRecord marks a skippable per-record error.
type badRecord struct{ e *Error }

func (b badRecord) Error() string { return b.e.Error() }

// Open opens path ("-" for standard input) for reading. With Options.Format
// Auto the format is detected as Detect describes; standard input is sniffed
// from its first 256 KiB (decompressed): Parquet for "PAR1"; JSONL when the
// first non-space byte is '{'; TSV or CSV when the first line that is not
// blank has tabs or commas, the header has at least two fields and the next
// records (at least one, up to 16) read without error with the header's
// number of fields (an error wrapping ErrUnknownFormat when both fit);
// else text. CSV and TSV headers are read and the text and id columns
// checked here (ErrMissingField); Parquet likewise checks its columns. Text
// and Dir inputs have no fields: Options.TextFields or IDField with them is
// an error wrapping ErrNoFields, whether the format was given, detected or
// sniffed. Errors are *Error naming the file.
func Open(path string, o Options) (*Reader, error) {
	r := &Reader{name: path, opts: o, skipBad: o.SkipBad}
	if path == "-" {
		r.name = stdinName
	}
	if err := r.open(path, o); err != nil {
		r.Close()
		var e *Error
		if !errors.As(err, &e) {
			err = &Error{File: r.name, Err: err}
		}
		return nil, err
	}
	return r, nil
}

// NewReader reads the input in, which is named name in errors ("-" is
// standard input, named so). With Format Auto the format is detected from
// name's extension as Detect does, and when that fails it is sniffed as Open
// sniffs standard input. Compressed content is recognised by its magic
// bytes. Dir is not supported. Close does not close in.
func NewReader(in io.Reader, name string, o Options) (*Reader, error) {
	r := &Reader{name: name, opts: o, skipBad: o.SkipBad}
	if name == "-" {
		r.name = stdinName
	}
	f := o.Format
	if f == Auto && name != "" && name != "-" {
		if d, err := Detect(name); err == nil && d != Dir {
			f = d
		}
	}
	var err error
	if f == Dir || f > Dir {
		err = fmt.Errorf("cannot read %v from a stream", f)
	} else {
		err = r.openStream(in, f)
	}
	if err != nil {
		r.Close()
		var e *Error
		if !errors.As(err, &e) {
			err = &Error{File: r.name, Err: err}
		}
		return nil, err
	}
	return r, nil
}

// Format returns the resolved format of the input (never Auto).
func (r *Reader) Format() Format { return r.format }

// Next returns the next record, or io.EOF after the last. The record and its
// Text are valid until the next call; the same *Record is returned each time.
// With Options.SkipBad, malformed records are skipped and counted; otherwise
// the first one ends reading with an *Error wrapping ErrMalformed or
// ErrMissingField. Every error other than io.EOF is an *Error, and it is
// returned again by later calls. Next does not allocate for text and JSONL
// input, apart from Record.ID.
func (r *Reader) Next() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	for {
		err := r.src.next(&r.rec)
		if err == nil {
			if r.rec.ID == "" && r.opts.IDField != "" {
				r.noID++
			}
			return &r.rec, nil
		}
		if b, ok := err.(badRecord); ok {
			if r.skipBad {
				r.skipped++
				continue
			}
			err = b.e
		} else if err != io.EOF {
			var e *Error
			if !errors.As(err, &e) {
				err = &Error{File: r.name, Err: err}
			}
		}
		r.err = err
		return nil, err
	}
}

// SkipTo passes over the records before record num (Record.Num's
// numbering) where that is cheap: for a program that reads an input a
// second time for some of its records (dedup's second pass). In text and
// JSONL input, a record a line, it reads past the lines of the records
// before num without decoding them, so that Next returns record num or a
// later one; a malformed record passed over is neither an error nor
// counted by Skipped. In the other formats it does nothing and Next
// returns every record as before, so a caller still compares Record.Num.
// A num at or before the next record does nothing. It returns io.EOF
// when the input ends first and a read error as Next would; after either,
// Next returns the same error.
func (r *Reader) SkipTo(num int) error {
	if r.err != nil {
		return r.err
	}
	s, ok := r.src.(skipper)
	if !ok {
		return nil
	}
	err := s.skipTo(num)
	if err == nil {
		return nil
	}
	if err != io.EOF {
		var e *Error
		if !errors.As(err, &e) {
			err = &Error{File: r.name, Err: err}
		}
	}
	r.err = err
	return err
}

// Skipped returns how many bad records SkipBad skipped so far.
func (r *Reader) Skipped() int { return r.skipped }

// NoID returns how many of the records read so far have an empty id
// although Options.IDField was given: the field absent (JSONL), null or
// empty. A caller that numbers such records may want to say so. It is 0
// without an explicit IDField.
func (r *Reader) NoID() int { return r.noID }

// SkippedBinary returns how many binary files a Dir input skipped so far
// (see Options.IncludeBinary); 0 for other formats. They are not counted by
// Skipped. A skipped file keeps its record number, so the numbers of the
// other files do not depend on IncludeBinary.
func (r *Reader) SkippedBinary() int { return r.skippedBinary }

// Close releases the input (and removes any temporary spool file). Closing
// standard input is left to the caller.
func (r *Reader) Close() error {
	var first error
	for i := len(r.closers) - 1; i >= 0; i-- {
		if err := r.closers[i](); err != nil && first == nil {
			first = err
		}
	}
	r.closers = nil
	if r.err == nil {
		r.err = io.EOF
	}
	if first != nil {
		return &Error{File: r.name, Err: first}
	}
	return nil
}

func (r *Reader) bad(line, num int, err error) error {
	return badRecord{&Error{File: r.name, Line: line, Record: num, Err: err}}
}

func (r *Reader) ioErr(line int, err error) error {
	if err == io.EOF {
		return err
	}
	return &Error{File: r.name, Line: line, Err: err}
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}
