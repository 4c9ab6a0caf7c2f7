package index

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/record"
)

// writeLog writes records of the given sizes with Pebble's record writer
// (the format of a MANIFEST) and returns the log and each record's start.
func writeLog(t testing.TB, sizes []int, seed uint64) ([]byte, []int64) {
	t.Helper()
	var buf bytes.Buffer
	w := record.NewWriter(&buf)
	r := rand.New(rand.NewPCG(seed, 1))
	var starts []int64
	for _, n := range sizes {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(r.Uint32())
		}
		off, err := w.WriteRecord(p)
		if err != nil {
			t.Fatal(err)
		}
		starts = append(starts, off)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), starts
}

// pebbleRecords is the reference: the records Pebble's own reader returns
// before its first error, and that error (nil at a clean end).
func pebbleRecords(b []byte) (int, error) {
	r := record.NewReader(bytes.NewReader(b), 0)
	n := 0
	for {
		rr, err := r.Next()
		if err == nil {
			_, err = io.Copy(io.Discard, rr)
		}
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// scanLog agrees with Pebble's reader on where a damaged log stops being
// read, and tells a damage with records after it (refused) from one at
// the end (a torn tail, tolerated).
func TestScanLog(t *testing.T) {
	// Small records, and two that span blocks. (Pebble's reader, the
	// reference, looks for a one-bit flip in a damaged chunk by trying
	// every bit: seconds for a chunk of 32 KiB, so the flips that land in
	// the big records are checked without it.)
	r := rand.New(rand.NewPCG(2, 2))
	var sizes []int
	for i := range 200 {
		switch i {
		case 20:
			sizes = append(sizes, 70000)
		case 50:
			sizes = append(sizes, 40000)
		default:
			sizes = append(sizes, 1+r.IntN(300))
		}
	}
	log, starts := writeLog(t, sizes, 1)
	big := func(off int) bool {
		for _, i := range []int{20, 50} {
			if int64(off) >= starts[i] && int64(off) < starts[i+1] {
				return true
			}
		}
		return false
	}
	if d, err := scanLog(bytes.NewReader(log), 0); d != nil || err != nil {
		t.Fatalf("an undamaged log: %v %v", d, err)
	}
	if n, err := pebbleRecords(log); n != len(sizes) || err != nil {
		t.Fatalf("the reference reads %d records (%v) of an undamaged log", n, err)
	}
	flips := 100
	if testing.Short() {
		flips = 20
	}
	for range flips {
		b := bytes.Clone(log)
		off := r.IntN(len(b))
		b[off] ^= 1 << r.IntN(8)
		d, err := scanLog(bytes.NewReader(b), 0)
		if err != nil {
			t.Fatal(err)
		}
		if big(off) {
			if d == nil || d.After < 0 {
				t.Fatalf("flip at %d in a record that spans blocks: %+v", off, d)
			}
			continue
		}
		n, perr := pebbleRecords(b)
		if d == nil {
			// A flip Pebble does not see either (padding).
			if perr != nil || n != len(sizes) {
				t.Fatalf("flip at %d: scanLog sees nothing, Pebble reads %d records and %v", off, n, perr)
			}
			continue
		}
		if d.Records != n {
			t.Fatalf("flip at %d: scanLog says %d records before the damage at %d, Pebble reads %d (%v)", off, d.Records, d.Offset, n, perr)
		}
		if d.Offset > int64(off) || d.After >= 0 && d.After <= d.Offset {
			t.Fatalf("flip at %d: damage %+v", off, d)
		}
		// Records start after the damaged one: they are good chunks
		// after it, so the damage is in the middle.
		last := n == len(sizes)-1
		if !last && d.After < 0 {
			t.Fatalf("flip at %d in record %d of %d: no good chunk found after it", off, n, len(sizes))
		}
		if d.After >= 0 && !strings.Contains(d.String(), "not torn") {
			t.Fatalf("message: %s", d)
		}
	}
	// Cut anywhere: a torn tail, never damage in the middle.
	for range 200 {
		cut := r.IntN(len(log))
		d, err := scanLog(bytes.NewReader(log[:cut]), 0)
		if err != nil || d != nil && d.After >= 0 {
			t.Fatalf("cut at %d: %+v %v", cut, d, err)
		}
	}
	// Zeros after the end (preallocated space): not damage.
	z := append(bytes.Clone(log), make([]byte, 3*logBlockSize)...)
	if d, err := scanLog(bytes.NewReader(z), 0); err != nil || d != nil && d.After >= 0 {
		t.Fatalf("zeros after the end: %+v %v", d, err)
	}
	// The old records of a recycled log after the end: chunks of another
	// log number, not this log's.
	if d, err := scanLog(bytes.NewReader(log), 7); err != nil || d == nil || d.After >= 0 {
		// (read as log 7, the legacy chunks carry no number and check
		// out: this only checks that a log number is not required.)
		if d != nil {
			t.Fatalf("legacy chunks read as log 7: %+v %v", d, err)
		}
	}
}

// FuzzScanLog: any bytes, any log number: no panic, and a damage found
// lies within the log, with a later good chunk when one is said to follow.
func FuzzScanLog(f *testing.F) {
	log, _ := writeLog(f, []int{10, 300, 3, 100, 20}, 3)
	f.Add(log, uint32(0))
	b := bytes.Clone(log)
	b[100] ^= 4
	f.Add(b, uint32(0))
	f.Add([]byte{}, uint32(5))
	f.Add(make([]byte, 40), uint32(5))
	f.Fuzz(func(t *testing.T, b []byte, num uint32) {
		d, err := scanLog(bytes.NewReader(b), num)
		if err != nil {
			t.Fatal(err)
		}
		if d == nil {
			return
		}
		if d.Offset < 0 || d.Offset >= int64(len(b)) || d.After >= int64(len(b)) || d.After >= 0 && d.After <= d.Offset {
			t.Fatalf("damage %+v in %d bytes", d, len(b))
		}
		if d.After >= 0 {
			blk := d.After - d.After%logBlockSize
			end := min(blk+logBlockSize, int64(len(b)))
			if _, ok := chunkAt(b[blk:end], int(d.After-blk), num); !ok {
				t.Fatalf("no good chunk at %d", d.After)
			}
		}
	})
}

// The witness file round-trips, and any change to it is caught.
func TestWitness(t *testing.T) {
	w := witness{updates: 12, nextSeq: 345, nextGroup: 67, manifest: "MANIFEST-000009", manifestSize: 1724}
	b := appendWitness(nil, w)
	got, err := parseWitness(b)
	if err != nil || got != w {
		t.Fatalf("round trip: %+v %v, want %+v", got, err, w)
	}
	for i := range b {
		c := bytes.Clone(b)
		c[i] ^= 2
		if g, err := parseWitness(c); err == nil && g != w {
			t.Fatalf("byte %d changed: parsed %+v without an error", i, g)
		}
	}
}

// FuzzParseWitness: any bytes: no panic; what parses re-encodes to the
// same witness.
func FuzzParseWitness(f *testing.F) {
	f.Add(appendWitness(nil, witness{updates: 1, nextSeq: 2, nextGroup: 3}))
	f.Add(appendWitness(nil, witness{updates: 1, nextSeq: 2, nextGroup: 3, manifest: "MANIFEST-000001", manifestSize: 10}))
	f.Add([]byte("neardup index witness 1\ncrc32c 0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		w, err := parseWitness(b)
		if err != nil {
			return
		}
		if w2, err := parseWitness(appendWitness(nil, w)); err != nil || w2 != w {
			t.Fatalf("%+v re-encoded: %+v %v", w, w2, err)
		}
	})
}
