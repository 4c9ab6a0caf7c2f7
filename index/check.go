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
	Texts                            int64 // texts read and shingled again (indexes that keep texts)
}

// Check verifies that the index agrees with itself: every group's
// signature and band keys are those of its set (recomputed with the
// index's Sketcher), each group is in the bucket of each of its band keys
// and has members, every document's group exists and its id leads back to
// it, in an index that keeps texts every document has its text and the
// text's shingle set is its group's, the counts match the records, and
// the band tables hold exactly one entry per group and band. It reads
// every record, texts included (so every checksum of the store is
// verified on the way), in one View, so it is for tests, crash recovery
// checks and `neardup index check`, and it expects no writes meanwhile (a
// View is not a snapshot: a write under way can look like an
// inconsistency). It returns an error wrapping ErrInconsistent naming the
// first problem, or the store's error for a record it could not read
// (one wrapping neardup.ErrCorrupt for a record that fails its checksum).
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
		var textSet []uint64
		err = tx.EachDoc(func(d Doc) error {
			r.Documents++
			if err := ctx.Err(); err != nil {
				return err
			}
			g, err := tx.Group(d.Group)
			if err != nil {
				if errors.Is(err, ErrNotFound) {
					return bad("document %q (seq %d) names group %d, which does not exist", d.ID, d.Seq, d.Group)
				}
				return err
			}
			if ix.meta.KeepTexts {
				if len(d.Text) == 0 {
					return bad("document %q (seq %d) has no text, in an index that keeps texts", d.ID, d.Seq)
				}
				textSet = ix.sk.AppendSet(textSet[:0], d.Text)
				if !slices.Equal(textSet, g.Set) {
					return bad("document %q (seq %d): its text's shingles are not its group's (%d and %d)", d.ID, d.Seq, len(textSet), len(g.Set))
				}
				r.Texts++
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
