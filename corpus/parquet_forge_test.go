package corpus

import (
	"bytes"
	"encoding/binary"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// forgeRow is the one-column schema of the forged files.
type forgeRow struct {
	Text string `parquet:"text,snappy"`
}

// forgeDict is forgeRow with a dictionary-encoded column.
type forgeDict struct {
	Text string `parquet:"text,dict,snappy"`
}

// validParquet writes n rows of a one-column file; dict selects the
// dictionary-encoded schema.
func validParquet(t testing.TB, n int, dict bool) []byte {
	t.Helper()
	var b bytes.Buffer
	var err error
	if dict {
		rows := make([]forgeDict, n)
		for i := range rows {
			rows[i].Text = []string{"alpha", "beta", "gamma"}[i%3]
		}
		w := parquet.NewGenericWriter[forgeDict](&b)
		if _, err = w.Write(rows); err == nil {
			err = w.Close()
		}
	} else {
		rows := make([]forgeRow, n)
		for i := range rows {
			rows[i].Text = "document number " + string(rune('a'+i%26))
		}
		w := parquet.NewGenericWriter[forgeRow](&b)
		if _, err = w.Write(rows); err == nil {
			err = w.Close()
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// parquetFooter splits a Parquet file into its body (up to the footer) and
// its decoded footer.
func parquetFooter(t testing.TB, data []byte) ([]byte, *format.FileMetaData) {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	start := len(data) - 8 - n
	md := new(format.FileMetaData)
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), data[start:len(data)-8], md); err != nil {
		t.Fatal(err)
	}
	return data[:start], md
}

// withFooter returns body followed by footer bytes, their length and the
// magic number.
func withFooter(body, footer []byte) []byte {
	out := append([]byte(nil), body...)
	out = append(out, footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

func marshalFooter(t testing.TB, md *format.FileMetaData) []byte {
	t.Helper()
	b, err := thrift.Marshal(new(thrift.CompactProtocol), md)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pageHeaderAt decodes the page header at off in data and returns it with
// its encoded length.
func pageHeaderAt(t testing.TB, data []byte, off int64) (*format.PageHeader, int) {
	t.Helper()
	r := new(thrift.CompactProtocol).NewReaderFromBytes(data[off:])
	h := new(format.PageHeader)
	if err := thrift.NewDecoder(r).Decode(h); err != nil {
		t.Fatal(err)
	}
	return h, r.BytesRead()
}

// forgePage rewrites the first page header of the only column chunk of
// data (the dictionary page when there is one) with edit, and fixes the
// footer's offsets and sizes so that the file stays consistent apart from
// what edit changed.
func forgePage(t testing.TB, data []byte, edit func(h *format.PageHeader)) []byte {
	t.Helper()
	return forgePageRaw(t, data, func(h *format.PageHeader) []byte {
		edit(h)
		b, err := thrift.Marshal(new(thrift.CompactProtocol), h)
		if err != nil {
			t.Fatal(err)
		}
		return b
	})
}

// forgePageRaw is forgePage with the new header's bytes given by edit.
func forgePageRaw(t testing.TB, data []byte, edit func(h *format.PageHeader) []byte) []byte {
	t.Helper()
	body, md := parquetFooter(t, data)
	cc := &md.RowGroups[0].Columns[0].MetaData
	off := cc.DataPageOffset
	if cc.DictionaryPageOffset > 0 {
		off = cc.DictionaryPageOffset
	}
	h, n := pageHeaderAt(t, body, off)
	nh := edit(h)
	delta := int64(len(nh) - n)
	out := append(append(append([]byte(nil), body[:off]...), nh...), body[off+int64(n):]...)
	cc.TotalCompressedSize += delta
	if cc.DataPageOffset > off {
		cc.DataPageOffset += delta
	}
	noPageIndex(md)
	return withFooter(out, marshalFooter(t, md))
}

// noPageIndex drops the page index from md (its offsets would need fixing).
func noPageIndex(md *format.FileMetaData) {
	for i := range md.RowGroups {
		for j := range md.RowGroups[i].Columns {
			c := &md.RowGroups[i].Columns[j]
			c.ColumnIndexOffset, c.ColumnIndexLength = 0, 0
			c.OffsetIndexOffset, c.OffsetIndexLength = 0, 0
		}
	}
}

// forgedParquet returns small Parquet files whose metadata claims far more
// than they hold, each with the part of the error checkParquet gives.
// Without the check, parquet-go allocates what they claim: from 256 MB to
// 2 GB and more each (see TestParquetForged).
func forgedParquet(t testing.TB) []struct {
	name, err string
	data      []byte
} {
	t.Helper()
	valid := validParquet(t, 100, false)
	dict := validParquet(t, 100, true)
	type forged = struct {
		name, err string
		data      []byte
	}
	var out []forged
	add := func(name, err string, data []byte) { out = append(out, forged{name, err, data}) }

	b := append([]byte(nil), valid...)
	binary.LittleEndian.PutUint32(b[len(b)-8:], 0x7ffffff0)
	add("footer length", "footer length 2147483632 does not fit", b)

	add("compressed page size", "run past the end of the column chunk",
		forgePage(t, valid, func(h *format.PageHeader) { h.CompressedPageSize = 0x7ffffff0 }))
	add("uncompressed page size", "uncompressed from",
		forgePage(t, valid, func(h *format.PageHeader) { h.UncompressedPageSize = 0x7ffffff0 }))
	add("data page values", "268435456 values in",
		forgePage(t, valid, func(h *format.PageHeader) {
			h.DataPageHeaderV2.V.NumValues = 1 << 28
			h.DataPageHeaderV2.V.NumRows = 1 << 28
		}))
	add("dictionary values", "dictionary of 1073741824 values",
		forgePage(t, dict, func(h *format.PageHeader) { h.DictionaryPageHeader.V.NumValues = 1 << 30 }))

	// A statistics value in a page header claiming 2 GiB.
	const marker = "MARKERZZ"
	add("page header string", "string of 2147483632 bytes",
		forgePageRaw(t, valid, func(h *format.PageHeader) []byte {
			h.DataPageHeaderV2.V.Statistics.MaxValue = []byte(marker)
			b, err := thrift.Marshal(new(thrift.CompactProtocol), h)
			if err != nil {
				t.Fatal(err)
			}
			i := bytes.Index(b, []byte("\x08"+marker))
			if i < 0 {
				t.Fatal("marker not found")
			}
			return append(append(append([]byte(nil), b[:i]...), 0xf0, 0xff, 0xff, 0xff, 0x07), b[i+1:]...)
		}))

	// A footer whose row group list claims 2^24 elements (1.4 GB decoded).
	footer := []byte{
		0x15, 0x02, // 1: version = 1
		0x19, 0x1c, // 2: schema, a list of 1 struct
		0x48, 0x01, 'r', 0x00, // name "r"
		0x16, 0x00, // 3: num_rows = 0
		0x19, 0xfc, 0x80, 0x80, 0x80, 0x08, // 4: row_groups, a list of 2^24 structs
		0x00, 0x00,
	}
	add("footer list", "container of 16777216 elements", withFooter([]byte("PAR1"), footer))
	return out
}

// allocDuring returns the bytes allocated while f runs (by the whole
// process: run it when nothing else allocates much).
func allocDuring(f func()) uint64 {
	var a, z runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&z)
	return z.TotalAlloc - a.TotalAlloc
}

// TestParquetForged reads small files whose metadata claims gigabytes.
// Without checkParquet, parquet-go allocated 1.2 to 4 GB for each of them
// (measured with this test's allocation counter, the check turned off);
// with it, reading fails with ErrCorrupt before allocating what they claim.
func TestParquetForged(t *testing.T) {
	dir := t.TempDir()
	for _, c := range forgedParquet(t) {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			p := write(t, dir, "forged.parquet", c.data)
			var errFile, errStream error
			n := allocDuring(func() {
				_, _, errFile = readFile(t, p, Options{})
				var r *Reader
				if r, errStream = NewReader(bytes.NewReader(c.data), "stdin.parquet", Options{}); errStream == nil {
					_, _, errStream = drain(r)
					r.Close()
				}
			})
			wantErr(t, errFile, ErrCorrupt, p, c.err)
			wantErr(t, errStream, ErrCorrupt, "stdin.parquet", c.err)
			if strings.Contains(errStream.Error(), os.TempDir()) {
				t.Errorf("error names the spool file: %v", errStream)
			}
			if n > 64<<20 {
				t.Errorf("reading %d bytes allocated %d MB", len(c.data), n>>20)
			}
		})
	}
}

// TestParquetGuardKeepsValid reads valid files that claim a lot for their
// size: all-null pages, highly compressed pages, many row groups, a
// dictionary, nested columns.
func TestParquetGuardKeepsValid(t *testing.T) {
	type sparse struct {
		ID   int64   `parquet:"id"`
		Text string  `parquet:"text,zstd"`
		Opt  *string `parquet:"opt,optional,zstd"`
	}
	rows := make([]sparse, 200000)
	same := strings.Repeat("the same words again and again ", 8)
	for i := range rows {
		rows[i] = sparse{ID: int64(i), Text: same}
	}
	var b bytes.Buffer
	w := parquet.NewGenericWriter[sparse](&b, parquet.MaxRowsPerRowGroup(70000))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := checkParquet(bytes.NewReader(b.Bytes()), int64(b.Len())); err != nil {
		t.Fatalf("checkParquet: %v", err)
	}
	recs, _, ok := fuzzRead(t, b.Bytes(), Options{Format: Parquet})
	if !ok || len(recs) != len(rows) || recs[len(recs)-1].ID != "199999" || recs[5].Text != same {
		t.Fatalf("%d records, ok %v", len(recs), ok)
	}

	for _, data := range [][]byte{validParquet(t, 1000, true), validParquet(t, 0, false), parquetBytes(t, []parquetRow{{ID: 1, Tags: []string{"a", "b"}}})} {
		if err := checkParquet(bytes.NewReader(data), int64(len(data))); err != nil {
			t.Errorf("checkParquet: %v", err)
		}
	}
}
