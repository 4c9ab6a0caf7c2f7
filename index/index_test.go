package index

// The tests of index behaviour through the Store interface are the
// conformance suite of package index/indextest, run on PebbleStore by
// pebble_test.go (an external test package: indextest imports index).
// Here: the internals (band table, record encodings).

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup"
)

func TestBandTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	tab := newBandTable()
	ref := map[uint32]map[uint32]bool{}
	keyOf := func(k uint32) uint64 { return uint64(k)<<32 | uint64(rng.Uint32()) }
	for op := range 100000 {
		k := uint32(rng.IntN(300)) * 2654435761 // spread, with many collisions of home slots
		g := uint32(1 + rng.IntN(500))
		if ref[k] == nil {
			ref[k] = map[uint32]bool{}
		}
		if rng.IntN(3) > 0 {
			if !ref[k][g] {
				tab.add(keyOf(k), g)
				ref[k][g] = true
			}
		} else {
			got := tab.remove(keyOf(k), g)
			if got != ref[k][g] {
				t.Fatalf("op %d: remove(%d, %d) = %v, want %v", op, k, g, got, ref[k][g])
			}
			delete(ref[k], g)
		}
		if op%101 == 0 {
			n := 0
			for k, gs := range ref {
				var want []uint64
				for g := range gs {
					want = append(want, uint64(g))
				}
				slices.Sort(want)
				n += len(want)
				if got := tab.lookup(nil, keyOf(k)); !slices.Equal(got, want) {
					t.Fatalf("op %d: lookup(%d) = %v, want %v", op, k, got, want)
				}
			}
			if tab.n != n {
				t.Fatalf("op %d: n = %d, want %d", op, tab.n, n)
			}
		}
	}
}

func TestEncodingRoundTrip(t *testing.T) {
	g := Group{Set: []uint64{1, 5, 1 << 63}, Signature: []uint32{7, 8, 9}, Keys: []uint64{42, 43}}
	got, err := DecodeGroup(AppendGroup(nil, g))
	if err != nil || fmt.Sprint(got) != fmt.Sprint(g) {
		t.Fatalf("group: %+v, %v", got, err)
	}
	d := Doc{Seq: 9, ID: "a\x00b", Group: 3, Added: -5, Text: []byte("hi")}
	gotD, err := DecodeDoc(AppendDoc(nil, d))
	if err != nil || fmt.Sprint(gotD) != fmt.Sprint(d) {
		t.Fatalf("doc: %+v, %v", gotD, err)
	}
	m := Meta{Params: neardup.Params{Threshold: 0.7}, KeepTexts: true}
	enc, err := AppendMeta(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	gotM, err := DecodeMeta(enc)
	want, _ := m.Params.Resolve()
	if err != nil || gotM.Params != want || !gotM.KeepTexts {
		t.Fatalf("meta: %+v, %v", gotM, err)
	}
	for k := range enc {
		if _, err := DecodeMeta(enc[:k]); err == nil {
			t.Fatalf("meta truncated to %d bytes decodes", k)
		}
	}
	bad := AppendGroup(nil, Group{Set: []uint64{5, 1}})
	if _, err := DecodeGroup(bad); !errors.Is(err, neardup.ErrCorrupt) {
		t.Errorf("unsorted set: %v", err)
	}
	v2 := AppendDoc(nil, d)
	v2[0] = 2
	if _, err := DecodeDoc(v2); !errors.Is(err, neardup.ErrVersion) {
		t.Errorf("another format: %v", err)
	}
}

func FuzzDecodeRecords(f *testing.F) {
	f.Add(AppendGroup(nil, Group{Set: []uint64{1, 2}, Signature: []uint32{3}, Keys: []uint64{4}}))
	f.Add(AppendDoc(nil, Doc{Seq: 1, ID: "x", Group: 2, Text: []byte("t")}))
	m, _ := AppendMeta(nil, Meta{})
	f.Add(m)
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		if g, err := DecodeGroup(b); err == nil {
			if again, err := DecodeGroup(AppendGroup(nil, g)); err != nil || fmt.Sprint(again) != fmt.Sprint(g) {
				t.Fatalf("group re-decode: %v", err)
			}
		} else if !errors.Is(err, neardup.ErrCorrupt) && !errors.Is(err, neardup.ErrVersion) {
			t.Fatalf("group error %v wraps no sentinel", err)
		}
		if d, err := DecodeDoc(b); err == nil {
			if again, err := DecodeDoc(AppendDoc(nil, d)); err != nil || fmt.Sprint(again) != fmt.Sprint(d) {
				t.Fatalf("doc re-decode: %v", err)
			}
		} else if !errors.Is(err, neardup.ErrCorrupt) && !errors.Is(err, neardup.ErrVersion) {
			t.Fatalf("doc error %v wraps no sentinel", err)
		}
		if m, err := DecodeMeta(b); err == nil {
			enc, err := AppendMeta(nil, m)
			if err != nil {
				t.Fatal(err)
			}
			if again, err := DecodeMeta(enc); err != nil || again != m {
				t.Fatalf("meta re-decode: %v", err)
			}
		}
	})
}

// TestBuildBandTable: a table built in one go answers as one built entry
// by entry, for sizes around the growth points and keys crowded at the
// end of the array (wrapping around).
func TestBuildBandTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, n := range []int{0, 1, 11, 12, 13, 100, 3000} {
		for _, crowd := range []bool{false, true} {
			var entries []uint64
			inc := newBandTable()
			keys := map[uint64]bool{}
			for g := range n {
				k := rng.Uint64()
				if crowd {
					k |= 0xfffffff0 << 32 // every home at the end of the array
				}
				keys[k] = true
				inc.add(k, uint32(g+1))
				entries = append(entries, uint64(fold(k))<<32|uint64(g+1))
			}
			built := buildBandTable(entries)
			if built.n != n {
				t.Fatalf("n = %d, want %d", built.n, n)
			}
			for k := range keys {
				if a, b := built.lookup(nil, k), inc.lookup(nil, k); !slices.Equal(a, b) {
					t.Fatalf("n=%d crowd=%v: lookup(%x) = %v, incremental %v", n, crowd, k, a, b)
				}
			}
			// It goes on working as a table: removals and additions.
			for k := range keys {
				for _, g := range built.lookup(nil, k) {
					if !built.remove(k, uint32(g)) {
						t.Fatalf("remove of a built entry failed")
					}
				}
				if len(built.lookup(nil, k)) != 0 {
					t.Fatalf("entries left after removal")
				}
			}
			if built.n != 0 {
				t.Fatalf("n = %d after removing all", built.n)
			}
		}
	}
}
