// Package corpusout writes dedup's deduplicated corpus: the inputs without
// the records of a result's duplicates, in the inputs' own format
// (corpus.Filter, corpus.FilterDir).
package corpusout

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/neardup/neardup/corpus"
)

// Dropped lists, for each input file, the record numbers of the documents
// to leave out of the deduplicated corpus, ascending.
type Dropped [][]int32

// NewDropped returns what to leave out of files input files: document d,
// record numOf[d] of file fileOf[d], when dup[d]. fileOf and numOf must be
// as long as dup.
func NewDropped(files int, dup []bool, fileOf, numOf []int32) Dropped {
	dropped := make(Dropped, files)
	for d, isDup := range dup {
		if isDup {
			f := fileOf[d]
			dropped[f] = append(dropped[f], numOf[d])
		}
	}
	return dropped
}

// Has reports whether record num of file is left out. It is safe for
// concurrent use and does not allocate.
func (dr Dropped) Has(file, num int) bool {
	_, found := slices.BinarySearch(dr[file], int32(num))
	return found
}

// WriteCorpus writes the records of inputs (read with o) that keep
// accepts to w, gzip or zstd compressed when name ends in .gz or .zst.
// It does not close w, and returns the first error of reading, writing
// or compressing.
func WriteCorpus(w io.Writer, name string, inputs []string, o corpus.Options, keep func(file, num int) bool) error {
	cw, err := corpus.NewCompressWriter(w, name)
	if err != nil {
		return err
	}
	if err := corpus.Filter(cw, inputs, o, keep); err != nil {
		return err
	}
	return cw.Close()
}

// TempDir returns the temporary directory that a directory output at
// path is written to before it is renamed into place: a hidden name
// beside path, distinct per process.
func TempDir(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp"+strconv.Itoa(os.Getpid()))
}

// WriteCorpusDir copies directory src into TempDir(path), leaving out the
// files that keep refuses (numbered as corpus.FilterDir says), and returns
// the temporary directory. What was at the temporary path is removed
// first; on error nothing is left there.
func WriteCorpusDir(path, src string, keep func(num int) bool) (tmp string, err error) {
	tmp = TempDir(path)
	os.RemoveAll(tmp)
	if err := corpus.FilterDir(tmp, src, keep); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	return tmp, nil
}
