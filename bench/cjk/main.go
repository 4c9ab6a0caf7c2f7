// Command cjk measures how neardup finds copies of Chinese and Japanese
// texts that differ only in where their lines wrap, or in full-width
// Latin letters and digits: real package descriptions from Debian's
// translation indexes (fetched by bench/run-cjk.sh), each original beside
// a copy re-wrapped at another width and a copy in full-width forms, run
// through the default dedup (word 3-grams, t = 0.5) with and without
// --normalize nfkc. It also lists the pairs found between two originals
// with their similarity by a script-neutral measure (the Jaccard of the
// character bigrams of the NFKC text without white space), to show that
// they are real.
//
//	go run ./bench/cjk -lang ja /var/lib/apt/lists/*Translation-ja.lz4
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pierrec/lz4/v4"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/shingle"
)

func main() {
	lang := flag.String("lang", "ja", "the Description-LANG field to read")
	minRunes := flag.Int("min", 60, "descriptions with fewer runes (white space aside) are left out")
	wrapAt := flag.Int("width", 29, "the width, in characters, the copies are re-wrapped at")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: cjk [-lang ja] Translation-LANG.lz4")
		os.Exit(2)
	}
	docs, err := read(flag.Arg(0), *lang, *minRunes)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cjk:", err)
		os.Exit(1)
	}
	for _, nfkc := range []bool{false, true} {
		if err := measure(docs, *wrapAt, nfkc); err != nil {
			fmt.Fprintln(os.Stderr, "cjk:", err)
			os.Exit(1)
		}
	}
}

// read returns the long descriptions of a Debian Translation file, as
// their lines (the file's own wrapping), without duplicates.
func read(path, lang string, minRunes int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".lz4") {
		r = lz4.NewReader(f)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var docs []string
	seen := map[string]bool{}
	var cur []string
	in := false
	flush := func() {
		text := strings.Join(cur, "\n")
		if in && len(cur) > 0 && !seen[text] && countRunes(text) >= minRunes {
			seen[text] = true
			docs = append(docs, text)
		}
		cur, in = nil, false
	}
	key := "Description-" + lang + ":"
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, key):
			flush()
			in = true // the short description is left out
		case in && strings.HasPrefix(line, " "):
			if l := strings.TrimPrefix(line, " "); l != "." {
				cur = append(cur, l)
			}
		default:
			flush()
		}
	}
	flush()
	return docs, sc.Err()
}

func countRunes(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}

// wide reports whether r is a character a line may be broken after or
// before without a space: East Asian wide or full-width.
func wide(r rune) bool {
	k := width.LookupRune(r).Kind()
	return k == width.EastAsianWide || k == width.EastAsianFullwidth
}

// rewrap joins text's lines as a reader would (no space between two wide
// characters, one space otherwise) and wraps it again at w characters,
// breaking between two wide characters or at a space, as a CJK-aware
// formatter does.
func rewrap(text string, w int) string {
	var joined []rune
	for i, line := range strings.Split(text, "\n") {
		rs := []rune(line)
		if i > 0 && len(rs) > 0 && len(joined) > 0 && !(wide(joined[len(joined)-1]) && wide(rs[0])) {
			joined = append(joined, ' ')
		}
		joined = append(joined, rs...)
	}
	var b strings.Builder
	col := 0
	for i, r := range joined {
		if col >= w && i > 0 {
			switch {
			case r == ' ':
				b.WriteByte('\n')
				col = 0
				continue
			case wide(joined[i-1]) && wide(r):
				b.WriteByte('\n')
				col = 0
			}
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// fullWidth writes ASCII letters and digits in their full-width forms.
func fullWidth(text string) string {
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r - 0x21 + 0xFF01
		}
		return r
	}, text)
}

// bigrams is the script-neutral measure: character bigrams of the NFKC,
// lower-cased text without white space.
func bigrams(s string) map[string]bool {
	var rs []rune
	for _, r := range strings.ToLower(norm.NFKC.String(s)) {
		if !unicode.IsSpace(r) {
			rs = append(rs, r)
		}
	}
	m := map[string]bool{}
	for i := 0; i+1 < len(rs); i++ {
		m[string(rs[i:i+2])] = true
	}
	return m
}

func jaccard(a, b map[string]bool) float64 {
	inter := 0
	for k := range a {
		if b[k] {
			inter++
		}
	}
	if u := len(a) + len(b) - inter; u > 0 {
		return float64(inter) / float64(u)
	}
	return 0
}

func measure(docs []string, w int, nfkc bool) error {
	b, err := neardup.NewBatch(neardup.Options{Params: neardup.Params{Shingle: shingle.Options{NFKC: nfkc}}})
	if err != nil {
		return err
	}
	defer b.Close()
	n := len(docs)
	// Documents 0..n-1 the originals, n..2n-1 the re-wrapped copies,
	// 2n..3n-1 the full-width copies.
	for i, d := range docs {
		if err := b.Add(fmt.Sprint("orig-", i), []byte(d)); err != nil {
			return err
		}
	}
	changed := 0
	for i, d := range docs {
		c := rewrap(d, w)
		if c != d {
			changed++
		}
		if err := b.Add(fmt.Sprint("wrap-", i), []byte(c)); err != nil {
			return err
		}
	}
	for i, d := range docs {
		if err := b.Add(fmt.Sprint("full-", i), []byte(fullWidth(d))); err != nil {
			return err
		}
	}
	res, err := b.Run(context.Background())
	if err != nil {
		return err
	}
	wrapFound, fullFound := 0, 0
	var origPairs, origLow int
	minSim := 1.0
	for p := range res.AllPairs() {
		switch {
		case p.B == p.A+n && p.A < n:
			wrapFound++
		case p.B == p.A+2*n && p.A < n && fullWidth(docs[p.A]) != docs[p.A]:
			fullFound++
		case p.A < n && p.B < n:
			origPairs++
			s := jaccard(bigrams(docs[p.A]), bigrams(docs[p.B]))
			minSim = min(minSim, s)
			if s < 0.3 {
				origLow++
			}
		}
	}
	fullNeeded := 0 // originals with ASCII letters or digits, which the full-width copy changes
	for _, d := range docs {
		if fullWidth(d) != d {
			fullNeeded++
		}
	}
	mode := "default"
	if nfkc {
		mode = "--normalize nfkc"
	}
	fmt.Printf("%-17s %5d originals (%d re-wrapped differently): re-wrapped copies found %d (%.2f%%), full-width copies found %d of %d changed (%.2f%%); %d pairs between originals, min bigram Jaccard %.2f, %d below 0.3\n",
		mode, n, changed, wrapFound, 100*float64(wrapFound)/float64(n), fullFound, fullNeeded,
		100*float64(fullFound)/float64(max(fullNeeded, 1)), origPairs, minSim, origLow)
	return nil
}
