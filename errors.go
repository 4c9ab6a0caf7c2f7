package neardup

import (
	"errors"

	"github.com/neardup/neardup/internal/sentinel"
)

// Sentinel errors. Errors returned by this package wrap one of them (with
// %w and context), so callers test them with errors.Is. Their messages, like
// every sentinel's of this module, start with their package's name.
//
// ErrOptions, ErrInvalid, ErrCorrupt and ErrVersion are also the errors of
// those meanings in the packages below (shingle.ErrInvalidOptions,
// lsh.ErrInvalid, minhash.ErrCorrupt and minhash.ErrVersion,
// corpus.ErrCorrupt, client.ErrCorrupt): one value each, so that a test
// for neardup.ErrCorrupt finds a corrupt index record, signature encoding
// or Parquet file alike.
var (
	// ErrOptions: an Options or Params field is outside its documented
	// range, or fields contradict each other.
	ErrOptions = sentinel.Options
	// ErrRan: Add or Run on a Batch whose Run has been called.
	ErrRan = errors.New("neardup: batch already run")
	// ErrClosed: Add or Run on a Batch after Close.
	ErrClosed = errors.New("neardup: batch closed")
	// ErrTooLarge: a document over 2 GiB, or more documents than a Batch
	// can number (2^32-2).
	ErrTooLarge = errors.New("neardup: too large")
	// ErrDuplicateID: two documents with one id where ids must be unique
	// (Options.StrictIDs).
	ErrDuplicateID = errors.New("neardup: duplicate id")
	// ErrIncompatible: Params that differ in what they sketch
	// (Params.Compatible), such as an index opened with other shingling.
	ErrIncompatible = errors.New("neardup: incompatible parameters")
	// ErrCorrupt: data that cannot be trusted: an encoding that cannot be
	// decoded (of Params, of a signature, of an index's records), a record
	// or file that fails its checksum or its own consistency checks (an
	// index that lost acknowledged writes, a Parquet file's metadata). The
	// error wrapping it names what failed.
	ErrCorrupt = sentinel.Corrupt
	// ErrVersion: an encoding made by another version of the sketch scheme
	// or of the encoding itself.
	ErrVersion = sentinel.Version
	// ErrChanged: in the two-pass mode (Options.Reread), a document read
	// again has another shingle set than when it was added: the input
	// changed during the run.
	ErrChanged = errors.New("neardup: document changed between the passes")
)

// ErrInvalid is wrapped by errors for arguments outside a function's
// documented range (an index out of range, inconsistent groups).
var ErrInvalid = sentinel.Invalid
