package corpus

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchDoc returns a ~1.5 KB document of words.
func benchDoc(rng *rand.Rand) string {
	words := []string{"near", "duplicate", "detection", "engine", "shingle", "minhash", "band", "bucket",
		"candidate", "cluster", "the", "a", "of", "and", "quick", "brown", "fox", "jumps", "over", "lazy", "dog",
		`\"quoted\"`, `tab\there`, `caf\u00e9`}
	var b strings.Builder
	for b.Len() < 1500 {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

// benchFile builds an input of about 30 MB of ~1.5 KB records.
func benchFile(b *testing.B, f Format, withID bool) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	switch f {
	case CSV:
		buf.WriteString("id,text\n")
	case TSV:
		buf.WriteString("id\ttext\n")
	}
	for i := 0; buf.Len() < 30<<20; i++ {
		d := benchDoc(rng)
		switch f {
		case Text:
			buf.WriteString(strings.NewReplacer(`\"`, `"`, `\t`, "\t", `\u00e9`, "é").Replace(d))
		case JSONL:
			if withID {
				fmt.Fprintf(&buf, `{"id":%d,"source":"bench","text":"%s","lang":"en"}`, i, d)
			} else {
				fmt.Fprintf(&buf, `{"source":"bench","text":"%s","lang":"en"}`, d)
			}
		case CSV:
			fmt.Fprintf(&buf, `%d,"%s"`, i, strings.ReplaceAll(d, `\"`, `""`))
		case TSV:
			fmt.Fprintf(&buf, "%d\t%s", i, strings.ReplaceAll(d, `\t`, " "))
		}
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

func benchRead(b *testing.B, f Format, withID bool) {
	benchReadOpts(b, f, withID, Options{Format: f})
}

// benchReadOpts reads the benchFile of f with o.
func benchReadOpts(b *testing.B, f Format, withID bool, o Options) {
	data := benchFile(b, f, withID)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(data), "bench", o)
		if err != nil {
			b.Fatal(err)
		}
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n += len(rec.Text)
		}
		r.Close()
	}
	if n == 0 {
		b.Fatal("no text")
	}
}

// Run: go test -run '^$' -bench . -benchtime 20x ./corpus/
//
// AMD EPYC, 2 CPUs, Go 1.26, 30 MB of ~1.5 KB records (escape-heavy JSON:
// about one word in eight has an escape):
//
//	text      ~8900 MB/s   6 allocs per file
//	jsonl     ~350-440 MB/s  16 allocs per file (none per record)
//	jsonl-id  ~300 MB/s    +1 alloc per record (Record.ID)
//	jsonl-idfield          the same with an explicit IDField ("id")
//	csv       ~310 MB/s    encoding/csv allocates each row
//	tsv       ~3700 MB/s   +1 alloc per record (Record.ID)
func BenchmarkRead(b *testing.B) {
	b.Run("jsonl-plain", benchReadPlain)
	b.Run("text", func(b *testing.B) { benchRead(b, Text, false) })
	b.Run("jsonl", func(b *testing.B) { benchRead(b, JSONL, false) })
	b.Run("jsonl-id", func(b *testing.B) { benchRead(b, JSONL, true) })
	b.Run("jsonl-idfield", func(b *testing.B) { benchReadOpts(b, JSONL, true, Options{Format: JSONL, IDField: "id"}) })
	b.Run("csv", func(b *testing.B) { benchRead(b, CSV, false) })
	b.Run("tsv", func(b *testing.B) { benchRead(b, TSV, false) })
}

// benchReadPlain reads JSONL without escapes, as bench/gencorpus writes it
// ({"id","title","text"}, ~1.5 KB records). fastjson reads it at about 5
// GB/s (2026-11-24, AMD EPYC): 230-310 ns a record, the "read" and "find
// the text value" stages together. A parser of flat objects that skips
// fastjson when a line has no backslash was tried: 20% faster on this
// benchmark (60 ns a record), too little for a second parser to keep in
// step with the first.
func benchReadPlain(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	for i := 0; buf.Len() < 30<<20; i++ {
		d := strings.NewReplacer(`\"`, "", `\t`, "", `\u00e9`, "e").Replace(benchDoc(rng))
		fmt.Fprintf(&buf, `{"id":"d%08d","title":"%s","text":"%s"}`+"\n", i, d[:40], d)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(data), "bench", Options{Format: JSONL})
		if err != nil {
			b.Fatal(err)
		}
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n += len(rec.Text)
		}
		r.Close()
	}
	if n == 0 {
		b.Fatal("no text")
	}
}
