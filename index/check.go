package index

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// ErrInconsistent is wrapped by the error Check returns when the index
// contradicts itself.
var ErrInconsistent = errors.New("index: inconsistent")

// CheckReport is what Check examined.
type CheckReport struct {
	Documents, Groups, BucketEntries int64
}

// Check verifies that the index agrees with itself: every group's
// signature and band keys are those of its set (recomputed with the
// index's Sketcher), each group is in the bucket of each of its band keys
// and has members, every document's group exists and its id leads back to
// it, the counts match the records, and the band tables hold exactly one
// entry per group and band. It reads the whole index (in one View), so it
// is for tests, crash recovery checks and `neardup index stats --check`,
// and it expects no writes meanwhile (a View is not a snapshot: a write
// under way can look like an inconsistency).
// It returns an error wrapping ErrInconsistent naming the first problem.
func (ix *Index) Check(ctx context.Context) (CheckReport, error) {
	var r CheckReport
	bands := ix.meta.Params.LSH.Bands
	err := ix.st.View(ctx, func(tx Tx) error {
		bad := func(format string, a ...any) error {
			return fmt.Errorf("%w: "+format, append([]any{ErrInconsistent}, a...)...)
		}
		var sig []uint32
		var keys, bucket, members []uint64
		err := tx.EachGroup(func(gid uint64, g Group) error {
			r.Groups++
			if err := ctx.Err(); err != nil {
				return err
			}
			if len(g.Set) == 0 {
				return bad("group %d has an empty set", gid)
			}
			sig = ix.sk.AppendSignature(sig[:0], g.Set)
			if !slices.Equal(sig, g.Signature) {
				return bad("group %d: the stored signature is not its set's", gid)
			}
			keys = ix.sk.AppendBandKeys(keys[:0], sig)
			if !slices.Equal(keys, g.Keys) {
				return bad("group %d: the stored band keys are not its signature's", gid)
			}
			for b, k := range keys {
				var err error
				if bucket, err = tx.Bucket(bucket[:0], b, k); err != nil {
					return err
				}
				if _, ok := slices.BinarySearch(bucket, gid); !ok {
					return bad("group %d is missing from its bucket in band %d", gid, b)
				}
			}
			var err error
			if members, err = tx.Members(members[:0], gid); err != nil {
				return err
			}
			if len(members) == 0 {
				return bad("group %d has no member", gid)
			}
			return nil
		})
		if err != nil {
			return err
		}
		err = tx.EachDoc(func(d Doc) error {
			r.Documents++
			if _, err := tx.Group(d.Group); err != nil {
				if errors.Is(err, ErrNotFound) {
					return bad("document %q (seq %d) names group %d, which does not exist", d.ID, d.Seq, d.Group)
				}
				return err
			}
			byID, err := tx.DocByID(d.ID)
			if err != nil || byID.Seq != d.Seq {
				return bad("id %q leads to %v (%v), not seq %d", d.ID, byID.Seq, err, d.Seq)
			}
			var ms []uint64
			if ms, err = tx.Members(ms, d.Group); err != nil {
				return err
			}
			if _, ok := slices.BinarySearch(ms, d.Seq); !ok {
				return bad("document %q (seq %d) is not a member of its group %d", d.ID, d.Seq, d.Group)
			}
			return nil
		})
		if err != nil {
			return err
		}
		docs, groups, err := tx.Counts()
		if err != nil {
			return err
		}
		if docs != r.Documents || groups != r.Groups {
			return bad("counts say %d documents and %d groups; the records are %d and %d", docs, groups, r.Documents, r.Groups)
		}
		if r.BucketEntries, err = tx.BucketEntries(); err != nil {
			return err
		}
		if r.BucketEntries != r.Groups*int64(bands) {
			return bad("%d band table entries for %d groups of %d bands", r.BucketEntries, r.Groups, bands)
		}
		return nil
	})
	return r, err
}
