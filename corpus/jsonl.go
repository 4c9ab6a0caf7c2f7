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

	// An explicit id field (Options.IDField) is looked for until a record
	// has it: when the first IDProbeRecords records (or all, if fewer)
	// have not, the input has none and reading ends with an error.
	checkID bool // the id field was given and no record has had it yet
	noID    int  // records read without it while checkID

	// seen are the field names of the records read while a field was
	// looked for (checkID, or no record has had a text field yet), in the
	// order met, for the errors; at most maxSeenFields.
	seen     []string
	seenMore bool // more names than seen holds
	rawSpan
}

// maxSeenFields is how many field names the errors of jsonlSrc list.
const maxSeenFields = 20

func newJSONLSrc(r *Reader, ls *lineSrc, o Options) *jsonlSrc {
	j := &jsonlSrc{r: r, ls: ls, fields: o.TextFields, idField: o.IDField, checkID: o.IDField != ""}
	if len(j.fields) == 0 {
		j.fields = []string{"text"}
	}
	if j.idField == "" {
		j.idField = "id"
	}
	return j
}

// see adds the names of o's fields to j.seen. Called only while a field
// is looked for, it is kept out of next's body.
//
//go:noinline
func (j *jsonlSrc) see(o *fastjson.Object) {
	o.Visit(func(k []byte, _ *fastjson.Value) {
		for _, s := range j.seen {
			if s == string(k) {
				return
			}
		}
		if len(j.seen) == maxSeenFields {
			j.seenMore = true
			return
		}
		j.seen = append(j.seen, string(k))
	})
}

// seenList lists the field names seen, for an error: "fields seen: "id",
// "text"".
func (j *jsonlSrc) seenList() string {
	if len(j.seen) == 0 {
		return "no fields seen"
	}
	s := "fields seen: " + quoteList(j.seen)
	if j.seenMore {
		s += ", ..."
	}
	return s
}

// noIDError is the error for an input where the explicit id field is not
// found: in none of its records (all read) or of the first IDProbeRecords.
func (j *jsonlSrc) noIDError(all bool) error {
	which := "no record has that field"
	if !all {
		which = fmt.Sprintf("none of the first %d records has that field", j.noID)
	}
	return &Error{File: j.r.name, Err: fmt.Errorf("%w: id field %q: %s (%s)", ErrMissingField, j.idField, which, j.seenList())}
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
				return &Error{File: j.r.name, Err: fmt.Errorf("%w: no record has a text field %s (%d skipped; %s)", ErrMissingField, quoteList(j.fields), j.missing, j.seenList())}
			}
			if j.checkID && j.noID > 0 {
				return j.noIDError(true)
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
			if j.found {
				return j.r.bad(n, j.num, fmt.Errorf("%w: no text field %s in the object", ErrMissingField, quoteList(j.fields)))
			}
			// No record has had one yet: perhaps misnamed.
			j.see(o)
			return j.r.bad(n, j.num, fmt.Errorf("%w: no text field %s in the object (%s)", ErrMissingField, quoteList(j.fields), j.seenList()))
		}
		j.found = true
		if iv := o.Get(j.idField); iv != nil {
			j.checkID = false
			switch iv.Type() {
			case fastjson.TypeString:
				s, _ := iv.StringBytes()
				rec.ID = string(s)
			case fastjson.TypeNull:
			default:
				rec.ID = string(iv.MarshalTo(nil))
			}
		} else if j.checkID {
			j.see(o)
			if j.noID++; j.noID >= IDProbeRecords {
				return j.noIDError(false)
			}
		}
		return nil
	}
}

// skipTo reads past the lines of the records before record num: the
// non-blank lines, counted as next counts them, not parsed. Records passed
// over may have had the id field: it is no longer looked for.
func (j *jsonlSrc) skipTo(num int) error {
	if j.num+1 < num {
		j.checkID = false
	}
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
