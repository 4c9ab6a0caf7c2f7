package neardup

import "errors"

// Sentinel errors. Errors returned by this package wrap one of them (with
// %w and context), so callers test them with errors.Is.
var (
	// ErrOptions: an Options or Params field is outside its documented
	// range, or fields contradict each other.
	ErrOptions = errors.New("invalid options")
	// ErrRan: Add or Run on a Batch whose Run has been called.
	ErrRan = errors.New("batch already run")
	// ErrClosed: Add or Run on a Batch after Close.
	ErrClosed = errors.New("batch closed")
	// ErrTooLarge: a document over 2 GiB, or more documents than a Batch
	// can number (2^32-2).
	ErrTooLarge = errors.New("too large")
	// ErrDuplicateID: two documents with one id where ids must be unique
	// (Options.StrictIDs).
	ErrDuplicateID = errors.New("duplicate id")
	// ErrIncompatible: Params that differ in what they sketch
	// (Params.Compatible), such as an index opened with other shingling.
	ErrIncompatible = errors.New("incompatible parameters")
	// ErrCorrupt: stored data that cannot be trusted: an encoding that
	// cannot be decoded (of Params, of an index's records), a record or
	// file that fails its checksum, an index that lost acknowledged
	// writes. The error wrapping it names what failed.
	ErrCorrupt = errors.New("corrupt")
	// ErrVersion: an encoding made by another version of the sketch scheme
	// or of the encoding itself.
	ErrVersion = errors.New("unsupported version")
	// ErrChanged: in the two-pass mode (Options.Reread), a document read
	// again has another shingle set than when it was added: the input
	// changed during the run.
	ErrChanged = errors.New("document changed between the passes")
)

// ErrInvalid is wrapped by errors for arguments outside a function's
// documented range (an index out of range, inconsistent groups).
var ErrInvalid = errors.New("invalid argument")
