package index

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/neardup/neardup"
)

// PebbleStore is the embedded Store: records in a Pebble database (an LSM
// tree with a write-ahead log) in one directory, band tables resident in
// memory, rebuilt from the stored band keys when the store opens.
//
// Keys (one byte of kind, then big-endian numbers so that scans run in id
// order):
//
//	"M"                  the index Meta (AppendMeta)
//	"C"                  counters: next seq, next group id, documents,
//	                     groups, write transactions committed
//	"d" seq              a document (AppendDoc) without its text
//	"t" seq              its text, when the index keeps texts (indexes
//	                     written before 2026-11-23 hold it in "d": read
//	                     either way)
//	"i" id               the seq of the document with that id
//	"g" gid              a group's set (AppendGroup with the set only)
//	"s" gid              its signature (AppendGroup with the signature only)
//	"k" gid              its band keys, 8 bytes each, its set size, 4
//	                     bytes, and its signature's digest (AppendDigest), a
//	                     byte a slot: read on open
//
// The set sizes and digests are resident beside the band tables (132 bytes
// a group at 128 slots), so that a search rejects candidates by length and
// by signature (DigestTx) without reading, and reads a set only for the
// few left.
//
//	"m" gid seq          membership of a document in a group (no value)
//
// Beside Pebble's files the directory holds NEARDUP, the witness: the
// count of write transactions made durable (and the next sequence number
// and group id), written at Init, at Close and about once a second while
// writes are taken. An open that finds fewer transactions in the records
// than the witness says were durable fails (acknowledged writes are
// missing: a damaged or deleted write-ahead log or MANIFEST).
//
// Writers are serialised; an Update's batch is committed without a sync
// while it holds the writer lock, then the write-ahead log is synced
// outside it, so concurrent Updates share their syncs (group commit).
// Readers (View) run concurrently with each other and with writers: a
// View reads the committed state as it is when each read is made (read
// committed, not a snapshot), each read of the resident state taking the
// state lock on its own, so that a reader holds off a commit for one
// look-up at most; a commit takes the state lock only to apply its
// changes to the resident tables, never while Pebble writes, so readers
// go on while a write waits on the disk. A PebbleStore is safe for
// concurrent use.
//
// # Faults
//
// A record or file that fails its checksum, or that Pebble cannot read
// (it panics on some missing or truncated files), is an error wrapping
// neardup.ErrCorrupt for that read: never an empty value, never a panic,
// and the store stays open for the rest. Writes are refused with
// ErrNoSpace, changing nothing, while the disk's free space is below
// PebbleOptions.Reserve or after a write met a full disk, and taken again
// once space is back; reads go on. Should a write of the write-ahead log
// itself fail (another process filled the disk past the reserve), Pebble
// cannot take writes any more: every later Update fails at once (Failed
// says why) until the store is reopened, and nothing acknowledged is lost.
type PebbleStore struct {
	db       *pebble.DB
	fs       vfs.FS // o.FS, as Pebble sees it (with the disk-full hook)
	dir      string
	readOnly bool
	reserve  int64
	log      *slog.Logger

	writer chan struct{} // a token: held by an Update for its whole transaction
	state  sync.RWMutex  // guards bands, sizes, digests, ctr and entries against a commit applying
	life   sync.RWMutex  // held for reading by a View, for writing by Close

	meta    *Meta
	bands   []*bandTable
	sizes   []uint32 // set size of each group (0: none), by group id
	digests []byte   // signature digest of each group, slots bytes each, by group id
	slots   int
	ctr     counters
	entries int64 // (band, group) entries in bands
	closed  bool

	// Disk space, under the writer token: when it was last looked at,
	// and the bytes committed since.
	spaceAt    time.Time
	spaceBytes int64
	full       atomic.Bool  // a write met a full disk, or free space was below the reserve
	hardFull   atomic.Int64 // when a write last met a full disk (Unix ns), until a flush or compaction succeeds; 0: none

	failed atomic.Pointer[error] // Pebble's write path failed for good: why

	gfs      *guardFS               // the file system of the open database
	manifest atomic.Pointer[string] // the MANIFEST Pebble writes, "MANIFEST-000123"

	durMu       sync.Mutex
	durable     counters // the newest counters whose transaction is synced
	witnessed   uint64   // durable.updates as the witness file last recorded it
	stopWitness chan struct{}
	witnessDone chan struct{}
}

type counters struct {
	nextSeq, nextGroup uint64
	docs, groups       int64
	updates            uint64 // write transactions committed (0 in indexes written before 2026-11-29)
}

// DefaultReserve is the free disk space PebbleStore keeps by default:
// room for a memtable's flush (64 MiB of records, written as tables and
// blob files), the next write-ahead log Pebble preallocates (110% of a
// memtable) and a compaction's output.
const DefaultReserve = 256 << 20

// writerWait bounds how long an Update waits for another Update's
// transaction to finish (a write stalled on a full disk, say) before it
// gives up with ErrUnavailable (ErrNoSpace when the disk is full).
const writerWait = 10 * time.Second

// PebbleOptions configure OpenPebble.
type PebbleOptions struct {
	// FS is the file system; nil means the operating system's. Tests pass
	// vfs.NewMem() for a store that lives in memory.
	FS vfs.FS
	// CacheSize is Pebble's block cache in bytes; 0 means 256 MiB.
	CacheSize int64
	// MemTableSize is the size of Pebble's memtables in bytes (the
	// records a write-ahead log holds before they are flushed to tables);
	// 0 means 64 MiB.
	MemTableSize int
	// ReadOnly opens an existing index for reading: nothing in its
	// directory is written, renamed or deleted (Pebble replays its
	// write-ahead log in memory), and Init and Update return ErrReadOnly.
	// A missing or empty directory is ErrNoIndex.
	ReadOnly bool
	// Create asks for a new index: the directory must be missing or
	// empty (ErrExists otherwise).
	Create bool
	// Reserve is the free space, in bytes, that writes leave on the
	// index's disk: below it Update returns ErrNoSpace without writing,
	// and OpenPebble does not open for writing (opening replays the
	// write-ahead log into new tables). 0 means DefaultReserve; negative
	// means no check. File systems that do not report their free space
	// (vfs.NewMem) are not checked.
	Reserve int64
	// Logger receives what Pebble reports while the store is open:
	// corruption met by a read, failed flushes and compactions, stalls.
	// nil means slog.Default().
	Logger *slog.Logger
}

// OpenPebble opens the index in dir, or makes dir ready for a new one
// (missing or empty: it is created, and Init records the index). It never
// deletes or rewrites anything it cannot prove stale: a directory that
// holds index files but no valid manifest marker is an error wrapping
// neardup.ErrCorrupt that names what is missing, and so is a write-ahead
// log or MANIFEST damaged before its end (a torn end, the trace of a
// crash, is fine) or records that end before the transactions the
// witness file says were durable; a directory of other files is an error
// wrapping neardup.ErrInvalid; a directory another process has open is
// ErrInUse. The checks open the index read-only first; a store for
// writing is opened after them. ctx bounds the wait for Pebble's open
// (which, on a full disk, can retry for ever): when it ends, or a write
// of the open meets a full disk, OpenPebble returns at once and leaves
// that open to finish, and close, on its own.
func OpenPebble(ctx context.Context, dir string, o PebbleOptions) (*PebbleStore, error) {
	if o.FS == nil {
		o.FS = vfs.Default
	}
	if o.CacheSize == 0 {
		o.CacheSize = 256 << 20
	}
	if o.MemTableSize == 0 {
		o.MemTableSize = 64 << 20
	}
	if o.Reserve == 0 {
		o.Reserve = DefaultReserve
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	info, err := inspectDir(o.FS, dir)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", dir, err)
	}
	switch info.kind {
	case dirForeign:
		return nil, &notIndexError{dir: dir, files: listSome(info.other)}
	case dirDamaged:
		return nil, info.damage(dir)
	case dirMissing, dirEmpty:
		if o.ReadOnly {
			return nil, fmt.Errorf("%w: %s", ErrNoIndex, dir)
		}
	case dirIndex:
		if o.Create {
			return nil, fmt.Errorf("%w: %s holds an index already", ErrExists, dir)
		}
	}
	s := &PebbleStore{dir: dir, readOnly: o.ReadOnly, reserve: o.Reserve, log: o.Logger, writer: make(chan struct{}, 1)}
	s.fs = vfs.OnDiskFull(o.FS, func() {
		s.markFull()
		s.log.Warn("the disk of the index is full: writes are refused until space is freed", "index", dir)
	})
	if info.kind == dirIndex {
		// Look before anything is written: read-only, every log scanned.
		if err := s.open(ctx, o, true, true); err != nil {
			return nil, err
		}
		err := s.checkWitness()
		if err == nil && o.ReadOnly {
			err = s.load()
		}
		if err != nil || o.ReadOnly {
			if err != nil {
				s.closeDB()
				return nil, err
			}
			return s, nil
		}
		s.closeDB()
	}
	if err := s.roomToOpen(); err != nil {
		return nil, err
	}
	if err := s.open(ctx, o, false, false); err != nil {
		return nil, err
	}
	if s.manifest.Load() == nil {
		if info, err := inspectDir(s.fs, dir); err == nil && info.marker != "" {
			s.manifest.Store(&info.marker)
		}
	}
	if err := s.load(); err != nil {
		s.closeDB()
		return nil, err
	}
	s.startWitness()
	return s, nil
}

// notIndexError is a directory of other files; it wraps
// neardup.ErrInvalid.
type notIndexError struct{ dir, files string }

func (e *notIndexError) Error() string {
	return fmt.Sprintf("index %s: the directory holds other files and no index (%s): give a new or empty directory", e.dir, e.files)
}

func (e *notIndexError) Unwrap() error { return neardup.ErrInvalid }

// listSome names a few files.
func listSome(names []string) string {
	if len(names) > 3 {
		return fmt.Sprintf("%s, ... %d in all", joinNames(names[:3]), len(names))
	}
	return joinNames(names)
}

func joinNames(names []string) string {
	var b bytes.Buffer
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
	}
	return b.String()
}

// open opens the Pebble database, read-only or not, scanning the logs it
// replays first if scan.
func (s *PebbleStore) open(ctx context.Context, o PebbleOptions, readOnly, scan bool) error {
	// Tuned for this data (measured on 300k documents, 2-core VM): 64 MiB
	// memtables flush fewer, larger L0 files (the 4 MiB default left half
	// of a bulk load's CPU in compactions); blocks are not compressed
	// (sets and signatures are random bytes: Snappy cost 10% of the CPU to
	// save little); Bloom filters make the lookups of absent ids cheap.
	s.gfs = &guardFS{FS: s.fs, scan: scan}
	opts := &pebble.Options{
		FS:                    s.gfs,
		Logger:                pebbleLogger{s},
		MemTableSize:          uint64(o.MemTableSize),
		L0CompactionThreshold: 4,
		ReadOnly:              readOnly,
		EventListener:         s.events(),
	}
	opts.ApplyCompressionSettings(func() pebble.DBCompressionSettings { return pebble.DBCompressionNone })
	// Values of 256 bytes and more (sets, texts, signatures, band-key
	// records) go to blob files that compactions reference instead of
	// rewriting: measured on a bulk load of 1M generated documents (4.6 GB
	// of records), 58 s instead of 69 s, with queries of new documents
	// within 10% and inserts unchanged. Opening an index written without
	// it upgrades its format (older builds of neardup cannot open it then).
	opts.FormatMajorVersion = pebble.FormatValueSeparation
	opts.Experimental.ValueSeparationPolicy = func() pebble.ValueSeparationPolicy {
		return pebble.ValueSeparationPolicy{Enabled: true, MinimumSize: 256, MaxBlobReferenceDepth: 10,
			RewriteMinimumAge: 5 * time.Minute, TargetGarbageRatio: 0.2}
	}
	for i := range opts.Levels {
		opts.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	cache := pebble.NewCache(o.CacheSize)
	defer cache.Unref()
	opts.Cache = cache
	type result struct {
		db  *pebble.DB
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		func() {
			defer func() {
				if p := recover(); p != nil {
					r.err = s.panicError(p)
				}
			}()
			r.db, r.err = pebble.Open(s.dir, opts)
		}()
		done <- r
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		var err error
		select {
		case r := <-done:
			if r.err != nil {
				return openError(s.dir, r.err)
			}
			s.db = r.db
			return nil
		case <-ctx.Done():
			err = fmt.Errorf("open index %s: %w", s.dir, ctx.Err())
		case <-tick.C:
			if !s.full.Load() {
				continue
			}
			err = fmt.Errorf("%w: open index %s: the disk filled while the write-ahead log was replayed into tables: free space and open it again, or open it read-only", ErrNoSpace, s.dir)
		}
		// Give up; the open goes on, and what it opens is closed.
		go func() {
			if r := <-done; r.db != nil {
				r.db.Close()
			}
		}()
		return err
	}
}

// roomToOpen refuses to open for writing on a disk below the reserve.
func (s *PebbleStore) roomToOpen() error {
	if s.reserve < 0 {
		return nil
	}
	if err := s.fs.MkdirAll(s.dir, 0o755); err != nil {
		return fmt.Errorf("open index %s: %w", s.dir, err)
	}
	du, err := s.fs.GetDiskUsage(s.dir)
	if err != nil || du.AvailBytes >= uint64(s.reserve) {
		return nil
	}
	return fmt.Errorf("%w: open index %s for writing: %s free on its disk, below the %s kept in reserve (opening replays the write-ahead log into tables; writes need room to flush): free space, or open it read-only",
		ErrNoSpace, s.dir, mib(du.AvailBytes), mib(uint64(s.reserve)))
}

func mib(n uint64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// checkWitness compares the records' counters with the witness file.
func (s *PebbleStore) checkWitness() error {
	w, ok, err := readWitness(s.fs, s.dir)
	if err != nil {
		return fmt.Errorf("open index %s: %w", s.dir, err)
	}
	if !ok {
		return nil // an index written before the witness, or made before its first Init
	}
	var c counters
	if v, err := s.get([]byte("C")); err == nil {
		if c, err = decodeCounters(v); err != nil {
			return fmt.Errorf("open index %s: %w", s.dir, err)
		}
	} else if !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("open index %s: %w", s.dir, err)
	}
	if w.manifest != "" {
		if err := s.checkManifest(w); err != nil {
			return err
		}
	}
	if c.updates >= w.updates && c.nextSeq >= w.nextSeq && c.nextGroup >= w.nextGroup {
		return nil
	}
	return fmt.Errorf("%w: index %s has lost acknowledged writes: its records end at write transaction %d (next sequence number %d), but %s recorded %d (next sequence number %d) as durable: a write-ahead log or the MANIFEST is damaged or was deleted; nothing in the index was changed (neardup index repair copies what can be read to a new index and says what is missing)",
		neardup.ErrCorrupt, s.dir, c.updates, c.nextSeq, witnessName, w.updates, w.nextSeq)
}

// checkManifest checks the MANIFEST the witness names, if it is still
// Pebble's: it must be as long as it was then, and check out that far.
func (s *PebbleStore) checkManifest(w witness) error {
	f, err := s.fs.Open(s.fs.PathJoin(s.dir, w.manifest))
	if errors.Is(err, os.ErrNotExist) {
		return nil // Pebble has started another since
	}
	if err != nil {
		return fmt.Errorf("open index %s: %w", s.dir, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("open index %s: %w", s.dir, err)
	}
	lost := "the changes to the index's files it recorded after that point are lost; nothing in the index was changed (neardup index repair copies what can be read to a new index and says what is missing)"
	if fi.Size() < w.manifestSize {
		return fmt.Errorf("%w: index %s: %s is %d bytes, shorter than the %d it had when %s was written: it was cut, and %s",
			neardup.ErrCorrupt, s.dir, w.manifest, fi.Size(), w.manifestSize, witnessName, lost)
	}
	d, err := scanLog(io.NewSectionReader(f, 0, fi.Size()), 0)
	if err != nil {
		return fmt.Errorf("open index %s: read %s: %w", s.dir, w.manifest, err)
	}
	if d != nil && d.Offset < w.manifestSize {
		return fmt.Errorf("%w: index %s: %s: %v, within the %d bytes it had when %s was written: %s",
			neardup.ErrCorrupt, s.dir, w.manifest, d, w.manifestSize, witnessName, lost)
	}
	return nil
}

// pebbleLogger passes Pebble's errors to the store's logger, drops its
// informational messages, and turns its fatal messages into a panic that
// the store recovers where it called Pebble (Pebble calls Fatalf when a
// write of the write-ahead log fails, and expects it not to return).
type pebbleLogger struct{ s *PebbleStore }

func (l pebbleLogger) Infof(string, ...any) {}
func (l pebbleLogger) Errorf(format string, a ...any) {
	l.s.log.Error("pebble: "+fmt.Sprintf(format, a...), "index", l.s.dir)
}
func (l pebbleLogger) Fatalf(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	l.s.log.Error("pebble: "+msg, "index", l.s.dir)
	panic(pebbleFatal(msg))
}

// pebbleFatal is the panic of pebbleLogger.Fatalf.
type pebbleFatal string

// events is what the store does with Pebble's events.
func (s *PebbleStore) events() *pebble.EventListener {
	return &pebble.EventListener{
		BackgroundError: func(err error) {
			if isNoSpace(err) {
				s.markFull()
			}
			s.log.Error("pebble: background error", "index", s.dir, "err", err.Error())
		},
		DataCorruption: func(info pebble.DataCorruptionInfo) {
			// The read that met it returns an error; the store stays up.
			s.log.Error("pebble: corrupt file", "index", s.dir, "path", info.Path, "err", info.Details.Error())
		},
		ManifestCreated: func(info pebble.ManifestCreateInfo) {
			if info.Err != nil {
				return
			}
			name := s.fs.PathBase(info.Path)
			s.manifest.Store(&name)
		},
		FlushEnd: func(info pebble.FlushInfo) {
			if info.Err == nil {
				s.roomAgain("a flush succeeded")
			}
		},
		CompactionEnd: func(info pebble.CompactionInfo) {
			if info.Err == nil {
				s.roomAgain("a compaction succeeded")
			}
		},
		WriteStallBegin: func(info pebble.WriteStallBeginInfo) {
			s.log.Warn("pebble: writes stalled", "index", s.dir, "reason", info.Reason)
		},
	}
}

// panicError turns a panic met while calling Pebble into an error:
// pebbleFatal (the write path failed) or, for any other, a file Pebble
// could not read (it panics on some missing and truncated blob files).
func (s *PebbleStore) panicError(p any) error {
	if f, ok := p.(pebbleFatal); ok {
		return s.fail(errors.New(string(f)))
	}
	file := "a damaged or missing file"
	if s.gfs != nil {
		if f := s.gfs.failed.Load(); f != nil {
			file = "the last file that failed: " + *f
		}
	}
	return fmt.Errorf("%w: index %s: pebble failed reading: %v (%s)", neardup.ErrCorrupt, s.dir, p, file)
}

// fail records that Pebble's write path failed for good and returns the
// error every later write gets.
func (s *PebbleStore) fail(cause error) error {
	sentinel := ErrUnavailable
	if isNoSpace(cause) {
		sentinel = ErrNoSpace
		s.markFull()
	}
	err := fmt.Errorf("%w: index %s cannot take writes until it is reopened (restart the server): %v; every acknowledged write is in its write-ahead log",
		sentinel, s.dir, cause)
	s.failed.CompareAndSwap(nil, &err)
	return *s.failed.Load()
}

// Failed returns why the store cannot take writes until it is reopened,
// or nil.
func (s *PebbleStore) Failed() error {
	if p := s.failed.Load(); p != nil {
		return *p
	}
	return nil
}

// readErr words an error of a read: corruption wraps neardup.ErrCorrupt.
func (s *PebbleStore) readErr(err error) error {
	if err == nil || errors.Is(err, neardup.ErrCorrupt) || errors.Is(err, ErrNotFound) {
		return err
	}
	if pebble.IsCorruptionError(err) {
		return fmt.Errorf("%w: index %s: %s", neardup.ErrCorrupt, s.dir, firstLine(err))
	}
	return err
}

// firstLine is the first line of an error's message: Pebble's errors
// carry details on further lines ("<corruption detail carrier>").
func firstLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

// iterate runs fn over an iterator of [lo, hi), closing it, and returns
// the first error of fn, of the iterator (a value that failed its
// checksum) or of Pebble (a panic), worded by readErr.
func (s *PebbleStore) iterate(lo, hi []byte, fn func(it *pebble.Iterator) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = s.panicError(p)
		}
	}()
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return s.readErr(err)
	}
	err = fn(it)
	if ierr := it.Error(); err == nil {
		err = ierr
	}
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return s.readErr(err)
}

// load reads the meta and counters and rebuilds the band tables.
func (s *PebbleStore) load() error {
	v, err := s.get([]byte("M"))
	if errors.Is(err, ErrNotFound) {
		return nil // a new store
	}
	if err != nil {
		return err
	}
	m, err := DecodeMeta(v)
	if err != nil {
		return err
	}
	s.meta = &m
	if v, err = s.get([]byte("C")); err != nil {
		return fmt.Errorf("counters: %w", err)
	}
	if s.ctr, err = decodeCounters(v); err != nil {
		return err
	}
	s.durable, s.witnessed = s.ctr, s.ctr.updates
	// Read every group's band keys, then build the tables in one go, two
	// bands at a time (see buildBandTable).
	bands := m.Params.LSH.Bands
	s.slots = m.Params.Slots
	// Room to grow by an eighth without a copy (growing copies the
	// arrays under the state lock, which stops every reader meanwhile).
	n, room := int(s.ctr.nextGroup), int(s.ctr.nextGroup)/8+1024
	s.sizes = make([]uint32, n, n+room)
	s.digests = make([]byte, n*s.slots, (n+room)*s.slots)
	entries := make([][]uint64, bands)
	for b := range entries {
		entries[b] = make([]uint64, 0, max(s.ctr.groups, 0))
	}
	err = s.iterate([]byte("k"), []byte("l"), func(it *pebble.Iterator) error {
		for it.First(); it.Valid(); it.Next() {
			k := it.Key()
			v, err := it.ValueAndErr()
			if err != nil {
				return err
			}
			if len(k) != 9 || len(v) != 8*bands+4+s.slots {
				return fmt.Errorf("%w: band keys record %x of %d bytes", neardup.ErrCorrupt, k, len(v))
			}
			gid := binary.BigEndian.Uint64(k[1:])
			if gid == 0 || gid > math.MaxUint32 || gid >= s.ctr.nextGroup {
				return fmt.Errorf("%w: group id %d", neardup.ErrCorrupt, gid)
			}
			s.setSize(gid, binary.LittleEndian.Uint32(v[8*bands:]), v[8*bands+4:])
			for b := range bands {
				entries[b] = append(entries[b], uint64(fold(binary.LittleEndian.Uint64(v[8*b:])))<<32|gid)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("open index %s: %w", s.dir, err)
	}
	s.bands = make([]*bandTable, bands)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(2, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for b := int(next.Add(1) - 1); b < bands; b = int(next.Add(1) - 1) {
				s.bands[b] = buildBandTable(entries[b])
				entries[b] = nil
			}
		})
	}
	wg.Wait()
	for _, t := range s.bands {
		s.entries += int64(t.n)
	}
	return nil
}

// get reads the value of key. A value that fails its checksum (Pebble
// reports it when the read is closed, for values in blob files) or a file
// Pebble cannot read is an error wrapping neardup.ErrCorrupt, never an
// empty value.
func (s *PebbleStore) get(key []byte) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, s.panicError(p)
		}
	}()
	v, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, s.readErr(err)
	}
	out = append([]byte(nil), v...)
	if err := closer.Close(); err != nil {
		return nil, s.readErr(err)
	}
	return out, nil
}

// Meta returns the index's meta, or ErrNoIndex.
func (s *PebbleStore) Meta(ctx context.Context) (Meta, error) {
	s.state.RLock()
	defer s.state.RUnlock()
	if s.meta == nil {
		return Meta{}, ErrNoIndex
	}
	return *s.meta, nil
}

// Init records m in a new store.
func (s *PebbleStore) Init(ctx context.Context, m Meta) error {
	if err := s.acquire(ctx); err != nil {
		return err
	}
	defer s.release()
	if s.closed {
		return ErrClosed
	}
	if s.readOnly {
		return ErrReadOnly
	}
	if s.meta != nil {
		return fmt.Errorf("%w: the store holds an index", ErrExists)
	}
	enc, err := AppendMeta(nil, m)
	if err != nil {
		return err
	}
	ctr := counters{nextSeq: 1, nextGroup: 1}
	err = s.commit(func(b *pebble.Batch) {
		b.Set([]byte("M"), enc, nil)
		b.Set([]byte("C"), appendCounters(nil, ctr), nil)
	}, pebble.Sync)
	if err != nil {
		return err
	}
	s.state.Lock()
	s.meta, s.ctr = &m, ctr
	s.slots = m.Params.Slots
	s.bands = make([]*bandTable, m.Params.LSH.Bands)
	for i := range s.bands {
		s.bands[i] = newBandTable()
	}
	s.state.Unlock()
	s.noteDurable(ctr)
	return s.writeWitness(true)
}

// commit writes one batch, turning Pebble's failures (a panic of its
// fatal path) into errors.
func (s *PebbleStore) commit(fill func(b *pebble.Batch), o *pebble.WriteOptions) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = s.panicError(p)
		}
	}()
	b := s.db.NewBatch()
	defer b.Close()
	fill(b)
	return b.Commit(o)
}

// View runs fn with a read-only transaction that reads the committed
// state (see PebbleStore).
func (s *PebbleStore) View(ctx context.Context, fn func(Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.life.RLock()
	defer s.life.RUnlock()
	s.state.RLock()
	closed, meta, ctr := s.closed, s.meta, s.ctr
	s.state.RUnlock()
	if closed {
		return ErrClosed
	}
	if meta == nil {
		return ErrNoIndex
	}
	return fn(&pebbleTx{s: s, ctr: ctr, view: true})
}

// Update runs fn as one atomic, durable transaction. It writes nothing
// and returns an error wrapping ErrNoSpace while the disk is full (see
// PebbleStore); a transaction whose sync fails returns an error and may
// or may not survive.
func (s *PebbleStore) Update(ctx context.Context, fn func(Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	wrote, c, err := s.update(ctx, fn)
	if err != nil || !wrote {
		return err
	}
	// Sync the log outside the writer lock: Updates that committed
	// meanwhile share this sync, or the one under way.
	if err := s.sync(); err != nil {
		return err
	}
	s.noteDurable(c)
	return nil
}

// sync syncs the write-ahead log.
func (s *PebbleStore) sync() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = s.panicError(p)
		}
	}()
	if err := s.db.LogData(nil, pebble.Sync); err != nil {
		return s.fail(err)
	}
	return nil
}

// acquire takes the writer token, waiting at most writerWait.
func (s *PebbleStore) acquire(ctx context.Context) error {
	select {
	case s.writer <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(writerWait)
	defer t.Stop()
	select {
	case s.writer <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		if s.full.Load() {
			return fmt.Errorf("%w: index %s: a write has waited %v for the disk", ErrNoSpace, s.dir, writerWait)
		}
		return fmt.Errorf("%w: index %s: a write has waited %v for the one before it", ErrUnavailable, s.dir, writerWait)
	}
}

func (s *PebbleStore) release() { <-s.writer }

// update runs fn and commits its batch without a sync, holding the writer
// token (released even if fn panics); wrote is whether it wrote anything,
// c the counters it committed. A commit that waits on the disk longer
// than writerWait (a write stall: flushes failing on a full disk) is
// left to finish on its own, holding the token, and update returns an
// error saying that it may or may not be applied.
func (s *PebbleStore) update(ctx context.Context, fn func(Tx) error) (wrote bool, c counters, err error) {
	if err := s.acquire(ctx); err != nil {
		return false, c, err
	}
	handed := false // the token is the commit's to release
	defer func() {
		if !handed {
			s.release()
		}
	}()
	switch {
	case s.closed:
		return false, c, ErrClosed
	case s.readOnly:
		return false, c, ErrReadOnly
	case s.meta == nil:
		return false, c, ErrNoIndex
	}
	if err := s.writable(); err != nil {
		return false, c, err
	}
	tx := &pebbleTx{s: s, ctr: s.ctr, batch: s.db.NewBatch()}
	// Only this goroutine changes the tables and counters while it holds
	// the writer token, so fn reads them without the state lock.
	if err := fn(tx); err != nil {
		tx.batch.Close()
		return false, c, err
	}
	if tx.batch.Empty() {
		tx.batch.Close()
		return false, c, nil
	}
	tx.ctr.updates++
	tx.batch.Set([]byte("C"), appendCounters(nil, tx.ctr), nil)
	done := make(chan error, 1)
	handed = true
	go func() {
		defer s.release()
		defer tx.batch.Close()
		err := s.commitBatch(tx.batch)
		if err == nil {
			s.apply(tx)
		}
		done <- err
	}()
	t := time.NewTimer(writerWait)
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			return false, c, err
		}
		return true, tx.ctr, nil
	case <-ctx.Done():
		return false, c, fmt.Errorf("index %s: %w while the write waited for the disk; it may still be applied", s.dir, ctx.Err())
	case <-t.C:
		sentinel := ErrUnavailable
		if s.full.Load() {
			sentinel = ErrNoSpace
		}
		return false, c, fmt.Errorf("%w: index %s: the write has waited %v for the disk (writes stall while flushes fail); it may still be applied",
			sentinel, s.dir, writerWait)
	}
}

// apply applies a committed transaction's changes to the resident state.
// Readers go on while Pebble writes; they wait only while this runs.
func (s *PebbleStore) apply(tx *pebbleTx) {
	s.state.Lock()
	for _, op := range tx.ops {
		t := s.bands[op.band]
		if op.add {
			t.add(op.key, op.gid)
			s.entries++
		} else if t.remove(op.key, op.gid) {
			s.entries--
		}
	}
	for _, op := range tx.sizeOps {
		s.setSize(op.gid, op.size, op.digest)
	}
	s.ctr = tx.ctr
	s.state.Unlock()
	s.spaceBytes += int64(tx.batch.Len())
}

// commitBatch commits b without a sync; a failure of Pebble's write path
// fails the store for writes.
func (s *PebbleStore) commitBatch(b *pebble.Batch) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = s.panicError(p)
		}
	}()
	if err := b.Commit(pebble.NoSync); err != nil {
		return s.fail(err)
	}
	return nil
}

// hardFullWait is how long after a write met a full disk writes are
// refused without looking, unless a flush or compaction succeeds first.
const hardFullWait = 10 * time.Second

// markFull records that a write met a full disk. Free space as the file
// system reports it is not enough to take writes again (a quota, or a
// file system that reserves blocks, fails writes with space free): a
// flush or compaction must succeed, or hardFullWait pass.
func (s *PebbleStore) markFull() {
	s.full.Store(true)
	s.hardFull.Store(time.Now().UnixNano())
}

// roomAgain clears the mark of markFull after a background write worked.
func (s *PebbleStore) roomAgain(why string) {
	if s.hardFull.Swap(0) != 0 {
		s.log.Info("the disk of the index takes writes again: "+why, "index", s.dir)
	}
}

// writable refuses a write when the store failed or the disk is full.
// Free space is looked at when the disk was full, or every 100 ms or
// 4 MiB written (a statfs call costs about a microsecond).
func (s *PebbleStore) writable() error {
	if p := s.failed.Load(); p != nil {
		return *p
	}
	if h := s.hardFull.Load(); h != 0 {
		if ago := time.Since(time.Unix(0, h)); ago < hardFullWait {
			return fmt.Errorf("%w: a write to the disk of index %s met a full disk %v ago: writes are refused until a flush succeeds or space is freed",
				ErrNoSpace, s.dir, ago.Round(time.Millisecond))
		}
		s.hardFull.Store(0) // try again, looking at free space first
	}
	if s.reserve < 0 {
		s.full.Store(false)
		return nil
	}
	full := s.full.Load()
	if !full && time.Since(s.spaceAt) < 100*time.Millisecond && s.spaceBytes < 4<<20 {
		return nil
	}
	s.spaceAt, s.spaceBytes = time.Now(), 0
	du, err := s.fs.GetDiskUsage(s.dir)
	if err != nil {
		if full {
			return fmt.Errorf("%w: the disk of index %s is full: writes are refused until space is freed", ErrNoSpace, s.dir)
		}
		return nil // the file system does not tell
	}
	if du.AvailBytes < uint64(s.reserve) {
		if !full {
			s.log.Warn("the disk of the index is below its reserve: writes are refused until space is freed", "index", s.dir,
				"free", mib(du.AvailBytes), "reserve", mib(uint64(s.reserve)))
		}
		s.full.Store(true)
		return fmt.Errorf("%w: %s free on the disk of index %s, below the %s kept in reserve: writes are refused until space is freed",
			ErrNoSpace, mib(du.AvailBytes), s.dir, mib(uint64(s.reserve)))
	}
	if full {
		s.log.Info("the disk of the index has room again: writes are taken", "index", s.dir, "free", mib(du.AvailBytes))
	}
	s.full.Store(false)
	return nil
}

// noteDurable records that the transaction that left the counters c is
// synced.
func (s *PebbleStore) noteDurable(c counters) {
	s.durMu.Lock()
	if c.updates > s.durable.updates || s.durable.updates == 0 {
		s.durable = c
	}
	s.durMu.Unlock()
}

// writeWitness records the durable counters in the witness file, if they
// changed since it was last written or force.
func (s *PebbleStore) writeWitness(force bool) error {
	s.durMu.Lock()
	defer s.durMu.Unlock()
	if !force && s.durable.updates == s.witnessed {
		return nil
	}
	d := s.durable
	w := witness{updates: d.updates, nextSeq: d.nextSeq, nextGroup: d.nextGroup}
	if m := s.manifest.Load(); m != nil {
		if fi, err := s.fs.Stat(s.fs.PathJoin(s.dir, *m)); err == nil {
			w.manifest, w.manifestSize = *m, fi.Size()
		}
	}
	if err := writeWitness(s.fs, s.dir, w); err != nil {
		return fmt.Errorf("index %s: write %s: %w", s.dir, witnessName, err)
	}
	s.witnessed = d.updates
	return nil
}

// startWitness starts the goroutine that writes the witness about once a
// second while transactions are made durable.
func (s *PebbleStore) startWitness() {
	s.stopWitness, s.witnessDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.witnessDone)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-s.stopWitness:
				return
			case <-t.C:
				if err := s.writeWitness(false); err != nil && !isNoSpace(err) {
					s.log.Warn("index: witness not written", "index", s.dir, "err", err)
				}
			}
		}
	}()
}

// Close closes the database, writing the witness of what is durable.
// Calls after Close return ErrClosed. A write stalled on the disk for
// longer than writerWait is left to the process's end: Close then returns
// an error and leaves Pebble open.
func (s *PebbleStore) Close() error {
	if s.stopWitness != nil {
		select {
		case <-s.stopWitness:
		default:
			close(s.stopWitness)
			<-s.witnessDone
		}
	}
	if err := s.acquire(context.Background()); err != nil {
		return fmt.Errorf("close index %s: %w", s.dir, err)
	}
	defer s.release()
	s.life.Lock()
	defer s.life.Unlock()
	s.state.Lock()
	defer s.state.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var werr error
	if !s.readOnly && s.meta != nil {
		werr = s.writeWitness(false)
	}
	if err := s.closeDB(); err != nil {
		return err
	}
	return werr
}

// closeDB closes Pebble, turning a panic of its (it panics when a read
// that met a damaged file left references behind) into an error.
func (s *PebbleStore) closeDB() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("close index %s: pebble: %v", s.dir, p)
		}
	}()
	if s.db == nil {
		return nil
	}
	db := s.db
	s.db = nil
	return db.Close()
}

// setSize records the set size and signature digest of group gid (size
// 0: none, and a nil digest leaves the old one), growing the arrays. A
// digest once written is never overwritten: group ids are not reused, and
// Views read digests after releasing the state lock.
func (s *PebbleStore) setSize(gid uint64, size uint32, digest []byte) {
	if n := int(gid) + 1; n > len(s.sizes) {
		if n <= cap(s.sizes) && n*s.slots <= cap(s.digests) {
			// Zeros: the arrays never shrink, so past len is unused.
			s.sizes, s.digests = s.sizes[:n], s.digests[:n*s.slots]
		} else {
			grow := n - len(s.sizes) + len(s.sizes)/4
			s.sizes = append(s.sizes, make([]uint32, grow)...)
			s.digests = append(s.digests, make([]byte, grow*s.slots)...)
		}
	}
	s.sizes[gid] = size
	copy(s.digests[int(gid)*s.slots:int(gid+1)*s.slots], digest)
}

// ResidentBytes returns the memory held by the band tables and the set
// sizes, the part of the index that stays in memory.
func (s *PebbleStore) ResidentBytes() int64 {
	s.state.RLock()
	defer s.state.RUnlock()
	n := int64(4*cap(s.sizes) + cap(s.digests))
	for _, t := range s.bands {
		n += t.bytes()
	}
	return n
}

// Metrics returns Pebble's own metrics (compactions, cache, WAL).
func (s *PebbleStore) Metrics() *pebble.Metrics { return s.db.Metrics() }

func appendCounters(dst []byte, c counters) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, c.nextSeq)
	dst = binary.LittleEndian.AppendUint64(dst, c.nextGroup)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(c.docs))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(c.groups))
	return binary.LittleEndian.AppendUint64(dst, c.updates)
}

// decodeCounters reads counters of 40 bytes, or of 32 (written before the
// count of transactions, which is then 0).
func decodeCounters(b []byte) (counters, error) {
	if len(b) != 32 && len(b) != 40 {
		return counters{}, fmt.Errorf("%w: counters of %d bytes", neardup.ErrCorrupt, len(b))
	}
	c := counters{
		nextSeq:   binary.LittleEndian.Uint64(b),
		nextGroup: binary.LittleEndian.Uint64(b[8:]),
		docs:      int64(binary.LittleEndian.Uint64(b[16:])),
		groups:    int64(binary.LittleEndian.Uint64(b[24:])),
	}
	if len(b) == 40 {
		c.updates = binary.LittleEndian.Uint64(b[32:])
	}
	return c, nil
}
func key1(kind byte, id uint64) []byte {
	k := make([]byte, 9)
	k[0] = kind
	binary.BigEndian.PutUint64(k[1:], id)
	return k
}

func memberKey(gid, seq uint64) []byte {
	k := make([]byte, 17)
	k[0] = 'm'
	binary.BigEndian.PutUint64(k[1:], gid)
	binary.BigEndian.PutUint64(k[9:], seq)
	return k
}

func idKey(id string) []byte { return append([]byte{'i'}, id...) }

// tableOp is a change to a band table, applied when the batch commits.
type tableOp struct {
	band int
	key  uint64
	gid  uint32
	add  bool
}

// pebbleTx is a transaction: reads from the database and the tables,
// writes to batch (nil in a View) and ops.
type pebbleTx struct {
	s       *PebbleStore
	ctr     counters // as the transaction began
	view    bool     // a View's: reads of the resident state take the state lock
	batch   *pebble.Batch
	ops     []tableOp
	sizeOps []sizeOp
}

// sizeOp records a group's set size and digest (0 and nil when it is
// deleted) at commit.
type sizeOp struct {
	gid    uint64
	size   uint32
	digest []byte
}

// errReadOnly is a write in a View's transaction.
var errReadOnly = fmt.Errorf("%w: a write in a read-only transaction", ErrReadOnly)

// rlock and runlock guard a read of the resident state in a View. An
// Update's transaction needs no lock: only it changes the state, and only
// after its fn returns.
func (tx *pebbleTx) rlock() {
	if tx.view {
		tx.s.state.RLock()
	}
}

func (tx *pebbleTx) runlock() {
	if tx.view {
		tx.s.state.RUnlock()
	}
}

func (tx *pebbleTx) Bucket(dst []uint64, band int, key uint64) ([]uint64, error) {
	if band < 0 || band >= len(tx.s.bands) {
		return dst, fmt.Errorf("%w: band %d of %d", neardup.ErrInvalid, band, len(tx.s.bands))
	}
	tx.rlock()
	defer tx.runlock()
	return tx.s.bands[band].lookup(dst, key), nil
}

func (tx *pebbleTx) Group(gid uint64) (Group, error) {
	set, err := tx.part('g', gid)
	if err != nil {
		return Group{}, err
	}
	sig, err := tx.part('s', gid)
	if err != nil {
		return Group{}, err
	}
	v, err := tx.s.get(key1('k', gid))
	if err != nil {
		return Group{}, err
	}
	keys, err := decodeKeys(v, len(tx.s.bands), tx.s.slots)
	if err != nil {
		return Group{}, err
	}
	return Group{Set: set.Set, Signature: sig.Signature, Keys: keys}, nil
}

// part reads the 'g' (set) or 's' (signature) record of a group.
func (tx *pebbleTx) part(kind byte, gid uint64) (Group, error) {
	v, err := tx.s.get(key1(kind, gid))
	if err != nil {
		return Group{}, err
	}
	return DecodeGroup(v)
}

func decodeKeys(v []byte, bands, slots int) ([]uint64, error) {
	if len(v) != 8*bands+4+slots {
		return nil, fmt.Errorf("%w: band keys record of %d bytes", neardup.ErrCorrupt, len(v))
	}
	keys := make([]uint64, bands)
	for b := range keys {
		keys[b] = binary.LittleEndian.Uint64(v[8*b:])
	}
	return keys, nil
}

// Buckets, Sizes, Signatures, Sets and Docs make pebbleTx a BulkTx.

func (tx *pebbleTx) Buckets(dst []uint64, keys []uint64, maxPerBucket int) ([]uint64, error) {
	if len(keys) > len(tx.s.bands) {
		return dst, fmt.Errorf("%w: %d band keys for %d bands", neardup.ErrInvalid, len(keys), len(tx.s.bands))
	}
	base := len(dst)
	tx.rlock()
	for band, key := range keys {
		from := len(dst)
		dst = tx.s.bands[band].lookup(dst, key)
		if maxPerBucket > 0 && len(dst)-from > maxPerBucket {
			dst = append(dst[:from], dst[len(dst)-maxPerBucket:]...)
		}
	}
	tx.runlock()
	slices.Sort(dst[base:])
	return dst[:base+len(slices.Compact(dst[base:]))], nil
}

// GroupMark makes pebbleTx a GroupMarkTx: the next group id when the
// transaction began. Every group below it that still exists is in the
// band tables (a View reads the tables as they are), and groups never
// change.
func (tx *pebbleTx) GroupMark() uint64 { return tx.ctr.nextGroup }

// Digests makes pebbleTx a DigestTx: the digests are resident. The slices
// alias the store's memory; a group's digest is written once before the
// group is visible and never changes after (removal only zeroes its size),
// and growing the arrays copies them, so the slices stay valid.
func (tx *pebbleTx) Digests(dst [][]byte, gids []uint64) ([][]byte, error) {
	k := tx.s.slots
	tx.rlock()
	defer tx.runlock()
	for _, gid := range gids {
		var d []byte
		if gid < uint64(len(tx.s.sizes)) && tx.s.sizes[gid] != 0 {
			d = tx.s.digests[int(gid)*k : int(gid+1)*k : int(gid+1)*k]
		}
		dst = append(dst, d)
	}
	return dst, nil
}

func (tx *pebbleTx) Sizes(dst []int, gids []uint64) ([]int, error) {
	tx.rlock()
	defer tx.runlock()
	for _, gid := range gids {
		n := 0
		if gid < uint64(len(tx.s.sizes)) {
			n = int(tx.s.sizes[gid])
		}
		dst = append(dst, n)
	}
	return dst, nil
}

func (tx *pebbleTx) Signatures(dst [][]uint32, gids []uint64) ([][]uint32, error) {
	for _, gid := range gids {
		g, err := tx.part('s', gid)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return dst, err
		}
		dst = append(dst, g.Signature)
	}
	return dst, nil
}

// Sets reads the sets through one iterator, seeking in ascending group
// order: cheaper than a Get each when a text has many near-duplicates
// (measured: 2x on sets of texts with hundreds of them).
func (tx *pebbleTx) Sets(dst [][]uint64, gids []uint64) ([][]uint64, error) {
	if len(gids) < 4 {
		for _, gid := range gids {
			g, err := tx.part('g', gid)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return dst, err
			}
			dst = append(dst, g.Set)
		}
		return dst, nil
	}
	order := make([]int, len(gids))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(gids[a], gids[b]) })
	out := make([][]uint64, len(gids))
	err := tx.s.iterate([]byte("g"), []byte("h"), func(it *pebble.Iterator) error {
		for _, i := range order {
			k := key1('g', gids[i])
			if !it.SeekGE(k) {
				// Absent, or a block that could not be read: the next
				// seek would clear the error, so look at it now.
				if err := it.Error(); err != nil {
					return fmt.Errorf("group %d: %w", gids[i], err)
				}
				continue
			}
			if !bytes.Equal(it.Key(), k) {
				continue // the group is gone
			}
			v, err := it.ValueAndErr()
			if err != nil {
				return err
			}
			g, err := DecodeGroup(v)
			if err != nil {
				return fmt.Errorf("group %d: %w", gids[i], err)
			}
			out[i] = g.Set
		}
		return nil
	})
	if err != nil {
		return dst, err
	}
	return append(dst, out...), nil
}

// Docs reads the documents without their texts (a search lists ids).
func (tx *pebbleTx) Docs(dst []Doc, seqs []uint64) ([]Doc, error) {
	for _, seq := range seqs {
		d, err := tx.docRecord(seq)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return dst, err
		}
		d.Text = nil
		dst = append(dst, d)
	}
	return dst, nil
}

func (tx *pebbleTx) docRecord(seq uint64) (Doc, error) {
	v, err := tx.s.get(key1('d', seq))
	if err != nil {
		return Doc{}, err
	}
	return DecodeDoc(v)
}

// withText reads d's text into d.Text unless the record held it.
func (tx *pebbleTx) withText(d Doc) (Doc, error) {
	if d.Text != nil || !tx.s.meta.KeepTexts {
		return d, nil
	}
	t, err := tx.s.get(key1('t', d.Seq))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Doc{}, err
	}
	d.Text = t
	return d, nil
}

func (tx *pebbleTx) Members(dst []uint64, gid uint64) ([]uint64, error) {
	err := tx.s.iterate(key1('m', gid), key1('m', gid+1), func(it *pebble.Iterator) error {
		for it.First(); it.Valid(); it.Next() {
			if k := it.Key(); len(k) == 17 {
				dst = append(dst, binary.BigEndian.Uint64(k[9:]))
			}
		}
		return nil
	})
	return dst, err
}

func (tx *pebbleTx) Doc(seq uint64) (Doc, error) {
	d, err := tx.docRecord(seq)
	if err != nil {
		return Doc{}, err
	}
	return tx.withText(d)
}

func (tx *pebbleTx) DocByID(id string) (Doc, error) {
	v, err := tx.s.get(idKey(id))
	if err != nil {
		return Doc{}, err
	}
	if len(v) != 8 {
		return Doc{}, fmt.Errorf("%w: id record of %d bytes", neardup.ErrCorrupt, len(v))
	}
	return tx.Doc(binary.BigEndian.Uint64(v))
}

func (tx *pebbleTx) Counts() (int64, int64, error) { return tx.ctr.docs, tx.ctr.groups, nil }

func (tx *pebbleTx) EachGroup(fn func(uint64, Group) error) error {
	return tx.scan('g', func(k, _ []byte) error {
		gid := binary.BigEndian.Uint64(k[1:])
		g, err := tx.Group(gid)
		if err != nil {
			return fmt.Errorf("group %d: %w", gid, err)
		}
		tx.rlock()
		sizeOK := gid < uint64(len(tx.s.sizes)) && int(tx.s.sizes[gid]) == len(g.Set)
		n := tx.s.slots
		digestOK := sizeOK && slices.Equal(tx.s.digests[int(gid)*n:int(gid+1)*n], AppendDigest(nil, g.Signature))
		tx.runlock()
		if !sizeOK {
			return fmt.Errorf("%w: group %d: resident size differs from its set's %d", ErrInconsistent, gid, len(g.Set))
		}
		if !digestOK {
			return fmt.Errorf("%w: group %d: resident digest differs from its signature's", ErrInconsistent, gid)
		}
		return fn(gid, g)
	})
}

func (tx *pebbleTx) EachDoc(fn func(Doc) error) error {
	return tx.scan('d', func(_, v []byte) error {
		d, err := DecodeDoc(v)
		if err != nil {
			return err
		}
		if d, err = tx.withText(d); err != nil {
			return err
		}
		return fn(d)
	})
}

func (tx *pebbleTx) scan(kind byte, fn func(k, v []byte) error) error {
	return tx.s.iterate([]byte{kind}, []byte{kind + 1}, func(it *pebble.Iterator) error {
		for it.First(); it.Valid(); it.Next() {
			if len(it.Key()) != 9 {
				return fmt.Errorf("%w: key %x", neardup.ErrCorrupt, it.Key())
			}
			v, err := it.ValueAndErr()
			if err != nil {
				return fmt.Errorf("record %x: %w", it.Key(), err)
			}
			if err := fn(it.Key(), v); err != nil {
				return err
			}
		}
		return nil
	})
}

func (tx *pebbleTx) BucketEntries() (int64, error) {
	tx.rlock()
	defer tx.runlock()
	return tx.s.entries, nil
}

func (tx *pebbleTx) NewGroup(g Group) (uint64, error) {
	if tx.batch == nil {
		return 0, errReadOnly
	}
	if len(g.Keys) != len(tx.s.bands) {
		return 0, fmt.Errorf("%w: %d band keys for %d bands", neardup.ErrInvalid, len(g.Keys), len(tx.s.bands))
	}
	gid := tx.ctr.nextGroup
	if gid > math.MaxUint32 {
		return 0, fmt.Errorf("%w: more than %d groups", neardup.ErrTooLarge, uint32(math.MaxUint32))
	}
	tx.ctr.nextGroup++
	tx.ctr.groups++
	if len(g.Set) == 0 || len(g.Set) > math.MaxUint32 {
		return 0, fmt.Errorf("%w: a group of %d shingles", neardup.ErrInvalid, len(g.Set))
	}
	tx.batch.Set(key1('g', gid), AppendGroup(nil, Group{Set: g.Set}), nil)
	tx.batch.Set(key1('s', gid), AppendGroup(nil, Group{Signature: g.Signature}), nil)
	keys := make([]byte, 0, 8*len(g.Keys)+4)
	for b, k := range g.Keys {
		keys = binary.LittleEndian.AppendUint64(keys, k)
		tx.ops = append(tx.ops, tableOp{band: b, key: k, gid: uint32(gid), add: true})
	}
	keys = binary.LittleEndian.AppendUint32(keys, uint32(len(g.Set)))
	if len(g.Signature) != tx.s.slots {
		return 0, fmt.Errorf("%w: a signature of %d slots for %d", neardup.ErrInvalid, len(g.Signature), tx.s.slots)
	}
	from := len(keys)
	keys = AppendDigest(keys, g.Signature)
	tx.batch.Set(key1('k', gid), keys, nil)
	tx.sizeOps = append(tx.sizeOps, sizeOp{gid, uint32(len(g.Set)), keys[from:]})
	return gid, nil
}

func (tx *pebbleTx) DeleteGroup(gid uint64, g Group) error {
	if tx.batch == nil {
		return errReadOnly
	}
	tx.ctr.groups--
	tx.batch.Delete(key1('g', gid), nil)
	tx.batch.Delete(key1('s', gid), nil)
	tx.batch.Delete(key1('k', gid), nil)
	// Size 0 marks the group gone; its digest stays as it was, since a
	// View may still be reading it (see Digests).
	tx.sizeOps = append(tx.sizeOps, sizeOp{gid, 0, nil})
	for b, k := range g.Keys {
		tx.ops = append(tx.ops, tableOp{band: b, key: k, gid: uint32(gid)})
	}
	return nil
}

func (tx *pebbleTx) NewSeq() (uint64, error) {
	if tx.batch == nil {
		return 0, errReadOnly
	}
	seq := tx.ctr.nextSeq
	tx.ctr.nextSeq++
	return seq, nil
}

func (tx *pebbleTx) PutDoc(d Doc) error {
	if tx.batch == nil {
		return errReadOnly
	}
	tx.ctr.docs++
	if len(d.Text) > 0 {
		tx.batch.Set(key1('t', d.Seq), d.Text, nil)
		d.Text = nil
	}
	tx.batch.Set(key1('d', d.Seq), AppendDoc(nil, d), nil)
	tx.batch.Set(idKey(d.ID), binary.BigEndian.AppendUint64(nil, d.Seq), nil)
	tx.batch.Set(memberKey(d.Group, d.Seq), nil, nil)
	return nil
}

func (tx *pebbleTx) DeleteDoc(d Doc) error {
	if tx.batch == nil {
		return errReadOnly
	}
	tx.ctr.docs--
	tx.batch.Delete(key1('d', d.Seq), nil)
	tx.batch.Delete(key1('t', d.Seq), nil)
	tx.batch.Delete(idKey(d.ID), nil)
	tx.batch.Delete(memberKey(d.Group, d.Seq), nil)
	return nil
}
