package pipeline

// Stage 1: read, sketch, collapse identical sets, candidates, verification.

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/lsh"
)

var (
	cDocs       = beam.NewCounter("neardup", "documents")
	cEmpty      = beam.NewCounter("neardup", "empty_documents")
	cSkipped    = beam.NewCounter("neardup", "skipped_bad_records")
	cBinary     = beam.NewCounter("neardup", "skipped_binary_files")
	cShingles   = beam.NewCounter("neardup", "shingles")
	cBytes      = beam.NewCounter("neardup", "text_bytes")
	cIdentical  = beam.NewCounter("neardup", "identical_documents")
	cDistinct   = beam.NewCounter("neardup", "distinct_shingle_sets")
	cCandidates = beam.NewCounter("neardup", "candidate_pairs")
	cLarge      = beam.NewCounter("neardup", "large_buckets")
	cVerified   = beam.NewCounter("neardup", "verified_pairs")

	// Payload bytes each GroupByKey moves (keys and values as this package
	// encodes them; the runner's coders add a few bytes an element).
	cShufSets  = beam.NewCounter("neardup", "shuffle_bytes_sets")
	cShufBands = beam.NewCounter("neardup", "shuffle_bytes_bands")
	cShufJoin  = beam.NewCounter("neardup", "shuffle_bytes_join")
	cShufEdges = beam.NewCounter("neardup", "shuffle_bytes_edges")
)

// sketched adds the first stage: every document (Doc), the copies of
// earlier sets (Copy) and the verified pairs between distinct sets (Edge),
// and the distinct sets themselves (Signed).
func sketched(s beam.Scope, c Config) (docs, copies, uniq, edges beam.PCollection) {
	s = s.Scope("sketch")
	var files []int
	for i := range c.Files {
		files = append(files, i)
	}
	// Reshuffle so that the files are spread over the workers.
	fileCol := beam.Reshuffle(s, beam.CreateList(s, files))
	docs, entries := beam.ParDo2(s.Scope("read"), &readFn{C: c}, fileCol)
	uniq, copies = beam.ParDo2(s.Scope("collapse"), &collapseFn{C: c}, beam.GroupByKey(s, entries))
	signed, members, sigs := beam.ParDo3(s.Scope("band keys"), &bandFn{C: c}, uniq)
	buckets := beam.GroupByKey(s, members)
	// The members of chained buckets, (sequence number, band): a side
	// input of the candidate search, small unless buckets are chained.
	chained := beam.ParDo(s.Scope("chained"), &chainedFn{C: c}, buckets)
	pairs := beam.ParDo(s.Scope("candidates"), &bucketFn{C: c}, buckets, beam.SideInput{Input: chained})
	if c.MaxBucket > 0 {
		// The pairs of chained buckets beyond their chains whose
		// signatures agree on the verifier's least agreement
		// (lsh.AgreeingPairs): the chained buckets are grouped again,
		// their members with whole signatures (joined from sigs, each
		// distinct set's signature alone).
		whole := beam.ParDo(s.Scope("chained members"), &wholeFn{C: c}, beam.CoGroupByKey(s, sigs, chained))
		agreeing := beam.ParDo(s.Scope("chained pairs"), &agreeFn{C: c}, beam.GroupByKey(s, whole), beam.SideInput{Input: chained})
		pairs = beam.Flatten(s, pairs, agreeing)
	}
	halves := beam.ParDo(s.Scope("join A"), &attachFn{}, beam.CoGroupByKey(s, signed, pairs))
	edges = beam.ParDo(s.Scope("verify"), &verifyFn{C: c}, beam.CoGroupByKey(s, signed, halves))
	return docs, copies, uniq, edges
}

// readFn reads one input file in record order and shingles each document.
type readFn struct {
	C  Config
	sk *neardup.Sketcher
}

func (f *readFn) Setup() (err error) {
	f.sk, err = f.C.sketcher()
	return err
}

func (f *readFn) ProcessElement(ctx context.Context, file int, emitDoc func(Doc), emitSet func(int64, Entry)) error {
	r, closeIn, err := openInput(ctx, f.C.Files[file], f.C.Corpus)
	if err != nil {
		return err
	}
	defer closeIn()
	prefix := ""
	if len(f.C.Names) > 1 {
		prefix = f.C.Names[file] + ":"
	}
	var set []uint64
	var n, empty, shingles, bytes, setBytes int64
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		id := rec.ID
		if id == "" {
			id = strconv.Itoa(rec.Num)
		}
		seq := seqOf(file, rec.Num)
		set = f.sk.AppendSet(set[:0], rec.Text)
		d := Doc{Seq: seq, ID: prefix + id, Size: int64(len(rec.Text)), Empty: len(set) == 0}
		emitDoc(d)
		n++
		bytes += d.Size
		shingles += int64(len(set))
		if d.Empty {
			empty++
			continue
		}
		emitSet(int64(neardup.Fingerprint(set)), Entry{Seq: seq, Set: slices.Clone(set)})
		setBytes += 16 + 8*int64(len(set))
	}
	cShufSets.Inc(ctx, setBytes)
	cDocs.Inc(ctx, n)
	cEmpty.Inc(ctx, empty)
	cShingles.Inc(ctx, shingles)
	cBytes.Inc(ctx, bytes)
	cSkipped.Inc(ctx, int64(r.Skipped()))
	cBinary.Inc(ctx, int64(r.SkippedBinary()))
	return nil
}

// openInput opens a local path with corpus.Open (every format, directories
// included) and a URL through Beam's file systems.
func openInput(ctx context.Context, path string, o corpus.Options) (*corpus.Reader, func(), error) {
	if !isURL(path) {
		r, err := corpus.Open(path, o)
		if err != nil {
			return nil, nil, err
		}
		return r, func() { r.Close() }, nil
	}
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	in, err := fs.OpenRead(ctx, path)
	if err != nil {
		fs.Close()
		return nil, nil, err
	}
	r, err := corpus.NewReader(in, path, o)
	if err != nil {
		in.Close()
		fs.Close()
		return nil, nil, err
	}
	return r, func() { r.Close(); in.Close(); fs.Close() }, nil
}

// isURL reports whether path names a file system by its scheme.
func isURL(path string) bool {
	i := strings.Index(path, "://")
	return i > 1 && !strings.ContainsAny(path[:i], `/\`)
}

// joinPath joins a directory (local or URL) and a name.
func joinPath(dir, name string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

// collapseFn finds the documents with identical sets among those with one
// fingerprint, as the batch does: each document is compared with the
// earliest document of its fingerprint, and a copy of it when the sets
// are equal (their sizes only, under VerifyEstimate); the others are
// distinct sets. Distinct sets come out signed.
type collapseFn struct {
	C  Config
	sk *neardup.Sketcher
}

func (f *collapseFn) Setup() (err error) {
	f.sk, err = f.C.sketcher()
	return err
}

func (f *collapseFn) ProcessElement(ctx context.Context, _ int64, next func(*Entry) bool, uniq func(Signed), copies func(Copy)) error {
	es := collect(next)
	slices.SortFunc(es, func(a, b Entry) int { return cmp.Compare(a.Seq, b.Seq) })
	first := es[0]
	exact := f.C.Verify == neardup.VerifyExact
	var nu, nc int64
	for i, e := range es {
		if i > 0 && len(e.Set) == len(first.Set) && (!exact || slices.Equal(e.Set, first.Set)) {
			copies(Copy{Seq: e.Seq, Rep: first.Seq})
			nc++
			continue
		}
		uniq(Signed{Seq: e.Seq, Size: len(e.Set), Set: e.Set, Sig: f.sk.AppendSignature(nil, e.Set)})
		nu++
	}
	cIdentical.Inc(ctx, nc)
	cDistinct.Inc(ctx, nu)
	return nil
}

// bandFn keys a distinct set's sketch by its sequence number, and makes
// one bucket entry per band, keyed by the band and its key.
type bandFn struct {
	C  Config
	sk *neardup.Sketcher
}

func (f *bandFn) Setup() (err error) {
	f.sk, err = f.C.sketcher()
	return err
}

func (f *bandFn) ProcessElement(ctx context.Context, u Signed, signed func(int64, Signed), bucket func(string, Member), sigs func(int64, []uint32)) error {
	if f.C.Verify != neardup.VerifyExact {
		u.Set = nil
	}
	signed(u.Seq, u)
	if f.C.MaxBucket > 0 {
		sigs(u.Seq, u.Sig)
		cShufJoin.Inc(ctx, 8+4*int64(len(u.Sig)))
	}
	// A band entry carries the signature up to its band: all that the
	// bucket's split into equal band values and the home-band rule read
	// (lsh.Params.ReportBand compares only as far as both slices go; a
	// chained bucket's pair is checked on the whole signatures in verifyFn).
	rows := f.sk.Params().LSH.Rows
	var bytes int64
	for band, key := range f.sk.AppendBandKeys(nil, u.Sig) {
		bucket(bucketKey(band, key), Member{Seq: u.Seq, Sig: u.Sig[:(band+1)*rows]})
		bytes += 10 + 8 + 4*int64((band+1)*rows)
	}
	// The sketch goes to both joins.
	cShufJoin.Inc(ctx, 2*(16+8*int64(len(u.Set))+4*int64(len(u.Sig))))
	cShufBands.Inc(ctx, bytes)
	return nil
}

// bucketKey is the GroupByKey key of (band, key): 2 + 8 bytes, big-endian.
func bucketKey(band int, key uint64) string {
	var b [10]byte
	binary.BigEndian.PutUint16(b[:], uint16(band))
	binary.BigEndian.PutUint64(b[2:], key)
	return string(b[:])
}

// trueBuckets calls fn with each bucket of a (band, key) group: the members
// split by their band values (equal keys do not prove equal values), each
// bucket in sequence order. It sorts ms.
func trueBuckets(ms []Member, band, rows int, fn func([]Member)) {
	values := func(x Member) []uint32 { return x.Sig[band*rows : (band+1)*rows] }
	slices.SortFunc(ms, func(a, b Member) int {
		if c := slices.Compare(values(a), values(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.Seq, b.Seq)
	})
	for lo := 0; lo < len(ms); {
		hi := lo + 1
		for hi < len(ms) && slices.Equal(values(ms[hi]), values(ms[lo])) {
			hi++
		}
		fn(ms[lo:hi])
		lo = hi
	}
}

// chainedFn emits (sequence number, band) for every member of a chained
// bucket (lsh.Chained): the bits of the chained-bucket bitsets
// lsh.Params.ReportBand reads.
type chainedFn struct {
	C    Config
	rows int
}

func (f *chainedFn) Setup() error {
	p, err := f.C.params()
	if err != nil {
		return err
	}
	f.rows = p.LSH.Rows
	return nil
}

func (f *chainedFn) ProcessElement(ctx context.Context, key string, next func(*Member) bool, emit func(int64, int)) {
	band := int(binary.BigEndian.Uint16([]byte(key)))
	maxBucket := max(f.C.MaxBucket, 0)
	ms := collect(next)
	if !lsh.Chained(len(ms), maxBucket) {
		return // no bucket of the group can be
	}
	trueBuckets(ms, band, f.rows, func(b []Member) {
		if lsh.Chained(len(b), maxBucket) {
			for _, m := range b {
				emit(m.Seq, band)
			}
		}
	})
}

// bucketFn turns a (band, key) group into candidate pairs: the members in
// sequence order, split into true buckets, paired by lsh.BucketPairs, each
// pair kept only in the band lsh.Params.ReportBand gives, as the batch
// does. The side input is chainedFn's output, read once into bitsets.
type bucketFn struct {
	C    Config
	lp   lsh.Params
	rows int

	large  map[int64][]uint64 // chained-bucket bitsets; nil until read
	loaded bool
}

func (f *bucketFn) Setup() error {
	p, err := f.C.params()
	if err != nil {
		return err
	}
	f.lp, f.rows = p.LSH, p.LSH.Rows
	return nil
}

func (f *bucketFn) ProcessElement(ctx context.Context, key string, next func(*Member) bool, chained func(*int64, *int) bool, emit func(int64, Pair)) error {
	if !f.loaded {
		f.large = readLarge(f.lp.Bands, chained)
		f.loaded = true
	}
	band := int(binary.BigEndian.Uint16([]byte(key)))
	ms := collect(next)
	maxBucket := max(f.C.MaxBucket, 0)
	var cands, large int64
	trueBuckets(ms, band, f.rows, func(b []Member) {
		chain := lsh.Chained(len(b), maxBucket)
		if chain {
			large++
		}
		lsh.BucketPairs(len(b), maxBucket, func(x, y int) bool {
			// The members carry the bands up to this one: enough for
			// ReportBand in a small bucket (no earlier band reports the
			// pair), and for the home band of a chain pair, which
			// verification checks against the later bands.
			lb := f.large[b[x].Seq]
			switch {
			case !chain && f.lp.ReportBand(b[x].Sig, b[y].Sig, lb) == band:
				emit(b[x].Seq, Pair{A: b[x].Seq, B: b[y].Seq})
				cands++
			case chain && f.lp.HomeBand(b[x].Sig, b[y].Sig) == band:
				emit(b[x].Seq, Pair{A: b[x].Seq, B: b[y].Seq, Chain: band + 1, Large: lb})
			}
			return true
		})
	})
	cCandidates.Inc(ctx, cands)
	cShufJoin.Inc(ctx, 24*cands)
	cLarge.Inc(ctx, large)
	return nil
}

// wholeFn keys each member of a chained bucket, with its whole signature,
// by that bucket's (band, key), once per band in which its bucket is
// chained (chainedFn's output joined with the signatures).
type wholeFn struct {
	C  Config
	lp lsh.Params
}

func (f *wholeFn) Setup() error {
	p, err := f.C.params()
	if err != nil {
		return err
	}
	f.lp = p.LSH
	return nil
}

func (f *wholeFn) ProcessElement(ctx context.Context, seq int64, sigs func(*[]uint32) bool, bands func(*int) bool, emit func(string, Member)) error {
	var sig []uint32
	var band int
	have := false
	var bytes int64
	for bands(&band) {
		if !have {
			if !sigs(&sig) {
				return fmt.Errorf("neardup: set %d is in a chained bucket but has no signature", seq)
			}
			have = true
		}
		emit(bucketKey(band, f.lp.BandKey(sig, band)), Member{Seq: seq, Sig: sig})
		bytes += 10 + 8 + 4*int64(len(sig))
	}
	cShufBands.Inc(ctx, bytes)
	return nil
}

// agreeFn turns a (band, key) group of chained buckets' members with whole
// signatures into the pairs lsh.AgreeingPairs adds to their chains (under
// the verifier's MinAgreement), sent on like bucketFn's chain pairs: kept
// in verifyFn when lsh.Params.ReportBand gives the band.
type agreeFn struct {
	C     Config
	lp    lsh.Params
	rows  int
	agree int

	large  map[int64][]uint64 // chained-bucket bitsets; nil until read
	loaded bool
}

func (f *agreeFn) Setup() error {
	p, err := f.C.params()
	if err != nil {
		return err
	}
	f.lp, f.rows = p.LSH, p.LSH.Rows
	v, err := f.C.verifier()
	if err != nil {
		return err
	}
	f.agree = v.MinAgreement()
	return nil
}

func (f *agreeFn) ProcessElement(ctx context.Context, key string, next func(*Member) bool, chained func(*int64, *int) bool, emit func(int64, Pair)) error {
	if !f.loaded {
		f.large = readLarge(f.lp.Bands, chained)
		f.loaded = true
	}
	band := int(binary.BigEndian.Uint16([]byte(key)))
	ms := collect(next)
	trueBuckets(ms, band, f.rows, func(b []Member) {
		sig := func(x int) []uint32 { return b[x].Sig }
		lsh.AgreeingPairs(len(b), f.agree, sig, func(x, y int) bool {
			if f.lp.HomeBand(b[x].Sig, b[y].Sig) == band {
				emit(b[x].Seq, Pair{A: b[x].Seq, B: b[y].Seq, Chain: band + 1, Large: f.large[b[x].Seq]})
			}
			return true
		})
	})
	return nil
}

// readLarge reads chainedFn's output (sequence number, band) into
// chained-bucket bitsets of words (bands+63)/64; nil when it is empty.
func readLarge(bands int, chained func(*int64, *int) bool) map[int64][]uint64 {
	words := (bands + 63) / 64
	var large map[int64][]uint64
	var seq int64
	var b int
	for chained(&seq, &b) {
		if large == nil {
			large = map[int64][]uint64{}
		}
		bits := large[seq]
		if bits == nil {
			bits = make([]uint64, words)
			large[seq] = bits
		}
		bits[b/64] |= 1 << (b % 64)
	}
	return large
}

// attachFn joins A's sketch to its candidate pairs and keys them by B.
type attachFn struct{}

func (attachFn) ProcessElement(ctx context.Context, seq int64, signed func(*Signed) bool, pairs func(*Pair) bool, emit func(int64, Half)) {
	var s Signed
	if !signed(&s) {
		return
	}
	var p Pair
	n := int64(0)
	for pairs(&p) {
		emit(p.B, Half{A: p.A, B: p.B, Chain: p.Chain, Large: p.Large, Size: s.Size, Set: s.Set, Sig: s.Sig})
		n++
	}
	cShufJoin.Inc(ctx, n*(24+8*int64(len(s.Set))+4*int64(len(s.Sig))))
}

// verifyFn joins B's sketch and verifies each pair with the engine's
// Verifier, after the last check of a chained bucket's pair (Pair.Chain).
type verifyFn struct {
	C  Config
	v  *neardup.Verifier
	lp lsh.Params
}

func (f *verifyFn) Setup() (err error) {
	p, err := f.C.params()
	if err != nil {
		return err
	}
	f.lp = p.LSH
	f.v, err = f.C.verifier()
	return err
}

func (f *verifyFn) ProcessElement(ctx context.Context, seq int64, signed func(*Signed) bool, halves func(*Half) bool, emit func(Edge)) error {
	var s Signed
	if !signed(&s) {
		return fmt.Errorf("neardup: candidate pairs of set %d, which has no sketch", seq)
	}
	b := sketchOf(s.Size, s.Set, s.Sig)
	var h Half
	var n, chains int64
	for halves(&h) {
		if h.Chain > 0 {
			if f.lp.ReportBand(h.Sig, s.Sig, h.Large) != h.Chain-1 {
				continue // a later band's small bucket reports it
			}
			chains++
		}
		a := sketchOf(h.Size, h.Set, h.Sig)
		if j, ok := f.v.Verify(&a, &b); ok {
			emit(Edge{A: h.A, B: h.B, Jaccard: j})
			n++
		}
	}
	cCandidates.Inc(ctx, chains)
	cVerified.Inc(ctx, n)
	cShufEdges.Inc(ctx, 24*n)
	return nil
}

// sketchOf is the Sketch a Verifier needs: the set size, the set (nil
// under VerifyEstimate) and the signature.
func sketchOf(size int, set []uint64, sig []uint32) neardup.Sketch {
	return neardup.Sketch{Set: set, Size: size, Signature: sig}
}
