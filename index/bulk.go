package index

import (
	"errors"
	"slices"
)

// BulkTx is what a Tx may also offer to make a search cheap: the steps of a
// search answered for many groups or documents at once (a store across a
// network answers each in one round trip), and each step reading only what
// it needs, so that most candidates are rejected before their sets are
// read. Package index uses these methods when a Tx has them, and the
// per-item methods of Tx otherwise. Results are parallel to the ids asked
// for; a missing group or document gives a zero value (size 0, nil
// signature or set, a Doc with Seq 0), not an error.
type BulkTx interface {
	// Buckets appends the groups in the buckets of keys (keys[b] being the
	// key in band b) to dst, each bucket limited to its last maxPerBucket
	// groups when maxPerBucket > 0; the appended ids are sorted and
	// distinct.
	Buckets(dst []uint64, keys []uint64, maxPerBucket int) ([]uint64, error)
	// Sizes appends the set sizes of gids to dst.
	Sizes(dst []int, gids []uint64) ([]int, error)
	// Signatures appends the signatures of gids to dst.
	Signatures(dst [][]uint32, gids []uint64) ([][]uint32, error)
	// Sets appends the sets of gids to dst.
	Sets(dst [][]uint64, gids []uint64) ([][]uint64, error)
	// Docs appends the documents of seqs to dst; a store may leave their
	// Text nil (a search lists ids, and Tx.Doc reads a text).
	Docs(dst []Doc, seqs []uint64) ([]Doc, error)
}

// DigestTx is what a Tx may also offer for the signature filter: a digest
// of each group's signature, the top 8 bits of every slot value (Digest),
// which a store can keep in memory (128 bytes a text at 128 slots).
// Counting the slots where two digests agree gives an upper bound of the
// slots where the signatures agree, so neardup.Verifier.AgreementOK on it
// rejects no candidate the full signature would let through, and
// unrelated candidates are rejected without reading anything.
type DigestTx interface {
	// Digests appends the digests of gids to dst (nil for a missing group).
	Digests(dst [][]byte, gids []uint64) ([][]byte, error)
}

// AppendDigest appends the digest of sig: the top 8 bits of each slot.
func AppendDigest(dst []byte, sig []uint32) []byte {
	for _, x := range sig {
		dst = append(dst, byte(x>>24))
	}
	return dst
}

// agreements counts the positions where a and b hold equal bytes.
func agreements(a, b []byte) int {
	b = b[:len(a)]
	n := 0
	for i := range a {
		if a[i] == b[i] {
			n++
		}
	}
	return n
}

// bulk returns tx's BulkTx, or one built on its per-item methods.
func bulk(tx Tx) BulkTx {
	if b, ok := tx.(BulkTx); ok {
		return b
	}
	return itemwise{tx}
}

// itemwise is BulkTx over Tx's per-item methods: a Group read per group
// (its set, signature and keys at once).
type itemwise struct{ tx Tx }

func (t itemwise) Buckets(dst []uint64, keys []uint64, maxPerBucket int) ([]uint64, error) {
	base := len(dst)
	var bucket []uint64
	for band, key := range keys {
		var err error
		if bucket, err = t.tx.Bucket(bucket[:0], band, key); err != nil {
			return dst, err
		}
		if maxPerBucket > 0 && len(bucket) > maxPerBucket {
			bucket = bucket[len(bucket)-maxPerBucket:]
		}
		dst = append(dst, bucket...)
	}
	slices.Sort(dst[base:])
	return dst[:base+len(slices.Compact(dst[base:]))], nil
}

func (t itemwise) group(gid uint64) (Group, error) {
	g, err := t.tx.Group(gid)
	if errors.Is(err, ErrNotFound) {
		return Group{}, nil
	}
	return g, err
}

func (t itemwise) Sizes(dst []int, gids []uint64) ([]int, error) {
	for _, gid := range gids {
		g, err := t.group(gid)
		if err != nil {
			return dst, err
		}
		dst = append(dst, len(g.Set))
	}
	return dst, nil
}

func (t itemwise) Signatures(dst [][]uint32, gids []uint64) ([][]uint32, error) {
	for _, gid := range gids {
		g, err := t.group(gid)
		if err != nil {
			return dst, err
		}
		dst = append(dst, g.Signature)
	}
	return dst, nil
}

func (t itemwise) Sets(dst [][]uint64, gids []uint64) ([][]uint64, error) {
	for _, gid := range gids {
		g, err := t.group(gid)
		if err != nil {
			return dst, err
		}
		dst = append(dst, g.Set)
	}
	return dst, nil
}

func (t itemwise) Docs(dst []Doc, seqs []uint64) ([]Doc, error) {
	for _, seq := range seqs {
		d, err := t.tx.Doc(seq)
		if errors.Is(err, ErrNotFound) {
			d, err = Doc{}, nil
		}
		if err != nil {
			return dst, err
		}
		dst = append(dst, d)
	}
	return dst, nil
}
