package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
)

// Error codes: the "code" of an error answer, {"error": {"code", "message"}}.
// They are stable: clients branch on them (the message is for people and
// may change). Each goes with one HTTP status.
const (
	// CodeBadJSON (400): the body is not one JSON value of the expected
	// shape: a syntax error, invalid UTF-8, data after the value, an empty
	// body, a field of the wrong type, a field given twice.
	CodeBadJSON = "bad_json"
	// CodeUnknownField (400): the body has a field the request does not
	// define (a misspelt "threshold" would otherwise be ignored silently).
	CodeUnknownField = "unknown_field"
	// CodeMissingID (400): a document without an id, or with "".
	CodeMissingID = "missing_id"
	// CodeIDTooLong (400): an id of more than MaxIDBytes bytes, which
	// could not be addressed in a path.
	CodeIDTooLong = "id_too_long"
	// CodeMissingText (400): a document or query without a text, or with "".
	CodeMissingText = "missing_text"
	// CodeMissingDocuments (400): a batch body without "documents".
	CodeMissingDocuments = "missing_documents"
	// CodeBadParameter (400): a malformed or out-of-range query parameter
	// or numeric field (limit, threshold, replace, if_unique), an unknown
	// or repeated query parameter.
	CodeBadParameter = "bad_parameter"
	// CodeThresholdTooLow (400): a threshold below the index's, which the
	// index's LSH bands were not built to find; the message says the
	// index's threshold.
	CodeThresholdTooLow = "threshold_too_low"
	// CodeUnauthorized (401): the bearer token is missing or wrong; the
	// answer has a WWW-Authenticate: Bearer header.
	CodeUnauthorized = "unauthorized"
	// CodeNotFound (404): no document has the id.
	CodeNotFound = "not_found"
	// CodeNoRoute (404): no route has the path (or the path is not in
	// canonical form: an id "." or ".." must be escaped as %2E).
	CodeNoRoute = "no_route"
	// CodeMethodNotAllowed (405): the path exists with other methods,
	// listed in the Allow header.
	CodeMethodNotAllowed = "method_not_allowed"
	// CodeIDExists (409): a document with the id is in the index and the
	// request did not ask to replace it.
	CodeIDExists = "id_exists"
	// CodeBodyTooLarge (413): the body is over Options.MaxBody bytes.
	CodeBodyTooLarge = "body_too_large"
	// CodeBatchTooLarge (413): a batch of more than Options.MaxBatch
	// documents.
	CodeBatchTooLarge = "batch_too_large"
	// CodeUnsupportedMediaType (415): a POST whose Content-Type is not
	// JSON (application/json or application/*+json).
	CodeUnsupportedMediaType = "unsupported_media_type"
	// CodeNoShingles (422): the text has no shingles (too short for the
	// index's shingle length, or only punctuation), so it can be nobody's
	// near-duplicate; it is not indexed.
	CodeNoShingles = "no_shingles"
	// CodeCanceled (499): the client closed the request before the answer;
	// nobody receives it, but it is counted in the metrics under 499.
	CodeCanceled = "canceled"
	// CodeInternal (500): a fault of the server or its store; the message
	// tells nothing of the cause, which is logged.
	CodeInternal = "internal"
	// CodeCorrupt (500): a record or file of the index failed its
	// checksum or could not be decoded; this request failed, the server
	// goes on serving the rest. The index needs `neardup index check` and
	// perhaps `neardup index repair`; the cause is logged.
	CodeCorrupt = "corrupt"
	// CodeUnavailable (503, with Retry-After): the index or its store
	// does not answer (a shared store's server stopped or paused), is
	// closed, or lost too many transaction races; or the server is
	// shutting down (/readyz). Retrying later may work.
	CodeUnavailable = "unavailable"
	// CodeOverloaded (503, with Retry-After): the request bodies in
	// flight already fill the server's memory budget for them and this
	// one could not be admitted in time. Retrying later may work.
	CodeOverloaded = "overloaded"
	// CodeNoSpace (507, with Retry-After): the index's disk is full (or
	// below the free space the store keeps in reserve): writes are
	// refused and change nothing, reads go on. Writes are taken again
	// once space is freed.
	CodeNoSpace = "no_space"
)

// Codes lists every error code, for documentation checks.
var Codes = []string{
	CodeBadJSON, CodeUnknownField, CodeMissingID, CodeIDTooLong, CodeMissingText, CodeMissingDocuments, CodeBadParameter,
	CodeThresholdTooLow, CodeUnauthorized, CodeNotFound, CodeNoRoute, CodeMethodNotAllowed, CodeIDExists,
	CodeBodyTooLarge, CodeBatchTooLarge, CodeUnsupportedMediaType, CodeNoShingles, CodeCanceled, CodeInternal,
	CodeCorrupt, CodeUnavailable, CodeOverloaded, CodeNoSpace,
}

// statusClientClosed is the status recorded for a request whose client
// went away (nginx's convention); it never reaches anyone.
const statusClientClosed = 499

// apiError is an error answer.
type apiError struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	cause   error  // logged for internal errors, never sent
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func errorf(status int, code, format string, a ...any) *apiError {
	return &apiError{Status: status, Code: code, Message: fmt.Sprintf(format, a...)}
}

// errorBody is the JSON of an error answer.
type errorBody struct {
	Error *apiError `json:"error"`
}

// indexError maps an error of package index to an answer. ctx is the
// request's: an error after the client went away is CodeCanceled.
func (s *Server) indexError(ctx context.Context, err error) *apiError {
	switch {
	case errors.Is(err, index.ErrNotFound):
		return errorf(http.StatusNotFound, CodeNotFound, "no document has that id")
	case errors.Is(err, index.ErrExists):
		return errorf(http.StatusConflict, CodeIDExists, "a document with that id is in the index (ask for replace=true to replace it)")
	case errors.Is(err, index.ErrNoShingles):
		return s.noShingles()
	case errors.Is(err, index.ErrThreshold):
		return s.thresholdTooLow()
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		return errorf(statusClientClosed, CodeCanceled, "the request was canceled")
	case errors.Is(err, index.ErrClosed):
		return &apiError{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: "the index is closed (the server is shutting down)", cause: err}
	case errors.Is(err, index.ErrConflict):
		return &apiError{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: "too many concurrent writers; retry", cause: err}
	case errors.Is(err, index.ErrUnavailable):
		return &apiError{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: "the index's store does not answer; retry later", cause: err}
	case errors.Is(err, index.ErrNoSpace) && s.storeFailed() != nil:
		return &apiError{Status: http.StatusInsufficientStorage, Code: CodeNoSpace, Message: "the index's disk filled while its write-ahead log was written: it takes no writes until the server restarts (reads work; nothing acknowledged was lost)", cause: err}
	case errors.Is(err, index.ErrNoSpace):
		return &apiError{Status: http.StatusInsufficientStorage, Code: CodeNoSpace, Message: "the index's disk is full: writes are refused until space is freed (reads work)", cause: err}
	case errors.Is(err, index.ErrUnavailable) && s.storeFailed() != nil:
		return &apiError{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: "the index's store failed writing: it takes no writes until the server restarts (reads work)", cause: err}
	case errors.Is(err, neardup.ErrCorrupt):
		return &apiError{Status: http.StatusInternalServerError, Code: CodeCorrupt, Message: "a record of the index is corrupt (run neardup index check); the cause is logged", cause: err}
	}
	return &apiError{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "internal error", cause: err}
}

// storeFailed returns why the index's store takes no writes until it is
// reopened (the embedded store after its write-ahead log could not be
// written), or nil.
func (s *Server) storeFailed() error {
	if f, ok := s.ix.Store().(interface{ Failed() error }); ok {
		return f.Failed()
	}
	return nil
}

func (s *Server) noShingles() *apiError {
	p := s.ix.Params()
	return errorf(http.StatusUnprocessableEntity, CodeNoShingles,
		"the text has no shingles (%s %d-grams): too short or no words, so it can be nobody's near-duplicate; it is not indexed",
		p.Shingle.Mode, p.Shingle.N)
}

func (s *Server) thresholdTooLow() *apiError {
	t := s.ix.Params().Threshold
	return errorf(http.StatusBadRequest, CodeThresholdTooLow,
		"threshold below the index's %v: the index's LSH bands and rows were chosen to find pairs at %v and would miss many pairs below it; ask for %v or more, or build an index with a lower threshold",
		t, t, t)
}
