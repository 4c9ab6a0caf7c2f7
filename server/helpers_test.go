package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/neardup/neardup/client"
	"github.com/neardup/neardup/index"
)

var ctx = context.Background()

// vocab is the words of generated texts.
var vocab = strings.Fields(`apartment bright spacious kitchen garden balcony parking station quiet street
	renovated floor heating windows garage storage school market river park view modern wooden
	bathroom shower bedroom living room sunny terrace elevator basement attic furnished rent sale
	price negotiable contact owner agency deposit month available immediately pets allowed smoking`)

// text returns a text of n words chosen by seed: texts of different seeds
// share few word 3-grams.
func text(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 7))
	w := make([]string, n)
	for i := range w {
		w[i] = vocab[r.IntN(len(vocab))]
	}
	return strings.Join(w, " ")
}

// edit returns t with its last word replaced: a near-duplicate of t
// (Jaccard about 0.9 for 40 words).
func edit(t string) string {
	i := strings.LastIndexByte(t, ' ')
	return t[:i] + " zebra"
}

// testServer is a Server on an index in memory behind an httptest server
// (loopback), with a client whose answers are recorded and checked against
// openapi.json when the test ends.
type testServer struct {
	ix  *index.Index
	s   *Server
	ts  *httptest.Server
	c   *client.Client
	hc  *http.Client // the recording client, for raw requests
	rec *recorder
}

func newIndex(t testing.TB, m index.Meta) *index.Index {
	t.Helper()
	st, err := index.OpenPebble(context.Background(), "idx", index.PebbleOptions{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Create(ctx, st, m, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// newTestServer starts a server; setup, if given, sets the Server's
// unexported fields before it serves.
func newTestServer(t *testing.T, o Options, setup ...func(*Server)) *testServer {
	t.Helper()
	return newTestServerIndex(t, newIndex(t, index.Meta{KeepTexts: true}), o, setup...)
}

func newTestServerIndex(t *testing.T, ix *index.Index, o Options, setup ...func(*Server)) *testServer {
	t.Helper()
	s, err := New(ix, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range setup {
		f(s)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	rec := &recorder{rt: ts.Client().Transport}
	hc := &http.Client{Transport: rec}
	c, err := client.New(ts.URL, client.Options{Token: o.Token, HTTP: hc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rec.check(t) })
	return &testServer{ix: ix, s: s, ts: ts, c: c, hc: hc, rec: rec}
}

// exchange is a request and its answer.
type exchange struct {
	method, path string // path escaped
	status       int
	header       http.Header
	body         []byte
}

// recorder is a RoundTripper that keeps every exchange, to check the
// answers against openapi.json.
type recorder struct {
	rt http.RoundTripper
	mu sync.Mutex
	ex []exchange
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	r.mu.Lock()
	r.ex = append(r.ex, exchange{req.Method, req.URL.EscapedPath(), resp.StatusCode, resp.Header, b})
	r.mu.Unlock()
	return resp, nil
}

// check validates every recorded answer against openapi.json.
func (r *recorder) check(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.ex {
		if err := conform(e); err != nil {
			t.Errorf("%s %s -> %d %s: does not conform to openapi.json: %v", e.method, e.path, e.status, trim(e.body), err)
		}
	}
}

func trim(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}

// raw sends a request as given and returns the status, the header and the
// error code of the answer ("" if it is not an error answer).
func (ts *testServer) raw(t *testing.T, method, path, contentType, body string, header ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, ts.ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := ts.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Error struct{ Code, Message string }
	}
	json.Unmarshal(b, &e)
	if resp.StatusCode >= 400 && e.Error.Message == "" {
		t.Errorf("%s %s: %d without an error message: %s", method, path, resp.StatusCode, b)
	}
	return resp.StatusCode, resp.Header, e.Error.Code
}
