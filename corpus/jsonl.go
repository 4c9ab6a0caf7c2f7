package corpus

import (
	"fmt"
	"io"

	"github.com/valyala/fastjson"
)

// jsonlSrc: one JSON object per line; blank lines are not records.
type jsonlSrc struct {
	r       *Reader
	ls      *lineSrc
	p       fastjson.Parser
	fields  []string
	idField string
	num     int
	text    []byte
	found   bool // a record had a text field
	missing int  // records without any text field
	rawSpan
}

func newJSONLSrc(r *Reader, ls *lineSrc, o Options) *jsonlSrc {
	j := &jsonlSrc{r: r, ls: ls, fields: o.TextFields, idField: o.IDField}
	if len(j.fields) == 0 {
		j.fields = []string{"text"}
	}
	if j.idField == "" {
		j.idField = "id"
	}
	return j
}

func (j *jsonlSrc) next(rec *Record) error {
	j.pre = j.pre[:0]
	for {
		b, n, err := j.ls.next()
		if err == io.EOF {
			j.end = append(j.end[:0], j.pre...)
			if !j.found && j.missing > 0 {
				// With SkipBad every record was skipped: the field is
				// misnamed rather than missing here and there.
				return &Error{File: j.r.name, Err: fmt.Errorf("%w: no record has a text field %s (%d skipped)", ErrMissingField, quoteList(j.fields), j.missing)}
			}
		}
		if err != nil {
			return j.r.ioErr(n, err)
		}
		line := trimEOL(b)
		if isBlank(line) {
			j.pre = append(j.pre, b...)
			continue
		}
		j.num++
		j.body = b
		v, err := j.p.ParseBytes(line)
		if err != nil {
			return j.r.bad(n, j.num, malformed("invalid JSON: %v", err))
		}
		o, err := v.Object()
		if err != nil {
			return j.r.bad(n, j.num, malformed("not a JSON object"))
		}
		*rec = Record{Num: j.num, Line: n}
		found := false
		if len(j.fields) == 1 {
			// Fast path: one text field, aliased in the parser's buffer when a string.
			if fv := o.Get(j.fields[0]); fv != nil {
				found = true
				if fv.Type() == fastjson.TypeString {
					rec.Text, _ = fv.StringBytes()
				} else {
					j.text = appendJSONValue(j.text[:0], fv)
					rec.Text = j.text
				}
			}
		} else {
			t := j.text[:0]
			for i, f := range j.fields {
				if i > 0 {
					t = append(t, ' ')
				}
				if fv := o.Get(f); fv != nil {
					found = true
					t = appendJSONValue(t, fv)
				}
			}
			j.text = t
			rec.Text = t
		}
		if !found {
			j.missing++
			return j.r.bad(n, j.num, fmt.Errorf("%w: no text field %s in the object", ErrMissingField, quoteList(j.fields)))
		}
		j.found = true
		if iv := o.Get(j.idField); iv != nil {
			switch iv.Type() {
			case fastjson.TypeString:
				s, _ := iv.StringBytes()
				rec.ID = string(s)
			case fastjson.TypeNull:
			default:
				rec.ID = string(iv.MarshalTo(nil))
			}
		}
		return nil
	}
}

// skipTo reads past the lines of the records before record num: the
// non-blank lines, counted as next counts them, not parsed.
func (j *jsonlSrc) skipTo(num int) error {
	for j.num+1 < num {
		b, n, err := j.ls.next()
		if err != nil {
			return j.r.ioErr(n, err)
		}
		if !isBlank(b) {
			j.num++
		}
	}
	return nil
}

// appendJSONValue appends the text of v: a string unescaped, null as nothing,
// anything else (number, bool, object, array) as its compact JSON text.
func appendJSONValue(dst []byte, v *fastjson.Value) []byte {
	switch v.Type() {
	case fastjson.TypeString:
		s, _ := v.StringBytes()
		return append(dst, s...)
	case fastjson.TypeNull:
		return dst
	}
	return v.MarshalTo(dst)
}
