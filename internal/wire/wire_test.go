package wire

import (
	"encoding/binary"
	"slices"
	"testing"
)

func TestDecoder(t *testing.T) {
	var b []byte
	b = append(b, 7)
	b = binary.LittleEndian.AppendUint64(b, 1<<40+3)
	b = binary.AppendUvarint(b, 300)
	b = binary.AppendUvarint(b, 2)
	b = binary.LittleEndian.AppendUint64(b, 5)
	b = binary.LittleEndian.AppendUint64(b, 6)
	b = binary.AppendUvarint(b, 1)
	b = binary.LittleEndian.AppendUint32(b, 9)
	b = binary.AppendUvarint(b, 2)
	b = append(b, "hi"...)
	d := Decoder{B: b}
	if d.Byte() != 7 || d.Uint64() != 1<<40+3 || d.Int(1000) != 300 ||
		!slices.Equal(d.Uint64s(), []uint64{5, 6}) || !slices.Equal(d.Uint32s(), []uint32{9}) ||
		string(d.Bytes()) != "hi" || d.Bad || len(d.B) != 0 {
		t.Fatalf("decoded wrong: %+v", d)
	}
}

// A count the input cannot hold, a value over its bound or a short read
// fails, and every later read is a zero value.
func TestDecoderRefuses(t *testing.T) {
	for name, read := range map[string]func(*Decoder){
		"count":  func(d *Decoder) { d.Uint64s() },
		"bound":  func(d *Decoder) { d.Int(10) },
		"short":  func(d *Decoder) { d.Uint64() },
		"bytes":  func(d *Decoder) { d.Bytes() },
		"uint32": func(d *Decoder) { d.Uint32s() },
	} {
		d := Decoder{B: binary.AppendUvarint(nil, 1<<40)} // claims far more than it has
		read(&d)
		if !d.Bad || len(d.B) != 0 || d.Byte() != 0 || d.Uint64() != 0 {
			t.Errorf("%s: %+v, want a failed decoder", name, d)
		}
	}
}
