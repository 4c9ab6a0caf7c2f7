package index

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
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
//	"C"                  counters: next seq, next group id, documents, groups
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
// Writers are serialised; an Update's batch is committed without a sync
// while it holds the writer lock, then the write-ahead log is synced
// outside it, so concurrent Updates share their syncs (group commit).
// Readers (View) run concurrently with each other and with writers: a
// View reads the committed state as it is when each read is made (read
// committed, not a snapshot), each read of the resident state taking the
// state lock on its own, so that a reader holds off a commit for one
// look-up at most. A PebbleStore is safe for concurrent use.
type PebbleStore struct {
	db *pebble.DB

	writer sync.Mutex   // held by an Update for its whole transaction
	state  sync.RWMutex // guards bands, sizes, digests, ctr and entries against a commit applying
	life   sync.RWMutex // held for reading by a View, for writing by Close

	meta    *Meta
	bands   []*bandTable
	sizes   []uint32 // set size of each group (0: none), by group id
	digests []byte   // signature digest of each group, slots bytes each, by group id
	slots   int
	ctr     counters
	entries int64 // (band, group) entries in bands
	closed  bool
}

type counters struct {
	nextSeq, nextGroup uint64
	docs, groups       int64
}

// PebbleOptions configure OpenPebble.
type PebbleOptions struct {
	// FS is the file system; nil means the operating system's. Tests pass
	// vfs.NewMem() for a store that lives in memory.
	FS vfs.FS
	// CacheSize is Pebble's block cache in bytes; 0 means 256 MiB.
	CacheSize int64
}

// OpenPebble opens the store in dir, creating the directory if needed, and
// rebuilds the band tables of the index it holds.
func OpenPebble(dir string, o PebbleOptions) (*PebbleStore, error) {
	if o.CacheSize == 0 {
		o.CacheSize = 256 << 20
	}
	// Tuned for this data (measured on 300k documents, 2-core VM): 64 MiB
	// memtables flush fewer, larger L0 files (the 4 MiB default left half
	// of a bulk load's CPU in compactions); blocks are not compressed
	// (sets and signatures are random bytes: Snappy cost 10% of the CPU to
	// save little); Bloom filters make the lookups of absent ids cheap.
	opts := &pebble.Options{FS: o.FS, Logger: quietLogger{}, MemTableSize: 64 << 20, L0CompactionThreshold: 4}
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
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", dir, err)
	}
	s := &PebbleStore{db: db}
	if err := s.load(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open index %s: %w", dir, err)
	}
	return s, nil
}

// quietLogger drops Pebble's informational messages and keeps its errors
// and fatal messages, which it returns as errors anyway or exits on.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)           {}
func (quietLogger) Errorf(format string, a ...any) { pebble.DefaultLogger.Errorf(format, a...) }
func (quietLogger) Fatalf(format string, a ...any) { pebble.DefaultLogger.Fatalf(format, a...) }

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
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte("k"), UpperBound: []byte("l")})
	if err != nil {
		return err
	}
	for it.First(); it.Valid(); it.Next() {
		k, v := it.Key(), it.Value()
		if len(k) != 9 || len(v) != 8*bands+4+s.slots {
			it.Close()
			return fmt.Errorf("%w: band keys record %x of %d bytes", neardup.ErrCorrupt, k, len(v))
		}
		gid := binary.BigEndian.Uint64(k[1:])
		if gid == 0 || gid > math.MaxUint32 || gid >= s.ctr.nextGroup {
			it.Close()
			return fmt.Errorf("%w: group id %d", neardup.ErrCorrupt, gid)
		}
		s.setSize(gid, binary.LittleEndian.Uint32(v[8*bands:]), v[8*bands+4:])
		for b := range bands {
			entries[b] = append(entries[b], uint64(fold(binary.LittleEndian.Uint64(v[8*b:])))<<32|gid)
		}
	}
	if err := it.Close(); err != nil {
		return err
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

func (s *PebbleStore) get(key []byte) ([]byte, error) {
	v, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), v...)
	closer.Close()
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
	s.writer.Lock()
	defer s.writer.Unlock()
	if s.closed {
		return ErrClosed
	}
	if s.meta != nil {
		return fmt.Errorf("%w: the store holds an index", ErrExists)
	}
	enc, err := AppendMeta(nil, m)
	if err != nil {
		return err
	}
	b := s.db.NewBatch()
	defer b.Close()
	b.Set([]byte("M"), enc, nil)
	ctr := counters{nextSeq: 1, nextGroup: 1}
	b.Set([]byte("C"), appendCounters(nil, ctr), nil)
	if err := b.Commit(pebble.Sync); err != nil {
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
	return nil
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

// Update runs fn as one atomic, durable transaction.
func (s *PebbleStore) Update(ctx context.Context, fn func(Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if wrote, err := s.update(fn); err != nil || !wrote {
		return err
	}
	// Sync the log outside the writer lock: Updates that committed
	// meanwhile share this sync, or the one under way.
	return s.db.LogData(nil, pebble.Sync)
}

// update runs fn and commits its batch without a sync, holding the writer
// lock (released even if fn panics); wrote is whether it wrote anything.
func (s *PebbleStore) update(fn func(Tx) error) (wrote bool, err error) {
	s.writer.Lock()
	defer s.writer.Unlock()
	if s.closed {
		return false, ErrClosed
	}
	if s.meta == nil {
		return false, ErrNoIndex
	}
	tx := &pebbleTx{s: s, ctr: s.ctr, batch: s.db.NewBatch()}
	defer tx.batch.Close()
	// Only this goroutine changes the tables and counters while it holds
	// the writer lock, so fn reads them without the state lock.
	if err := fn(tx); err != nil {
		return false, err
	}
	if tx.batch.Empty() {
		return false, nil
	}
	tx.batch.Set([]byte("C"), appendCounters(nil, tx.ctr), nil)
	s.state.Lock()
	defer s.state.Unlock()
	if err := tx.batch.Commit(pebble.NoSync); err != nil {
		return false, err
	}
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
	return true, nil
}

// Close closes the database. Calls after Close return ErrClosed.
func (s *PebbleStore) Close() error {
	s.writer.Lock()
	defer s.writer.Unlock()
	s.life.Lock()
	defer s.life.Unlock()
	s.state.Lock()
	defer s.state.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.db.Close()
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
	return binary.LittleEndian.AppendUint64(dst, uint64(c.groups))
}

func decodeCounters(b []byte) (counters, error) {
	if len(b) != 32 {
		return counters{}, fmt.Errorf("%w: counters of %d bytes", neardup.ErrCorrupt, len(b))
	}
	return counters{
		nextSeq:   binary.LittleEndian.Uint64(b),
		nextGroup: binary.LittleEndian.Uint64(b[8:]),
		docs:      int64(binary.LittleEndian.Uint64(b[16:])),
		groups:    int64(binary.LittleEndian.Uint64(b[24:])),
	}, nil
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

var errReadOnly = errors.New("index: write in a read-only transaction")

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
	it, err := tx.s.db.NewIter(&pebble.IterOptions{LowerBound: []byte("g"), UpperBound: []byte("h")})
	if err != nil {
		return dst, err
	}
	for _, i := range order {
		k := key1('g', gids[i])
		if !it.SeekGE(k) || !bytes.Equal(it.Key(), k) {
			continue
		}
		g, err := DecodeGroup(it.Value())
		if err != nil {
			it.Close()
			return dst, err
		}
		out[i] = g.Set
	}
	if err := it.Close(); err != nil {
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
	lo := key1('m', gid)
	hi := key1('m', gid+1)
	it, err := tx.s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return dst, err
	}
	for it.First(); it.Valid(); it.Next() {
		if k := it.Key(); len(k) == 17 {
			dst = append(dst, binary.BigEndian.Uint64(k[9:]))
		}
	}
	if err := it.Error(); err != nil {
		it.Close()
		return dst, err
	}
	return dst, it.Close()
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
	it, err := tx.s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{kind}, UpperBound: []byte{kind + 1}})
	if err != nil {
		return err
	}
	for it.First(); it.Valid(); it.Next() {
		if len(it.Key()) != 9 {
			it.Close()
			return fmt.Errorf("%w: key %x", neardup.ErrCorrupt, it.Key())
		}
		if err := fn(it.Key(), it.Value()); err != nil {
			it.Close()
			return err
		}
	}
	if err := it.Error(); err != nil {
		it.Close()
		return err
	}
	return it.Close()
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
