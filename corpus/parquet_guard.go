package corpus

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// A Parquet file's metadata says how much the reader must allocate: the
// footer's length, the lengths of the lists and strings in the footer and
// in page headers, each page's compressed and uncompressed size, each
// page's number of values. parquet-go allocates what they claim before
// reading the bytes that should back the claim, so a small forged file
// could make it allocate gigabytes. checkParquet reads the footer and every
// page header first (not the page data) and rejects claims that the file
// cannot back:
//
//   - the footer fits in the file; every string or list in the footer and
//     in a page header fits in the bytes left for it (each list element
//     takes at least one byte), nesting is at most maxThriftDepth deep, and
//     the decoded footer is estimated at most 16 MiB + 64 times its size;
//   - every column chunk lies inside the file, before the footer, and its
//     pages (headers and data) fill it without running past its end;
//   - a page's uncompressed size is at most maxRatio times its compressed
//     size plus pageSlack (1 MiB): deflate cannot do better than about
//     1032:1, and real pages that compress better are small;
//   - a data page holds at most 8 values per uncompressed byte (one bit
//     each), plus valueSlack (1 Mi) for runs of nulls or repeated values
//     that encode in almost nothing; a dictionary page holds only what its
//     plain encoding can (a value takes at least 1 bit for booleans, 4 bytes
//     for byte arrays and 32-bit types, 8 for 64-bit ones);
//   - a row group has no more rows than any of its column chunks has values.
//
// So what one page makes the reader allocate is bounded by about 1024
// times the page's size plus a few MiB, whatever its header claims.
// Decompression itself is not limited beyond the page's claimed size:
// like a gzip bomb in a text input, a file of many highly compressed pages
// costs memory for what it really holds.

const (
	maxRatio       = 1024    // uncompressed bytes per compressed byte
	pageSlack      = 1 << 20 // uncompressed bytes allowed beyond maxRatio
	valueSlack     = 1 << 20 // values per page beyond 8 per uncompressed byte
	maxThriftDepth = 64      // nesting of thrift structs, lists and maps
	maxSchemaDepth = 64      // nesting of schema groups
	structCost     = 640     // bytes a decoded list element of struct type may take (format.ColumnChunk is 560)
)

// parquetErr returns an error wrapping ErrCorrupt.
func parquetErr(format string, args ...any) error {
	return fmt.Errorf("%w: parquet: "+format, append([]any{ErrCorrupt}, args...)...)
}

// checkParquet validates the metadata of the Parquet file of size bytes
// in f against what the file can hold, as described above, reading the
// footer and the page headers only. It returns nil, an error wrapping
// ErrCorrupt, or a read error.
func checkParquet(f io.ReaderAt, size int64) error {
	if size < 12 {
		return parquetErr("%d bytes is too short for a Parquet file", size)
	}
	var head, tail [8]byte
	if _, err := f.ReadAt(head[:4], 0); err != nil {
		return err
	}
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(head[:4]) == "PARE" || string(tail[4:]) == "PARE" {
		return fmt.Errorf("parquet: encrypted files are not supported")
	}
	if string(head[:4]) != "PAR1" || string(tail[4:]) != "PAR1" {
		return parquetErr("no PAR1 magic number at the start and the end")
	}
	footerLen := int64(binary.LittleEndian.Uint32(tail[:4]))
	dataEnd := size - 8 - footerLen
	if dataEnd < 4 {
		return parquetErr("footer length %d does not fit in the file (%d bytes)", footerLen, size)
	}
	footer := make([]byte, footerLen)
	if _, err := f.ReadAt(footer, dataEnd); err != nil {
		return err
	}
	w := thriftWalker{src: &bytesSource{b: footer}}
	if err := w.walkStruct(); err != nil {
		return parquetErr("footer: %v", err)
	}
	if n := w.src.consumed(); n != footerLen {
		return parquetErr("footer: %d bytes after the metadata", footerLen-n)
	}
	if limit := 16<<20 + 64*footerLen; w.cost > limit {
		return parquetErr("footer: metadata of %d bytes would decode to about %d bytes", footerLen, w.cost)
	}
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, &md); err != nil {
		return parquetErr("footer: %v", err)
	}
	leaves, err := schemaLeaves(md.Schema)
	if err != nil {
		return err
	}
	if md.NumRows < 0 {
		return parquetErr("negative number of rows %d", md.NumRows)
	}
	pc := pageChecker{f: f}
	for g := range md.RowGroups {
		rg := &md.RowGroups[g]
		if rg.NumRows < 0 {
			return parquetErr("row group %d: negative number of rows %d", g, rg.NumRows)
		}
		if len(rg.Columns) != len(leaves) {
			return parquetErr("row group %d has %d column chunks, the schema %d columns", g, len(rg.Columns), len(leaves))
		}
		for c := range rg.Columns {
			cc := &rg.Columns[c]
			where := fmt.Sprintf("row group %d, column %q", g, leaves[c].path)
			if cc.FilePath != "" {
				return fmt.Errorf("parquet: %s: column chunks in other files (%q) are not supported", where, cc.FilePath)
			}
			values, err := pc.checkChunk(&cc.MetaData, leaves[c], dataEnd, where)
			if err != nil {
				return err
			}
			if rg.NumRows > values {
				return parquetErr("%s: %d rows but only %d values", where, rg.NumRows, values)
			}
		}
	}
	return nil
}

// leafColumn is what checkParquet needs to know about a leaf column.
type leafColumn struct {
	path    string
	typ     format.Type
	typeLen int32
}

// minBits is the least number of bits a value of c takes in a dictionary
// page (PLAIN encoding).
func (c leafColumn) minBits() int64 {
	switch c.typ {
	case format.Boolean:
		return 1
	case format.Int64, format.Double:
		return 64
	case format.Int96:
		return 96
	case format.FixedLenByteArray:
		return 8 * max(int64(c.typeLen), 1)
	}
	return 32 // Int32, Float; ByteArray: a 4-byte length
}

// schemaLeaves returns the leaf columns of a flattened schema (the root
// first, each group followed by its children; a leaf is an element with a
// type, as parquet-go reads it), checking that the child counts add up and
// that nesting is at most maxSchemaDepth deep.
func schemaLeaves(schema []format.SchemaElement) ([]leafColumn, error) {
	if len(schema) == 0 {
		return nil, parquetErr("no schema")
	}
	var leaves []leafColumn
	var path []string
	// left[d] is how many children the group at depth d still expects.
	left := []int64{int64(max(schema[0].NumChildren.V, 0))}
	for i := 1; i < len(schema); i++ {
		for len(left) > 0 && left[len(left)-1] == 0 {
			left = left[:len(left)-1]
			if len(path) > 0 {
				path = path[:len(path)-1]
			}
		}
		if len(left) == 0 {
			return nil, parquetErr("schema: %d elements after the root's children", len(schema)-i)
		}
		left[len(left)-1]--
		e := &schema[i]
		if e.Type.Valid {
			leaves = append(leaves, leafColumn{
				path:    strings.Join(append(path[:len(path):len(path)], e.Name), "."),
				typ:     e.Type.V,
				typeLen: e.TypeLength.V,
			})
		}
		if n := e.NumChildren; n.Valid && n.V > 0 {
			if len(left) >= maxSchemaDepth {
				return nil, parquetErr("schema nested more than %d deep", maxSchemaDepth)
			}
			left = append(left, int64(n.V))
			path = append(path, e.Name)
		}
	}
	for _, n := range left {
		if n != 0 {
			return nil, parquetErr("schema: %d children missing", n)
		}
	}
	return leaves, nil
}

// pageChecker walks the page headers of column chunks.
type pageChecker struct {
	f   io.ReaderAt
	br  *bufio.Reader
	src streamSource
	hdr format.PageHeader
}

// checkChunk checks the column chunk described by m, of column leaf, in a
// file whose data ends at dataEnd, and returns the number of values of its
// data pages.
func (p *pageChecker) checkChunk(m *format.ColumnMetaData, leaf leafColumn, dataEnd int64, where string) (int64, error) {
	start := m.DataPageOffset
	if m.DictionaryPageOffset != 0 {
		start = m.DictionaryPageOffset // where parquet-go starts reading
	}
	if start < 4 || m.TotalCompressedSize < 0 || m.TotalCompressedSize > dataEnd-start {
		return 0, parquetErr("%s: chunk of %d bytes at offset %d is outside the data (%d bytes)", where, m.TotalCompressedSize, start, dataEnd)
	}
	if m.NumValues < 0 {
		return 0, parquetErr("%s: negative number of values %d", where, m.NumValues)
	}
	end := start + m.TotalCompressedSize
	var values int64
	for pos := start; pos < end; {
		sec := io.NewSectionReader(p.f, pos, end-pos)
		if p.br == nil {
			p.br = bufio.NewReaderSize(sec, 4096)
		} else {
			p.br.Reset(sec)
		}
		p.src = streamSource{r: p.br, rem: end - pos, buf: p.src.buf[:0]}
		w := thriftWalker{src: &p.src}
		if err := w.walkStruct(); err != nil {
			return 0, parquetErr("%s: page header at offset %d: %v", where, pos, err)
		}
		hlen := p.src.consumed()
		p.hdr = format.PageHeader{}
		if err := thrift.Unmarshal(new(thrift.CompactProtocol), p.src.buf, &p.hdr); err != nil {
			return 0, parquetErr("%s: page header at offset %d: %v", where, pos, err)
		}
		h := &p.hdr
		c, u := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
		at := func(format string, args ...any) error {
			return parquetErr("%s: page at offset %d: "+format, append([]any{where, pos}, args...)...)
		}
		if c < 0 || u < 0 {
			return 0, at("negative size (%d compressed, %d uncompressed)", c, u)
		}
		if c > end-pos-hlen {
			return 0, at("%d bytes run past the end of the column chunk (%d bytes left)", c, end-pos-hlen)
		}
		if u > maxRatio*c+pageSlack {
			return 0, at("%d bytes uncompressed from %d compressed (more than %d:1)", u, c, maxRatio)
		}
		// What the values may take: the uncompressed bytes, as far as
		// the compressed bytes can back them.
		room := 8 * min(u, maxRatio*c)
		switch {
		case h.DataPageHeader.Valid:
			n := int64(h.DataPageHeader.V.NumValues)
			if n < 0 || n > room+valueSlack {
				return 0, at("%d values in %d bytes", n, u)
			}
			values += n
		case h.DataPageHeaderV2.Valid:
			v := &h.DataPageHeaderV2.V
			n := int64(v.NumValues)
			if n < 0 || n > room+valueSlack {
				return 0, at("%d values in %d bytes", n, u)
			}
			if v.NumNulls < 0 || v.NumNulls > v.NumValues || v.NumRows < 0 || v.NumRows > v.NumValues {
				return 0, at("%d nulls and %d rows for %d values", v.NumNulls, v.NumRows, v.NumValues)
			}
			if l := int64(v.RepetitionLevelsByteLength) + int64(v.DefinitionLevelsByteLength); v.RepetitionLevelsByteLength < 0 || v.DefinitionLevelsByteLength < 0 || l > c {
				return 0, at("levels of %d+%d bytes in a page of %d", v.RepetitionLevelsByteLength, v.DefinitionLevelsByteLength, c)
			}
			values += n
		case h.DictionaryPageHeader.Valid:
			n := int64(h.DictionaryPageHeader.V.NumValues)
			if n < 0 || n > room/leaf.minBits() {
				return 0, at("dictionary of %d values in %d bytes", n, u)
			}
		}
		pos += hlen + c
	}
	return values, nil
}

// thriftWalker checks the structure of thrift compact-protocol data
// without decoding it: every length fits in the bytes left, nesting is
// bounded, and cost estimates what decoding it would allocate.
type thriftWalker struct {
	src   thriftSource
	depth int
	cost  int64
}

// thriftSource is the bytes a thriftWalker reads.
type thriftSource interface {
	readByte() (byte, error)
	skip(n int64) error // n must not exceed left
	left() int64        // bytes left
	consumed() int64    // bytes read so far
}

// Compact protocol types.
const (
	tStop = iota
	tTrue
	tFalse
	tByte
	tI16
	tI32
	tI64
	tDouble
	tBinary
	tList
	tSet
	tMap
	tStruct
	tUUID
)

var errThriftEOF = errors.New("truncated thrift data")

func (w *thriftWalker) enter() error {
	if w.depth++; w.depth > maxThriftDepth {
		return fmt.Errorf("thrift data nested more than %d deep", maxThriftDepth)
	}
	return nil
}

func (w *thriftWalker) walkStruct() error {
	if err := w.enter(); err != nil {
		return err
	}
	defer func() { w.depth-- }()
	for {
		b, err := w.src.readByte()
		if err != nil {
			return err
		}
		if b == tStop {
			return nil
		}
		if b>>4 == 0 { // field id as a varint
			if _, err := w.varint(); err != nil {
				return err
			}
		}
		switch t := b & 0x0f; t {
		case tTrue, tFalse: // the value is the type
		default:
			if err := w.walkValue(t); err != nil {
				return err
			}
		}
	}
}

// walkValue walks one value of type t.
func (w *thriftWalker) walkValue(t byte) error {
	switch t {
	case tTrue, tFalse, tByte: // one byte in containers
		_, err := w.src.readByte()
		return err
	case tI16, tI32, tI64:
		_, err := w.varint()
		return err
	case tDouble:
		return w.fixed(8)
	case tUUID:
		return w.fixed(16)
	case tBinary:
		n, err := w.varint()
		if err != nil {
			return err
		}
		if n > uint64(w.src.left()) {
			return fmt.Errorf("string of %d bytes, %d left", n, w.src.left())
		}
		w.cost += int64(n) + 24
		return w.src.skip(int64(n))
	case tList, tSet:
		b, err := w.src.readByte()
		if err != nil {
			return err
		}
		n, et := uint64(b>>4), b&0x0f
		if n == 15 {
			if n, err = w.varint(); err != nil {
				return err
			}
		}
		return w.walkElems(n, et, 0, false)
	case tMap:
		n, err := w.varint()
		if err != nil || n == 0 {
			return err
		}
		b, err := w.src.readByte()
		if err != nil {
			return err
		}
		return w.walkElems(n, b>>4, b&0x0f, true)
	case tStruct:
		return w.walkStruct()
	}
	return fmt.Errorf("unknown thrift type %d", t)
}

// walkElems walks n container elements of type et (map entries of key type
// et and value type vt).
func (w *thriftWalker) walkElems(n uint64, et, vt byte, isMap bool) error {
	per := uint64(1)
	if isMap {
		per = 2
	}
	if n > uint64(w.src.left())/per {
		return fmt.Errorf("container of %d elements, %d bytes left", n, w.src.left())
	}
	if err := w.enter(); err != nil {
		return err
	}
	defer func() { w.depth-- }()
	cost := int64(16)
	if et == tStruct || vt == tStruct {
		cost = structCost
	}
	w.cost += int64(n) * cost
	for range n {
		if err := w.walkValue(et); err != nil {
			return err
		}
		if isMap {
			if err := w.walkValue(vt); err != nil {
				return err
			}
		}
	}
	return nil
}

// varint reads an unsigned LEB128 varint of at most 10 bytes.
func (w *thriftWalker) varint() (uint64, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		b, err := w.src.readByte()
		if err != nil {
			return 0, err
		}
		v |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("thrift varint longer than 10 bytes")
}

func (w *thriftWalker) fixed(n int64) error {
	if n > w.src.left() {
		return errThriftEOF
	}
	return w.src.skip(n)
}

// bytesSource is a thriftSource over a byte slice.
type bytesSource struct {
	b   []byte
	off int
}

func (s *bytesSource) readByte() (byte, error) {
	if s.off >= len(s.b) {
		return 0, errThriftEOF
	}
	s.off++
	return s.b[s.off-1], nil
}

func (s *bytesSource) skip(n int64) error { s.off += int(n); return nil }
func (s *bytesSource) left() int64        { return int64(len(s.b) - s.off) }
func (s *bytesSource) consumed() int64    { return int64(s.off) }

// streamSource is a thriftSource over a reader of rem bytes; it keeps the
// bytes it reads in buf.
type streamSource struct {
	r   *bufio.Reader
	rem int64
	buf []byte
}

func (s *streamSource) readByte() (byte, error) {
	if s.rem == 0 {
		return 0, errThriftEOF
	}
	b, err := s.r.ReadByte()
	if err != nil {
		if err == io.EOF {
			err = errThriftEOF
		}
		return 0, err
	}
	s.rem--
	s.buf = append(s.buf, b)
	return b, nil
}

func (s *streamSource) skip(n int64) error {
	if n > s.rem {
		return errThriftEOF
	}
	for n > 0 {
		b, err := s.r.Peek(int(min(n, int64(s.r.Size()))))
		if len(b) == 0 {
			if err == io.EOF {
				err = errThriftEOF
			}
			return err
		}
		s.buf = append(s.buf, b...)
		s.r.Discard(len(b))
		n -= int64(len(b))
		s.rem -= int64(len(b))
	}
	return nil
}

func (s *streamSource) left() int64 { return s.rem }

func (s *streamSource) consumed() int64 { return int64(len(s.buf)) }
