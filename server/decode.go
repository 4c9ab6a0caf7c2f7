package server

// Request decoding. Bodies are checked strictly (UTF-8, JSON syntax by
// encoding/json's scanner, one value and nothing after it) and then read
// with fastjson, which is about a hundred times faster than decoding into
// a struct with encoding/json and matches member names exactly (encoding/json
// folds case); unknown and repeated members are refused.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/neardup/neardup/internal/rule"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/valyala/fastjson"
)

var (
	bufPool    = sync.Pool{New: func() any { return new(bytes.Buffer) }}
	parserPool fastjson.ParserPool
)

// maxPooledBuf is the largest body buffer kept for reuse.
const maxPooledBuf = 1 << 20

// body is a parsed request body; its values live until release, which
// also gives back its bytes of the server's budget.
type body struct {
	buf  *bytes.Buffer
	p    *fastjson.Parser
	v    *fastjson.Value
	s    *Server
	held int64 // bytes of the budget
	read int64 // bytes read, told to s.bodyHook
}

// release returns the buffers for reuse and the bytes to the budget. Call
// it when the handler is done with the body and with everything derived
// from it (at its end: defer b.release()).
func (b *body) release() {
	if b.buf.Cap() <= maxPooledBuf {
		b.buf.Reset()
		bufPool.Put(b.buf)
	}
	parserPool.Put(b.p)
	b.buf, b.p, b.v = nil, nil, nil
	b.s.budget.release(b.held)
	if b.read > 0 && b.s.bodyHook != nil {
		b.s.bodyHook(-b.read)
	}
	b.held, b.read = 0, 0
}

// isJSON reports whether a Content-Type is JSON: application/json or
// application/*+json, with any parameters.
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")
}

// readBody checks the Content-Type of a POST, takes the body's bytes from
// the budget (admit) and reads and parses the body, at most s.o.MaxBody
// bytes. When it fails it has answered the request, and the caller
// returns; else the caller releases the body when done with it and with
// what it derived from it: defer b.release().
//
// A body over MaxBody by its Content-Length, or not admitted to the
// budget, is refused without being read (refuse).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (*body, bool) {
	if !isJSON(r.Header.Get("Content-Type")) {
		s.fail(w, r, errorf(http.StatusUnsupportedMediaType, CodeUnsupportedMediaType, "want Content-Type: application/json, not %q", r.Header.Get("Content-Type")))
		return nil, false
	}
	if r.ContentLength > s.o.MaxBody {
		s.refuse(w, r, s.tooLarge())
		return nil, false
	}
	need := r.ContentLength
	if need < 0 { // chunked: as much as it may be, trimmed once read
		need = s.o.MaxBody
	}
	need = s.budget.clamp(need)
	if aerr := s.admit(r, need); aerr != nil {
		if aerr.Code == CodeOverloaded {
			s.refuse(w, r, aerr)
		} else {
			s.fail(w, r, aerr)
		}
		return nil, false
	}
	buf := bufPool.Get().(*bytes.Buffer)
	if n := r.ContentLength; n > 0 {
		buf.Grow(int(n) + 1) // one more, so ReadFrom sees EOF without growing
	}
	b := &body{buf: buf, p: parserPool.Get(), s: s, held: need}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, s.o.MaxBody))
	if n := int64(buf.Len()); err == nil && n < b.held { // chunked: hold what came, not MaxBody
		s.budget.release(b.held - n)
		b.held = n
	}
	if s.bodyHook != nil {
		b.read = int64(buf.Len())
		s.bodyHook(b.read)
	}
	if err != nil {
		b.release()
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			s.refuse(w, r, s.tooLarge())
		case r.Context().Err() != nil:
			s.fail(w, r, errorf(statusClientClosed, CodeCanceled, "the request was canceled"))
		default:
			s.fail(w, r, errorf(http.StatusBadRequest, CodeBadJSON, "reading the body: %v", err))
		}
		return nil, false
	}
	if aerr := checkJSON(buf.Bytes()); aerr != nil {
		b.release()
		s.fail(w, r, aerr)
		return nil, false
	}
	if b.v, err = b.p.ParseBytes(buf.Bytes()); err != nil {
		// encoding/json accepted it: a disagreement between the parsers.
		b.release()
		s.fail(w, r, errorf(http.StatusBadRequest, CodeBadJSON, "malformed JSON: %v", err))
		return nil, false
	}
	return b, true
}

// admit takes n bytes of the budget for a request's body, waiting up to
// s.admitWait for them: nil, or 503 overloaded when they did not come in
// time, or 499 canceled when the client left meanwhile.
func (s *Server) admit(r *http.Request, n int64) *apiError {
	if n <= 0 {
		return nil
	}
	if s.budget.tryAcquire(n) {
		return nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.admitWait)
	defer cancel()
	err := s.budget.acquire(ctx, n)
	switch {
	case err == nil:
		s.m.waits.WithLabelValues(waitAdmitted).Inc()
		return nil
	case r.Context().Err() != nil:
		s.m.waits.WithLabelValues(waitCanceled).Inc()
		return errorf(statusClientClosed, CodeCanceled, "the request was canceled")
	}
	s.m.waits.WithLabelValues(waitOverloaded).Inc()
	return errorf(http.StatusServiceUnavailable, CodeOverloaded,
		"the server is busy: the request bodies being served fill its budget of %d bytes, and this body's %d bytes found no room in %v; retry later",
		s.budget.size, n, s.admitWait)
}

func (s *Server) tooLarge() *apiError {
	return errorf(http.StatusRequestEntityTooLarge, CodeBodyTooLarge, "the body is over the limit of %d bytes (send fewer or shorter documents)", s.o.MaxBody)
}

// checkJSON refuses what is not one valid JSON value in UTF-8.
func checkJSON(b []byte) *apiError {
	if len(bytes.TrimSpace(b)) == 0 {
		return errorf(http.StatusBadRequest, CodeBadJSON, "empty body: want a JSON object")
	}
	if !utf8.Valid(b) {
		return errorf(http.StatusBadRequest, CodeBadJSON, "the body is not valid UTF-8")
	}
	if json.Valid(b) {
		if bytes.Contains(b, []byte(`\u`)) && !surrogatesPaired(b) {
			return errorf(http.StatusBadRequest, CodeBadJSON, "malformed JSON: a \\u escape of half a UTF-16 surrogate pair")
		}
		return nil
	}
	// Slow path: let the decoder say what and where.
	err := json.Unmarshal(b, new(json.RawMessage))
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return errorf(http.StatusBadRequest, CodeBadJSON, "malformed JSON at byte %d: %v", se.Offset, err)
	}
	if err == nil {
		err = errors.New("invalid JSON")
	}
	return errorf(http.StatusBadRequest, CodeBadJSON, "malformed JSON: %v", err)
}

// members calls fn for each member of v, which must be an object; where
// names v in messages ("the body", "documents[3]"). Names outside known and
// repeated names are errors; a member whose value is null is left out, as
// if absent.
func members(v *fastjson.Value, where string, known []string, fn func(name string, v *fastjson.Value) *apiError) *apiError {
	o, err := v.Object()
	if err != nil {
		return errorf(http.StatusBadRequest, CodeBadJSON, "%s: want a JSON object, not %s", where, v.Type())
	}
	var seen uint64 // bit i: known[i] seen
	var aerr *apiError
	o.Visit(func(key []byte, v *fastjson.Value) {
		if aerr != nil {
			return
		}
		i := 0
		for i < len(known) && known[i] != string(key) {
			i++
		}
		switch {
		case i == len(known):
			aerr = errorf(http.StatusBadRequest, CodeUnknownField, "%s: unknown field %q (known: %s)", where, key, strings.Join(known, ", "))
		case seen&(1<<i) != 0:
			aerr = errorf(http.StatusBadRequest, CodeBadJSON, "%s: field %q given twice", where, key)
		case v.Type() != fastjson.TypeNull:
			seen |= 1 << i
			aerr = fn(known[i], v)
		default:
			seen |= 1 << i
		}
	})
	return aerr
}

// str returns the string value of member name of where.
func str(v *fastjson.Value, where, name string) (string, *apiError) {
	b, err := v.StringBytes()
	if err != nil {
		return "", errorf(http.StatusBadRequest, CodeBadJSON, "%s: %q must be a string, not %s", where, name, v.Type())
	}
	return string(b), nil
}

// MaxIDBytes bounds the length of the id of a document added: escaped in
// a path, a longer one could exceed the limits of request lines.
const MaxIDBytes = 4096

// docFields are the members of a document.
var docFields = []string{"id", "text"}

// document reads {"id", "text"}; a missing or empty id or text is an
// error of its own code.
func document(v *fastjson.Value, where string) (id string, text []byte, aerr *apiError) {
	aerr = members(v, where, docFields, func(name string, v *fastjson.Value) *apiError {
		s, aerr := str(v, where, name)
		if name == "id" {
			id = s
		} else {
			text = []byte(s)
		}
		return aerr
	})
	switch {
	case aerr != nil:
	case id == "":
		aerr = errorf(http.StatusBadRequest, CodeMissingID, "%s: no \"id\" (a non-empty string)", where)
	case len(id) > MaxIDBytes:
		aerr = errorf(http.StatusBadRequest, CodeIDTooLong, "%s: an id of %d bytes; at most %d", where, len(id), MaxIDBytes)
	case len(text) == 0:
		aerr = errorf(http.StatusBadRequest, CodeMissingText, "%s: no \"text\" (a non-empty string)", where)
	}
	return id, text, aerr
}

// threshold checks a requested threshold: a number in (0, 1]. One below
// the index's is for the index to refuse (threshold_too_low).
func threshold(t float64, src string) *apiError {
	if !rule.Threshold(t) {
		return errorf(http.StatusBadRequest, CodeBadParameter, "threshold %s: want %s", src, rule.ThresholdWant)
	}
	return nil
}

func limitError(src string) *apiError {
	return errorf(http.StatusBadRequest, CodeBadParameter, "limit %s: want a whole number, 0 (no limit) or more", src)
}

// jsonThreshold and jsonLimit read the numeric members of a query.
func jsonThreshold(v *fastjson.Value) (float64, *apiError) {
	t, err := v.Float64()
	if err != nil || !rule.Threshold(t) {
		return 0, threshold(math.NaN(), string(v.MarshalTo(nil)))
	}
	return t, nil
}

func jsonLimit(v *fastjson.Value) (int, *apiError) {
	n, err := v.Int()
	if err != nil || n < 0 {
		return 0, limitError(string(v.MarshalTo(nil)))
	}
	return n, nil
}

// params are the query parameters of a request.
type params url.Values

// queryParams parses the query string, refusing malformed ones and
// parameters outside allowed or given twice.
func queryParams(r *http.Request, allowed ...string) (params, *apiError) {
	if r.URL.RawQuery == "" {
		return nil, nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, CodeBadParameter, "malformed query string: %v", err)
	}
	for k, vs := range q {
		known := false
		for _, a := range allowed {
			known = known || a == k
		}
		switch {
		case !known && len(allowed) == 0:
			return nil, errorf(http.StatusBadRequest, CodeBadParameter, "unknown query parameter %q (this route takes none)", k)
		case !known:
			return nil, errorf(http.StatusBadRequest, CodeBadParameter, "unknown query parameter %q (known: %s)", k, strings.Join(allowed, ", "))
		case len(vs) > 1:
			return nil, errorf(http.StatusBadRequest, CodeBadParameter, "query parameter %q given %d times", k, len(vs))
		}
	}
	return params(q), nil
}

func (p params) get(name string) (string, bool) {
	vs, ok := p[name]
	if !ok {
		return "", false
	}
	return vs[0], true
}

// boolean reads true/false (also 1/0, t/f); absent is false.
func (p params) boolean(name string) (bool, *apiError) {
	s, ok := p.get(name)
	if !ok {
		return false, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, errorf(http.StatusBadRequest, CodeBadParameter, "%s %q: want true or false", name, s)
	}
	return b, nil
}

// limit reads a limit; absent is 0 (no limit).
func (p params) limit() (int, *apiError) {
	s, ok := p.get("limit")
	if !ok {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, limitError(strconv.Quote(s))
	}
	return n, nil
}

// threshold reads a threshold; absent is 0 (the index's).
func (p params) threshold() (float64, *apiError) {
	s, ok := p.get("threshold")
	if !ok {
		return 0, nil
	}
	t, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, errorf(http.StatusBadRequest, CodeBadParameter, "threshold %q: want %s", s, rule.ThresholdWant)
	}
	return t, threshold(t, strconv.Quote(s))
}

// surrogatesPaired reports whether every \u escape of a UTF-16 surrogate
// in b, valid JSON, is half of a pair. encoding/json reads a lone one as
// U+FFFD and fastjson keeps its six characters: the text would depend on
// the parser, so it is refused.
func surrogatesPaired(b []byte) bool {
	want := -1 // where the low half of a high surrogate must start
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if want >= 0 && i != want {
			return false // a high surrogate not followed by an escape
		}
		if b[i+1] != 'u' { // valid JSON: an escape has a next byte
			if want >= 0 {
				return false
			}
			i++
			continue
		}
		r, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
		if err != nil {
			return false
		}
		isHigh, isLow := r >= 0xD800 && r < 0xDC00, r >= 0xDC00 && r < 0xE000
		if (want >= 0) != isLow {
			return false // a high one not followed by a low one, or a low one alone
		}
		want = -1
		if isHigh {
			want = i + 6
		}
		i += 5
	}
	return want < 0
}
