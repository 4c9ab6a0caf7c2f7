package neardup

// A sigArena holds the per-document signatures of a batch that keeps no
// sets (VerifyEstimate and the two-pass mode) in one reserved range of
// address space, document d at u32[d*slots:(d+1)*slots]. Workers write
// their chunks' signatures straight into it; once the identical sets are
// known, the distinct sets' signatures are moved to the front in place,
// which is then the flat array LSH reads, and the rest is given back.
// Without it, the chunks' signatures and the flat copy are both in memory
// for a moment (10 GB for 10 million documents instead of 5), and the copy
// touches fresh memory.
//
// The arena must stay reachable while anything reads u32: the views keep
// it.
type sigArena struct {
	u32   []uint32
	slots int
}

// chunk returns the zero-length slice with room for the signatures of n
// documents from start on, or nil if the arena is too small for them.
func (a *sigArena) chunk(start, n int) []uint32 {
	if a == nil {
		return nil
	}
	lo, hi := start*a.slots, (start+n)*a.slots
	if hi > len(a.u32) {
		return nil
	}
	return a.u32[lo:lo:hi]
}

// compact moves the signature of document uniq[u] to position u, for each
// u in order, and returns the first len(uniq) signatures. uniq must be
// increasing, so uniq[u] >= u and no signature is overwritten before it is
// moved. The memory of the other docs-len(uniq) signatures is released.
func (a *sigArena) compact(uniq []uint32, docs int) []uint32 {
	k := a.slots
	for u, d := range uniq {
		if int(d) != u {
			copy(a.u32[u*k:(u+1)*k], a.u32[int(d)*k:int(d+1)*k])
		}
	}
	n := len(uniq) * k
	a.release(n, docs*k)
	return a.u32[:n:n]
}

// useSigArena lets tests run the batch without an arena (the copy path of
// systems that refuse the reservation).
var useSigArena = true
