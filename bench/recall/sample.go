package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/internal/dedupout"
	"github.com/neardup/neardup/internal/pairscore"
	"github.com/neardup/neardup/shingle"
)

// The sampled check, for corpora whose exact join does not fit in memory
// (-sample K): about one document in K is drawn (by a hash of its place in
// the corpus, so the draw is the same on every run), and every pair with
// at least one drawn document is checked exactly against the whole corpus.
// Memory grows with the sample and its pairs, not with the corpus.
//
//  1. --pairs is read once and the reported pairs that touch the sample
//     are kept, with their printed Jaccard.
//  2. The corpus is read once to shingle the drawn documents and index
//     their shingles (shingle -> drawn documents). A shingle in more than
//     frequentPosting drawn documents is left out of the index (its
//     posting lists would cost more than the rest); each drawn document
//     counts how many of its shingles were left out.
//  3. The corpus is read again. Each document d counts, through the
//     index, the shingles it shares with each drawn document s. With c
//     counted and f(s) left out, the true overlap is between c and
//     c + f(s); the pair can reach the threshold only if c + f(s) >=
//     MinOverlap(|s|, |d|, t), and those pairs (and every reported pair
//     of d with a drawn document) get their exact Jaccard from the two
//     whole sets. Nothing is estimated: the exact pairs found are all the
//     pairs at or above t that touch the sample.
//
// Recall is then the share of those exact pairs that --pairs lists,
// precision the share of the listed pairs touching the sample that are at
// or above t, and with --clusters, the exact pairs whose two documents
// were both kept (neither is a non-representative member of a cluster
// that is not set aside for review).
var frequentPosting = 64 // tests make it small

type sampleReport struct {
	Documents     int     `json:"documents"`
	Sampled       int     `json:"sampled_documents"`
	ExactPairs    int     `json:"exact_pairs_touching_sample"`
	Reported      int     `json:"reported_pairs_touching_sample"`
	Found         int     `json:"exact_pairs_found"`
	Recall        float64 `json:"recall"`
	Precision     float64 `json:"precision"`
	WrongJaccard  int     `json:"reported_jaccard_not_exact"`
	KeptBothPairs int     `json:"exact_pairs_with_both_kept"`
	Seconds       float64 `json:"check_seconds"`
}

// drawn reports whether the document at place i (0-based) is in a sample
// of about one in every k.
func drawn(i, k int) bool {
	x := uint64(i) + 0x9e3779b97f4a7c15 // splitmix64
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	x ^= x >> 31
	return x%uint64(k) == 0
}

func runSample(corpusPath, pairsPath, clustersPath string, th float64, sh *shingle.Shingler, co corpus.Options, k int) (*sampleReport, error) {
	t0 := time.Now()
	// The drawn documents: id -> sample slot, slot -> place and id.
	slots := map[string]int32{}
	var slotDoc []int
	var slotID []string
	n := 0
	err := eachDoc(corpusPath, co, func(i int, id string, text []byte) {
		n++
		if drawn(i, k) {
			slots[id] = int32(len(slotDoc))
			slotDoc, slotID = append(slotDoc, i), append(slotID, id)
		}
	})
	if err != nil {
		return nil, err
	}
	rp := sampleReport{Documents: n, Sampled: len(slotDoc)}

	// 1. The reported pairs touching the sample, filed under the id of
	// the document that will meet the drawn one in step 3 (the later one
	// when both are drawn), with the drawn one's slot and the printed
	// Jaccard.
	type listed struct {
		slot int32
		jac  string
	}
	reported := map[string][]listed{}
	f, err := os.Open(pairsPath)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 1<<20)
	for line := 1; ; line++ {
		b, err := br.ReadSlice('\n')
		if err == io.EOF && len(b) == 0 {
			break
		}
		if err != nil && err != io.EOF {
			f.Close()
			return nil, fmt.Errorf("%s:%d: %w", pairsPath, line, err)
		}
		fs, ok := pairFields(bytes.TrimRight(b, "\r\n"))
		if !ok {
			f.Close()
			return nil, fmt.Errorf("%s:%d: want 3 fields", pairsPath, line)
		}
		sa, okA := slots[string(fs[0])]
		sb, okB := slots[string(fs[1])]
		switch {
		case okA && okB && sa < sb:
			reported[string(fs[1])] = append(reported[string(fs[1])], listed{sa, string(fs[2])})
		case okA && okB:
			reported[string(fs[0])] = append(reported[string(fs[0])], listed{sb, string(fs[2])})
		case okA:
			reported[string(fs[1])] = append(reported[string(fs[1])], listed{sa, string(fs[2])})
		case okB:
			reported[string(fs[0])] = append(reported[string(fs[0])], listed{sb, string(fs[2])})
		default:
			continue
		}
		rp.Reported++
	}
	f.Close()

	var dropped map[string]bool
	if clustersPath != "" {
		if dropped, err = droppedIDs(clustersPath); err != nil {
			return nil, err
		}
	}

	// 2. The drawn documents' sets and the index of their shingles.
	sets := make([][]uint64, len(slotDoc))
	err = eachDoc(corpusPath, co, func(i int, id string, text []byte) {
		if s, ok := slots[id]; ok && slotDoc[s] == i {
			sets[s] = sh.AppendSet(nil, text)
		}
	})
	if err != nil {
		return nil, err
	}
	posting := map[uint64][]int32{}
	for s, set := range sets {
		for _, x := range set {
			posting[x] = append(posting[x], int32(s))
		}
	}
	left := make([]int, len(sets)) // shingles left out of the index
	for x, p := range posting {
		if len(p) > frequentPosting {
			for _, s := range p {
				left[s]++
			}
			delete(posting, x)
		}
	}
	// A drawn document that shares no indexed shingle with d can still
	// reach t with it if what was left out could make the overlap: d must
	// have at least t|s| shingles, so the overlap at least t|s|.
	var heavy []int32
	for s, set := range sets {
		if len(set) > 0 && float64(left[s]) >= th*float64(len(set))-1e-9 {
			heavy = append(heavy, int32(s))
		}
	}

	// 3. Every document against the sample.
	type pairKey struct {
		slot int32
		doc  int
	}
	type exactPair struct {
		found bool
		other string // the id of the document that is not the drawn one
	}
	exact := map[pairKey]*exactPair{}
	count := make([]int32, len(sets))
	seen := make([]int, len(sets)) // 1 + the last place whose count touched s
	var touched []int32
	var set []uint64
	correct := 0
	err = eachDoc(corpusPath, co, func(i int, id string, text []byte) {
		set = sh.AppendSet(set[:0], text)
		// Each pair once: a drawn document meets every other document,
		// and a pair of two drawn ones is taken at the later one.
		isPair := func(s int32) bool { return slotDoc[s] < i || slotDoc[s] > i && !drawn(i, k) }
		check := func(s int32, c int) {
			if isPair(s) && c+left[s] >= shingle.MinOverlap(len(sets[s]), len(set), th) && shingle.Jaccard(sets[s], set) >= th {
				exact[pairKey{s, i}] = &exactPair{other: id}
			}
		}
		if len(set) > 0 {
			touched = touched[:0]
			for _, x := range set {
				for _, s := range posting[x] {
					if seen[s] != i+1 {
						seen[s], count[s] = i+1, 0
						touched = append(touched, s)
					}
					count[s]++
				}
			}
			for _, s := range touched {
				check(s, int(count[s]))
			}
			for _, s := range heavy {
				if seen[s] != i+1 {
					check(s, 0)
				}
			}
		}
		for _, r := range reported[id] {
			j := shingle.Jaccard(sets[r.slot], set)
			if j >= th {
				correct++
			}
			if r.jac != strconv.FormatFloat(j, 'f', 6, 64) {
				rp.WrongJaccard++
			}
			if e := exact[pairKey{r.slot, i}]; e != nil {
				e.found = true
			}
		}
	})
	if err != nil {
		return nil, err
	}
	rp.ExactPairs = len(exact)
	for p, e := range exact {
		if e.found {
			rp.Found++
		}
		if dropped != nil && !dropped[e.other] && !dropped[slotID[p.slot]] {
			rp.KeptBothPairs++
		}
	}
	score := pairscore.Score{Exact: rp.ExactPairs, Found: rp.Found, Reported: rp.Reported, Correct: correct}
	rp.Recall, rp.Precision = score.Recall(), score.Precision()
	rp.Seconds = time.Since(t0).Seconds()
	return &rp, nil
}

func (rp *sampleReport) print(w io.Writer, k int, th float64, clusters bool) {
	fmt.Fprintf(w, "documents %d, drawn %d (about one in %d); pairs touching them: exact (J >= %g) %d, reported %d, found %d\n",
		rp.Documents, rp.Sampled, k, th, rp.ExactPairs, rp.Reported, rp.Found)
	fmt.Fprintf(w, "recall %.5f, precision %.5f, reported similarities not exact: %d", rp.Recall, rp.Precision, rp.WrongJaccard)
	if clusters {
		fmt.Fprintf(w, ", exact pairs with both documents kept: %d", rp.KeptBothPairs)
	}
	fmt.Fprintf(w, "; checked in %.1fs\n", rp.Seconds)
}

// eachDoc calls fn with the place (from 0), id and text of every document
// of the corpus: paths is a file, or files separated by commas, read in
// order as one corpus. Ids are as neardup names documents: the id field or
// the record number, prefixed "FILE:" when there are several files.
func eachDoc(paths string, co corpus.Options, fn func(i int, id string, text []byte)) error {
	i := 0
	files := strings.Split(paths, ",")
	for _, path := range files {
		prefix := ""
		if len(files) > 1 {
			prefix = path + ":"
		}
		r, err := corpus.Open(path, co)
		if err != nil {
			return err
		}
		for ; ; i++ {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				r.Close()
				return err
			}
			id := rec.ID
			if id == "" {
				id = strconv.Itoa(rec.Num)
			}
			fn(i, prefix+id, rec.Text)
		}
		r.Close()
	}
	return nil
}

// droppedIDs reads a --clusters listing and returns the ids dedup drops:
// the members other than the representative of each cluster not set aside
// for review.
func droppedIDs(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dropped := map[string]bool{}
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	for line := 1; ; line++ {
		var c struct {
			Representative string `json:"representative"`
			Review         bool   `json:"review"`
			Members        []struct {
				ID string `json:"id"`
			} `json:"members"`
		}
		if err := dec.Decode(&c); err == io.EOF {
			return dropped, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: cluster %d: %w", path, line, err)
		}
		if c.Review {
			continue
		}
		for _, m := range c.Members {
			if m.ID != c.Representative {
				dropped[m.ID] = true
			}
		}
	}
}

// pairFields splits a pairs line into its three fields, the ids unescaped
// (dedupout.UnescapeField: an id with a tab, newline or backslash is
// written escaped); an id with no backslash is the line's own bytes.
// ok is false unless the line has three fields.
func pairFields(line []byte) (fs [3][]byte, ok bool) {
	for k := range 2 {
		var found bool
		if fs[k], line, found = bytes.Cut(line, []byte{'\t'}); !found {
			return fs, false
		}
		if bytes.IndexByte(fs[k], '\\') >= 0 {
			fs[k] = []byte(dedupout.UnescapeField(string(fs[k])))
		}
	}
	fs[2] = line
	return fs, bytes.IndexByte(line, '\t') < 0
}
