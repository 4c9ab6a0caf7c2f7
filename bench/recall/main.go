// Command recall checks a neardup --pairs file against the exact answer: it
// shingles the corpus the same way, finds every pair with Jaccard >= t by an
// exact similarity join (package allpairs), and prints recall, precision and
// whether every reported similarity is exact.
//
//	go run ./bench/recall -corpus corpus.jsonl -pairs pairs.tsv -threshold 0.5
//
// neardup's --pairs lists every pair. A --pairs-compact listing (identical
// sets as a star around the earliest document) is understood too: pairs
// among documents with identical shingle sets count as found when the two
// documents' identical groups are the same or are paired.
//
// The exact join holds every set in memory. For larger corpora, -sample K
// checks exactly every pair that touches about one document in K (see
// sample.go), against the full --pairs listing:
//
//	go run ./bench/recall -sample 1000 -clusters clusters.jsonl -corpus c.jsonl -pairs pairs.tsv
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/neardup/neardup/allpairs"
	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/internal/pairscore"
	"github.com/neardup/neardup/shingle"
)

func main() {
	corpusPath := flag.String("corpus", "", "the corpus neardup read: a file, or files in order separated by commas")
	pairsPath := flag.String("pairs", "", "neardup's --pairs output")
	th := flag.Float64("threshold", 0.5, "the threshold neardup used")
	mode := flag.String("shingle", "word", "shingle mode")
	ngram := flag.Int("ngram", 0, "shingle length (0: default)")
	bag := flag.Bool("bag", false, "bag mode")
	textField := flag.String("text-field", "", "text fields")
	jsonOut := flag.Bool("json", false, "print JSON")
	sample := flag.Int("sample", 0, "check only the pairs touching about one document in `K`, exactly, against the whole corpus, in memory that grows with the sample (for corpora whose exact join does not fit)")
	clusters := flag.String("clusters", "", "with -sample: neardup's --clusters output, to count exact pairs whose two documents were both kept")
	flag.Parse()
	err := func() error {
		m, err := shingle.ParseMode(*mode)
		if err != nil {
			return err
		}
		sh, err := shingle.New(shingle.Options{Mode: m, N: *ngram, Bag: *bag})
		if err != nil {
			return err
		}
		co := corpus.Options{}
		if *textField != "" {
			co.TextFields = strings.Split(*textField, ",")
		}
		if *sample > 0 {
			rp, err := runSample(*corpusPath, *pairsPath, *clusters, *th, sh, co, *sample)
			if err != nil {
				return err
			}
			if *jsonOut {
				return json.NewEncoder(os.Stdout).Encode(rp)
			}
			rp.print(os.Stdout, *sample, *th, *clusters != "")
			return nil
		}
		return run(*corpusPath, *pairsPath, *th, sh, co, *jsonOut)
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, "recall:", err)
		os.Exit(1)
	}
}

type report struct {
	Documents    int     `json:"documents"`
	ExactPairs   int     `json:"exact_pairs"`
	Reported     int     `json:"reported_pairs"`
	Found        int     `json:"exact_pairs_found"`
	Recall       float64 `json:"recall"`
	Precision    float64 `json:"precision"`
	WrongJaccard int     `json:"reported_jaccard_not_exact"`
	JoinSeconds  float64 `json:"exact_join_seconds"`
}

func run(corpusPath, pairsPath string, th float64, sh *shingle.Shingler, co corpus.Options, jsonOut bool) error {
	var ids []string
	var sets [][]uint64
	index := map[string]int{}
	err := eachDoc(corpusPath, co, func(_ int, id string, text []byte) {
		index[id] = len(ids)
		ids = append(ids, id)
		sets = append(sets, sh.AppendSet(nil, text))
	})
	if err != nil {
		return err
	}

	// canon: the earliest document with the same set.
	canon := pairscore.Canonical(sets)

	t0 := time.Now()
	exact := map[[2]int]float64{}
	var mu sync.Mutex
	allpairs.JoinWorkers(sets, th, runtime.GOMAXPROCS(0), func(i, j int, jac float64) {
		if i > j {
			i, j = j, i
		}
		mu.Lock()
		exact[[2]int{i, j}] = jac
		mu.Unlock()
	})
	joinTime := time.Since(t0)

	f, err := os.Open(pairsPath)
	if err != nil {
		return err
	}
	defer f.Close()
	rp := report{Documents: len(ids), ExactPairs: len(exact), JoinSeconds: joinTime.Seconds()}
	reported := pairscore.NewReported(func(i int) int { return canon[i] }, 0)
	score := pairscore.Score{Exact: len(exact)}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for line := 1; sc.Scan(); line++ {
		fs, ok := pairFields(bytes.TrimSuffix(sc.Bytes(), []byte{'\r'}))
		if !ok {
			return fmt.Errorf("%s:%d: want 3 fields", pairsPath, line)
		}
		a, ok1 := index[string(fs[0])]
		b, ok2 := index[string(fs[1])]
		if !ok1 || !ok2 {
			return fmt.Errorf("%s:%d: unknown id", pairsPath, line)
		}
		score.Reported++
		reported.Add(a, b)
		j := shingle.Jaccard(sets[a], sets[b])
		if j >= th {
			score.Correct++
		}
		if string(fs[2]) != strconv.FormatFloat(j, 'f', 6, 64) {
			rp.WrongJaccard++
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	for p := range exact {
		if reported.Found(p[0], p[1]) {
			score.Found++
		}
	}
	rp.Reported, rp.Found = score.Reported, score.Found
	rp.Recall, rp.Precision = score.Recall(), score.Precision()
	if jsonOut {
		return json.NewEncoder(os.Stdout).Encode(rp)
	}
	fmt.Printf("documents %d, exact pairs (J >= %g) %d, reported %d, found %d\n", rp.Documents, th, rp.ExactPairs, rp.Reported, rp.Found)
	fmt.Printf("recall %.5f, precision %.5f, reported similarities not exact: %d, exact join %.1fs\n", rp.Recall, rp.Precision, rp.WrongJaccard, rp.JoinSeconds)
	return nil
}
