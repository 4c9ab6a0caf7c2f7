package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/neardup/neardup/internal/rule"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/lsh"
)

// Options are the knobs of an open index that its stored Meta does not fix.
type Options struct {
	// MaxBucket bounds the groups one bucket of one band contributes to a
	// search: the most recent MaxBucket of them, the online counterpart of
	// neardup.Options.MaxBucket. 0 means neardup.DefaultMaxBucket;
	// negative means no limit.
	MaxBucket int
	// Now returns the time recorded as Doc.Added; nil means time.Now.
	Now func() time.Time
}

// Index is a persistent near-duplicate index: documents go in, and a new
// text's near-duplicates among them come out with their exact Jaccard. It is
// built on the engine's parts (neardup.Sketcher, neardup.Verifier, the band
// keys of package lsh) over a Store.
//
// An Index is safe for concurrent use. Add is atomic: two concurrent Adds
// of one text cannot both find no duplicate. Every similarity it reports is
// the exact Jaccard of the shingle sets of neardup's contract.
type Index struct {
	st     Store
	meta   Meta
	sk     *neardup.Sketcher
	ver    *neardup.Verifier
	o      Options
	vers   sync.Map // threshold -> *neardup.Verifier, at most maxCachedVerifiers
	nvers  atomic.Int64
	closed atomic.Bool
}

// Create makes a new index in st with the given meta. Params are resolved;
// idf weighting is refused (its weights depend on the whole corpus, which
// an index that grows does not have).
func Create(ctx context.Context, st Store, m Meta, o Options) (*Index, error) {
	p, err := m.Params.Resolve()
	if err != nil {
		return nil, err
	}
	if p.Weight != neardup.WeightNone {
		return nil, fmt.Errorf("%w: an index cannot use %s weights: they depend on the whole corpus", neardup.ErrOptions, p.Weight)
	}
	m.Params = p
	if err := st.Init(ctx, m); err != nil {
		return nil, err
	}
	return newIndex(st, m, o)
}

// Open opens the index in st, or returns ErrNoIndex.
func Open(ctx context.Context, st Store, o Options) (*Index, error) {
	m, err := st.Meta(ctx)
	if err != nil {
		return nil, err
	}
	return newIndex(st, m, o)
}

// OpenOrCreate opens the index in st, checking that want's parameters are
// compatible with the stored ones (neardup.Params.Compatible: an index made
// with other shingling, slots, seed, bands or threshold is an error
// wrapping neardup.ErrIncompatible), or creates it with want when the store
// is new. Callers racing on a new shared store (several servers starting
// at once) all succeed: one creates, the others open what it made.
func OpenOrCreate(ctx context.Context, st Store, want Meta, o Options) (*Index, error) {
	m, err := st.Meta(ctx)
	if errors.Is(err, ErrNoIndex) {
		ix, cerr := Create(ctx, st, want, o)
		if !errors.Is(cerr, ErrExists) {
			return ix, cerr
		}
		// Another caller created it since Meta: open that one.
		m, err = st.Meta(ctx)
	}
	if err != nil {
		return nil, err
	}
	if err := m.Params.Compatible(want.Params); err != nil {
		return nil, fmt.Errorf("the index was made with %v: %w", m.Params, err)
	}
	return newIndex(st, m, o)
}

func newIndex(st Store, m Meta, o Options) (*Index, error) {
	sk, err := neardup.NewSketcher(m.Params)
	if err != nil {
		return nil, err
	}
	ver, err := neardup.NewVerifier(m.Params, neardup.VerifyExact)
	if err != nil {
		return nil, err
	}
	if o.MaxBucket == 0 {
		o.MaxBucket = neardup.DefaultMaxBucket
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Index{st: st, meta: m, sk: sk, ver: ver, o: o}, nil
}

// Meta returns the index's stored meta.
func (ix *Index) Meta() Meta { return ix.meta }

// Params returns the index's parameters.
func (ix *Index) Params() neardup.Params { return ix.meta.Params }

// Store returns the index's store.
func (ix *Index) Store() Store { return ix.st }

// Close closes the store.
func (ix *Index) Close() error {
	if ix.closed.Swap(true) {
		return nil
	}
	return ix.st.Close()
}

// Match is an indexed document that is a near-duplicate of a text.
type Match struct {
	ID      string
	Seq     uint64
	Jaccard float64 // exact
}

// QueryOptions narrow a search.
type QueryOptions struct {
	// Threshold is the least Jaccard reported; 0 means the index's. A
	// threshold below the index's is ErrThreshold.
	Threshold float64
	// Limit bounds the matches returned (the most similar); 0: no limit.
	Limit int
}

// AddOptions say how Add treats an existing id and found duplicates.
type AddOptions struct {
	Replace  bool // an existing document with the id is replaced (else ErrExists)
	IfUnique bool // the document is added only if it has no near-duplicate
	Limit    int  // bound on the duplicates returned; 0: no limit
}

// AddResult is what Add did.
type AddResult struct {
	Seq        uint64  // the new document's sequence number (0 if not added)
	Added      bool    // false with IfUnique and duplicates found, or with Err
	Replaced   bool    // a document with the id was replaced
	Duplicates []Match // near-duplicates already in the index, most similar first
	// Err is this item's failure in AddBatch (ErrExists, ErrNoShingles,
	// an empty id); Add returns it as its error. With ErrExists the item
	// is not added but its near-duplicates (other than the document with
	// its id) are listed.
	Err error
}

// CheckThreshold returns nil when t may be asked of the index as
// QueryOptions.Threshold: 0 (the index's) or a number in (0, 1] at or
// above the index's threshold. Otherwise it returns an error wrapping
// ErrThreshold for a threshold below the index's (whose LSH bands would
// miss pairs below it), or neardup.ErrInvalid for one outside (0, 1]. The
// error's text after its sentinel's begins with t as formatted by %v.
// Query and Add make the same check; a front end calls it once to refuse
// a threshold before any document is read.
func (ix *Index) CheckThreshold(t float64) error {
	switch {
	case t == 0 || t == ix.meta.Params.Threshold:
		return nil
	case !rule.Threshold(t):
		return fmt.Errorf("%w: threshold %v: want %s", neardup.ErrInvalid, t, rule.ThresholdWant)
	case t < ix.meta.Params.Threshold:
		return fmt.Errorf("%w: %v is below the index's %v (the index finds pairs at its threshold; ask for more, not less)", ErrThreshold, t, ix.meta.Params.Threshold)
	}
	return nil
}

// verifier returns the Verifier for a query threshold.
func (ix *Index) verifier(t float64) (*neardup.Verifier, error) {
	if t == 0 || t == ix.meta.Params.Threshold {
		return ix.ver, nil
	}
	if err := ix.CheckThreshold(t); err != nil {
		return nil, err
	}
	if v, ok := ix.vers.Load(t); ok {
		return v.(*neardup.Verifier), nil
	}
	p := ix.meta.Params
	p.Threshold = t
	v, err := neardup.NewVerifier(p, neardup.VerifyExact)
	if err != nil {
		return nil, err
	}
	// Keep the first few thresholds asked for (the ones a client uses
	// again); others are built per call (about 10 µs), so that clients
	// varying the threshold cannot grow the heap.
	if ix.nvers.Add(1) <= maxCachedVerifiers {
		ix.vers.Store(t, v)
	}
	return v, nil
}

// maxCachedVerifiers bounds the thresholds whose Verifier an Index keeps.
const maxCachedVerifiers = 32

// probe is a text sketched for a search.
type probe struct {
	s      neardup.Sketch
	keys   []uint64
	digest []byte // AppendDigest of the signature, made by search
}

var probePool = sync.Pool{New: func() any { return new(probe) }}

func (ix *Index) sketch(text []byte) (*probe, error) {
	if ix.closed.Load() {
		return nil, ErrClosed
	}
	pr := probePool.Get().(*probe)
	ix.sk.Sketch(&pr.s, text, nil)
	if pr.s.Empty() {
		probePool.Put(pr)
		return nil, ErrNoShingles
	}
	pr.keys = ix.sk.AppendBandKeys(pr.keys[:0], pr.s.Signature)
	return pr, nil
}

// groupMatch is a group that matched a probe.
type groupMatch struct {
	gid  uint64
	jac  float64
	same bool // identical set
}

// search returns the groups whose sets are near-duplicates of pr under v,
// most similar first (ties: smaller group id). It reads in stages, each for
// the candidates the previous let through: the buckets, the set sizes (the
// length filter), the signatures (the signature filter), then the sets
// (the exact Jaccard), so that most candidates cost a size look-up.
func (ix *Index) search(tx Tx, pr *probe, v *neardup.Verifier) ([]groupMatch, error) {
	return ix.searchFrom(tx, pr, v, 0)
}

// searchFrom is search among the groups with ids from on.
func (ix *Index) searchFrom(tx Tx, pr *probe, v *neardup.Verifier, from uint64) ([]groupMatch, error) {
	bt := bulk(tx)
	cands, err := bt.Buckets(nil, pr.keys, max(ix.o.MaxBucket, 0))
	if from > 0 {
		cands = slices.DeleteFunc(cands, func(gid uint64) bool { return gid < from })
	}
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	sizes, err := bt.Sizes(nil, cands)
	if err != nil {
		return nil, err
	}
	var next []uint64
	var nsize []int
	for i, gid := range cands {
		if v.LengthOK(&pr.s, &neardup.Sketch{Size: sizes[i]}) {
			next, nsize = append(next, gid), append(nsize, sizes[i])
		}
	}
	cands, sizes = cands[:0], sizes[:0]
	if dt, ok := tx.(DigestTx); ok {
		// The signature filter on digests kept in memory (see DigestTx).
		digs, err := dt.Digests(nil, next)
		if err != nil {
			return nil, err
		}
		pr.digest = AppendDigest(pr.digest[:0], pr.s.Signature)
		for i, gid := range next {
			if digs[i] != nil && v.AgreementOK(agreements(pr.digest, digs[i])) {
				cands, sizes = append(cands, gid), append(sizes, nsize[i])
			}
		}
	} else {
		sigs, err := bt.Signatures(nil, next)
		if err != nil {
			return nil, err
		}
		for i, gid := range next {
			s := neardup.Sketch{Size: nsize[i], Signature: sigs[i]}
			if sigs[i] != nil && v.Prefilter(&pr.s, &s) {
				cands, sizes = append(cands, gid), append(sizes, nsize[i])
			}
		}
	}
	sets, err := bt.Sets(nil, cands)
	if err != nil {
		return nil, err
	}
	var out []groupMatch
	for i, gid := range cands {
		if sets[i] == nil {
			continue // removed meanwhile
		}
		s := neardup.Sketch{Set: sets[i], Size: len(sets[i])}
		if j, ok := v.Confirm(&pr.s, &s); ok {
			out = append(out, groupMatch{gid: gid, jac: j, same: j == 1})
		}
	}
	sortMatches(out)
	return out, nil
}

// sortMatches sorts most similar first, ties by group id.
func sortMatches(gms []groupMatch) {
	slices.SortFunc(gms, func(a, b groupMatch) int {
		if c := cmp.Compare(b.jac, a.jac); c != 0 {
			return c
		}
		return cmp.Compare(a.gid, b.gid)
	})
}

// expand lists the documents of the matched groups, most similar first,
// then by insertion order, leaving out skip (0: none), at most limit (0:
// no limit); it reads only the documents it lists.
func (ix *Index) expand(tx Tx, gms []groupMatch, skip uint64, limit int) ([]Match, error) {
	bt := bulk(tx)
	var out []Match
	var seqs []uint64
	var docs []Doc
	for _, gm := range gms {
		if limit > 0 && len(out) >= limit {
			break
		}
		var err error
		if seqs, err = tx.Members(seqs[:0], gm.gid); err != nil {
			return nil, err
		}
		seqs = slices.DeleteFunc(seqs, func(seq uint64) bool { return seq == skip })
		if limit > 0 {
			seqs = seqs[:min(len(seqs), limit-len(out))]
		}
		if docs, err = bt.Docs(docs[:0], seqs); err != nil {
			return nil, err
		}
		for _, d := range docs {
			if d.Seq != 0 {
				out = append(out, Match{ID: d.ID, Seq: d.Seq, Jaccard: gm.jac})
			}
		}
	}
	return out, nil
}

// Query returns the indexed documents that are near-duplicates of text:
// exact Jaccard at least the threshold, most similar first, then in
// insertion order. ErrNoShingles for a text without shingles.
func (ix *Index) Query(ctx context.Context, text []byte, q QueryOptions) ([]Match, error) {
	v, err := ix.verifier(q.Threshold)
	if err != nil {
		return nil, err
	}
	pr, err := ix.sketch(text)
	if err != nil {
		return nil, err
	}
	defer probePool.Put(pr)
	var out []Match
	err = ix.st.View(ctx, func(tx Tx) error {
		gms, err := ix.search(tx, pr, v)
		if err != nil {
			return err
		}
		out, err = ix.expand(tx, gms, 0, q.Limit)
		return err
	})
	return out, err
}

// Add checks text against the index and inserts it as document id, in one
// atomic step: the result lists the near-duplicates that were in the index
// before it. With o.IfUnique the document is inserted only if there are
// none. An existing id is ErrExists unless o.Replace. ErrNoShingles for a
// text without shingles. When Add returns, the insertion is durable.
func (ix *Index) Add(ctx context.Context, id string, text []byte, o AddOptions) (AddResult, error) {
	res, err := ix.AddBatch(ctx, []AddItem{{ID: id, Text: text}}, o)
	if err != nil {
		return AddResult{}, err
	}
	return res[0], res[0].Err
}

// AddItem is a document for AddBatch.
type AddItem struct {
	ID   string
	Text []byte
}

// AddBatch adds the items in order, each as Add would, in one atomic and
// durable transaction: a later item sees the earlier ones (a copy of an
// earlier item lists it as a duplicate, and with IfUnique is not added).
// An item's own failure (an existing id without Replace, a text without
// shingles, an empty id) is its result's Err and does not stop the others;
// the returned error is a store failure, after which nothing was added.
// One transaction for many documents shares one durable commit among them.
func (ix *Index) AddBatch(ctx context.Context, items []AddItem, o AddOptions) ([]AddResult, error) {
	if ix.closed.Load() {
		return nil, ErrClosed
	}
	results := make([]AddResult, len(items))
	probes := make([]*probe, len(items))
	defer func() {
		for _, pr := range probes {
			if pr != nil {
				probePool.Put(pr)
			}
		}
	}()
	for i, it := range items {
		if it.ID == "" {
			results[i].Err = fmt.Errorf("%w: empty id", neardup.ErrInvalid)
			continue
		}
		pr, err := ix.sketch(it.Text)
		if err != nil {
			results[i].Err = err
			continue
		}
		probes[i] = pr
	}
	pre, err := ix.presearch(ctx, probes)
	if err != nil {
		return nil, err
	}
	err = ix.st.Update(ctx, func(tx Tx) error {
		b := newBatchState(ix)
		for i, it := range items {
			if probes[i] == nil {
				continue // results[i].Err set above
			}
			r, err := b.add(tx, it, probes[i], pre[i], o)
			if err != nil {
				return err
			}
			results[i] = r
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// GroupMarkTx is what a Tx may also offer so that AddBatch can do most of
// its searching before its write transaction, concurrently with other
// writers, and inside it search only the groups made meanwhile. GroupMark
// returns a group id such that the Tx sees every group with a smaller id
// that exists, and every group made later has an id at least the mark.
// (A group never changes: a group found in a view is the same group later,
// if it still exists.)
type GroupMarkTx interface {
	GroupMark() uint64
}

// preMatch is the result of a search made before the write transaction:
// the groups found among those with ids below mark.
type preMatch struct {
	ok   bool
	mark uint64
	gms  []groupMatch
}

// presearch searches for each probe in a read view of its own, when the
// store's Tx is a GroupMarkTx (the results are not ok otherwise).
func (ix *Index) presearch(ctx context.Context, probes []*probe) ([]preMatch, error) {
	pre := make([]preMatch, len(probes))
	for i, pr := range probes {
		if pr == nil {
			continue
		}
		err := ix.st.View(ctx, func(tx Tx) error {
			gm, ok := tx.(GroupMarkTx)
			if !ok {
				return errNoMark
			}
			gms, err := ix.search(tx, pr, ix.ver)
			if err != nil {
				return err
			}
			mark := gm.GroupMark()
			pre[i] = preMatch{ok: true, mark: mark,
				gms: slices.DeleteFunc(gms, func(g groupMatch) bool { return g.gid >= mark })}
			return nil
		})
		if errors.Is(err, errNoMark) {
			return pre, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return pre, nil
}

var errNoMark = errors.New("index: no group mark")

// batchState is what a transaction of AddBatch has written, which its own
// reads (Tx does not read its own writes) cannot see: groups made in it
// (with a band table of their own), documents added or removed in it, and
// groups emptied. It is rebuilt each time the store runs the transaction.
type batchState struct {
	ix      *Index
	table   *lsh.MemTable     // band keys of the groups made in the transaction
	made    map[uint64]*probe // those groups' sketches
	added   map[uint64][]Doc  // documents added, by group
	byID    map[string]Doc    // documents added, by id
	gone    map[uint64]bool   // documents (Seq) removed
	goneID  map[string]bool   // ids removed
	emptied map[uint64]bool   // groups deleted
}

func newBatchState(ix *Index) *batchState {
	return &batchState{ix: ix, table: lsh.NewMemTable(ix.meta.Params.LSH.Bands), made: map[uint64]*probe{},
		added: map[uint64][]Doc{}, byID: map[string]Doc{}, gone: map[uint64]bool{}, goneID: map[string]bool{}, emptied: map[uint64]bool{}}
}

// docByID looks up an id as the transaction has left it.
func (b *batchState) docByID(tx Tx, id string) (Doc, error) {
	if d, ok := b.byID[id]; ok {
		return d, nil
	}
	if b.goneID[id] {
		return Doc{}, ErrNotFound
	}
	return tx.DocByID(id)
}

// search is Index.search over the committed groups and those made in the
// transaction, leaving out groups it deleted.
func (b *batchState) search(tx Tx, pr *probe, pre preMatch, v *neardup.Verifier) ([]groupMatch, error) {
	var gms []groupMatch
	var err error
	if pre.ok {
		// The groups found before the transaction, if they still exist,
		// and those made since.
		if gms, err = b.ix.searchFrom(tx, pr, v, pre.mark); err != nil {
			return nil, err
		}
		gids := make([]uint64, len(pre.gms))
		for i, gm := range pre.gms {
			gids[i] = gm.gid
		}
		sizes, err := bulk(tx).Sizes(nil, gids)
		if err != nil {
			return nil, err
		}
		for i, gm := range pre.gms {
			if sizes[i] > 0 {
				gms = append(gms, gm)
			}
		}
		sortMatches(gms)
	} else if gms, err = b.ix.search(tx, pr, v); err != nil {
		return nil, err
	}
	if len(b.emptied) > 0 {
		gms = slices.DeleteFunc(gms, func(gm groupMatch) bool { return b.emptied[gm.gid] })
	}
	if len(b.made) == 0 {
		return gms, nil
	}
	local, err := lsh.Lookup(nil, b.table, pr.keys)
	if err != nil {
		return nil, err
	}
	for _, gid := range local {
		g := b.made[gid]
		if g == nil || b.emptied[gid] || !v.Prefilter(&pr.s, &g.s) {
			continue
		}
		if j, ok := v.Confirm(&pr.s, &g.s); ok {
			gms = append(gms, groupMatch{gid: gid, jac: j, same: j == 1})
		}
	}
	sortMatches(gms)
	return gms, nil
}

// members lists up to max documents (max <= 0: all) of group gid as the
// transaction has left it, in insertion order.
func (b *batchState) members(tx Tx, gid uint64, max int) ([]Doc, error) {
	var docs []Doc
	if b.made[gid] == nil { // a committed group
		seqs, err := tx.Members(nil, gid)
		if err != nil {
			return nil, err
		}
		seqs = slices.DeleteFunc(seqs, func(seq uint64) bool { return b.gone[seq] })
		if max > 0 {
			seqs = seqs[:min(len(seqs), max)]
		}
		all, err := bulk(tx).Docs(nil, seqs)
		if err != nil {
			return nil, err
		}
		for _, d := range all {
			if d.Seq != 0 {
				docs = append(docs, d)
			}
		}
	}
	for _, d := range b.added[gid] {
		if max > 0 && len(docs) >= max {
			break
		}
		if !b.gone[d.Seq] {
			docs = append(docs, d)
		}
	}
	return docs, nil
}

// add is one item of AddBatch; its error is a store failure, item
// failures are in the result.
func (b *batchState) add(tx Tx, it AddItem, pr *probe, pre preMatch, o AddOptions) (AddResult, error) {
	ix := b.ix
	var res AddResult
	var old *Doc
	switch d, err := b.docByID(tx, it.ID); {
	case err == nil && !o.Replace:
		// Not added; its near-duplicates are still listed.
		res.Err = fmt.Errorf("%w: %q", ErrExists, it.ID)
		old = &d
	case err == nil:
		old = &d
	case !errors.Is(err, ErrNotFound):
		return res, err
	}
	gms, err := b.search(tx, pr, pre, ix.ver)
	if err != nil {
		return res, err
	}
	for _, gm := range gms {
		if o.Limit > 0 && len(res.Duplicates) >= o.Limit {
			break
		}
		want := 0
		if o.Limit > 0 {
			want = o.Limit - len(res.Duplicates) + 1 // +1: old may be among them
		}
		docs, err := b.members(tx, gm.gid, want)
		if err != nil {
			return res, err
		}
		for _, d := range docs {
			if old != nil && d.Seq == old.Seq {
				continue
			}
			if o.Limit > 0 && len(res.Duplicates) >= o.Limit {
				break
			}
			res.Duplicates = append(res.Duplicates, Match{ID: d.ID, Seq: d.Seq, Jaccard: gm.jac})
		}
	}
	if res.Err != nil || o.IfUnique && len(res.Duplicates) > 0 {
		return res, nil
	}
	gid := uint64(0)
	if len(gms) > 0 && gms[0].same {
		gid = gms[0].gid // an identical set: join its group
	}
	if old != nil {
		res.Replaced = true
		if err := b.remove(tx, *old, gid); err != nil {
			return res, err
		}
	}
	if gid == 0 {
		// The sketch outlives the pooled probe: copy it.
		g := &probe{s: neardup.Sketch{Set: slices.Clone(pr.s.Set), Size: pr.s.Size, Fingerprint: pr.s.Fingerprint,
			Signature: slices.Clone(pr.s.Signature)}, keys: slices.Clone(pr.keys)}
		if gid, err = tx.NewGroup(Group{Set: g.s.Set, Signature: g.s.Signature, Keys: g.keys}); err != nil {
			return res, err
		}
		b.made[gid] = g
		if err := lsh.Insert(b.table, gid, g.keys); err != nil {
			return res, err
		}
	}
	seq, err := tx.NewSeq()
	if err != nil {
		return res, err
	}
	d := Doc{Seq: seq, ID: it.ID, Group: gid, Added: ix.o.Now().UnixNano()}
	if ix.meta.KeepTexts {
		d.Text = it.Text
	}
	if err := tx.PutDoc(d); err != nil {
		return res, err
	}
	b.added[gid] = append(b.added[gid], d)
	b.byID[d.ID] = d
	delete(b.goneID, d.ID)
	res.Seq, res.Added = seq, true
	return res, nil
}

// remove deletes d and, when it was the last member of its group (and the
// group is not keep, about to get a new member), the group.
func (b *batchState) remove(tx Tx, d Doc, keep uint64) error {
	if err := tx.DeleteDoc(d); err != nil {
		return err
	}
	b.gone[d.Seq] = true
	if b.byID[d.ID].Seq == d.Seq {
		delete(b.byID, d.ID)
	}
	b.goneID[d.ID] = true
	if d.Group == keep {
		return nil
	}
	left, err := b.members(tx, d.Group, 1)
	if err != nil || len(left) > 0 {
		return err
	}
	var g Group
	if m := b.made[d.Group]; m != nil {
		g = Group{Set: m.s.Set, Signature: m.s.Signature, Keys: m.keys}
		if err := lsh.Delete(b.table, d.Group, m.keys); err != nil {
			return err
		}
	} else if g, err = tx.Group(d.Group); err != nil {
		return err
	}
	b.emptied[d.Group] = true
	return tx.DeleteGroup(d.Group, g)
}

// Remove deletes the document with the id (ErrNotFound if there is none).
// When Remove returns, the deletion is durable.
func (ix *Index) Remove(ctx context.Context, id string) error {
	if ix.closed.Load() {
		return ErrClosed
	}
	return ix.st.Update(ctx, func(tx Tx) error {
		d, err := tx.DocByID(id)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				return fmt.Errorf("%w: %q", ErrNotFound, id)
			}
			return err
		}
		return newBatchState(ix).remove(tx, d, 0)
	})
}

// Get returns the document with the id (ErrNotFound if there is none).
func (ix *Index) Get(ctx context.Context, id string) (Doc, error) {
	if ix.closed.Load() {
		return Doc{}, ErrClosed
	}
	var d Doc
	err := ix.st.View(ctx, func(tx Tx) error {
		var err error
		d, err = tx.DocByID(id)
		if errors.Is(err, ErrNotFound) {
			return fmt.Errorf("%w: %q", ErrNotFound, id)
		}
		return err
	})
	return d, err
}

// Duplicates returns the other indexed documents that are near-duplicates
// of the document with the id, as Query would for its text.
func (ix *Index) Duplicates(ctx context.Context, id string, q QueryOptions) ([]Match, error) {
	if ix.closed.Load() {
		return nil, ErrClosed
	}
	v, err := ix.verifier(q.Threshold)
	if err != nil {
		return nil, err
	}
	var out []Match
	err = ix.st.View(ctx, func(tx Tx) error {
		d, err := tx.DocByID(id)
		if errors.Is(err, ErrNotFound) {
			return fmt.Errorf("%w: %q", ErrNotFound, id)
		}
		if err != nil {
			return err
		}
		g, err := tx.Group(d.Group)
		if err != nil {
			return err
		}
		pr := &probe{s: neardup.Sketch{Set: g.Set, Size: len(g.Set), Signature: g.Signature}, keys: g.Keys}
		gms, err := ix.search(tx, pr, v)
		if err != nil {
			return err
		}
		out, err = ix.expand(tx, gms, d.Seq, q.Limit)
		return err
	})
	return out, err
}

// Stats are counts of an index.
type Stats struct {
	Documents int64
	Groups    int64 // distinct shingle sets
}

// Stats returns the index's counts.
func (ix *Index) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	err := ix.st.View(ctx, func(tx Tx) error {
		var err error
		s.Documents, s.Groups, err = tx.Counts()
		return err
	})
	return s, err
}
