package cliflags

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/shingle"
)

// Input are the flags that say how to read a corpus and how documents
// become shingle sets, shared by every command that reads a corpus. Its
// fields are set by the flags and read by Options and ShingleOptions.
type Input struct {
	format, textField, idField string
	skipBad, includeBinary     bool
	mode                       string
	ngram                      OptInt
	bag                        bool
	normalize                  string
}

// Register adds the input flags and the shingling flags.
func (s *Input) Register(fs *flag.FlagSet) {
	s.RegisterInput(fs)
	s.RegisterShingle(fs)
}

// RegisterInput adds the flags that say how to read a corpus. Without
// RegisterShingle, the shingling is the default one (word n-grams of the
// default length).
func (s *Input) RegisterInput(fs *flag.FlagSet) {
	fs.StringVar(&s.format, "format", "auto", "input format: auto|text|jsonl|csv|tsv|parquet|dir (auto: by extension)")
	fs.StringVar(&s.textField, "text-field", "", "comma-separated fields/columns joined by a space to make the text (default \"text\")")
	fs.StringVar(&s.idField, "id-field", "", "field/column holding the document id (default \"id\" when present, else the record number); one given must be in the input, or it is an error listing the fields (JSONL: when none of the first "+strconv.Itoa(corpus.IDProbeRecords)+" records has it); records without it, or with it null or empty, are numbered, with a warning that counts them")
	fs.BoolVar(&s.skipBad, "skip-bad", false, "skip malformed records (counted in the summary) instead of failing")
	fs.BoolVar(&s.includeBinary, "include-binary", false, "read binary content as text: files of directory inputs (default: skipped and counted) and text inputs, standard input included (default: refused), binary when a NUL byte is in the first 8 KiB")
	s.mode = "word" // for Options when RegisterShingle is not used
}

// RegisterShingle adds the flags that say how documents become shingles.
func (s *Input) RegisterShingle(fs *flag.FlagSet) {
	fs.StringVar(&s.mode, "shingle", "word", "shingle mode: word (n-grams of tokens) or char (k-grams of code points)")
	fs.Var(&s.ngram, "ngram", fmt.Sprintf("shingle length, 1 to %d (default %d for word, %d for char)", shingle.MaxN, shingle.DefaultWordN, shingle.DefaultCharN))
	fs.BoolVar(&s.bag, "bag", false, "count repeated shingles (multiset Jaccard)")
	s.RegisterNormalize(fs)
}

// RegisterNormalize adds --normalize alone, for commands with shingle
// flags of their own (RegisterShingle adds it too).
func (s *Input) RegisterNormalize(fs *flag.FlagSet) {
	fs.StringVar(&s.normalize, "normalize", "none", "nfkc: Unicode NFKC before lower-casing, so full-width and half-width forms, ligatures and composed and decomposed accents compare equal")
}

// Format returns the --format value as given, unchecked ("auto" by
// default); Options checks it.
func (s *Input) Format() string { return s.format }

// Options returns the reading and shingling options of the flags; mistakes
// wrap ErrUsage and name the flag. The shingle length is 0 (the mode's
// default) when --ngram was not given.
func (s *Input) Options() (corpus.Options, shingle.Options, error) {
	var co corpus.Options
	so, err := s.ShingleOptions()
	if err != nil {
		return co, so, err
	}
	f, err := corpus.ParseFormat(s.format)
	if err != nil {
		return co, so, fmt.Errorf("%w: --format %q: want auto, text, jsonl, csv, tsv, parquet or dir", ErrUsage, s.format)
	}
	co.Format = f
	if s.textField != "" {
		for _, t := range strings.Split(s.textField, ",") {
			if t = strings.TrimSpace(t); t != "" {
				co.TextFields = append(co.TextFields, t)
			}
		}
	}
	co.IDField = s.idField
	co.SkipBad = s.skipBad
	co.IncludeBinary = s.includeBinary
	return co, so, nil
}

// ShingleOptions returns the shingling options of the flags
// (RegisterShingle), for commands that read no corpus; mistakes wrap
// ErrUsage and name the flag.
func (s *Input) ShingleOptions() (shingle.Options, error) {
	m, err := shingle.ParseMode(s.mode)
	if err != nil {
		return shingle.Options{}, fmt.Errorf("%w: --shingle %q: want word or char", ErrUsage, s.mode)
	}
	// An explicit --ngram 0 is an error, not the default length.
	if s.ngram.set && (s.ngram.v < 1 || s.ngram.v > shingle.MaxN) {
		return shingle.Options{}, fmt.Errorf("%w: --ngram %d: want a length from 1 to %d", ErrUsage, s.ngram.v, shingle.MaxN)
	}
	var nfkc bool
	switch s.normalize {
	case "", "none":
	case "nfkc", "NFKC":
		nfkc = true
	default:
		return shingle.Options{}, fmt.Errorf("%w: --normalize %q: want none or nfkc", ErrUsage, s.normalize)
	}
	return shingle.Options{Mode: m, N: s.ngram.v, Bag: s.bag, NFKC: nfkc}, nil
}
