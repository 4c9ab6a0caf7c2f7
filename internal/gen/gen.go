// Package gen generates deterministic synthetic corpora with planted
// near-duplicates, for tests, the shipped sample and benchmarks.
//
// STUB: contract only; the implementation replaces the bodies.
package gen

// Config describes a corpus. Zero fields take defaults.
type Config struct {
	Docs      int     // number of documents
	Seed      uint64  // same seed, same corpus, on every machine
	MeanWords int     // mean document length in words (log-normal), default 250
	Vocab     int     // vocabulary size (Zipf), default 50000
	DupRate   float64 // fraction of documents that are edited copies of earlier ones, default 0.3
}

// Doc is one generated document.
type Doc struct {
	ID       string
	Text     string
	Source   int     // index of the document it was copied from, or -1 for an original
	EditRate float64 // fraction of words edited when it is a copy
}

// Generate calls fn for each document in order, stopping at fn's first error.
func Generate(c Config, fn func(i int, d Doc) error) error { panic("unimplemented") }
