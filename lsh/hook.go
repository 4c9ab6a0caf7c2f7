package lsh

import "github.com/neardup/neardup/internal/lshhook"

// The batch's hooks (Candidates.row and Candidates.deferred) are set
// through internal/lshhook, so that they are no part of lsh's API.
func init() { lshhook.Set = setHooks }

// setHooks is lshhook.Set.
func setHooks(c any, o lshhook.Options) lshhook.Chained {
	cand := c.(*Candidates)
	cand.row = o.Row
	if !o.Defer {
		cand.deferred = nil
		return nil
	}
	cand.deferred = &deferred{}
	return cand.deferred
}
