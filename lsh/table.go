package lsh

import (
	"errors"
	"fmt"
	"slices"
	"sync"
)

// ErrBadID is wrapped by the errors a Table returns for an id it cannot
// hold (MemTable keeps ids below 2^63).
var ErrBadID = errors.New("lsh: id out of range")

// Table holds LSH buckets outside a batch: for each band, the documents
// whose band key is a given key. An online index keeps one (in memory, or in
// a shared store) and finds the candidates of a new document by looking up
// its band keys (see Lookup).
//
// Ids are the caller's stable document numbers (for instance a sequence
// number assigned on insertion, never reused); they need not be dense. Get
// returns a bucket's ids in ascending order, the order BucketPairs and
// BucketPartners number members in. Keys are band keys (Params.BandKey):
// equal keys do not prove equal slot values, so callers verify candidates.
//
// Implementations say whether they are safe for concurrent use.
type Table interface {
	// Put adds id to the bucket (band, key). Adding an id that is
	// already there does nothing.
	Put(band int, key, id uint64) error
	// Get appends the ids of the bucket (band, key), ascending, to dst
	// and returns the extended slice.
	Get(dst []uint64, band int, key uint64) ([]uint64, error)
	// Remove takes id out of the bucket (band, key). Removing an id that
	// is not there does nothing.
	Remove(band int, key, id uint64) error
}

// Insert puts id in the bucket of each band: keys[j] is its key in band j,
// as from Params.AppendBandKeys. It stops at the first error.
func Insert(t Table, id uint64, keys []uint64) error {
	for band, k := range keys {
		if err := t.Put(band, k, id); err != nil {
			return err
		}
	}
	return nil
}

// Delete removes id from the bucket of each band, undoing Insert with the
// same keys. It stops at the first error.
func Delete(t Table, id uint64, keys []uint64) error {
	for band, k := range keys {
		if err := t.Remove(band, k, id); err != nil {
			return err
		}
	}
	return nil
}

// Lookup appends to dst the distinct ids found in the buckets of keys (keys[j]
// the key in band j), ascending, and returns the extended slice: the
// candidates of a document with those keys. Only the appended part is sorted.
func Lookup(dst []uint64, t Table, keys []uint64) ([]uint64, error) {
	base := len(dst)
	for band, k := range keys {
		var err error
		if dst, err = t.Get(dst, band, k); err != nil {
			return dst[:base], err
		}
	}
	found := dst[base:]
	slices.Sort(found)
	return dst[:base+len(slices.Compact(found))], nil
}

// MemTable is the in-memory Table. It is safe for concurrent use: lookups
// share a read lock, changes take the write lock.
//
// A bucket with one member, the usual case, costs one map entry (key and
// id, 16 bytes plus the map's overhead); larger buckets keep their ids in a
// sorted side list. Ids must be below 2^63.
type MemTable struct {
	mu    sync.RWMutex
	bands []map[uint64]uint64 // key -> id, or listFlag|index into lists
	lists [][]uint64          // members of buckets with two or more, ascending
	free  []uint64            // indices of unused lists
	n     int                 // ids held, summed over bands
}

const listFlag = 1 << 63

// NewMemTable returns an empty table of the given number of bands.
func NewMemTable(bands int) *MemTable {
	t := &MemTable{bands: make([]map[uint64]uint64, max(bands, 0))}
	for i := range t.bands {
		t.bands[i] = make(map[uint64]uint64)
	}
	return t
}

// Bands returns the number of bands.
func (t *MemTable) Bands() int { return len(t.bands) }

// Entries returns the number of (band, id) entries held.
func (t *MemTable) Entries() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.n
}

func (t *MemTable) check(band int, id uint64) error {
	if band < 0 || band >= len(t.bands) {
		return fmt.Errorf("%w: band %d of %d", ErrInvalid, band, len(t.bands))
	}
	if id&listFlag != 0 {
		return fmt.Errorf("%w: %d", ErrBadID, id)
	}
	return nil
}

// Put adds id to the bucket (band, key).
func (t *MemTable) Put(band int, key, id uint64) error {
	if err := t.check(band, id); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.bands[band]
	v, ok := m[key]
	switch {
	case !ok:
		m[key] = id
	case v&listFlag == 0:
		if v == id {
			return nil
		}
		l := []uint64{min(v, id), max(v, id)}
		if n := len(t.free); n > 0 {
			i := t.free[n-1]
			t.free = t.free[:n-1]
			t.lists[i] = l
			m[key] = listFlag | i
		} else {
			m[key] = listFlag | uint64(len(t.lists))
			t.lists = append(t.lists, l)
		}
	default:
		i := v &^ listFlag
		l := t.lists[i]
		at, found := slices.BinarySearch(l, id)
		if found {
			return nil
		}
		t.lists[i] = slices.Insert(l, at, id)
	}
	t.n++
	return nil
}

// Get appends the ids of the bucket (band, key), ascending, to dst.
func (t *MemTable) Get(dst []uint64, band int, key uint64) ([]uint64, error) {
	if band < 0 || band >= len(t.bands) {
		return dst, fmt.Errorf("%w: band %d of %d", ErrInvalid, band, len(t.bands))
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	v, ok := t.bands[band][key]
	switch {
	case !ok:
		return dst, nil
	case v&listFlag == 0:
		return append(dst, v), nil
	}
	return append(dst, t.lists[v&^listFlag]...), nil
}

// Remove takes id out of the bucket (band, key).
func (t *MemTable) Remove(band int, key, id uint64) error {
	if err := t.check(band, id); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.bands[band]
	v, ok := m[key]
	switch {
	case !ok:
		return nil
	case v&listFlag == 0:
		if v != id {
			return nil
		}
		delete(m, key)
	default:
		i := v &^ listFlag
		l := t.lists[i]
		at, found := slices.BinarySearch(l, id)
		if !found {
			return nil
		}
		l = slices.Delete(l, at, at+1)
		if len(l) == 1 {
			m[key] = l[0]
			t.lists[i] = nil
			t.free = append(t.free, i)
		} else {
			t.lists[i] = l
		}
	}
	t.n--
	return nil
}
