package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/batchrepr"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/neardup/neardup"
)

// SalvageReport is what Salvage copied and what it could not.
type SalvageReport struct {
	// Documents and Groups are what the new index holds.
	Documents, Groups int64
	// Rebuilt counts the documents whose group was made again from their
	// text (an index that keeps texts is rebuilt from them, so that a
	// damaged set or signature costs nothing).
	Rebuilt int64
	// Unreadable are the sequence numbers whose document record could not
	// be read (a damaged block or a missing file), and UnreadableIDs the
	// ids of documents whose record was read but whose text or group was
	// not: neither is in the new index.
	Unreadable    []uint64
	UnreadableIDs []string
	// Recorded is the next sequence number the damaged index's records
	// say, and Witnessed the one its witness file recorded as durable (0
	// without one): sequence numbers from Recorded to Witnessed were
	// handed out to documents whose records are gone (lost writes).
	Recorded, Witnessed uint64
	// Counted is the number of documents the damaged index's counters
	// say it holds (-1 if they cannot be read): more than Documents,
	// Unreadable and UnreadableIDs together means records are gone (the
	// tables a damaged MANIFEST no longer lists, say).
	Counted int64
	// Logs are the write-ahead logs and MANIFESTs damaged in their middle,
	// with what the lost part held.
	Logs []LostLog
	// Notes says how the damaged index was opened (a manifest marker
	// assumed, say).
	Notes []string
}

// LostLog is a log damaged in its middle: Pebble reads it up to the
// damage, and what comes after is not in the new index.
type LostLog struct {
	File   string
	Offset int64 // of the first chunk that fails its checksum
	// Transactions is the number of write transactions read after the
	// damage (the one that held the damaged chunk is not counted: it
	// cannot be read), and Added and Removed the ids they inserted and
	// deleted. For a MANIFEST they are 0 and empty.
	Transactions   int
	Added, Removed []string
}

// Salvage copies what can be read of the Pebble index in dir into a new
// index in out (a missing or empty directory), and reports what it could
// not copy. dir is opened read-only and as Pebble can read it: without a
// manifest marker its newest MANIFEST is used, a write-ahead log or
// MANIFEST is read up to its damage, the witness file is compared but not
// obeyed. Every document whose record can be read is copied with its id,
// sequence number, insertion time and text; its group is made again from
// its text when the index keeps texts, else copied from its stored set
// (with the signature and band keys computed again from it). Nothing in
// dir is changed. Salvage is for `neardup index repair`; replacing dir by
// out is the caller's.
func Salvage(ctx context.Context, dir, out string, o PebbleOptions) (SalvageReport, error) {
	var rep SalvageReport
	if o.FS == nil {
		o.FS = vfs.Default
	}
	info, err := inspectDir(o.FS, dir)
	if err != nil {
		return rep, fmt.Errorf("salvage %s: %w", dir, err)
	}
	if len(info.manifest) == 0 {
		return rep, fmt.Errorf("%w: salvage %s: no MANIFEST file: Pebble cannot read the index's tables without one", neardup.ErrCorrupt, dir)
	}
	marker := info.marker
	if info.kind != dirIndex {
		marker = info.manifest[len(info.manifest)-1]
		rep.Notes = append(rep.Notes, fmt.Sprintf("no usable manifest marker: opened with the newest MANIFEST, %s", marker))
	}
	rep.Logs, err = lostLogs(o.FS, dir, info)
	if err != nil {
		return rep, err
	}
	if w, ok, err := readWitness(o.FS, dir); err != nil {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s unreadable: %v", witnessName, err))
	} else if ok {
		rep.Witnessed = w.nextSeq
	}

	if o.Logger == nil {
		o.Logger = discardLogger()
	}
	if o.CacheSize == 0 {
		o.CacheSize = 64 << 20
	}
	src := &PebbleStore{dir: dir, fs: o.FS, readOnly: true, log: o.Logger, writer: make(chan struct{}, 1)}
	if err := src.openSalvage(ctx, o, marker, info.kind != dirIndex); err != nil {
		return rep, err
	}
	defer src.closeDB()
	v, err := src.get([]byte("M"))
	if errors.Is(err, ErrNotFound) {
		return rep, fmt.Errorf("%w: salvage %s: the index's parameters (record M) are in none of the tables and logs its MANIFEST lists (%s): nothing can be copied", neardup.ErrCorrupt, dir, marker)
	}
	if err != nil {
		return rep, fmt.Errorf("salvage %s: the index's parameters (record M) cannot be read: %w", dir, err)
	}
	m, err := DecodeMeta(v)
	if err != nil {
		return rep, fmt.Errorf("salvage %s: %w", dir, err)
	}
	src.meta = &m
	rep.Counted = -1
	if v, err := src.get([]byte("C")); err == nil {
		if c, err := decodeCounters(v); err == nil {
			rep.Recorded, rep.Counted = c.nextSeq, c.docs
		}
	}
	if err := src.checkWitness(); err != nil {
		rep.Notes = append(rep.Notes, "the index does not open: "+err.Error())
	}
	last := max(rep.Recorded, rep.Witnessed)
	if last == 0 {
		return rep, fmt.Errorf("%w: salvage %s: its counters (record C) cannot be read and it has no witness file", neardup.ErrCorrupt, dir)
	}

	o.Create, o.ReadOnly = true, false
	dst, err := OpenPebble(ctx, out, o)
	if err != nil {
		return rep, err
	}
	ix, err := Create(ctx, dst, m, Options{})
	if err != nil {
		dst.Close()
		return rep, err
	}
	err = copyDocs(ctx, src, ix, last, &rep)
	if cerr := ix.Close(); err == nil {
		err = cerr
	}
	return rep, err
}

// openSalvage opens a damaged index read-only, with a marker made up for
// the MANIFEST to use when fake.
func (s *PebbleStore) openSalvage(ctx context.Context, o PebbleOptions, manifest string, fake bool) error {
	mfs := &markerFS{FS: s.fs, dir: s.dir}
	if fake {
		mfs.marker = "marker.manifest.000001." + manifest
	}
	s.fs = mfs
	err := s.open(ctx, o, true, false)
	s.fs = o.FS
	if err != nil {
		return fmt.Errorf("salvage %s: %w", s.dir, err)
	}
	return nil
}

// markerFS lists a manifest marker that is not in the directory (when
// marker is set), and no OPTIONS file.
type markerFS struct {
	vfs.FS
	dir, marker string
}

func (f *markerFS) List(dir string) ([]string, error) {
	names, err := f.FS.List(dir)
	if err != nil || f.FS.PathBase(dir) != f.FS.PathBase(f.dir) {
		return names, err
	}
	// The OPTIONS file only says how the index was tuned: a damaged one
	// is left out rather than stop the salvage.
	names = slices.DeleteFunc(names, func(n string) bool {
		return strings.HasPrefix(n, "OPTIONS-") || f.marker != "" && strings.HasPrefix(n, "marker.manifest.")
	})
	if f.marker != "" {
		names = append(names, f.marker)
	}
	return names, nil
}

// copyDocs copies the documents with sequence numbers below last.
func copyDocs(ctx context.Context, src *PebbleStore, ix *Index, last uint64, rep *SalvageReport) error {
	stx := &pebbleTx{s: src, view: true}
	type group struct {
		gid uint64
		set []uint64
	}
	byHash := map[uint64][]group{} // the new index's groups, by a hash of their set
	srcGroup := map[uint64][]uint64{}
	keepTexts := ix.meta.KeepTexts
	var sig []uint32
	const batch = 512
	for from := uint64(1); from < last; from += batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := ix.st.Update(ctx, func(tx Tx) error {
			ptx := tx.(*pebbleTx)
			for seq := from; seq < min(from+batch, last); seq++ {
				d, err := stx.Doc(seq)
				if errors.Is(err, ErrNotFound) {
					continue // removed, or lost with its record
				}
				if err != nil {
					rep.Unreadable = append(rep.Unreadable, seq)
					continue
				}
				var set []uint64
				switch {
				case keepTexts && len(d.Text) > 0:
					set = ix.sk.AppendSet(nil, d.Text)
					rep.Rebuilt++
				case keepTexts:
					rep.UnreadableIDs = append(rep.UnreadableIDs, d.ID)
					continue
				default:
					set = srcGroup[d.Group]
					if set == nil {
						g, err := stx.part('g', d.Group)
						if err != nil || len(g.Set) == 0 || !slices.IsSorted(g.Set) {
							rep.UnreadableIDs = append(rep.UnreadableIDs, d.ID)
							continue
						}
						set = g.Set
						srcGroup[d.Group] = set
					}
				}
				if len(set) == 0 {
					rep.UnreadableIDs = append(rep.UnreadableIDs, d.ID)
					continue
				}
				h := neardup.Fingerprint(set)
				gid := uint64(0)
				for _, g := range byHash[h] {
					if slices.Equal(g.set, set) {
						gid = g.gid
					}
				}
				if gid == 0 {
					sig = ix.sk.AppendSignature(sig[:0], set)
					keys := ix.sk.AppendBandKeys(nil, sig)
					if gid, err = tx.NewGroup(Group{Set: set, Signature: slices.Clone(sig), Keys: keys}); err != nil {
						return err
					}
					byHash[h] = append(byHash[h], group{gid, set})
					rep.Groups++
				}
				d.Group = gid
				if !keepTexts {
					d.Text = nil
				}
				if err := tx.PutDoc(d); err != nil {
					return err
				}
				rep.Documents++
			}
			// Sequence numbers are the damaged index's: never reused.
			ptx.ctr.nextSeq = max(ptx.ctr.nextSeq, min(from+batch, last))
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// lostLogs scans the index's write-ahead logs and MANIFESTs for damage in
// their middle and lists what the logs' records after it held.
func lostLogs(fs vfs.FS, dir string, info dirInfo) ([]LostLog, error) {
	var out []LostLog
	for _, name := range append(slices.Clone(info.logs), info.manifest...) {
		num, _ := logNumber(name)
		b, err := readAll(fs, fs.PathJoin(dir, name))
		if err != nil {
			return nil, fmt.Errorf("salvage %s: %w", dir, err)
		}
		d, err := scanLog(strings.NewReader(string(b)), num)
		if err != nil || d == nil || d.After < 0 {
			continue
		}
		ll := LostLog{File: name, Offset: d.Offset}
		if num != 0 {
			eachRecord(b, num, d.After, func(rec []byte) {
				if h, ok := batchrepr.ReadHeader(rec); !ok || h.Count == 0 {
					return // a sync marker, not a transaction
				}
				ll.Transactions++
				r := batchrepr.Read(rec)
				for {
					kind, k, _, ok, err := r.Next()
					if !ok || err != nil {
						break
					}
					if len(k) == 0 || k[0] != 'i' {
						continue
					}
					switch kind {
					case pebble.InternalKeyKindSet:
						ll.Added = append(ll.Added, string(k[1:]))
					case pebble.InternalKeyKindDelete:
						ll.Removed = append(ll.Removed, string(k[1:]))
					}
				}
			})
		}
		out = append(out, ll)
	}
	return out, nil
}

func readAll(fs vfs.FS, path string) ([]byte, error) {
	f, err := fs.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// eachRecord calls fn with each whole record of the log b that starts at
// or after offset from, skipping the pieces of records that do not check
// out.
func eachRecord(b []byte, num uint32, from int64, fn func(rec []byte)) {
	var rec []byte
	inRecord := false
	for blockStart := from - from%logBlockSize; blockStart < int64(len(b)); blockStart += logBlockSize {
		block := b[blockStart:min(blockStart+logBlockSize, int64(len(b)))]
		i := 0
		if blockStart < from {
			i = int(from - blockStart)
		}
		for i+legacyHeader <= len(block) {
			size, ok := chunkAt(block, i, num)
			if !ok {
				inRecord = false // the rest of the block is not to be read
				break
			}
			hs := legacyHeader
			switch t := block[i+6]; {
			case t >= 9:
				hs = walSyncHeader
			case t >= 5:
				hs = recyclableHeader
			}
			payload := block[i+hs : i+size]
			switch pos := (int(block[i+6]) - 1) % 4; pos {
			case 0: // full
				fn(payload)
				inRecord = false
			case 1: // first
				rec, inRecord = append(rec[:0], payload...), true
			case 2: // middle
				if inRecord {
					rec = append(rec, payload...)
				}
			case 3: // last
				if inRecord {
					fn(append(rec, payload...))
				}
				inRecord = false
			}
			i += size
		}
	}
}

// discardLogger drops what Pebble reports while a damaged index is read
// (each damaged record read is counted in the report instead).
func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
