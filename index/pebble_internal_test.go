package index

import (
	"bytes"
	"context"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestPebbleTextRecords: texts live in their own records ("t"), so that a
// search reads small document records; documents written with the text
// inside their record (indexes made before the split) still read whole.
func TestPebbleTextRecords(t *testing.T) {
	ctx := context.Background()
	st, err := OpenPebble(context.Background(), "idx", PebbleOptions{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ix, err := Create(ctx, st, Meta{KeepTexts: true}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"the quick brown fox jumps over the lazy dog", "a completely different text about other things"}
	for i, text := range texts {
		if _, err := ix.Add(ctx, string(rune('a'+i)), []byte(text), AddOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	raw := func(k []byte) []byte {
		v, err := st.get(k)
		if err != nil {
			t.Fatalf("%q: %v", k, err)
		}
		return v
	}
	d, err := DecodeDoc(raw(key1('d', 1)))
	if err != nil || d.Text != nil || d.ID != "a" {
		t.Fatalf("document record %+v, %v: want id a without its text", d, err)
	}
	if got := raw(key1('t', 1)); string(got) != texts[0] {
		t.Fatalf("text record %q", got)
	}
	// Rewrite document 2 as an older index holds it: the text inside.
	d2, err := DecodeDoc(raw(key1('d', 2)))
	if err != nil {
		t.Fatal(err)
	}
	d2.Text = []byte(texts[1])
	b := st.db.NewBatch()
	b.Set(key1('d', 2), AppendDoc(nil, d2), nil)
	b.Delete(key1('t', 2), nil)
	if err := b.Commit(pebble.Sync); err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		got, err := ix.Get(ctx, string(rune('a'+i)))
		if err != nil || !bytes.Equal(got.Text, []byte(text)) {
			t.Errorf("Get %c: %q, %v; want %q", 'a'+i, got.Text, err, text)
		}
	}
	if err := ix.Remove(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.get(key1('t', 1)); err == nil {
		t.Error("the text record outlived its document")
	}
	if _, err := ix.Check(ctx); err != nil {
		t.Error(err)
	}
}
