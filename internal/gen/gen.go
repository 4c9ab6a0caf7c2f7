// Package gen generates deterministic synthetic corpora with planted
// near-duplicates, for tests, the shipped sample and benchmarks.
//
// Generate writes documents of pseudo-words (syllable strings such as
// "stoa", "brenmi") drawn from a Zipf law over a fixed vocabulary, cut into
// capitalised sentences with commas and periods, with log-normal lengths.
// Into that background it plants what a near-duplicate detector must find or
// must not be fooled by:
//
//   - copies of earlier documents with word-level edits at rates from
//     [DefaultEditRates] (0 is an exact copy);
//   - chains: copies of copies at a small rate per step, so that neighbours
//     in a chain are similar while its ends may not be;
//   - templated families: one text with slots, each member filling the slots
//     differently;
//   - shared boilerplate: a paragraph from a pool of [BoilerParagraphs]
//     appended to some documents, so that unrelated documents share shingles;
//   - very short (1-10 words) and empty documents.
//
// Doc records what was planted. GenerateAds writes English-like job ads with
// the same kinds of plants; it produces the sample shipped in testdata/.
//
// The output for a Config is identical on every machine and Go release: the
// package uses its own seeded PCG streams, integer sampling and
// platform-independent arithmetic (see internal/detmath). It is also
// prefix-stable: the first k documents of a corpus of n > k documents are
// the corpus of k documents.
package gen

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/neardup/neardup/internal/detmath"
)

// ErrConfig is returned (wrapped) for a Config that cannot be generated.
var ErrConfig = errors.New("gen: invalid config")

// DefaultEditRates are the word-level edit rates of planted copies, drawn
// uniformly. 0 makes an exact copy. For ~250-word documents the word-3-gram
// Jaccard with the source is roughly 1, 0.89, 0.75, 0.57, 0.34, 0.21.
var DefaultEditRates = []float64{0, 0.02, 0.05, 0.1, 0.2, 0.3}

// ChainEditRates are the per-step edit rates of chains (one rate per chain).
// At 0.05 neighbours have Jaccard ≈ 0.75 while the ends of a 6-step chain
// fall to ≈ 0.3.
var ChainEditRates = []float64{0.03, 0.05, 0.08}

// Fixed parameters of the model.
const (
	BoilerParagraphs = 50   // size of the boilerplate pool; paragraphs have 30-80 words
	LengthSigma      = 0.5  // σ of log(length)
	MaxChainSteps    = 8    // a chain has 3..MaxChainSteps copies after its root
	activeChains     = 16   // chains grown at the same time
	poolSize         = 1024 // recent documents and uniform reservoir kept as copy sources
	familySize       = 15   // mean members per templated family
)

// Config describes a corpus. Zero fields take defaults; for the rates, a
// negative value means none.
type Config struct {
	Docs      int     // number of documents
	Seed      uint64  // same seed, same corpus, on every machine
	MeanWords int     // mean document length in words (log-normal), default 250
	Vocab     int     // vocabulary size (Zipf), default 50000
	DupRate   float64 // fraction of documents that are edited copies of earlier ones, default 0.3

	ChainRate    float64   // fraction of copies that extend a chain, default 0.25
	TemplateRate float64   // fraction of documents that are members of templated families, default 0.05
	BoilerRate   float64   // fraction of originals and families ending in a boilerplate paragraph (if it fits), default 0.2
	ShortRate    float64   // fraction of very short documents (1-10 words), default 0.01
	EmptyRate    float64   // fraction of empty documents, default 0.002
	EditRates    []float64 // edit rates of (non-chain) copies; nil: DefaultEditRates
}

// Kind says how a document was made.
type Kind uint8

const (
	Original Kind = iota // fresh text
	Copy                 // an edited copy of Doc.Source (a chain step too)
	Template             // a member of templated family Doc.Family
	Short                // 1-10 words
	Empty                // no text
)

var kindNames = [...]string{"original", "copy", "template", "short", "empty"}

// String returns the kind's lower-case name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Doc is one generated document.
type Doc struct {
	ID       string
	Text     string
	Source   int     // index of the document it was copied from, or -1 for an original
	EditRate float64 // fraction of words edited when it is a copy

	Title  string // GenerateAds only: the ad's title (Text is its description)
	Kind   Kind
	Family int  // templated family (numbered from 0 in order of first member), or -1
	Boiler int  // boilerplate paragraph appended (copies: inherited), or -1
	Depth  int  // copy generations from an original: 0 for non-copies
	Chain  bool // the copy is a chain step
}

// ID returns the id of document i (0-based) of a corpus of n documents:
// "d" and i+1 zero-padded to 6 digits, or more when n needs them, so that
// ids sort as the documents do.
func ID(i, n int) string {
	return padID("d", i+1, max(6, len(strconv.Itoa(n))))
}

func padID(prefix string, x, width int) string {
	s := strconv.Itoa(x)
	b := make([]byte, 0, len(prefix)+max(width, len(s)))
	b = append(b, prefix...)
	for j := len(s); j < width; j++ {
		b = append(b, '0')
	}
	return string(append(b, s...))
}

// withDefaults returns c with defaults filled in and validated.
func (c Config) withDefaults() (Config, error) {
	def := func(p *float64, d float64) {
		if *p == 0 {
			*p = d
		} else if *p < 0 {
			*p = 0
		}
	}
	if c.MeanWords == 0 {
		c.MeanWords = 250
	}
	if c.Vocab == 0 {
		c.Vocab = 50000
	}
	def(&c.DupRate, 0.3)
	def(&c.ChainRate, 0.25)
	def(&c.TemplateRate, 0.05)
	def(&c.BoilerRate, 0.2)
	def(&c.ShortRate, 0.01)
	def(&c.EmptyRate, 0.002)
	if c.EditRates == nil {
		c.EditRates = DefaultEditRates
	}
	switch {
	case c.Docs < 0:
		return c, fmt.Errorf("%w: Docs %d < 0", ErrConfig, c.Docs)
	case c.MeanWords < 1 || c.MeanWords > 1e6:
		return c, fmt.Errorf("%w: MeanWords %d not in [1, 1e6]", ErrConfig, c.MeanWords)
	case c.Vocab < 100 || c.Vocab > 1<<24:
		return c, fmt.Errorf("%w: Vocab %d not in [100, 2^24]", ErrConfig, c.Vocab)
	case c.DupRate+c.TemplateRate+c.ShortRate+c.EmptyRate > 1:
		return c, fmt.Errorf("%w: DupRate+TemplateRate+ShortRate+EmptyRate > 1", ErrConfig)
	case c.ChainRate > 1 || c.BoilerRate > 1:
		return c, fmt.Errorf("%w: ChainRate or BoilerRate > 1", ErrConfig)
	case len(c.EditRates) == 0:
		return c, fmt.Errorf("%w: empty EditRates", ErrConfig)
	}
	for _, e := range c.EditRates {
		if !(e >= 0 && e <= 1) {
			return c, fmt.Errorf("%w: edit rate %v not in [0, 1]", ErrConfig, e)
		}
	}
	return c, nil
}

// Generate calls fn for each document in order, stopping at fn's first error,
// which it returns. It returns an error wrapping ErrConfig, before calling fn,
// for an invalid Config.
//
// Generate streams: it keeps a bounded pool of earlier documents as copy
// sources (the last 1024 and a uniform reservoir of 1024), the active chains
// and the templated families, about 10 MB for a million documents. It is
// safe to call concurrently. Each Doc is fresh; fn may keep it.
func Generate(c Config, fn func(i int, d Doc) error) error {
	c, err := c.withDefaults()
	if err != nil {
		return err
	}
	g := newGenerator(c)
	for i := 0; i < c.Docs; i++ {
		d := g.next(i)
		if err := fn(i, d); err != nil {
			return err
		}
	}
	return nil
}

// Token values at the top of the uint32 range are punctuation; all others
// are word ranks.
const (
	tokComma  = ^uint32(0) - 1
	tokPeriod = ^uint32(0)
)

// entry is a document kept as a possible copy source.
type entry struct {
	idx    int
	toks   []uint32
	depth  int
	boiler int
}

func (e *entry) set(idx int, toks []uint32, depth, boiler int) {
	e.idx, e.toks, e.depth, e.boiler = idx, append(e.toks[:0], toks...), depth, boiler
}

type chain struct {
	tip  entry
	left int // steps still to take; 0: start a new chain
	rate float64
}

type family struct {
	toks   []uint32 // template text; slot positions hold a placeholder
	slots  []int32  // positions of slots in toks
	opts   [][]uint32
	boiler int
}

type generator struct {
	c        Config
	v        *vocab
	rng      *rand.PCG
	boiler   [][]uint32
	boilerN  []int   // words in each boiler paragraph
	recent   []entry // ring of the last poolSize documents
	res      []entry // reservoir sample of all earlier documents
	chains   [activeChains]chain
	families []family
	logMu    float64  // μ of the log-normal length
	toks     []uint32 // the document being made
	buf      []byte   // its text

	// thresholds on a uniform 53-bit value for the kinds, cumulative
	tEmpty, tShort, tCopy, tTemplate uint64
	tChain, tBoiler                  uint64
}

// p53 turns a probability into a threshold on a 53-bit uniform value.
func p53(p float64) uint64 { return uint64(p * (1 << 53)) }

func newGenerator(c Config) *generator {
	g := &generator{
		c:      c,
		v:      getVocab(c.Vocab),
		rng:    rand.NewPCG(c.Seed, 0x9e3779b97f4a7c15),
		recent: make([]entry, poolSize),
		res:    make([]entry, 0, poolSize),
	}
	// E[length] = exp(μ + σ²/2) = MeanWords.
	g.logMu = detmath.LogAtanh(float64(c.MeanWords)) - LengthSigma*LengthSigma/2
	g.tEmpty = p53(c.EmptyRate)
	g.tShort = p53(c.EmptyRate + c.ShortRate)
	g.tCopy = p53(c.EmptyRate + c.ShortRate + c.DupRate)
	g.tTemplate = p53(c.EmptyRate + c.ShortRate + c.DupRate + c.TemplateRate)
	g.tChain = p53(c.ChainRate)
	g.tBoiler = p53(c.BoilerRate)
	// The boilerplate pool comes from its own stream so that it does not
	// depend on anything but the seed.
	br := rand.NewPCG(c.Seed, 0xb0113e9a7e)
	for range BoilerParagraphs {
		n := 30 + int(br.Uint64()%51)
		g.boiler = append(g.boiler, g.sentences(nil, br, n))
		g.boilerN = append(g.boilerN, n)
	}
	return g
}

func (g *generator) u53() uint64 { return g.rng.Uint64() >> 11 }

// intn returns a uniform int in [0, n), n > 0.
func intn(r *rand.PCG, n int) int {
	return int((r.Uint64() >> 32) * uint64(n) >> 32)
}

// length draws a log-normal document length of at least 1 word.
func (g *generator) length() int {
	// Irwin-Hall: the sum of 12 uniforms minus 6 is close to N(0, 1).
	z := -6.0
	for range 12 {
		z += float64(g.u53()) / (1 << 53)
	}
	x := detmath.Exp(g.logMu + float64(LengthSigma*z))
	return max(1, min(int(x+0.5), 20*g.c.MeanWords))
}

// sentences appends n words cut into sentences of 4-18 words with an
// occasional comma, drawing from r.
func (g *generator) sentences(dst []uint32, r *rand.PCG, n int) []uint32 {
	for n > 0 {
		s := min(n, 4+intn(r, 15))
		n -= s
		for j := range s {
			x := r.Uint64()
			dst = append(dst, g.v.sample(x))
			if j < s-1 && x>>60 == 0 && r.Uint64()&1 == 0 { // ≈1/32
				dst = append(dst, tokComma)
			}
		}
		dst = append(dst, tokPeriod)
	}
	return dst
}

// pick returns a uniform element of xs.
func pick[T any](r *rand.PCG, xs []T) T { return xs[intn(r, len(xs))] }

// edit appends to dst src with each word, independently with probability
// rate, substituted (1/2), deleted (1/4) or followed by an inserted word (1/4).
func (g *generator) edit(dst, src []uint32, rate float64) []uint32 {
	if rate <= 0 {
		return append(dst, src...)
	}
	t := p53(rate)
	for _, w := range src {
		if w >= tokComma {
			dst = append(dst, w)
			continue
		}
		x := g.rng.Uint64()
		if x>>11 >= t {
			dst = append(dst, w)
			continue
		}
		switch x & 3 {
		case 0, 1:
			s := g.v.sample(g.rng.Uint64())
			if s == w {
				s = g.v.sample(g.rng.Uint64())
			}
			dst = append(dst, s)
		case 2:
			// deleted
		case 3:
			dst = append(dst, w, g.v.sample(g.rng.Uint64()))
		}
	}
	return dst
}

// source picks an earlier document: half the time a recent one, half the
// time one from the reservoir (uniform over all earlier documents).
func (g *generator) source(i int) *entry {
	nRecent := min(i, poolSize)
	if g.rng.Uint64()&1 == 0 || len(g.res) == 0 {
		back := 1 + intn(g.rng, nRecent)
		return &g.recent[(i-back)%poolSize]
	}
	return &g.res[intn(g.rng, len(g.res))]
}

func (g *generator) next(i int) Doc {
	d := Doc{Source: -1, Family: -1, Boiler: -1}
	g.toks = g.toks[:0]
	u := g.u53()
	switch {
	case u < g.tEmpty:
		d.Kind = Empty
	case u < g.tShort:
		d.Kind = Short
		g.toks = g.sentences(g.toks, g.rng, 1+intn(g.rng, 10))
	case u < g.tCopy && i > 0:
		d.Kind = Copy
		var src *entry
		if g.u53() < g.tChain {
			ch := &g.chains[intn(g.rng, activeChains)]
			if ch.left == 0 {
				s := g.source(i)
				ch.tip.set(s.idx, s.toks, s.depth, s.boiler)
				ch.left = 3 + intn(g.rng, MaxChainSteps-2)
				ch.rate = pick(g.rng, ChainEditRates)
			}
			ch.left--
			src, d.EditRate, d.Chain = &ch.tip, ch.rate, true
		} else {
			src, d.EditRate = g.source(i), pick(g.rng, g.c.EditRates)
		}
		d.Source, d.Depth, d.Boiler = src.idx, src.depth+1, src.boiler
		g.toks = g.edit(g.toks, src.toks, d.EditRate)
		if d.Chain {
			src.set(i, g.toks, d.Depth, d.Boiler)
		}
	case u < g.tTemplate:
		d.Kind = Template
		d.Family = len(g.families)
		if d.Family > 0 && intn(g.rng, familySize) != 0 {
			d.Family = intn(g.rng, len(g.families))
		} else {
			g.families = append(g.families, g.newFamily())
		}
		f := &g.families[d.Family]
		d.Boiler = f.boiler
		g.toks = append(g.toks, f.toks...)
		for k, p := range f.slots {
			g.toks[p] = pick(g.rng, f.opts[k])
		}
		if f.boiler >= 0 {
			g.toks = append(g.toks, g.boiler[f.boiler]...)
		}
	default:
		d.Kind = Original
		n := g.length()
		if g.u53() < g.tBoiler {
			d.Boiler = g.fitBoiler(n)
			if d.Boiler >= 0 {
				n -= g.boilerN[d.Boiler]
			}
		}
		g.toks = g.sentences(g.toks, g.rng, n)
		if d.Boiler >= 0 {
			g.toks = append(g.toks, g.boiler[d.Boiler]...)
		}
	}
	// Keep the document as a possible source: in the ring of recent ones and
	// (Algorithm R) in the reservoir.
	g.recent[i%poolSize].set(i, g.toks, d.Depth, d.Boiler)
	if len(g.res) < poolSize {
		g.res = append(g.res, entry{})
		g.res[len(g.res)-1].set(i, g.toks, d.Depth, d.Boiler)
	} else if j := int(g.rng.Uint64() % uint64(i+1)); j < poolSize {
		g.res[j].set(i, g.toks, d.Depth, d.Boiler)
	}
	d.ID = ID(i, g.c.Docs)
	g.buf = g.render(g.buf[:0], g.toks)
	d.Text = string(g.buf)
	return d
}

// fitBoiler picks a boilerplate paragraph for a document of n words, or -1
// when it would leave fewer than 10 words of its own: boilerplate is part
// of the length, not added to it.
func (g *generator) fitBoiler(n int) int {
	b := intn(g.rng, BoilerParagraphs)
	if g.boilerN[b]+10 > n {
		return -1
	}
	return b
}

// newFamily makes a template: a text whose words are slots with a density
// drawn per family, each slot with 2-12 options.
func (g *generator) newFamily() family {
	var f family
	f.boiler = -1
	n := g.length()
	if g.u53() < g.tBoiler {
		f.boiler = g.fitBoiler(n)
		if f.boiler >= 0 {
			n -= g.boilerN[f.boiler]
		}
	}
	f.toks = g.sentences(nil, g.rng, n)
	density := p53(pick(g.rng, []float64{0.05, 0.1, 0.2, 0.3}))
	for p, w := range f.toks {
		if w >= tokComma || g.u53() >= density {
			continue
		}
		opts := make([]uint32, 2+intn(g.rng, 11))
		for k := range opts {
			opts[k] = g.v.sample(g.rng.Uint64())
		}
		f.slots = append(f.slots, int32(p))
		f.opts = append(f.opts, opts)
	}
	return f
}

// render appends the text of toks to dst: words separated by single spaces,
// punctuation attached to the word before it, the first word of each
// sentence capitalised. Edits can leave punctuation next to punctuation;
// render keeps the text well-formed ("a, . b" becomes "a. B").
func (g *generator) render(dst []byte, toks []uint32) []byte {
	const (
		none = iota
		word
		comma
		period
	)
	// Fast path: every token needs at most 1+maxWordLen bytes, so with that
	// much room each word is copied as one fixed-size array (no memmove
	// call); the bytes past a word's length are overwritten by what follows
	// or cut off at the end.
	n := len(dst)
	if need := n + (len(toks)+1)*(1+maxWordLen); cap(dst) < need {
		dst = append(dst[:cap(dst)], make([]byte, need-cap(dst))...)
	}
	buf := dst[:cap(dst)]
	last := none
	for _, t := range toks {
		switch t {
		case tokComma:
			if last == word {
				buf[n] = ','
				n++
				last = comma
			}
		case tokPeriod:
			switch last {
			case word:
				buf[n] = '.'
				n++
				last = period
			case comma:
				buf[n-1] = '.'
				last = period
			}
		default:
			if last != none {
				buf[n] = ' '
				n++
			}
			ws := &g.v.words[t]
			*(*[maxWordLen]byte)(buf[n:]) = ws.b
			if last == none || last == period {
				buf[n] -= 'a' - 'A'
			}
			n += int(ws.n)
			last = word
		}
	}
	return buf[:n]
}
