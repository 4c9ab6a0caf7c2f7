// The duplicate-id check: run by Run beside collapse (or by a caller
// before Run), it sorts hashes of the ids and hands on the count of
// documents that repeat an earlier id, with a few examples, to the Stats
// and Result (or, under StrictIDs, to Run's error).

package neardup

import (
	"slices"

	"github.com/neardup/neardup/internal/hugepage"
)

// DuplicateIDs returns how many documents added so far repeat an id of an
// earlier document, and up to max of those ids with the first documents
// that have them, in order of their first document. It may be called before
// Run (to refuse duplicates before the work) and costs a sort of the ids.
func (b *Batch) DuplicateIDs(max int) (count int, examples []DuplicateID) {
	// Sort the ids' hashes; only hashes that repeat need a second look.
	hs := hugepage.Make[uint64](len(b.ids))
	defer hugepage.Done(hs)
	for d, id := range b.ids {
		hs[d] = idHash(id)
	}
	slices.Sort(hs)
	repeated := map[uint64]bool{}
	for i := 1; i < len(hs); i++ {
		if hs[i] == hs[i-1] {
			repeated[hs[i]] = true
		}
	}
	if len(repeated) == 0 {
		return 0, nil
	}
	// Group the documents of those hashes by id, in document order.
	byID := map[string]*DuplicateID{}
	var order []*DuplicateID
	for d, id := range b.ids {
		if !repeated[idHash(id)] {
			continue
		}
		g := byID[id]
		if g == nil {
			g = &DuplicateID{ID: id}
			byID[id] = g
			order = append(order, g)
		}
		g.Count++
		if len(g.Docs) < 5 {
			g.Docs = append(g.Docs, d)
		}
	}
	for _, g := range order {
		if g.Count > 1 {
			count += g.Count - 1
			if len(examples) < max {
				examples = append(examples, *g)
			}
		}
	}
	return count, examples
}

// idHash is a fixed 64-bit hash of an id (FNV-1a).
func idHash(s string) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 0x100000001b3
	}
	return h
}
