package neardup

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"sync"

	"github.com/neardup/neardup/idf"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/shingle"
)

// Sketch is what the engine keeps of one document: its shingle set, the
// set's fingerprint, its MinHash signature and, with WeightIDF, the weights
// of its shingles. Batch, the commands, an index and a distributed pipeline
// all make sketches with a Sketcher and compare them with a Verifier, so a
// document gets the same sketch everywhere.
//
// The slices may alias buffers the caller owns (a Sketcher appends into the
// ones already there); a Sketch is not safe for concurrent mutation.
type Sketch struct {
	// Set is the shingle set: sorted, distinct 64-bit hashes (package
	// shingle). Empty for a document without shingles. Nil when the
	// caller keeps only signatures (VerifyEstimate).
	Set []uint64
	// Size is the number of shingles, len(Set) when Set is kept.
	Size int
	// Fingerprint is Fingerprint(Set): equal sets have equal fingerprints.
	Fingerprint uint64
	// Signature has Params.Slots values, or is empty before signing.
	Signature []uint32
	// Weights[i] is the idf weight of Set[i] (WeightIDF only), and
	// WeightSum their sum.
	Weights   []float64
	WeightSum float64
}

// Empty reports whether the document has no shingles. An empty document is
// never a near-duplicate of anything.
func (s *Sketch) Empty() bool { return s.Size == 0 }

// Fingerprint returns a 64-bit hash of a sorted, distinct shingle set such
// that identical sets have equal fingerprints; it is 0 only for the empty
// set. Batch collapses documents with identical sets by fingerprint (then
// compares the sets), and a distributed run groups by it.
//
// The function is part of the stored format (SketchVersion): with
// h = len(set) * 0x9e3779b97f4a7c15, for each x in order
// h = rotl64(h XOR x, 27) * 0xbf58476d1ce4e5b9 + 0x94d049bb133111eb, then
// h ^= h >> 31; h *= 0xd6e8feb86993a8f3; h ^= h >> 29; the result is h | 1.
// It does not allocate.
func Fingerprint(set []uint64) uint64 {
	if len(set) == 0 {
		return 0
	}
	h := uint64(len(set)) * 0x9e3779b97f4a7c15
	for _, x := range set {
		h = bits.RotateLeft64(h^x, 27)*0xbf58476d1ce4e5b9 + 0x94d049bb133111eb
	}
	h ^= h >> 31
	h *= 0xd6e8feb86993a8f3
	h ^= h >> 29
	return h | 1
}

// setKey keys setHashes: random for each Batch, so that documents cannot
// be crafted to collide in them.
type setKey [4]uint64

// newSetKey returns a random setKey (math/rand/v2's runtime-seeded source).
func newSetKey() setKey {
	return setKey{rand.Uint64(), rand.Uint64() | 1, rand.Uint64(), rand.Uint64() | 1}
}

// setHashes returns two 64-bit hashes of a distinct shingle set that do not
// depend on the order of its elements: the two-pass mode's first pass
// deduplicates each set with a hash table (shingle.Shingler.AppendDistinct)
// and never sorts it, and identifies sets by their sizes and these hashes
// (Fingerprint's result depends on the order). Each is a sum over the elements of the folded 128-bit product of
// the element, xor-ed with one key word, and another (odd) key word, then
// mixed with the size; two different sets agree on both with probability
// about 2^-128 for a random key. The first is 0 only for the empty set. It
// does not allocate. The hashes are internal to one Batch: nothing stores
// them.
func (k *setKey) setHashes(set []uint64) (fp, fp2 uint64) {
	if len(set) == 0 {
		return 0, 0 // setHash's 0, and setSum's mix64(0)
	}
	// setHash and setSum, in one loop: its two products a value are
	// independent, where each loop alone waits on its one.
	var s1, s2 uint64
	for _, x := range set {
		h1, l1 := bits.Mul64(x^k[0], k[1])
		h2, l2 := bits.Mul64(x^k[2], k[3])
		s1 += h1 ^ l1
		s2 += h2 ^ l2
	}
	n := uint64(len(set))
	return mix64(s1+n*0x9e3779b97f4a7c15) | 1, mix64(s2 + n*0xc2b2ae3d27d4eb4f)
}

// setHash is setHashes' first hash alone: what one pass, which compares
// the sets of documents whose hashes agree, needs to find identical sets.
func (k *setKey) setHash(set []uint64) uint64 {
	if len(set) == 0 {
		return 0
	}
	return setSum(set, k[0], k[1], 0x9e3779b97f4a7c15) | 1
}

// setSum is a hash of setHashes: the sum over set of the folded product
// (x^a)*m, then mixed with the size times c.
func setSum(set []uint64, a, m, c uint64) uint64 {
	var sum uint64
	for _, x := range set {
		hi, lo := bits.Mul64(x^a, m)
		sum += hi ^ lo
	}
	return mix64(sum + uint64(len(set))*c)
}

// mix64 is a bijective 64-bit finaliser (the one of SplitMix64).
func mix64(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// Sketcher makes sketches under one set of resolved Params.
//
// A Sketcher is safe for concurrent use by many goroutines: it is read-only
// but for an internal pool of shingling scratch buffers, so one Sketcher can
// serve every handler of a server or every worker of a batch. The Append
// methods allocate nothing once the pool is warm and dst has room.
type Sketcher struct {
	p      Params
	hasher *minhash.Hasher
	pool   sync.Pool // *shingle.Shingler
}

// NewSketcher returns a Sketcher for p (resolved first), or an error
// wrapping ErrOptions.
func NewSketcher(p Params) (*Sketcher, error) {
	p, err := p.Resolve()
	if err != nil {
		return nil, err
	}
	return newSketcher(p)
}

// newSketcher is NewSketcher for resolved p (a Batch's, resolved once).
func newSketcher(p Params) (*Sketcher, error) {
	if _, err := shingle.New(p.Shingle); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	h, err := minhash.New(p.Slots, p.Seed)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	s := &Sketcher{p: p, hasher: h}
	s.pool.New = func() any {
		sh, _ := shingle.New(p.Shingle) // checked above
		return sh
	}
	return s, nil
}

// Params returns the resolved parameters.
func (s *Sketcher) Params() Params { return s.p }

// shingler returns a Shingler of its own for a long-lived worker, which
// then skips the pool.
func (s *Sketcher) shingler() *shingle.Shingler { return s.pool.New().(*shingle.Shingler) }

// AppendSet appends the shingle set of text to dst (sorted, distinct; see
// shingle.Shingler.AppendSet) and returns the extended slice.
func (s *Sketcher) AppendSet(dst []uint64, text []byte) []uint64 {
	sh := s.pool.Get().(*shingle.Shingler)
	dst = sh.AppendSet(dst, text)
	s.pool.Put(sh)
	return dst
}

// AppendTokens appends the hashes of text's tokens in order (see
// shingle.Shingler.AppendTokens): the sequence edit similarity compares.
func (s *Sketcher) AppendTokens(dst []uint64, text []byte) []uint64 {
	sh := s.pool.Get().(*shingle.Shingler)
	dst = sh.AppendTokens(dst, text)
	s.pool.Put(sh)
	return dst
}

// AppendSignature appends the Params.Slots values of set's plain MinHash
// signature to dst.
func (s *Sketcher) AppendSignature(dst []uint32, set []uint64) []uint32 {
	return s.hasher.AppendSignature(dst, set)
}

// AppendWeightedSignature appends the weighted MinHash signature of set
// whose elements weigh weights (parallel slices; see
// minhash.Hasher.AppendWeightedSignature).
func (s *Sketcher) AppendWeightedSignature(dst []uint32, set []uint64, weights []float64) []uint32 {
	return s.hasher.AppendWeightedSignature(dst, set, weights)
}

// AppendBandKeys appends the Params.LSH.Bands band keys of sig to dst
// (lsh.Params.AppendBandKeys): the keys an index or a pipeline buckets by.
// A signature shorter than Bands*Rows (an unsigned sketch) has no keys:
// nothing is appended.
func (s *Sketcher) AppendBandKeys(dst []uint64, sig []uint32) []uint64 {
	if len(sig) < s.p.LSH.Bands*s.p.LSH.Rows {
		return dst
	}
	return s.p.LSH.AppendBandKeys(dst, sig)
}

// Sketch makes the sketch of text in sk, reusing sk's slices: the set, its
// size and fingerprint, and the plain signature. Under WeightIDF the
// signature depends on weights of the whole corpus: pass them as tab (see
// Weigh); with a nil tab the signature is left empty for the caller to
// Weigh and sign later. Sketch allocates nothing when sk's slices have room.
func (s *Sketcher) Sketch(sk *Sketch, text []byte, tab *idf.Table) {
	sk.Set = s.AppendSet(sk.Set[:0], text)
	sk.Size = len(sk.Set)
	sk.Fingerprint = Fingerprint(sk.Set)
	sk.Weights, sk.WeightSum = sk.Weights[:0], 0
	sk.Signature = sk.Signature[:0]
	if s.p.Weight == WeightIDF {
		if tab != nil {
			s.Weigh(sk, tab)
		}
		return
	}
	sk.Signature = s.hasher.AppendSignature(sk.Signature, sk.Set)
}

// Weigh sets sk.Weights and sk.WeightSum from tab (idf weights of the
// corpus) and replaces sk.Signature with the weighted signature of sk.Set.
// It is what Sketch does under WeightIDF once the weights are known.
func (s *Sketcher) Weigh(sk *Sketch, tab *idf.Table) {
	sk.Weights = tab.AppendWeights(sk.Weights[:0], sk.Set)
	sk.WeightSum = 0
	for _, w := range sk.Weights {
		sk.WeightSum += w
	}
	sk.Signature = s.hasher.AppendWeightedSignature(sk.Signature[:0], sk.Set, sk.Weights)
}
