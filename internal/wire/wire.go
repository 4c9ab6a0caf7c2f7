// Package wire reads the little-endian binary encodings neardup stores
// (Params, and the index's records): a Decoder takes fields off the front
// of a byte slice, checking every length against what is left, so that a
// corrupt or forged input makes it fail rather than read out of bounds or
// allocate what the input claims.
package wire

import "encoding/binary"

// Decoder reads fields from B. Any short or malformed read sets Bad and
// empties B, after which every read returns a zero value: callers read all
// their fields and check Bad (and that B is empty) once at the end.
// Slices returned by Bytes alias the input; the others are fresh.
type Decoder struct {
	B   []byte
	Bad bool
}

// Fail marks the input bad.
func (d *Decoder) Fail() { d.Bad, d.B = true, nil }

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if len(d.B) < 1 {
		d.Fail()
		return 0
	}
	v := d.B[0]
	d.B = d.B[1:]
	return v
}

// Uint64 reads 8 bytes, little-endian.
func (d *Decoder) Uint64() uint64 {
	if len(d.B) < 8 {
		d.Fail()
		return 0
	}
	v := binary.LittleEndian.Uint64(d.B)
	d.B = d.B[8:]
	return v
}

// Int reads a uvarint of at most max.
func (d *Decoder) Int(max uint64) int {
	v, n := binary.Uvarint(d.B)
	if n <= 0 || v > max {
		d.Fail()
		return 0
	}
	d.B = d.B[n:]
	return int(v)
}

// Count reads a uvarint count of items of size bytes each, refusing a
// count the rest of the input cannot hold.
func (d *Decoder) Count(size int) int {
	n, w := binary.Uvarint(d.B)
	if w <= 0 || n > uint64(len(d.B)-w)/uint64(size) {
		d.Fail()
		return 0
	}
	d.B = d.B[w:]
	return int(n)
}

// Uint64s reads a count and that many 8-byte values (nil for none).
func (d *Decoder) Uint64s() []uint64 {
	n := d.Count(8)
	if d.Bad || n == 0 {
		return nil
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(d.B[8*i:])
	}
	d.B = d.B[8*n:]
	return out
}

// Uint32s reads a count and that many 4-byte values (nil for none).
func (d *Decoder) Uint32s() []uint32 {
	n := d.Count(4)
	if d.Bad || n == 0 {
		return nil
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(d.B[4*i:])
	}
	d.B = d.B[4*n:]
	return out
}

// Bytes reads a count and that many bytes, aliasing the input.
func (d *Decoder) Bytes() []byte {
	n := d.Count(1)
	if d.Bad {
		return nil
	}
	v := d.B[:n:n]
	d.B = d.B[n:]
	return v
}
