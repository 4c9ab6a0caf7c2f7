// Command ekzhu runs the pipeline a Go user would build with
// github.com/ekzhu/minhash-lsh on a JSONL corpus: word 3-gram shingles of the
// lower-cased text, a 128-hash MinHash per document, the library's LSH index
// at threshold t, a query per document, and exact Jaccard verification of
// the candidates (with neardup's shingle sets, so both tools report the same
// pairs). It is a peer for bench/run-peers.sh, in its own module so neardup
// users never inherit its dependencies.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode"

	minhashlsh "github.com/ekzhu/minhash-lsh"
	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/shingle"
)

func main() {
	path := flag.String("corpus", "", "JSONL corpus")
	th := flag.Float64("threshold", 0.5, "Jaccard threshold")
	numHash := flag.Int("num-perm", 128, "hash functions")
	flag.Parse()
	if err := run(*path, *th, *numHash); err != nil {
		fmt.Fprintln(os.Stderr, "ekzhu:", err)
		os.Exit(1)
	}
}

func run(path string, th float64, numHash int) error {
	start := time.Now()
	r, err := corpus.Open(path, corpus.Options{})
	if err != nil {
		return err
	}
	sh, err := shingle.New(shingle.Options{N: 3})
	if err != nil {
		return err
	}
	index := minhashlsh.NewMinhashLSH32(numHash, th)
	var sigs [][]uint64
	var sets [][]uint64
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		set := sh.AppendSet(nil, rec.Text)
		sets = append(sets, set)
		toks := strings.FieldsFunc(strings.ToLower(string(rec.Text)), func(c rune) bool {
			return !unicode.IsLetter(c) && !unicode.IsDigit(c)
		})
		m := minhashlsh.NewMinhash(1, numHash)
		for i := 0; i+3 <= len(toks); i++ {
			m.Push([]byte(toks[i] + " " + toks[i+1] + " " + toks[i+2]))
		}
		if len(toks) > 0 && len(toks) < 3 {
			m.Push([]byte(strings.Join(toks, " ")))
		}
		sig := m.Signature()
		sigs = append(sigs, sig)
		if len(set) > 0 {
			index.Add(len(sigs)-1, sig)
		}
	}
	r.Close()
	indexed := time.Now()
	index.Index()
	pairs, candidates := 0, 0
	for i, sig := range sigs {
		if len(sets[i]) == 0 {
			continue
		}
		for _, k := range index.Query(sig) {
			j := k.(int)
			if j <= i {
				continue
			}
			candidates++
			if shingle.Jaccard(sets[i], sets[j]) >= th {
				pairs++
			}
		}
	}
	fmt.Fprintf(os.Stderr, "ekzhu/minhash-lsh: %d documents, %d candidates, %d verified pairs; read+sign %.1fs, index+query+verify %.1fs, total %.1fs\n",
		len(sigs), candidates, pairs, indexed.Sub(start).Seconds(), time.Since(indexed).Seconds(), time.Since(start).Seconds())
	return nil
}
