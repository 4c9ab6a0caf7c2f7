package minhash

import (
	"bytes"
	"encoding/hex"
	"errors"
	"slices"
	"testing"
)

// TestEncodingGolden pins the byte format: changing it needs a new version.
func TestEncodingGolden(t *testing.T) {
	sig := []uint32{0x11223344, 0, 0xffffffff}
	got := AppendEncoding([]byte("x"), 0x0102030405060708, sig)
	want := mustHex(t, "78"+"4e444d48"+"01"+"03"+"0807060504030201"+"44332211"+"00000000"+"ffffffff")
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendEncoding = %x, want %x", got, want)
	}
	dst := []uint32{7}
	dec, seed, n, err := Decode(dst, got[1:])
	if err != nil || seed != 0x0102030405060708 || n != len(got)-1 || !slices.Equal(dec, append([]uint32{7}, sig...)) {
		t.Fatalf("Decode = %x, %#x, %d, %v", dec, seed, n, err)
	}
}

// TestEncodingGoldenLong pins the encoding of a 128-slot signature, whose
// slot count takes two uvarint bytes (80 01).
func TestEncodingGoldenLong(t *testing.T) {
	sig := mustNew(t, 128, 42).AppendSignature(nil, goldenSet())
	got := AppendEncoding(nil, 42, sig)
	head := mustHex(t, "4e444d48"+"01"+"8001"+"2a00000000000000")
	if len(got) != len(head)+4*128 || !bytes.Equal(got[:len(head)], head) {
		t.Fatalf("AppendEncoding = %d bytes starting %x, want %d starting %x", len(got), got[:min(len(got), len(head))], len(head)+4*128, head)
	}
	// The body is the slots in order, little-endian; the first 16 are
	// goldenSig.
	body := mustHex(t, "9808c500"+"d32fbc03"+"8cabac05"+"ced86c00")
	if !bytes.Equal(got[len(head):len(head)+len(body)], body) {
		t.Errorf("first slots encode as %x, want %x", got[len(head):len(head)+len(body)], body)
	}
	dec, seed, n, err := Decode(nil, got)
	if err != nil || seed != 42 || n != len(got) || !slices.Equal(dec, sig) || !slices.Equal(dec[:16], goldenSig) {
		t.Fatalf("Decode = %d slots, seed %d, %d bytes, %v", len(dec), seed, n, err)
	}
}

// mustHex decodes a hex literal of a test.
func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex literal %q: %v", s, err)
	}
	return b
}

func TestEncodingRoundTrip(t *testing.T) {
	h := mustNew(t, 300, 99) // 300 slots: a two-byte slot count
	sig := h.AppendSignature(nil, goldenSet())
	var buf []byte
	buf = AppendEncoding(buf, h.Seed(), sig)
	buf = AppendEncoding(buf, 5, nil)
	buf = AppendEncoding(buf, 6, sig[:1])
	for _, want := range []struct {
		seed uint64
		sig  []uint32
	}{{99, sig}, {5, nil}, {6, sig[:1]}} {
		got, seed, n, err := Decode(nil, buf)
		if err != nil || seed != want.seed || !slices.Equal(got, want.sig) {
			t.Fatalf("Decode = %v, %d, %d, %v; want %v, %d", got, seed, n, err, want.sig, want.seed)
		}
		buf = buf[n:]
	}
	if len(buf) != 0 {
		t.Errorf("%d bytes left over", len(buf))
	}
	if allocs := testing.AllocsPerRun(50, func() { buf = AppendEncoding(buf[:0], 99, sig) }); allocs != 0 {
		t.Errorf("AppendEncoding allocates %v times with room in dst", allocs)
	}
}

func TestDecodeErrors(t *testing.T) {
	valid := AppendEncoding(nil, 1, []uint32{1, 2})
	f := func(name string, b []byte, want error) {
		t.Helper()
		dst := []uint32{9}
		sig, seed, n, err := Decode(dst, b)
		if !errors.Is(err, want) {
			t.Errorf("%s: Decode(%x) error = %v, want %v", name, b, err, want)
		}
		if len(sig) != 1 || seed != 0 || n != 0 {
			t.Errorf("%s: Decode on error returned %v, %d, %d", name, sig, seed, n)
		}
	}
	f("empty", nil, ErrCorrupt)
	f("magic only", valid[:4], ErrCorrupt)
	f("bad magic", append([]byte("NDMX"), valid[4:]...), ErrCorrupt)
	f("version 0", append([]byte("NDMH\x00"), valid[5:]...), ErrVersion)
	f("version 2", append([]byte("NDMH\x02"), valid[5:]...), ErrVersion)
	f("no count", valid[:5], ErrCorrupt)
	f("unterminated count", []byte("NDMH\x01\x80"), ErrCorrupt)
	f("overlong count", []byte("NDMH\x01\x82\x00"+"12345678"+"aaaabbbb"), ErrCorrupt)
	f("huge count", []byte("NDMH\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"+"12345678"), ErrCorrupt)
	f("uvarint overflow", []byte("NDMH\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f"), ErrCorrupt)
	for cut := 6; cut < len(valid); cut++ {
		f("truncated", valid[:cut], ErrCorrupt)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(AppendEncoding(nil, 1, []uint32{1, 2, 3}))
	f.Add(AppendEncoding(nil, 0, nil))
	f.Add(AppendEncoding(nil, 42, goldenSig))
	f.Add([]byte("NDMH\x02\x00"))
	f.Add([]byte("NDMH\x01\x80\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		sig, seed, n, err := Decode([]uint32{7}, b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
				t.Fatalf("error %v wraps neither ErrCorrupt nor ErrVersion", err)
			}
			if n != 0 || len(sig) != 1 {
				t.Fatalf("on error: n = %d, sig = %v", n, sig)
			}
			return
		}
		if n < 0 || n > len(b) || sig[0] != 7 {
			t.Fatalf("n = %d of %d bytes, sig[0] = %d", n, len(b), sig[0])
		}
		if enc := AppendEncoding(nil, seed, sig[1:]); !bytes.Equal(enc, b[:n]) {
			t.Fatalf("re-encoding %x gives %x", b[:n], enc)
		}
	})
}
