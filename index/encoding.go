package index

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/wire"
)

// The stored forms of Meta, Group and Doc, shared by the stores. Each starts
// with a format byte (recordVersion); decoders check every length against
// the bytes they have and return errors wrapping neardup.ErrCorrupt (or
// neardup.ErrVersion for another format), never panic, and allocate at most
// in proportion to their input.
const recordVersion = 1

// AppendMeta appends the encoding of m: the format byte, m.Params as
// neardup.Params.AppendBinary encodes it, then a flags byte (bit 0:
// KeepTexts).
func AppendMeta(dst []byte, m Meta) ([]byte, error) {
	dst = append(dst, recordVersion)
	dst, err := m.Params.AppendBinary(dst)
	if err != nil {
		return nil, err
	}
	flags := byte(0)
	if m.KeepTexts {
		flags |= 1
	}
	return append(dst, flags), nil
}

// DecodeMeta decodes an encoding made by AppendMeta.
func DecodeMeta(b []byte) (Meta, error) {
	if len(b) < 2 {
		return Meta{}, fmt.Errorf("%w: index meta of %d bytes", neardup.ErrCorrupt, len(b))
	}
	if b[0] != recordVersion {
		return Meta{}, fmt.Errorf("%w: index format %d, this build reads %d", neardup.ErrVersion, b[0], recordVersion)
	}
	var m Meta
	if err := m.Params.UnmarshalBinary(b[1 : len(b)-1]); err != nil {
		return Meta{}, err
	}
	switch f := b[len(b)-1]; f {
	case 0:
	case 1:
		m.KeepTexts = true
	default:
		return Meta{}, fmt.Errorf("%w: index meta flags %#x", neardup.ErrCorrupt, f)
	}
	return m, nil
}

// AppendGroup appends the encoding of g: the format byte, then the set, the
// signature and the band keys, each as a uvarint count followed by its
// values little endian (8, 4 and 8 bytes).
func AppendGroup(dst []byte, g Group) []byte {
	dst = append(dst, recordVersion)
	dst = binary.AppendUvarint(dst, uint64(len(g.Set)))
	for _, x := range g.Set {
		dst = binary.LittleEndian.AppendUint64(dst, x)
	}
	dst = binary.AppendUvarint(dst, uint64(len(g.Signature)))
	for _, x := range g.Signature {
		dst = binary.LittleEndian.AppendUint32(dst, x)
	}
	dst = binary.AppendUvarint(dst, uint64(len(g.Keys)))
	for _, x := range g.Keys {
		dst = binary.LittleEndian.AppendUint64(dst, x)
	}
	return dst
}

// DecodeGroup decodes an encoding made by AppendGroup. The slices of the
// result are new (they do not alias b). The set must be sorted and
// distinct, as a shingle set is.
func DecodeGroup(b []byte) (Group, error) {
	d := wire.Decoder{B: b}
	if v := d.Byte(); v != recordVersion && !d.Bad {
		return Group{}, fmt.Errorf("%w: group format %d, this build reads %d", neardup.ErrVersion, v, recordVersion)
	}
	var g Group
	g.Set = d.Uint64s()
	g.Signature = d.Uint32s()
	g.Keys = d.Uint64s()
	if d.Bad || len(d.B) != 0 {
		return Group{}, fmt.Errorf("%w: group record of %d bytes", neardup.ErrCorrupt, len(b))
	}
	for i := 1; i < len(g.Set); i++ {
		if g.Set[i] <= g.Set[i-1] {
			return Group{}, fmt.Errorf("%w: group set not sorted", neardup.ErrCorrupt)
		}
	}
	return g, nil
}

// AppendDoc appends the encoding of d: the format byte, Seq, Group and
// Added as 8 bytes little endian each, then the id and the text as
// uvarint lengths followed by their bytes.
func AppendDoc(dst []byte, d Doc) []byte {
	dst = append(dst, recordVersion)
	dst = binary.LittleEndian.AppendUint64(dst, d.Seq)
	dst = binary.LittleEndian.AppendUint64(dst, d.Group)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(d.Added))
	dst = binary.AppendUvarint(dst, uint64(len(d.ID)))
	dst = append(dst, d.ID...)
	dst = binary.AppendUvarint(dst, uint64(len(d.Text)))
	return append(dst, d.Text...)
}

// DecodeDoc decodes an encoding made by AppendDoc; ID and Text are copies.
func DecodeDoc(b []byte) (Doc, error) {
	d := wire.Decoder{B: b}
	if v := d.Byte(); v != recordVersion && !d.Bad {
		return Doc{}, fmt.Errorf("%w: document format %d, this build reads %d", neardup.ErrVersion, v, recordVersion)
	}
	var doc Doc
	doc.Seq = d.Uint64()
	doc.Group = d.Uint64()
	doc.Added = int64(d.Uint64())
	doc.ID = string(d.Bytes())
	if t := d.Bytes(); len(t) > 0 {
		doc.Text = slices.Clone(t)
	}
	if d.Bad || len(d.B) != 0 {
		return Doc{}, fmt.Errorf("%w: document record of %d bytes", neardup.ErrCorrupt, len(b))
	}
	return doc, nil
}
