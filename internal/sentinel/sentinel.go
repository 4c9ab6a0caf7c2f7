// Package sentinel defines, once, the sentinel errors that several public
// packages return, so that errors.Is matches one value whichever package an
// error came from. Each public package re-exports the ones it returns under
// its own name (neardup.ErrCorrupt, minhash.ErrCorrupt and corpus.ErrCorrupt
// are one value; index.ErrNotFound and client.ErrNotFound are one value);
// users name those, never this package.
//
// A message starts with the name of the package that documents the error
// for users ("neardup: ", "index: "), like every sentinel of the module.
package sentinel

import "errors"

// The engine's, documented by package neardup.
var (
	// Options is neardup.ErrOptions: options outside their range.
	Options = errors.New("neardup: invalid options")
	// Invalid is neardup.ErrInvalid: an argument outside a function's range.
	Invalid = errors.New("neardup: invalid argument")
	// Corrupt is neardup.ErrCorrupt: data that fails its own checks.
	Corrupt = errors.New("neardup: corrupt")
	// Version is neardup.ErrVersion: an encoding of another version.
	Version = errors.New("neardup: unsupported version")
)

// The index's, documented by package index and answered by the service
// with the codes package client maps back to them.
var (
	// NotFound is index.ErrNotFound: no document has the id.
	NotFound = errors.New("index: not found")
	// Exists is index.ErrExists: a document has the id already.
	Exists = errors.New("index: id exists")
	// NoShingles is index.ErrNoShingles: a text too short to shingle.
	NoShingles = errors.New("index: text has no shingles")
	// Threshold is index.ErrThreshold: a query threshold below the index's.
	Threshold = errors.New("index: threshold below the index's")
	// NoSpace is index.ErrNoSpace: the disk is full; reads work.
	NoSpace = errors.New("index: no space left for writes")
)
