// Package client is a Go client of the neardup HTTP service (package
// server, `neardup serve`). It depends on nothing but the standard library
// (and the module's internal list of the errors it shares with package
// index): no index, no Pebble.
//
// Who uses it from outside: any Go program that talks to a running
// `neardup serve` (the project's own tests and load generator do).
//
// Every method takes a context, which bounds the request; errors from the
// service are *Error values, which errors.Is matches against the sentinel
// errors of this package:
//
//	res, err := c.Add(ctx, "ad-1", text, client.AddOptions{})
//	if errors.Is(err, client.ErrExists) { ... }
//
// A Client is safe for concurrent use.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/neardup/neardup/internal/sentinel"
)

// Options configure a Client.
type Options struct {
	// Token is the bearer token sent with every request; "" sends none.
	Token string
	// HTTP is the client that sends requests; nil means one with a 60 s
	// timeout per request.
	HTTP *http.Client
}

// Client talks to one neardup service.
type Client struct {
	base  string // scheme://host[:port][/prefix], no trailing slash
	token string
	hc    *http.Client
}

// New returns a client of the service at baseURL (such as
// "http://127.0.0.1:8080"; a path prefix is kept). It fails if baseURL is
// not an absolute http or https URL.
func New(baseURL string, o Options) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("client: base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: base URL %q: want http://HOST[:PORT] or https://HOST[:PORT]", baseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("client: base URL %q: want no query or fragment", baseURL)
	}
	hc := o.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	u.Path, u.RawPath = strings.TrimSuffix(u.Path, "/"), strings.TrimSuffix(u.RawPath, "/")
	return &Client{base: u.String(), token: o.Token, hc: hc}, nil
}

// Match is an indexed document that is a near-duplicate of a text.
type Match struct {
	ID      string  `json:"id"`
	Jaccard float64 `json:"jaccard"` // exact Jaccard similarity of the shingle sets
}

// AddOptions say how Add treats an existing id and found duplicates.
type AddOptions struct {
	Replace  bool // an existing document with the id is replaced (else ErrExists)
	IfUnique bool // the document is inserted only if it has no near-duplicate
	Limit    int  // most duplicates listed; 0: all
}

// AddResult is what an add did.
type AddResult struct {
	ID         string  `json:"id"`
	Added      bool    `json:"added"`    // false only with IfUnique and duplicates found
	Replaced   bool    `json:"replaced"` // a document with the id was replaced
	Seq        uint64  `json:"seq"`      // the new document's sequence number, when added
	Duplicates []Match `json:"duplicates"`
	// Status is the HTTP status: 201 inserted, 200 replaced or not
	// inserted.
	Status int `json:"status"`
}

// Document is a document to add.
type Document struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// BatchResult is one document's result in AddBatch: its AddResult, or
// Err (an *Error: ErrExists, ErrNoShingles, ErrMissingID, ...).
type BatchResult struct {
	AddResult
	Err error
}

// QueryOptions narrow a search.
type QueryOptions struct {
	// Threshold is the least Jaccard reported; 0 means the index's. One
	// below the index's is ErrThresholdTooLow.
	Threshold float64
	// Limit bounds the matches returned (the most similar); 0: all.
	Limit int
}

// DocumentInfo is an indexed document.
type DocumentInfo struct {
	ID    string
	Seq   uint64
	Added time.Time
	// Text is the text when the index keeps texts (HasText), else "".
	Text    string
	HasText bool
}

func (o AddOptions) query() string {
	q := url.Values{}
	if o.Replace {
		q.Set("replace", "true")
	}
	if o.IfUnique {
		q.Set("if_unique", "true")
	}
	if o.Limit != 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	return q.Encode()
}

// Add checks text against the index and inserts it as document id, in one
// atomic step; the result lists the near-duplicates that were in the index
// before it, most similar first. An existing id is ErrExists unless
// o.Replace; a text without shingles is ErrNoShingles.
func (c *Client) Add(ctx context.Context, id, text string, o AddOptions) (AddResult, error) {
	var res AddResult
	status, err := c.do(ctx, http.MethodPost, "/v1/documents", o.query(), Document{id, text}, &res)
	res.Status = status
	return res, err
}

// AddBatch adds the documents in order, each as Add would, in one
// transaction (a later document sees the earlier ones). A document's own
// failure is its result's Err; the error returned is the request's (such
// as ErrBatchTooLarge or ErrBodyTooLarge), after which nothing was added.
func (c *Client) AddBatch(ctx context.Context, docs []Document, o AddOptions) ([]BatchResult, error) {
	if docs == nil {
		docs = []Document{}
	}
	var out struct {
		Results []struct {
			AddResult
			Error *Error `json:"error"`
		} `json:"results"`
	}
	if _, err := c.do(ctx, http.MethodPost, "/v1/documents:batch", o.query(), struct {
		Documents []Document `json:"documents"`
	}{docs}, &out); err != nil {
		return nil, err
	}
	if len(out.Results) != len(docs) {
		return nil, fmt.Errorf("client: %d results for %d documents", len(out.Results), len(docs))
	}
	res := make([]BatchResult, len(out.Results))
	for i, r := range out.Results {
		res[i].AddResult = r.AddResult
		if r.Error != nil {
			r.Error.Status = r.Status
			res[i].Err = r.Error
		}
	}
	return res, nil
}

// Query returns the indexed documents that are near-duplicates of text,
// most similar first; nothing is inserted.
func (c *Client) Query(ctx context.Context, text string, o QueryOptions) ([]Match, error) {
	req := struct {
		Text      string  `json:"text"`
		Threshold float64 `json:"threshold,omitempty"`
		Limit     int     `json:"limit,omitempty"`
	}{text, o.Threshold, o.Limit}
	var out struct {
		Duplicates []Match `json:"duplicates"`
	}
	_, err := c.do(ctx, http.MethodPost, "/v1/query", "", req, &out)
	return out.Duplicates, err
}

// Get returns the document with the id, or ErrNotFound.
func (c *Client) Get(ctx context.Context, id string) (DocumentInfo, error) {
	var out struct {
		ID    string  `json:"id"`
		Seq   uint64  `json:"seq"`
		Added string  `json:"added"`
		Text  *string `json:"text"`
	}
	if _, err := c.do(ctx, http.MethodGet, DocumentPath(id), "", nil, &out); err != nil {
		return DocumentInfo{}, err
	}
	d := DocumentInfo{ID: out.ID, Seq: out.Seq}
	if out.Text != nil {
		d.Text, d.HasText = *out.Text, true
	}
	var err error
	if d.Added, err = time.Parse(time.RFC3339Nano, out.Added); err != nil {
		return d, fmt.Errorf("client: document %q: added %q: %w", id, out.Added, err)
	}
	return d, nil
}

// Duplicates returns the other indexed documents that are near-duplicates
// of the document with the id (ErrNotFound if there is none).
func (c *Client) Duplicates(ctx context.Context, id string, o QueryOptions) ([]Match, error) {
	q := url.Values{}
	if o.Threshold != 0 {
		q.Set("threshold", strconv.FormatFloat(o.Threshold, 'g', -1, 64))
	}
	if o.Limit != 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	var out struct {
		Duplicates []Match `json:"duplicates"`
	}
	_, err := c.do(ctx, http.MethodGet, DocumentPath(id)+"/duplicates", q.Encode(), nil, &out)
	return out.Duplicates, err
}

// Remove deletes the document with the id (ErrNotFound if there is none).
func (c *Client) Remove(ctx context.Context, id string) error {
	_, err := c.do(ctx, http.MethodDelete, DocumentPath(id), "", nil, nil)
	return err
}

// Health returns nil while the service answers /healthz.
func (c *Client) Health(ctx context.Context) error {
	_, err := c.do(ctx, http.MethodGet, "/healthz", "", nil, nil)
	return err
}

// Ready returns nil when the service is ready (its index answers), else
// an error (ErrUnavailable while it starts, fails or shuts down).
func (c *Client) Ready(ctx context.Context) error {
	_, err := c.do(ctx, http.MethodGet, "/readyz", "", nil, nil)
	return err
}

// DocumentPath returns the path of the document with the id: the id
// escaped as one path segment, "." and ".." as %2E and %2E%2E (which would
// otherwise be resolved as path steps).
func DocumentPath(id string) string {
	if id == "." || id == ".." {
		return "/v1/documents/" + strings.Repeat("%2E", len(id))
	}
	return "/v1/documents/" + url.PathEscape(id)
}

// maxErrorBody bounds what is read of an error answer.
const maxErrorBody = 64 << 10

// do sends a request to path (escaped) with the query and, if in is not
// nil, in as its JSON body; it decodes a 2xx answer into out (if not nil)
// and returns any other as an *Error.
func (c *Client) do(ctx context.Context, method, path, query string, in, out any) (int, error) {
	u := c.base + path
	if query != "" {
		u += "?" + query
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, fmt.Errorf("client: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return 0, fmt.Errorf("client: %w", err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("client: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, errorOf(resp)
	}
	if out == nil {
		io.Copy(io.Discard, resp.Body) // so the connection is reused
		return resp.StatusCode, nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return resp.StatusCode, fmt.Errorf("client: %s %s: decoding the answer: %w", method, path, err)
	}
	return resp.StatusCode, nil
}

// errorOf reads an error answer: {"error": {"code", "message"}}, or, from
// something other than the service (a proxy), the start of its text.
func errorOf(resp *http.Response) error {
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := &Error{Status: resp.StatusCode}
	var body struct {
		Error *Error `json:"error"`
	}
	if err == nil && json.Unmarshal(b, &body) == nil && body.Error != nil && body.Error.Code != "" {
		e.Code, e.Message = body.Error.Code, body.Error.Message
		return e
	}
	e.Message = strings.TrimSpace(string(b))
	if len(e.Message) > 200 {
		e.Message = e.Message[:200] + "..."
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}

// Error is an error answer of the service.
type Error struct {
	Status  int    `json:"-"`       // HTTP status
	Code    string `json:"code"`    // stable code, such as "not_found"; "" if the answer was not the service's
	Message string `json:"message"` // for people
}

// Error formats e as "neardup service: CODE (STATUS): MESSAGE", or
// "neardup service: STATUS: MESSAGE" for an answer without a code.
func (e *Error) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("neardup service: %d: %s", e.Status, e.Message)
	}
	return fmt.Sprintf("neardup service: %s (%d): %s", e.Code, e.Status, e.Message)
}

// Sentinel errors, matched by errors.Is against an *Error with their code.
// Those of a condition package index has a sentinel for are that sentinel
// (ErrNotFound is index.ErrNotFound, ErrThresholdTooLow index.ErrThreshold,
// ErrCorrupt neardup.ErrCorrupt, ...), so that one test serves a program
// that uses an index in process or through the service.
var (
	ErrBadRequest      = errors.New("client: bad request")         // any 400
	ErrMissingID       = errors.New("client: missing id")          // missing_id
	ErrMissingText     = errors.New("client: missing text")        // missing_text
	ErrThresholdTooLow = sentinel.Threshold                        // threshold_too_low: index.ErrThreshold
	ErrUnauthorized    = errors.New("client: unauthorized")        // unauthorized
	ErrNotFound        = sentinel.NotFound                         // not_found: no document has the id; index.ErrNotFound
	ErrExists          = sentinel.Exists                           // id_exists: index.ErrExists
	ErrBodyTooLarge    = errors.New("client: body too large")      // body_too_large
	ErrBatchTooLarge   = errors.New("client: batch too large")     // batch_too_large
	ErrNoShingles      = sentinel.NoShingles                       // no_shingles: index.ErrNoShingles
	ErrUnavailable     = errors.New("client: service unavailable") // unavailable, or any 503
	ErrOverloaded      = errors.New("client: service overloaded")  // overloaded (a 503: ErrUnavailable too)
	ErrNoSpace         = sentinel.NoSpace                          // no_space, or any 507: the index's disk is full; reads work; index.ErrNoSpace
	ErrCorrupt         = sentinel.Corrupt                          // corrupt (a 500: ErrInternal too): neardup.ErrCorrupt
	ErrInternal        = errors.New("client: internal error")      // internal, or any 500
)

// codes maps codes to their sentinel.
var codes = map[string]error{
	"missing_id":        ErrMissingID,
	"missing_text":      ErrMissingText,
	"threshold_too_low": ErrThresholdTooLow,
	"unauthorized":      ErrUnauthorized,
	"not_found":         ErrNotFound,
	"id_exists":         ErrExists,
	"body_too_large":    ErrBodyTooLarge,
	"batch_too_large":   ErrBatchTooLarge,
	"no_shingles":       ErrNoShingles,
	"unavailable":       ErrUnavailable,
	"overloaded":        ErrOverloaded,
	"no_space":          ErrNoSpace,
	"corrupt":           ErrCorrupt,
	"internal":          ErrInternal,
}

// Is reports whether target is the sentinel of e's code, or of its status
// class (ErrBadRequest for a 400, ErrUnavailable for a 503, ErrInternal
// for a 500).
func (e *Error) Is(target error) bool {
	if s, ok := codes[e.Code]; ok && s == target {
		return true
	}
	switch target {
	case ErrBadRequest:
		return e.Status == http.StatusBadRequest
	case ErrUnavailable:
		return e.Status == http.StatusServiceUnavailable
	case ErrInternal:
		return e.Status == http.StatusInternalServerError
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized
	case ErrNoSpace:
		return e.Status == http.StatusInsufficientStorage
	}
	return false
}
