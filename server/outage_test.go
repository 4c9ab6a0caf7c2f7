package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/client"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/redisstore"
	"github.com/neardup/neardup/internal/redistest"
)

// The store outage tests give the Redis store a small Timeout; every
// request must be answered within storeOutageBound (generous for a slow
// machine), however long the outage lasts.
const (
	storeTimeout     = 300 * time.Millisecond
	storeOutageBound = 3 * storeTimeout
)

// newRedisTestServer is a test server over an index (keeping texts) in
// srv, its store opened with storeTimeout.
func newRedisTestServer(t *testing.T, srv *redistest.Server) *testServer {
	t.Helper()
	st, err := redisstore.Open(ctx, srv.URL(0), redisstore.Options{Timeout: storeTimeout})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Create(ctx, st, index.Meta{KeepTexts: true}, index.Options{})
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return newTestServerIndex(t, ix, Options{})
}

// outageRequests are requests that reach the store: an add, a get, a
// query, a duplicates search of a document in the index (known), an add
// in a batch, a removal (of gone, which may or may not be removed).
func outageRequests(known, gone string, n int) []struct{ method, path, body string } {
	doc := func(id string) string { return fmt.Sprintf(`{"id":%q,"text":%q}`, id, text(uint64(1000+n), 40)) }
	return []struct{ method, path, body string }{
		{"POST", "/v1/documents", doc(fmt.Sprint("during-", n))},
		{"GET", DocumentPath(known), ""},
		{"POST", "/v1/query", fmt.Sprintf(`{"text":%q}`, text(1, 40))},
		{"GET", DocumentPath(known) + "/duplicates", ""},
		{"POST", "/v1/documents:batch", `{"documents":[` + doc(fmt.Sprint("during-batch-", n)) + `]}`},
		{"DELETE", DocumentPath(gone), ""},
	}
}

// wantStoreUnavailable sends the requests, each of which must be answered
// 503 unavailable with Retry-After within storeOutageBound.
func wantStoreUnavailable(t *testing.T, ts *testServer, known, gone string, n int) {
	t.Helper()
	for _, r := range outageRequests(known, gone, n) {
		ct := ""
		if r.body != "" {
			ct = "application/json"
		}
		start := time.Now()
		status, h, code := ts.raw(t, r.method, r.path, ct, r.body)
		took := time.Since(start)
		if status != http.StatusServiceUnavailable || code != CodeUnavailable || h.Get("Retry-After") == "" || took >= storeOutageBound {
			t.Errorf("%s %s during the outage: %d %s (Retry-After %q) after %v; want 503 %s with Retry-After within %v",
				r.method, r.path, status, code, h.Get("Retry-After"), took, CodeUnavailable, storeOutageBound)
		}
	}
}

// wantCanceled checks that a request whose client goes away during the
// outage is recorded as 499 canceled, not 503: the store's error is the
// caller's cancellation.
func wantCanceled(t *testing.T, ts *testServer) {
	t.Helper()
	for _, path := range []string{"/v1/documents", "/v1/query"} {
		rec := httptest.NewRecorder()
		cctx, cancel := context.WithCancel(ctx)
		timer := time.AfterFunc(50*time.Millisecond, cancel)
		req := httptest.NewRequestWithContext(cctx, "POST", path, strings.NewReader(`{"id":"gone","text":"`+text(7, 30)+`"}`))
		if path == "/v1/query" {
			req = httptest.NewRequestWithContext(cctx, "POST", path, strings.NewReader(`{"text":"`+text(7, 30)+`"}`))
		}
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		ts.s.ServeHTTP(rec, req)
		took := time.Since(start)
		timer.Stop()
		cancel()
		if rec.Code != statusClientClosed || !strings.Contains(rec.Body.String(), CodeCanceled) || took >= storeOutageBound {
			t.Errorf("POST %s canceled by its client during the outage: %d %s after %v; want 499 %s", path, rec.Code, rec.Body, took, CodeCanceled)
		}
	}
}

// addKnown adds documents through the API, returns their ids and Seqs.
func addKnown(t *testing.T, ts *testServer, n int) map[string]uint64 {
	t.Helper()
	acked := map[string]uint64{}
	for i := range n {
		id := fmt.Sprint("k", i)
		res, err := ts.c.Add(ctx, id, text(uint64(i+1), 40), client.AddOptions{})
		if err != nil {
			t.Fatal(err)
		}
		acked[id] = res.Seq
	}
	return acked
}

// waitAnswered waits until GET of id answers 200 and an add of a new
// document 201 again, at most 5 s, each answer meanwhile being 503
// unavailable. (The store's reads and transactions use connection pools
// of their own, each dialing again at its own pace.)
func waitAnswered(t *testing.T, ts *testServer, id string) time.Duration {
	t.Helper()
	start := time.Now()
	read := false
	for try := 0; ; try++ {
		var status int
		var code string
		if !read {
			status, _, code = ts.raw(t, "GET", DocumentPath(id), "", "")
			read = status == http.StatusOK
		}
		if read {
			status, _, code = ts.raw(t, "POST", "/v1/documents", "application/json",
				fmt.Sprintf(`{"id":"probe-%d","text":%q}`, try, text(uint64(2000+try), 40)))
			if status == http.StatusCreated {
				return time.Since(start)
			}
		}
		if status != http.StatusServiceUnavailable {
			t.Fatalf("GET or POST after the store came back: %d %s; want 200, 201 or 503", status, code)
		}
		if time.Since(start) > 5*time.Second || try > 500 {
			t.Fatalf("the server did not answer again within 5 s (%d tries): %d %s", try, status, code)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkServedAgain checks that the server answers as before the outage:
// every acknowledged document is there with its seq, adds and queries
// work.
func checkServedAgain(t *testing.T, ts *testServer, acked map[string]uint64) {
	t.Helper()
	for id, seq := range acked {
		d, err := ts.c.Get(ctx, id)
		if err != nil || d.Seq != seq {
			t.Errorf("GET %s (seq %d) after the outage: %+v, %v", id, seq, d, err)
		}
	}
	if res, err := ts.c.Add(ctx, "after", edit(text(1, 40)), client.AddOptions{}); err != nil || !res.Added || len(res.Duplicates) == 0 {
		t.Errorf("add after the outage: %+v, %v; want it added with k0 as a duplicate", res, err)
	}
	ms, err := ts.c.Query(ctx, text(1, 40), client.QueryOptions{})
	if err != nil || len(ms) < 2 {
		t.Errorf("query after the outage: %+v, %v; want k0 and after", ms, err)
	}
	if err := ts.c.Ready(ctx); err != nil {
		t.Errorf("ready after the outage: %v", err)
	}
}

// TestStoreStopped: the Redis server is killed; every request that needs
// the store is answered 503 unavailable with Retry-After, at once, never
// 500; once the server is restarted on its port (with appendfsync always)
// the same server answers again, with every acknowledged document.
func TestStoreStopped(t *testing.T) {
	srv := redistest.Start(t, "--appendonly", "yes", "--appendfsync", "always")
	ts := newRedisTestServer(t, srv)
	acked := addKnown(t, ts, 20)
	delete(acked, "k19") // removed during the outage, or not
	srv.Kill()
	for round := range 2 {
		wantStoreUnavailable(t, ts, "k3", "k19", round)
	}
	if err := ts.c.Ready(ctx); !errors.Is(err, client.ErrUnavailable) {
		t.Errorf("ready with the store down: %v", err)
	}
	srv.Restart()
	t.Logf("answered again %v after the restart", waitAnswered(t, ts, "k3"))
	checkServedAgain(t, ts, acked)
}

// TestStorePaused: the Redis server is paused (SIGSTOP) for longer than
// the store's Timeout several times over; every request is answered 503
// unavailable with Retry-After within storeOutageBound, not when the
// pause ends; a request whose client went away is 499 canceled. Once
// resumed, the same server answers again.
func TestStorePaused(t *testing.T) {
	srv := redistest.Start(t)
	ts := newRedisTestServer(t, srv)
	acked := addKnown(t, ts, 20)
	delete(acked, "k19") // removed during the outage, or not
	srv.Pause()
	paused := time.Now()
	wantStoreUnavailable(t, ts, "k3", "k19", 0)
	wantCanceled(t, ts)
	if d := time.Since(paused); d < 4*storeTimeout {
		t.Fatalf("paused for only %v: the test proves nothing", d)
	} else {
		t.Logf("paused for %v", d)
	}
	srv.Resume()
	t.Logf("answered again %v after the resumption", waitAnswered(t, ts, "k3"))
	checkServedAgain(t, ts, acked)
}
