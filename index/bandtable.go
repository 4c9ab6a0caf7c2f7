package index

import "slices"

// bandTable is one band's resident bucket table: band key -> group ids,
// in 8 bytes an entry. An entry packs the top 32 bits of the band key above
// a 32-bit group id (0: empty slot) in an open-addressing array with linear
// probing, grown at 3/4 full; deletion shifts later entries back, so there
// are no tombstones. Keys are compared on 32 bits, so a lookup may return
// groups whose full key differs (about n/2^32 of them per lookup for n
// groups): candidates are verified anyway. It is not safe for concurrent
// use.
//
// At 1M groups a table takes 16 MiB (2^21 slots), so 35 bands hold the
// resident part of an index in about 590 bytes per distinct text.
type bandTable struct {
	slots []uint64
	n     int
}

func newBandTable() *bandTable { return &bandTable{slots: make([]uint64, 16)} }

// fold is the part of a band key the table compares.
func fold(key uint64) uint32 { return uint32(key >> 32) }

func (t *bandTable) home(k uint32) int { return int(k) & (len(t.slots) - 1) }

// add puts (key, gid) in the table; gid must be non-zero and below 2^32.
func (t *bandTable) add(key uint64, gid uint32) {
	if 4*(t.n+1) > 3*len(t.slots) {
		t.grow()
	}
	t.put(uint64(fold(key))<<32 | uint64(gid))
	t.n++
}

func (t *bandTable) put(e uint64) {
	mask := len(t.slots) - 1
	for i := t.home(uint32(e >> 32)); ; i = (i + 1) & mask {
		if t.slots[i] == 0 {
			t.slots[i] = e
			return
		}
	}
}

func (t *bandTable) grow() {
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	for _, e := range old {
		if e != 0 {
			t.put(e)
		}
	}
}

// lookup appends the groups whose entries have key's folded bits, in
// ascending order.
func (t *bandTable) lookup(dst []uint64, key uint64) []uint64 {
	k := fold(key)
	base := len(dst)
	mask := len(t.slots) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		e := t.slots[i]
		if e == 0 {
			break
		}
		if uint32(e>>32) == k {
			dst = append(dst, uint64(uint32(e)))
		}
	}
	if len(dst)-base > 1 {
		slices.Sort(dst[base:])
	}
	return dst
}

// remove deletes the entry (key, gid), if present, and reports whether it
// was.
func (t *bandTable) remove(key uint64, gid uint32) bool {
	e := uint64(fold(key))<<32 | uint64(gid)
	mask := len(t.slots) - 1
	i := t.home(fold(key))
	for ; t.slots[i] != e; i = (i + 1) & mask {
		if t.slots[i] == 0 {
			return false
		}
	}
	// Backward-shift deletion: move later entries of the run into the
	// hole when their home does not lie after it (cyclically).
	for j := (i + 1) & mask; t.slots[j] != 0; j = (j + 1) & mask {
		h := t.home(uint32(t.slots[j] >> 32))
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = 0
	t.n--
	return true
}

// bytes returns the memory the table holds.
func (t *bandTable) bytes() int64 { return int64(8 * len(t.slots)) }
