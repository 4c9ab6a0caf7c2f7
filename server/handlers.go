package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/neardup/neardup/index"
)

// match is a near-duplicate in an answer.
type match struct {
	ID      string  `json:"id"`
	Jaccard float64 `json:"jaccard"`
}

// matches converts index matches; never nil, so that JSON shows [].
func matches(ms []index.Match) []match {
	out := make([]match, len(ms))
	for i, m := range ms {
		out[i] = match{ID: m.ID, Jaccard: m.Jaccard}
	}
	return out
}

// addResult is the answer to POST /v1/documents and, with Status or
// Error, an item of a batch answer. Duplicates is nil only in a failed
// batch item.
type addResult struct {
	ID         string    `json:"id"`
	Status     int       `json:"status,omitempty"`
	Added      bool      `json:"added"`
	Replaced   bool      `json:"replaced"`
	Seq        uint64    `json:"seq,omitempty"`
	Duplicates []match   `json:"duplicates,omitzero"`
	Error      *apiError `json:"error,omitempty"`
}

// status is the HTTP status of an add that went through: 201 for a new
// document, 200 for a replaced one or one not added (if_unique).
func (r *addResult) status() int {
	if r.Added && !r.Replaced {
		return http.StatusCreated
	}
	return http.StatusOK
}

func addResultOf(id string, res index.AddResult) addResult {
	return addResult{ID: id, Added: res.Added, Replaced: res.Replaced, Seq: res.Seq, Duplicates: matches(res.Duplicates)}
}

// writeJSON sends v as the answer with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil { // not for the types of this package
		status, b = http.StatusInternalServerError, []byte(`{"error":{"code":"internal","message":"internal error"}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(b)+1)) // complete when flushed before the handler returns (refuse)
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// fail sends an error answer, logging the cause of a server fault.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, e *apiError) {
	if e.cause != nil {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.EscapedPath(), "status", e.Status, "err", e.cause)
	}
	switch e.Status {
	case http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", "1")
	case http.StatusInsufficientStorage:
		w.Header().Set("Retry-After", "10")
	}
	writeJSON(w, e.Status, errorBody{e})
}

// lingerTime and lingerBytes bound what refuse reads and discards of a
// refused body after the answer.
const (
	lingerTime  = time.Second
	lingerBytes = 64 << 20
)

// refuse answers e to a request whose body it leaves unread (over MaxBody
// by its Content-Length, or not admitted to the budget), at once, and has
// the connection closed.
//
// Left to itself, net/http reads and discards an unread body of less than
// 256 KiB before it writes the answer, to keep the connection: a client
// that sends its body slowly, or waits for an answer before sending it,
// got none until the read timeout (30 s in neardup serve) closed the
// connection. With "Connection: close" it writes the answer at once, and
// refuse flushes it. Then, once wrap has counted the request, what the
// client still sends of its body is read and thrown away for up to
// lingerTime and lingerBytes before the connection is closed: closing a
// socket with unread data resets the connection, and a client still
// writing its body (one that reads the answer only once it has sent
// everything) would see the reset and not the answer. Nothing read is
// kept, and no budget is held meanwhile.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, e *apiError) {
	if r.ProtoMajor != 1 { // HTTP/2 refuses a stream, not a connection
		s.fail(w, r, e)
		return
	}
	rc := http.NewResponseController(w)
	rc.EnableFullDuplex() // reads of the body after the answer
	w.Header().Set("Connection", "close")
	s.fail(w, r, e)
	if rc.Flush() != nil {
		return
	}
	// A client that asked for 100 Continue sends nothing more, none went
	// out. The deadline also keeps net/http from waiting for the rest of
	// a body under 256 KiB once the handler returns.
	linger := r.ContentLength != 0 && !strings.EqualFold(r.Header.Get("Expect"), "100-continue")
	drain := func() {
		deadline := time.Now()
		if linger {
			deadline = deadline.Add(lingerTime)
		}
		if rc.SetReadDeadline(deadline) == nil && linger {
			io.CopyN(io.Discard, r.Body, lingerBytes)
		}
	}
	if sw, ok := w.(*statusWriter); ok {
		sw.after = drain // once the request is counted: it was answered now
		return
	}
	drain()
}

// DocumentPath returns the path of the document with the id,
// "/v1/documents/" and the id escaped as one path segment (an id "." or
// ".." as %2E, which ServeMux would otherwise resolve).
func DocumentPath(id string) string { return "/v1/documents/" + EscapeID(id) }

// EscapeID escapes an id as one path segment: url.PathEscape, and "." and
// ".." as "%2E" and "%2E%2E".
func EscapeID(id string) string {
	if id == "." || id == ".." {
		return strings.Repeat("%2E", len(id))
	}
	return url.PathEscape(id)
}

// addOptions reads the query parameters of the add routes.
func addOptions(r *http.Request) (index.AddOptions, *apiError) {
	var o index.AddOptions
	q, aerr := queryParams(r, "replace", "if_unique", "limit")
	if aerr != nil {
		return o, aerr
	}
	if o.Replace, aerr = q.boolean("replace"); aerr != nil {
		return o, aerr
	}
	if o.IfUnique, aerr = q.boolean("if_unique"); aerr != nil {
		return o, aerr
	}
	o.Limit, aerr = q.limit()
	return o, aerr
}

// add is POST /v1/documents: check and insert in one step.
func (s *Server) add(w http.ResponseWriter, r *http.Request) {
	o, aerr := addOptions(r)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	b, ok := s.readBody(w, r)
	if !ok {
		return
	}
	defer b.release() // at the end: the copies of the text live until then
	id, text, aerr := document(b.v, "the body")
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	start := time.Now()
	res, err := s.ix.Add(r.Context(), id, text, o)
	s.m.timeWrite("add", start)
	if err != nil {
		s.fail(w, r, s.indexError(r.Context(), err))
		return
	}
	out := addResultOf(id, res)
	if res.Added {
		w.Header().Set("Location", DocumentPath(id))
	}
	writeJSON(w, out.status(), out)
}

// batchFields are the members of a batch body.
var batchFields = []string{"documents"}

// addBatch is POST /v1/documents:batch: each document as add would do it,
// in order, in one transaction.
func (s *Server) addBatch(w http.ResponseWriter, r *http.Request) {
	o, aerr := addOptions(r)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	b, ok := s.readBody(w, r)
	if !ok {
		return
	}
	defer b.release()
	var docs []*fastjson.Value
	present := false
	aerr = members(b.v, "the body", batchFields, func(_ string, v *fastjson.Value) *apiError {
		var err error
		if docs, err = v.Array(); err != nil {
			return errorf(http.StatusBadRequest, CodeBadJSON, "the body: \"documents\" must be an array, not %s", v.Type())
		}
		present = true
		return nil
	})
	switch {
	case aerr != nil:
	case !present:
		aerr = errorf(http.StatusBadRequest, CodeMissingDocuments, "the body has no \"documents\" (an array of {\"id\", \"text\"})")
	case len(docs) > s.o.MaxBatch:
		aerr = errorf(http.StatusRequestEntityTooLarge, CodeBatchTooLarge, "%d documents: a batch holds at most %d", len(docs), s.o.MaxBatch)
	}
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	results := make([]addResult, len(docs))
	items := make([]index.AddItem, 0, len(docs))
	pos := make([]int, 0, len(docs)) // index in results of each item
	for i, d := range docs {
		id, text, aerr := document(d, "documents["+strconv.Itoa(i)+"]")
		if aerr != nil {
			if aerr.Code == CodeBadJSON || aerr.Code == CodeUnknownField {
				// Not a document at all: the request is malformed.
				s.fail(w, r, aerr)
				return
			}
			results[i] = addResult{ID: id, Status: aerr.Status, Error: aerr}
			continue
		}
		items = append(items, index.AddItem{ID: id, Text: text})
		pos = append(pos, i)
	}
	if len(items) > 0 {
		start := time.Now()
		rs, err := s.ix.AddBatch(r.Context(), items, o)
		s.m.timeWrite("add_batch", start)
		if err != nil {
			s.fail(w, r, s.indexError(r.Context(), err))
			return
		}
		for j, res := range rs {
			i := pos[j]
			if res.Err != nil {
				aerr := s.indexError(r.Context(), res.Err)
				if aerr.cause != nil {
					s.log.Error("batch item failed", "id", items[j].ID, "err", aerr.cause)
				}
				results[i] = addResult{ID: items[j].ID, Status: aerr.Status, Error: aerr}
				continue
			}
			results[i] = addResultOf(items[j].ID, res)
			results[i].Status = results[i].status()
		}
	}
	writeJSON(w, http.StatusOK, struct {
		Results []addResult `json:"results"`
	}{results})
}

// queryFields are the members of a query body.
var queryFields = []string{"text", "threshold", "limit"}

// query is POST /v1/query: the near-duplicates of a text, nothing
// inserted.
func (s *Server) query(w http.ResponseWriter, r *http.Request) {
	if _, aerr := queryParams(r); aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	b, ok := s.readBody(w, r)
	if !ok {
		return
	}
	defer b.release()
	var text []byte
	var q index.QueryOptions
	aerr := members(b.v, "the body", queryFields, func(name string, v *fastjson.Value) *apiError {
		switch name {
		case "text":
			var err error
			if text, err = v.StringBytes(); err != nil { // lives until b.release
				return errorf(http.StatusBadRequest, CodeBadJSON, "the body: \"text\" must be a string, not %s", v.Type())
			}
			return nil
		case "threshold":
			var aerr *apiError
			q.Threshold, aerr = jsonThreshold(v)
			return aerr
		default:
			var aerr *apiError
			q.Limit, aerr = jsonLimit(v)
			return aerr
		}
	})
	if aerr == nil && len(text) == 0 {
		aerr = errorf(http.StatusBadRequest, CodeMissingText, "the body: no \"text\" (a non-empty string)")
	}
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	ms, err := s.ix.Query(r.Context(), text, q)
	if err != nil {
		s.fail(w, r, s.indexError(r.Context(), err))
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Duplicates []match `json:"duplicates"`
	}{matches(ms)})
}

// docInfo is the answer to GET /v1/documents/{id}.
type docInfo struct {
	ID    string  `json:"id"`
	Seq   uint64  `json:"seq"`
	Added string  `json:"added"`
	Text  *string `json:"text,omitempty"`
}

// get is GET /v1/documents/{id}.
func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	if _, aerr := queryParams(r); aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	d, err := s.ix.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, s.indexError(r.Context(), err))
		return
	}
	out := docInfo{ID: d.ID, Seq: d.Seq, Added: time.Unix(0, d.Added).UTC().Format(time.RFC3339Nano)}
	if s.ix.Meta().KeepTexts {
		t := string(d.Text)
		out.Text = &t
	}
	writeJSON(w, http.StatusOK, out)
}

// duplicates is GET /v1/documents/{id}/duplicates.
func (s *Server) duplicates(w http.ResponseWriter, r *http.Request) {
	q, aerr := queryParams(r, "threshold", "limit")
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	var o index.QueryOptions
	if o.Threshold, aerr = q.threshold(); aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	if o.Limit, aerr = q.limit(); aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	id := r.PathValue("id")
	ms, err := s.ix.Duplicates(r.Context(), id, o)
	if err != nil {
		s.fail(w, r, s.indexError(r.Context(), err))
		return
	}
	writeJSON(w, http.StatusOK, struct {
		ID         string  `json:"id"`
		Duplicates []match `json:"duplicates"`
	}{id, matches(ms)})
}

// remove is DELETE /v1/documents/{id}.
func (s *Server) remove(w http.ResponseWriter, r *http.Request) {
	if _, aerr := queryParams(r); aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	start := time.Now()
	err := s.ix.Remove(r.Context(), r.PathValue("id"))
	s.m.timeWrite("remove", start)
	if err != nil {
		s.fail(w, r, s.indexError(r.Context(), err))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type statusBody struct {
	Status string `json:"status"`
}

// healthz answers while the process serves.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, statusBody{"ok"})
}

// readyTimeout bounds the read /readyz makes.
const readyTimeout = 2 * time.Second

// readyz answers 200 when the index answers a read through its store, 503
// when it does not or once BeginShutdown was called.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.stopping.Load() {
		s.fail(w, r, errorf(http.StatusServiceUnavailable, CodeUnavailable, "shutting down"))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if _, err := s.ix.Stats(ctx); err != nil {
		s.log.Warn("readyz: the index does not answer", "err", err)
		s.fail(w, r, errorf(http.StatusServiceUnavailable, CodeUnavailable, "the index does not answer"))
		return
	}
	// A store whose write path failed for good (the embedded store after
	// its write-ahead log could not be written) answers reads but takes no
	// writes until the server restarts: not ready, and it says why.
	if err := s.storeFailed(); err != nil {
		s.log.Warn("readyz: the index takes no writes until the server restarts", "err", err)
		s.fail(w, r, errorf(http.StatusServiceUnavailable, CodeUnavailable, "the index's store failed writing: it takes no writes until the server restarts (reads work)"))
		return
	}
	writeJSON(w, http.StatusOK, statusBody{"ok"})
}
