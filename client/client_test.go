package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

var ctx = context.Background()

// fake is a service that answers each request with the next canned
// answer and records what it was sent. (The real service is tested with
// this client in package server.)
type fake struct {
	mu      sync.Mutex
	reqs    []*http.Request
	bodies  []string
	answers []answer
}

type answer struct {
	status int
	ct     string
	body   string
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, r)
	f.bodies = append(f.bodies, string(b))
	a := answer{500, "text/plain", "no answer left"}
	if len(f.answers) > 0 {
		a, f.answers = f.answers[0], f.answers[1:]
	}
	if a.ct != "" {
		w.Header().Set("Content-Type", a.ct)
	}
	w.WriteHeader(a.status)
	io.WriteString(w, a.body)
}

func newFake(t *testing.T, prefix string, o Options, answers ...answer) (*fake, *Client) {
	t.Helper()
	f := &fake{answers: answers}
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	c, err := New(ts.URL+prefix, o)
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

func jsonAnswer(status int, body string) answer { return answer{status, "application/json", body} }

func TestNew(t *testing.T) {
	for _, u := range []string{"", "localhost:8080", "ftp://h", "http://", "http://h?x=1", "http://h#f", "://x"} {
		if _, err := New(u, Options{}); err == nil {
			t.Errorf("New(%q): no error", u)
		}
	}
	for _, u := range []string{"http://127.0.0.1:8080", "https://h/prefix/", "http://[::1]:1"} {
		if _, err := New(u, Options{}); err != nil {
			t.Errorf("New(%q): %v", u, err)
		}
	}
}

// Requests: method, escaped path under the base URL's prefix, query,
// headers and body.
func TestRequests(t *testing.T) {
	f, c := newFake(t, "/pre/", Options{Token: "tok"},
		jsonAnswer(201, `{"id":"a/b","added":true,"replaced":false,"seq":7,"duplicates":[{"id":"x","jaccard":0.75}]}`),
		jsonAnswer(200, `{"duplicates":[]}`),
		jsonAnswer(200, `{"id":"..","seq":3,"added":"2026-11-23T10:00:00.5Z","text":"hello"}`),
		jsonAnswer(200, `{"id":".","duplicates":[{"id":"y","jaccard":1}]}`),
		answer{204, "", ""},
		jsonAnswer(200, `{"results":[{"id":"a","status":201,"added":true,"replaced":false,"seq":1,"duplicates":[]},{"id":"b","status":409,"added":false,"replaced":false,"error":{"code":"id_exists","message":"m"}}]}`),
	)
	res, err := c.Add(ctx, "a/b", "some text", AddOptions{Replace: true, IfUnique: true, Limit: 3})
	if err != nil || res.Status != 201 || res.Seq != 7 || !res.Added || len(res.Duplicates) != 1 || res.Duplicates[0] != (Match{"x", 0.75}) {
		t.Fatalf("add: %+v, %v", res, err)
	}
	ms, err := c.Query(ctx, "q", QueryOptions{})
	if err != nil || ms == nil || len(ms) != 0 {
		t.Fatalf("query: %#v, %v", ms, err)
	}
	d, err := c.Get(ctx, "..")
	if err != nil || d.ID != ".." || d.Seq != 3 || d.Text != "hello" || !d.HasText || !d.Added.Equal(time.Date(2026, 11, 23, 10, 0, 0, 5e8, time.UTC)) {
		t.Fatalf("get: %+v, %v", d, err)
	}
	if ms, err = c.Duplicates(ctx, ".", QueryOptions{Threshold: 0.75, Limit: 2}); err != nil || len(ms) != 1 {
		t.Fatalf("duplicates: %+v, %v", ms, err)
	}
	if err := c.Remove(ctx, "100% sure"); err != nil {
		t.Fatal(err)
	}
	rs, err := c.AddBatch(ctx, []Document{{"a", "t"}, {"b", "t"}}, AddOptions{})
	if err != nil || len(rs) != 2 || rs[0].Err != nil || rs[0].Status != 201 || !errors.Is(rs[1].Err, ErrExists) || rs[1].Status != 409 {
		t.Fatalf("batch: %+v, %v", rs, err)
	}
	var ce *Error
	if !errors.As(rs[1].Err, &ce) || ce.Status != 409 {
		t.Errorf("batch item error %#v", rs[1].Err)
	}
	want := []struct{ method, uri, body string }{
		{"POST", "/pre/v1/documents?if_unique=true&limit=3&replace=true", `{"id":"a/b","text":"some text"}`},
		{"POST", "/pre/v1/query", `{"text":"q"}`},
		{"GET", "/pre/v1/documents/%2E%2E", ""},
		{"GET", "/pre/v1/documents/%2E/duplicates?limit=2&threshold=0.75", ""},
		{"DELETE", "/pre/v1/documents/100%25%20sure", ""},
		{"POST", "/pre/v1/documents:batch", `{"documents":[{"id":"a","text":"t"},{"id":"b","text":"t"}]}`},
	}
	if len(f.reqs) != len(want) {
		t.Fatalf("%d requests", len(f.reqs))
	}
	for i, w := range want {
		r := f.reqs[i]
		if r.Method != w.method || r.URL.RequestURI() != w.uri || f.bodies[i] != w.body {
			t.Errorf("request %d: %s %s %s, want %s %s %s", i, r.Method, r.URL.RequestURI(), f.bodies[i], w.method, w.uri, w.body)
		}
		if r.Header.Get("Authorization") != "Bearer tok" {
			t.Errorf("request %d: Authorization %q", i, r.Header.Get("Authorization"))
		}
		if ct := r.Header.Get("Content-Type"); (w.body != "") != (ct == "application/json") {
			t.Errorf("request %d: Content-Type %q", i, ct)
		}
	}
	if p := DocumentPath("a/b"); p != "/v1/documents/a%2Fb" {
		t.Errorf("path %q", p)
	}
}

// Error answers become *Error, matched by errors.Is.
func TestErrors(t *testing.T) {
	cases := []struct {
		a        answer
		status   int
		code     string
		is, isnt []error
	}{
		{jsonAnswer(404, `{"error":{"code":"not_found","message":"no document"}}`), 404, "not_found", []error{ErrNotFound}, []error{ErrExists, ErrBadRequest}},
		{jsonAnswer(409, `{"error":{"code":"id_exists","message":"m"}}`), 409, "id_exists", []error{ErrExists}, []error{ErrNotFound}},
		{jsonAnswer(400, `{"error":{"code":"threshold_too_low","message":"m"}}`), 400, "threshold_too_low", []error{ErrThresholdTooLow, ErrBadRequest}, []error{ErrMissingID}},
		{jsonAnswer(400, `{"error":{"code":"bad_json","message":"m"}}`), 400, "bad_json", []error{ErrBadRequest}, []error{ErrThresholdTooLow}},
		{jsonAnswer(401, `{"error":{"code":"unauthorized","message":"m"}}`), 401, "unauthorized", []error{ErrUnauthorized}, []error{ErrBadRequest}},
		{jsonAnswer(413, `{"error":{"code":"batch_too_large","message":"m"}}`), 413, "batch_too_large", []error{ErrBatchTooLarge}, []error{ErrBodyTooLarge}},
		{jsonAnswer(422, `{"error":{"code":"no_shingles","message":"m"}}`), 422, "no_shingles", []error{ErrNoShingles}, []error{ErrBadRequest}},
		{jsonAnswer(503, `{"error":{"code":"unavailable","message":"m"}}`), 503, "unavailable", []error{ErrUnavailable}, nil},
		// Not the service's: a proxy's page.
		{answer{502, "text/html", "<html>Bad Gateway</html>"}, 502, "", nil, []error{ErrUnavailable, ErrInternal, ErrNotFound}},
		{answer{503, "text/plain", ""}, 503, "", []error{ErrUnavailable}, nil},
		{jsonAnswer(500, `{"error":{}}`), 500, "", []error{ErrInternal}, nil},
		{jsonAnswer(404, `not json`), 404, "", nil, []error{ErrNotFound}},
	}
	for _, tc := range cases {
		_, c := newFake(t, "", Options{}, tc.a)
		_, err := c.Get(ctx, "x")
		var ce *Error
		if !errors.As(err, &ce) || ce.Status != tc.status || ce.Code != tc.code || ce.Message == "" {
			t.Errorf("%+v: %#v", tc.a, err)
			continue
		}
		for _, s := range tc.is {
			if !errors.Is(err, s) {
				t.Errorf("%+v: not %v", tc.a, s)
			}
		}
		for _, s := range tc.isnt {
			if errors.Is(err, s) {
				t.Errorf("%+v: is %v", tc.a, s)
			}
		}
		if !strings.Contains(err.Error(), ce.Message) {
			t.Errorf("%q lacks the message", err)
		}
	}
}

func TestTransportErrors(t *testing.T) {
	// A 2xx answer that is not JSON.
	_, c := newFake(t, "", Options{}, answer{200, "text/plain", "hello"})
	if _, err := c.Query(ctx, "x", QueryOptions{}); err == nil {
		t.Error("a non-JSON answer: no error")
	}
	// A batch answer with a result missing.
	_, c = newFake(t, "", Options{}, jsonAnswer(200, `{"results":[]}`))
	if _, err := c.AddBatch(ctx, []Document{{"a", "t"}}, AddOptions{}); err == nil {
		t.Error("a short batch answer: no error")
	}
	// A canceled context.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.Health(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
	// A token is sent only when given.
	f, c := newFake(t, "", Options{}, jsonAnswer(200, `{"status":"ok"}`))
	if err := c.Ready(ctx); err != nil || f.reqs[0].Header.Get("Authorization") != "" {
		t.Errorf("ready: %v, Authorization %q", err, f.reqs[0].Header.Get("Authorization"))
	}
}

// Error values print their code and status.
func TestErrorText(t *testing.T) {
	e := &Error{Status: 409, Code: "id_exists", Message: "a document with that id"}
	if got := e.Error(); got != "neardup service: id_exists (409): a document with that id" {
		t.Error(got)
	}
	b, _ := json.Marshal(e)
	if string(b) != `{"code":"id_exists","message":"a document with that id"}` {
		t.Error(string(b))
	}
}
