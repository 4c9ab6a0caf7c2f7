package corpus

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// parquetSrc reads rows generically and picks the text and id columns (leaf
// columns, named by their dotted path) out of each row.
type parquetSrc struct {
	r     *Reader
	file  *parquet.File
	pr    *parquet.GenericReader[any]
	rows  []parquet.Row
	n, i  int
	end   error // error that ended the last batch
	num   int
	text  []int // leaf column indexes
	id    int   // leaf column index, -1 for none
	buf   []byte
	idBuf []byte
	row   parquet.Row // current row
}

const parquetBatch = 128

func (r *Reader) openParquetFile(f io.ReaderAt, size int64) (err error) {
	defer func() {
		// parquet-go may panic on corrupt files; report it as an error.
		if v := recover(); v != nil {
			err = fmt.Errorf("parquet: %v", v)
		}
	}()
	// Reject metadata that claims more than the file can hold before
	// parquet-go allocates what it claims.
	if err := checkParquet(f, size); err != nil {
		return err
	}
	// The page index and bloom filters are not needed to read every row.
	pf, err := parquet.OpenFile(f, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	schema := pf.Schema()
	paths := schema.Columns()
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = strings.Join(p, ".")
	}
	text, id, err := columns(names, r.opts)
	if err != nil {
		return err
	}
	leaf := func(i int) int {
		lc, ok := schema.Lookup(paths[i]...)
		if !ok {
			return i
		}
		return lc.ColumnIndex
	}
	p := &parquetSrc{r: r, file: pf, id: -1, rows: make([]parquet.Row, parquetBatch)}
	for _, i := range text {
		p.text = append(p.text, leaf(i))
	}
	if id >= 0 {
		p.id = leaf(id)
	}
	p.pr = parquet.NewGenericReader[any](pf)
	r.closers = append(r.closers, p.pr.Close)
	r.src = p
	return nil
}

func (p *parquetSrc) next(rec *Record) (err error) {
	defer func() {
		// parquet-go may panic on corrupt files; report it as an error.
		if v := recover(); v != nil {
			err = &Error{File: p.r.name, Record: p.num, Err: fmt.Errorf("parquet: %v", v)}
		}
	}()
	if p.i == p.n {
		if p.end != nil {
			return p.r.ioErr(0, p.end)
		}
		p.n, p.end = p.pr.ReadRows(p.rows)
		p.i = 0
		if p.end != nil && p.end != io.EOF {
			p.end = fmt.Errorf("parquet: %w", p.end)
		}
		if p.n == 0 {
			if p.end == nil {
				p.end = io.EOF
			}
			return p.r.ioErr(0, p.end)
		}
	}
	p.row = p.rows[p.i]
	p.i++
	p.num++
	t := p.buf[:0]
	for k, c := range p.text {
		if k > 0 {
			t = append(t, ' ')
		}
		t = appendColumn(t, p.row, c)
	}
	p.buf = t
	*rec = Record{Num: p.num, Text: t}
	if p.id >= 0 {
		p.idBuf = appendColumn(p.idBuf[:0], p.row, p.id)
		rec.ID = string(p.idBuf)
	}
	return nil
}

// appendColumn appends the values of column c in row, joined by one space:
// byte arrays as they are, numbers and booleans as text, nulls as nothing.
func appendColumn(dst []byte, row parquet.Row, c int) []byte {
	first := true
	for _, v := range row {
		if v.Column() != c || v.IsNull() {
			continue
		}
		if !first {
			dst = append(dst, ' ')
		}
		first = false
		switch v.Kind() {
		case parquet.ByteArray, parquet.FixedLenByteArray:
			dst = append(dst, v.ByteArray()...)
		case parquet.Boolean:
			dst = strconv.AppendBool(dst, v.Boolean())
		case parquet.Int32:
			dst = strconv.AppendInt(dst, int64(v.Int32()), 10)
		case parquet.Int64:
			dst = strconv.AppendInt(dst, v.Int64(), 10)
		case parquet.Float:
			dst = strconv.AppendFloat(dst, float64(v.Float()), 'g', -1, 32)
		case parquet.Double:
			dst = strconv.AppendFloat(dst, v.Double(), 'g', -1, 64)
		default:
			dst = append(dst, v.String()...)
		}
	}
	return dst
}
