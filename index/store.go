package index

import (
	"context"
	"errors"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/sentinel"
)

// Sentinel errors; errors of this package wrap one of them (or one of
// package neardup's: ErrOptions, ErrIncompatible, ErrVersion, ErrCorrupt).
// A stored record or file that fails its checksum or cannot be decoded is
// an error wrapping neardup.ErrCorrupt, naming what failed; it is never
// answered as a missing record or an empty value. ErrNotFound, ErrExists,
// ErrNoShingles, ErrThreshold and ErrNoSpace are also package client's
// errors of the same names (ErrThresholdTooLow there), which the service
// answers them with.
var (
	// ErrNotFound: no document has the id.
	ErrNotFound = sentinel.NotFound
	// ErrExists: a document with the id is already in the index.
	ErrExists = sentinel.Exists
	// ErrNoIndex: the store holds no index (Open of an empty store).
	ErrNoIndex = errors.New("index: no index in the store")
	// ErrNoShingles: the text has no shingles, so it can be nobody's
	// near-duplicate; it is not indexed.
	ErrNoShingles = sentinel.NoShingles
	// ErrThreshold: a query threshold below the index's (the index's
	// bands and rows only find pairs at its threshold with the recall it
	// was built for).
	ErrThreshold = sentinel.Threshold
	// ErrClosed: the index or store was closed.
	ErrClosed = errors.New("index: closed")
	// ErrConflict: a transaction lost a race with another writer and
	// should be run again (Store.Update does that itself; callers see it
	// only when retries run out).
	ErrConflict = errors.New("index: transaction conflict")
	// ErrUnavailable: the store could not be reached or did not answer
	// within its time limit (a shared store's server stopped, paused or
	// unreachable). Retrying later may work; a write that returns it may
	// or may not have taken effect (see the store's Update).
	ErrUnavailable = errors.New("index: store unavailable")
	// ErrNoSpace: the store's disk is full, or below the free space the
	// store keeps in reserve: writes are refused and change nothing, while
	// reads go on. Writes are taken again once space is freed.
	ErrNoSpace = sentinel.NoSpace
	// ErrInUse: another process has the index open (the embedded store
	// is one process's at a time).
	ErrInUse = errors.New("index: in use by another process")
	// ErrReadOnly: a write to a store opened read-only.
	ErrReadOnly = errors.New("index: opened read-only")
)

// Group is a distinct shingle set and the documents that have it. Band
// tables hold group ids, not documents, so ten thousand copies of one text
// are one candidate.
type Group struct {
	Set       []uint64 // sorted, distinct shingle hashes
	Signature []uint32 // Params.Slots values
	Keys      []uint64 // band keys, Params.LSH.Bands of them
}

// Doc is one indexed document.
type Doc struct {
	Seq   uint64 // assigned on insertion, increasing, never reused
	ID    string // the caller's id, unique in the index
	Group uint64 // its shingle set
	Added int64  // insertion time, Unix nanoseconds
	Text  []byte // the text, when the index keeps texts
}

// Meta is what a store records about its index besides the documents.
type Meta struct {
	Params    neardup.Params // resolved
	KeepTexts bool           // documents' texts are stored (Get returns them)
}

// Store keeps an index: its Meta, the groups, the documents and the band
// tables. Implementations: the embedded Pebble store (OpenPebble) and the
// shared Redis store (package index/redisstore).
//
// Update runs fn as one atomic transaction: its writes take effect all
// together or not at all, and no other Update interleaves with it, so a
// check followed by an insert cannot race (two concurrent posts of one
// text are serialised: the second sees the first). A store may run fn more
// than once (optimistic concurrency): fn must not have effects outside tx.
// When Update returns nil the transaction is durable (it survives a crash
// of the process and of the machine, per the store's own guarantee). View
// runs fn for reading; it may run concurrently with other Views and with
// Updates, and sees committed transactions only, but it need not be a
// snapshot: a transaction that commits while fn runs may be visible to
// some of fn's reads and not to others. Package index relies only on what
// holds anyway: a group never changes once made (it exists, the same, or
// is gone), and a member or document that is gone reads as missing.
type Store interface {
	// Meta returns the index's meta, or ErrNoIndex for a new store.
	Meta(ctx context.Context) (Meta, error)
	// Init records m in a new store; ErrExists if it holds an index.
	Init(ctx context.Context, m Meta) error
	// View runs fn for reading, and Update as one atomic, durable
	// transaction (see below).
	View(ctx context.Context, fn func(Tx) error) error
	Update(ctx context.Context, fn func(Tx) error) error
	// Close releases the store (Index.Close calls it).
	Close() error
}

// Tx is a transaction of a Store. Reads see the state when the transaction
// began plus, for some stores, its own writes: callers do not rely on
// reading their own writes. Methods return ErrNotFound for missing records.
type Tx interface {
	// Bucket appends the groups in the bucket (band, key) to dst: a
	// superset of those whose band key is key (a store may compare fewer
	// bits), in ascending order.
	Bucket(dst []uint64, band int, key uint64) ([]uint64, error)
	// Group returns group gid, or ErrNotFound.
	Group(gid uint64) (Group, error)
	// Members appends the documents (Seq) of group gid, ascending.
	Members(dst []uint64, gid uint64) ([]uint64, error)
	// Doc returns the document with sequence number seq, and DocByID the
	// one with the caller's id, or ErrNotFound.
	Doc(seq uint64) (Doc, error)
	DocByID(id string) (Doc, error)
	// Counts returns the number of documents and of groups.
	Counts() (docs, groups int64, err error)
	// EachGroup calls fn for every group in ascending id order, and
	// EachDoc for every document in ascending Seq, stopping at fn's first
	// error (for consistency checks and exports).
	EachGroup(fn func(gid uint64, g Group) error) error
	EachDoc(fn func(d Doc) error) error
	// BucketEntries returns the number of (band, group) entries in the
	// band tables: Bands per group when they are consistent.
	BucketEntries() (int64, error)

	// NewGroup stores g under a new id, puts it in the bucket of each of
	// its band keys, and returns the id.
	NewGroup(g Group) (uint64, error)
	// DeleteGroup removes group gid and its bucket entries; it must have
	// no members left.
	DeleteGroup(gid uint64, g Group) error
	// NewSeq returns the next document sequence number.
	NewSeq() (uint64, error)
	// PutDoc stores d and makes it a member of d.Group.
	PutDoc(d Doc) error
	// DeleteDoc removes d and its membership.
	DeleteDoc(d Doc) error
}
