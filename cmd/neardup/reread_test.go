package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup/corpus"
)

// TestRereadDocs: reading again gives exactly the wanted documents, in
// order, with their texts, across inputs whose records the reader passes
// over (blank and malformed JSONL lines, with SkipBad) or decodes (CSV),
// including runs of consecutive wanted documents; a file that lost its
// last wanted record names it.
func TestRereadDocs(t *testing.T) {
	dir := t.TempDir()
	var jsonl strings.Builder
	for i := range 40 {
		if i%7 == 3 {
			jsonl.WriteString("\n{broken\n")
		}
		jsonl.WriteString(`{"text":"doc j` + string(rune('a'+i%26)) + `"}` + "\n")
	}
	a := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(a, []byte(jsonl.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(dir, "b.csv")
	if err := os.WriteFile(b, []byte("text\n\"c one\nline\"\nc two\nc three\nc four\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := &env{}
	co := corpus.Options{SkipBad: true}
	src := &source{}
	var texts []string
	err := readDocs(context.Background(), e, src, []string{a, b}, co, false, func(_ string, text []byte) error {
		texts = append(texts, string(text))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer src.cleanup()
	if len(texts) != 44 {
		t.Fatalf("%d documents read, want 44", len(texts))
	}
	for _, wantSet := range [][]int{
		{0, 1, 2, 3, 4},         // consecutive
		{5, 17, 18, 39, 41, 43}, // spread over both files
		{39, 40},                // the last of one file, the first of the next
		{},
	} {
		want := map[int]bool{}
		for _, d := range wantSet {
			want[d] = true
		}
		var got []int
		_, err := rereadDocs(context.Background(), e, src, co, func(d int) bool { return want[d] }, func(d int, text []byte) error {
			if string(text) != texts[d] {
				t.Errorf("document %d read again as %q, was %q", d, text, texts[d])
			}
			got = append(got, d)
			return nil
		})
		if err != nil {
			t.Fatalf("%v: %v", wantSet, err)
		}
		if len(got) != len(wantSet) {
			t.Fatalf("read again %v, want %v", got, wantSet)
		}
		for i := range got {
			if got[i] != wantSet[i] {
				t.Fatalf("read again %v, want %v", got, wantSet)
			}
		}
	}
	// The JSONL file loses its last lines: the first wanted record gone is named.
	cut := jsonl.String()[:strings.LastIndex(jsonl.String(), `{"text"`)]
	if err := os.WriteFile(a, []byte(cut), 0o644); err != nil {
		t.Fatal(err)
	}
	last := int(src.numOf[39])
	_, err = rereadDocs(context.Background(), e, src, co, func(d int) bool { return d == 2 || d == 39 }, func(int, []byte) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "ended before record "+strconv.Itoa(last)) {
		t.Fatalf("truncated input: %v, want it to name record %d", err, last)
	}
}
