package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/client"
	"github.com/neardup/neardup/index"
)

// Every route's success path, through the client.
func TestRoutes(t *testing.T) {
	ts := newTestServer(t, Options{})
	c := ts.c
	a := text(1, 40)
	res, err := c.Add(ctx, "a", a, client.AddOptions{})
	if err != nil || res.Status != http.StatusCreated || !res.Added || res.Replaced || res.ID != "a" || res.Seq == 0 || len(res.Duplicates) != 0 {
		t.Fatalf("add a: %+v, %v", res, err)
	}
	// A near-duplicate lists a with its exact Jaccard.
	b := edit(a)
	res, err = c.Add(ctx, "b", b, client.AddOptions{})
	if err != nil || res.Status != http.StatusCreated || len(res.Duplicates) != 1 || res.Duplicates[0].ID != "a" {
		t.Fatalf("add b: %+v, %v", res, err)
	}
	want := jaccard(t, ts.ix, a, b)
	if j := res.Duplicates[0].Jaccard; j != want || j <= 0.5 || j >= 1 {
		t.Errorf("jaccard %v, want %v", j, want)
	}
	// An exact copy comes first (Jaccard 1), then b.
	res, err = c.Add(ctx, "c", a, client.AddOptions{})
	if err != nil || len(res.Duplicates) != 2 || res.Duplicates[0] != (client.Match{ID: "a", Jaccard: 1}) || res.Duplicates[1].ID != "b" {
		t.Fatalf("add c: %+v, %v", res, err)
	}
	res, err = c.Add(ctx, "d", a, client.AddOptions{Limit: 1})
	if err != nil || len(res.Duplicates) != 1 || res.Duplicates[0].ID != "a" {
		t.Fatalf("add d with limit 1: %+v, %v", res, err)
	}
	if _, err := c.Add(ctx, "e", text(2, 40), client.AddOptions{}); err != nil {
		t.Fatal(err)
	}

	ms, err := c.Query(ctx, a, client.QueryOptions{})
	if err != nil || len(ms) != 4 || ms[0].ID != "a" || ms[1].ID != "c" || ms[2].ID != "d" || ms[3].ID != "b" {
		t.Fatalf("query: %+v, %v", ms, err)
	}
	if ms, err = c.Query(ctx, a, client.QueryOptions{Threshold: 0.99}); err != nil || len(ms) != 3 {
		t.Errorf("query at 0.99: %+v, %v", ms, err)
	}
	if ms, err = c.Query(ctx, a, client.QueryOptions{Limit: 2}); err != nil || len(ms) != 2 || ms[0].ID != "a" {
		t.Errorf("query limit 2: %+v, %v", ms, err)
	}
	if ms, err = c.Query(ctx, text(3, 40), client.QueryOptions{}); err != nil || ms == nil || len(ms) != 0 {
		t.Errorf("query of a new text: %#v, %v", ms, err)
	}

	before := time.Now().Add(-time.Minute)
	d, err := c.Get(ctx, "b")
	if err != nil || d.ID != "b" || d.Seq != 2 || !d.HasText || d.Text != b || d.Added.Before(before) || d.Added.After(time.Now()) || d.Added.Location() != time.UTC {
		t.Errorf("get b: %+v, %v", d, err)
	}
	if ms, err = c.Duplicates(ctx, "c", client.QueryOptions{}); err != nil || len(ms) != 3 || ms[0].ID != "a" || ms[1].ID != "d" || ms[2].ID != "b" {
		t.Errorf("duplicates of c: %+v, %v", ms, err)
	}
	if ms, err = c.Duplicates(ctx, "c", client.QueryOptions{Threshold: 1, Limit: 1}); err != nil || len(ms) != 1 || ms[0].ID != "a" {
		t.Errorf("duplicates of c at 1, limit 1: %+v, %v", ms, err)
	}
	if err := c.Remove(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, "a"); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("get after remove: %v", err)
	}
	if err := c.Remove(ctx, "a"); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("second remove: %v", err)
	}
	if ms, err = c.Query(ctx, a, client.QueryOptions{}); err != nil || len(ms) != 3 || ms[0].ID != "c" {
		t.Errorf("query after remove: %+v, %v", ms, err)
	}
	if err := c.Health(ctx); err != nil {
		t.Error(err)
	}
	if err := c.Ready(ctx); err != nil {
		t.Error(err)
	}
	if st, err := ts.ix.Stats(ctx); err != nil || st.Documents != 4 {
		t.Errorf("stats %+v, %v", st, err)
	}
	// openapi.json is served as it is in the repo.
	if code, h, _ := ts.raw(t, "GET", "/openapi.json", "", ""); code != 200 || h.Get("Content-Type") != "application/json" {
		t.Errorf("openapi.json: %d %q", code, h.Get("Content-Type"))
	}
	// A created document's Location is its path.
	resp, err := ts.hc.Post(ts.ts.URL+"/v1/documents", "application/json", strings.NewReader(`{"id":"x/y z","text":"`+text(4, 20)+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 || resp.Header.Get("Location") != "/v1/documents/x%2Fy%20z" {
		t.Errorf("location %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// jaccard is the exact Jaccard of two texts under ix's shingling.
func jaccard(t *testing.T, ix *index.Index, a, b string) float64 {
	t.Helper()
	sk, err := neardup.NewSketcher(ix.Params())
	if err != nil {
		t.Fatal(err)
	}
	var sa, sb neardup.Sketch
	sk.Sketch(&sa, []byte(a), nil)
	sk.Sketch(&sb, []byte(b), nil)
	inter := 0
	for _, h := range sa.Set {
		if _, ok := slices.BinarySearch(sb.Set, h); ok {
			inter++
		}
	}
	return float64(inter) / float64(len(sa.Set)+len(sb.Set)-inter)
}

func TestReplaceIfUnique(t *testing.T) {
	ts := newTestServer(t, Options{})
	c := ts.c
	a, other := text(1, 40), text(2, 40)
	if _, err := c.Add(ctx, "a", a, client.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Add(ctx, "a", other, client.AddOptions{}); !errors.Is(err, client.ErrExists) {
		t.Fatalf("existing id: %v", err)
	}
	var ce *client.Error
	if _, err := c.Add(ctx, "a", other, client.AddOptions{}); !errors.As(err, &ce) || ce.Status != 409 || ce.Code != "id_exists" {
		t.Fatalf("existing id: %#v", err)
	}
	res, err := c.Add(ctx, "a", other, client.AddOptions{Replace: true})
	if err != nil || res.Status != 200 || !res.Added || !res.Replaced || len(res.Duplicates) != 0 {
		t.Fatalf("replace: %+v, %v", res, err)
	}
	if d, err := c.Get(ctx, "a"); err != nil || d.Text != other {
		t.Fatalf("after replace: %+v, %v", d, err)
	}
	// Replace of a new id is a plain insertion.
	if res, err = c.Add(ctx, "n", text(3, 40), client.AddOptions{Replace: true}); err != nil || res.Status != 201 || res.Replaced {
		t.Fatalf("replace of a new id: %+v, %v", res, err)
	}
	// if_unique: a near-duplicate is not inserted and lists the duplicates.
	res, err = c.Add(ctx, "b", edit(other), client.AddOptions{IfUnique: true})
	if err != nil || res.Status != 200 || res.Added || res.Seq != 0 || len(res.Duplicates) != 1 || res.Duplicates[0].ID != "a" {
		t.Fatalf("if_unique with a duplicate: %+v, %v", res, err)
	}
	if _, err := c.Get(ctx, "b"); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("b was inserted: %v", err)
	}
	if res, err = c.Add(ctx, "b", text(4, 40), client.AddOptions{IfUnique: true}); err != nil || res.Status != 201 || !res.Added {
		t.Fatalf("if_unique without duplicates: %+v, %v", res, err)
	}
}

func TestBatch(t *testing.T) {
	ts := newTestServer(t, Options{MaxBatch: 5})
	c := ts.c
	a := text(1, 40)
	if _, err := c.Add(ctx, "old", a, client.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	docs := []client.Document{
		{ID: "x", Text: text(2, 40)},
		{ID: "y", Text: edit(text(2, 40))}, // sees x, earlier in the batch
		{ID: "old", Text: text(3, 40)},     // exists
		{ID: "", Text: text(4, 40)},        // no id
		{ID: "z", Text: edit(a)},           // sees old
	}
	rs, err := c.AddBatch(ctx, docs, client.AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check := func(i, status int, sentinel error, dups ...string) {
		t.Helper()
		r := rs[i]
		if r.Status != status || r.ID != docs[i].ID || !errors.Is(r.Err, sentinel) && sentinel != nil || sentinel == nil && r.Err != nil {
			t.Errorf("item %d: %+v, want status %d, %v", i, r, status, sentinel)
		}
		var got []string
		for _, m := range r.Duplicates {
			got = append(got, m.ID)
		}
		if !slices.Equal(got, dups) {
			t.Errorf("item %d: duplicates %q, want %q", i, got, dups)
		}
	}
	check(0, 201, nil)
	check(1, 201, nil, "x")
	check(2, 409, client.ErrExists)
	check(3, 400, client.ErrMissingID)
	check(4, 201, nil, "old")
	if st, _ := ts.ix.Stats(ctx); st.Documents != 4 {
		t.Errorf("%d documents, want 4", st.Documents)
	}
	// With if_unique and replace, through the alias route.
	code, _, _ := ts.raw(t, "POST", "/v1/documents/batch?if_unique=true&replace=1", "application/json",
		`{"documents":[{"id":"x","text":"`+text(5, 40)+`"},{"id":"w","text":"`+a+`"},{"id":"v","text":"!!!"},{"id":"u"}]}`)
	if code != 200 {
		t.Fatalf("alias: %d", code)
	}
	last := ts.rec.ex[len(ts.rec.ex)-1].body
	for _, want := range []string{`{"id":"x","status":200,"added":true,"replaced":true`, `{"id":"w","status":200,"added":false,"replaced":false,"duplicates":[{"id":"old","jaccard":1}`,
		`{"id":"v","status":422,"added":false,"replaced":false,"error":{"code":"no_shingles"`, `{"id":"u","status":400,"added":false,"replaced":false,"error":{"code":"missing_text"`} {
		if !strings.Contains(string(last), want) {
			t.Errorf("alias answer lacks %s:\n%s", want, last)
		}
	}
	// An id too long to address: refused, alone and in a batch.
	long := strings.Repeat("é", MaxIDBytes/2) + "x"
	if _, err := c.Add(ctx, long, text(7, 40), client.AddOptions{}); !errors.Is(err, client.ErrBadRequest) || !strings.Contains(err.Error(), "id_too_long") {
		t.Errorf("long id: %v", err)
	}
	if rs, err := c.AddBatch(ctx, []client.Document{{ID: long, Text: text(7, 40)}, {ID: long[:MaxIDBytes], Text: text(7, 40)}}, client.AddOptions{}); err != nil || rs[0].Status != 400 || rs[1].Status != 201 {
		t.Errorf("long id in a batch: %+v, %v", rs, err)
	}
	// Too many documents, and an empty batch.
	if _, err := c.AddBatch(ctx, make([]client.Document, 6), client.AddOptions{}); !errors.Is(err, client.ErrBatchTooLarge) {
		t.Errorf("6 documents: %v", err)
	}
	if rs, err := c.AddBatch(ctx, nil, client.AddOptions{}); err != nil || len(rs) != 0 {
		t.Errorf("empty batch: %v, %v", rs, err)
	}
	// A malformed element fails the whole request, which adds nothing.
	code, _, ecode := ts.raw(t, "POST", "/v1/documents:batch", "application/json", `{"documents":[{"id":"p","text":"`+text(6, 40)+`"},{"id":3,"text":"t"}]}`)
	if code != 400 || ecode != CodeBadJSON {
		t.Errorf("malformed element: %d %s", code, ecode)
	}
	if _, err := c.Get(ctx, "p"); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("p of a failed batch: %v", err)
	}
}

// Every error code, from a real request.
func TestErrors(t *testing.T) {
	ts := newTestServer(t, Options{MaxBody: 4 << 10})
	doc := `{"id":"a","text":"` + text(1, 40) + `"}`
	if _, err := ts.c.Add(ctx, "exists", text(2, 40), client.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	const js = "application/json"
	f := func(method, path, ct, body string, status int, code string) {
		t.Helper()
		got, h, gotCode := ts.raw(t, method, path, ct, body)
		if got != status || gotCode != code {
			t.Errorf("%s %s %q: %d %q, want %d %q", method, path, trim([]byte(body)), got, gotCode, status, code)
		}
		if got == 405 && h.Get("Allow") == "" {
			t.Errorf("%s %s: 405 without Allow", method, path)
		}
	}
	f("POST", "/v1/documents", js, `{"id":"a",`, 400, CodeBadJSON)
	f("POST", "/v1/documents", js, `{"id":"a"} {}`, 400, CodeBadJSON)
	f("POST", "/v1/documents", js, doc+` x`, 400, CodeBadJSON)
	f("POST", "/v1/documents", js, `[]`, 400, CodeBadJSON)
	f("POST", "/v1/documents", js, `"text"`, 400, CodeBadJSON)
	f("POST", "/v1/documents", js, ``, 400, CodeBadJSON)
	f("POST", "/v1/documents", js, "{\"id\":\"a\",\"text\":\"\xff\xfe\"}", 400, CodeBadJSON)
	f("POST", "/v1/documents", js, `{"id":5,"text":"t"}`, 400, CodeBadJSON)
	f("POST", "/v1/documents", js, `{"id":"a","id":"b","text":"t"}`, 400, CodeBadJSON)
	f("POST", "/v1/documents", js, `{"id":"a","text":"t\q"}`, 400, CodeBadJSON)
	f("POST", "/v1/documents", js, `{"id":"a","text":"t","extra":1}`, 400, CodeUnknownField)
	f("POST", "/v1/documents", js, `{"ID":"a","text":"t"}`, 400, CodeUnknownField) // names are exact
	f("POST", "/v1/documents", js, `{"text":"t"}`, 400, CodeMissingID)
	f("POST", "/v1/documents", js, `{"id":"","text":"t"}`, 400, CodeMissingID)
	f("POST", "/v1/documents", js, `{"id":null,"text":"t"}`, 400, CodeMissingID)
	f("POST", "/v1/documents", js, `{"id":"a"}`, 400, CodeMissingText)
	f("POST", "/v1/documents", js, `{"id":"a","text":""}`, 400, CodeMissingText)
	f("POST", "/v1/query", js, `{}`, 400, CodeMissingText)
	f("POST", "/v1/query", js, `{"text":"t","thresold":0.9}`, 400, CodeUnknownField)
	f("POST", "/v1/documents:batch", js, `{}`, 400, CodeMissingDocuments)
	f("POST", "/v1/documents:batch", js, `{"documents":{}}`, 400, CodeBadJSON)
	f("POST", "/v1/documents", js, `{"id":"a","text":"!!! ... ???"}`, 422, CodeNoShingles)
	f("POST", "/v1/query", js, `{"text":"!!!"}`, 422, CodeNoShingles)
	f("POST", "/v1/documents", js, `{"id":"exists","text":"`+text(3, 40)+`"}`, 409, CodeIDExists)
	f("GET", "/v1/documents/nope", "", "", 404, CodeNotFound)
	f("GET", "/v1/documents/nope/duplicates", "", "", 404, CodeNotFound)
	f("DELETE", "/v1/documents/nope", "", "", 404, CodeNotFound)
	f("POST", "/v1/documents", js, `{"id":"a","text":"`+strings.Repeat("word ", 1000)+`"}`, 413, CodeBodyTooLarge)
	f("POST", "/v1/query", js, `{"text":"`+strings.Repeat("word ", 1000)+`"}`, 413, CodeBodyTooLarge)
	f("POST", "/v1/documents", "text/plain", doc, 415, CodeUnsupportedMediaType)
	f("POST", "/v1/documents", "", doc, 415, CodeUnsupportedMediaType)
	f("POST", "/v1/documents", "application/jsonx", doc, 415, CodeUnsupportedMediaType)
	f("POST", "/v1/query", "application/x-www-form-urlencoded", `text=a`, 415, CodeUnsupportedMediaType)
	f("POST", "/v1/query", js, `{"text":"t","threshold":0.2}`, 400, CodeThresholdTooLow)
	f("GET", "/v1/documents/exists/duplicates?threshold=0.1", "", "", 400, CodeThresholdTooLow)
	for _, q := range []string{"limit=-1", "limit=x", "limit=1.5", "limit=1&limit=2", "replace=maybe", "if_unique=", "bogus=1", "limit=%zz"} {
		f("POST", "/v1/documents?"+q, js, doc, 400, CodeBadParameter)
	}
	for _, q := range []string{"threshold=0", "threshold=1.5", "threshold=NaN", "threshold=-0.5", "threshold=x", "limit=-3", "lmit=3"} {
		f("GET", "/v1/documents/exists/duplicates?"+q, "", "", 400, CodeBadParameter)
	}
	for _, b := range []string{`{"text":"t","threshold":0}`, `{"text":"t","threshold":1.01}`, `{"text":"t","threshold":-1}`, `{"text":"t","limit":-1}`, `{"text":"t","limit":1.5}`, `{"text":"t","limit":1e40}`, `{"text":"t","threshold":"0.9"}`} {
		f("POST", "/v1/query", js, b, 400, CodeBadParameter)
	}
	f("GET", "/v1/documents/exists?x=1", "", "", 400, CodeBadParameter)
	f("POST", "/v1/query?limit=1", js, `{"text":"t"}`, 400, CodeBadParameter)
	f("DELETE", "/healthz", "", "", 405, CodeMethodNotAllowed)
	f("GET", "/v1/documents", "", "", 405, CodeMethodNotAllowed)
	f("GET", "/v1/documents:batch", "", "", 405, CodeMethodNotAllowed)
	f("PUT", "/v1/documents/x", js, doc, 405, CodeMethodNotAllowed)
	f("GET", "/nope", "", "", 404, CodeNoRoute)
	f("GET", "/v1/documents/", "", "", 404, CodeNoRoute)
	f("GET", "/v1/documents/..", "", "", 404, CodeNoRoute)
	f("GET", "/v1//documents/x", "", "", 404, CodeNoRoute)
	f("POST", "/v2/documents", js, doc, 404, CodeNoRoute)
	// The Allow header lists exactly the methods of the path.
	for path, want := range map[string]string{"/healthz": "GET, HEAD", "/v1/documents": "POST", "/v1/documents/x": "GET, HEAD, DELETE", "/v1/documents/batch": "GET, HEAD, POST, DELETE"} {
		if _, h, _ := ts.raw(t, "PATCH", path, "", ""); h.Get("Allow") != want {
			t.Errorf("PATCH %s: Allow %q, want %q", path, h.Get("Allow"), want)
		}
	}
	// Nothing above was inserted.
	if st, _ := ts.ix.Stats(ctx); st.Documents != 1 {
		t.Errorf("%d documents after the errors, want 1", st.Documents)
	}
}

// A body over the limit without a Content-Length (chunked) is refused too.
func TestBodyTooLargeChunked(t *testing.T) {
	ts := newTestServer(t, Options{MaxBody: 1 << 10})
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte(`{"id":"a","text":"`))
		for range 100 {
			if _, err := pw.Write([]byte("word word word word ")); err != nil {
				return
			}
		}
		pw.Write([]byte(`"}`))
		pw.Close()
	}()
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.ts.URL+"/v1/documents", pr)
	req.Header.Set("Content-Type", "application/json")
	resp, err := ts.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	pr.Close()
	if resp.StatusCode != 413 {
		t.Errorf("status %d", resp.StatusCode)
	}
}

func TestAuth(t *testing.T) {
	ts := newTestServer(t, Options{Token: "s3cret"})
	if _, err := ts.c.Add(ctx, "a", text(1, 40), client.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, hdr := range [][]string{nil, {"Authorization", "Bearer wrong"}, {"Authorization", "Basic s3cret"}, {"Authorization", "Bearer"}, {"Authorization", "s3cret"}, {"Authorization", "Bearer s3cret2"}} {
		for _, r := range []struct{ method, path string }{{"GET", "/v1/documents/a"}, {"POST", "/v1/query"}, {"DELETE", "/v1/documents/a"}, {"GET", "/metrics"}} {
			code, h, ecode := ts.raw(t, r.method, r.path, "application/json", `{"text":"x"}`, hdr...)
			if code != 401 || ecode != CodeUnauthorized || !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("%s %s with %q: %d %s %q", r.method, r.path, hdr, code, ecode, h.Get("WWW-Authenticate"))
			}
		}
	}
	if code, _, _ := ts.raw(t, "GET", "/v1/documents/a", "", "", "Authorization", "bearer s3cret"); code != 200 {
		t.Errorf("lower-case scheme: %d", code)
	}
	for _, p := range []string{"/healthz", "/readyz", "/openapi.json"} {
		if code, _, _ := ts.raw(t, "GET", p, "", ""); code != 200 {
			t.Errorf("%s without a token: %d", p, code)
		}
	}
	bad, _ := client.New(ts.ts.URL, client.Options{Token: "nope", HTTP: ts.hc})
	if _, err := bad.Get(ctx, "a"); !errors.Is(err, client.ErrUnauthorized) {
		t.Errorf("client with a wrong token: %v", err)
	}
	if err := bad.Remove(ctx, "a"); !errors.Is(err, client.ErrUnauthorized) {
		t.Errorf("client with a wrong token: %v", err)
	}
	if _, err := ts.c.Get(ctx, "a"); err != nil {
		t.Errorf("a was removed without a token: %v", err)
	}
}

// Two concurrent posts of one text: exactly one comes back clean and the
// other lists it.
func TestConcurrentSameText(t *testing.T) {
	ts := newTestServer(t, Options{})
	for round := range 20 {
		txt := text(uint64(100+round), 40)
		var wg sync.WaitGroup
		var res [2]client.AddResult
		var errs [2]error
		start := make(chan struct{})
		for i := range 2 {
			wg.Go(func() {
				<-start
				res[i], errs[i] = ts.c.Add(ctx, fmt.Sprintf("r%d-%d", round, i), txt, client.AddOptions{})
			})
		}
		close(start)
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatal(errs)
		}
		clean := 0
		for i := range 2 {
			if len(res[i].Duplicates) == 0 {
				clean++
				other := res[1-i]
				if len(other.Duplicates) != 1 || other.Duplicates[0] != (client.Match{ID: res[i].ID, Jaccard: 1}) {
					t.Errorf("round %d: %+v does not list %s", round, other, res[i].ID)
				}
			}
		}
		if clean != 1 {
			t.Fatalf("round %d: %d clean answers: %+v", round, clean, res)
		}
	}
}

// Inserts, queries and deletes from many goroutines over HTTP leave a
// consistent index with the right count.
func TestConcurrentMixed(t *testing.T) {
	ts := newTestServer(t, Options{})
	const writers, perWriter = 4, 40
	deadline := time.Now().Add(30 * time.Second)
	added := make(chan string, writers*perWriter)
	var wg sync.WaitGroup
	var nAdded, nRemoved atomic.Int64
	var failed atomic.Value
	fail := func(err error) { failed.CompareAndSwap(nil, err) }
	for w := range writers {
		wg.Go(func() {
			for i := 0; i < perWriter && time.Now().Before(deadline); i++ {
				// Half of the texts are near-duplicates of another writer's.
				txt := text(uint64(w*1000+i), 30)
				if i%2 == 1 {
					txt = edit(text(uint64(((w+1)%writers)*1000+i-1), 30))
				}
				id := fmt.Sprintf("w%d/%d", w, i)
				if _, err := ts.c.Add(ctx, id, txt, client.AddOptions{}); err != nil {
					fail(err)
					return
				}
				nAdded.Add(1)
				added <- id
			}
		})
	}
	for q := range 2 {
		wg.Go(func() {
			for i := 0; i < 100 && time.Now().Before(deadline); i++ {
				if _, err := ts.c.Query(ctx, text(uint64(q*1000+i), 30), client.QueryOptions{}); err != nil {
					fail(err)
					return
				}
			}
		})
	}
	var dg sync.WaitGroup
	for range 2 {
		dg.Go(func() {
			n := 0
			for id := range added {
				if n++; n%3 != 0 {
					continue
				}
				if err := ts.c.Remove(ctx, id); err != nil {
					fail(fmt.Errorf("remove %s: %w", id, err))
					return
				}
				nRemoved.Add(1)
				if _, err := ts.c.Duplicates(ctx, id, client.QueryOptions{}); !errors.Is(err, client.ErrNotFound) {
					fail(fmt.Errorf("duplicates of removed %s: %w", id, err))
				}
			}
		})
	}
	wg.Wait()
	close(added)
	dg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		t.Fatal(err)
	}
	rep, err := ts.ix.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := nAdded.Load() - nRemoved.Load(); rep.Documents != want || nRemoved.Load() == 0 {
		t.Errorf("%d documents, want %d (%d removed)", rep.Documents, want, nRemoved.Load())
	}
}

// specialIDs are ids a path must carry: '/', spaces, '%', unicode, dots,
// the characters of queries and fragments.
var specialIDs = []string{"a/b", "with space", "100%", "%2F", "ünï/cødé", "🦀", ".", "..", "...", "./a", "a/..", "a?b#c", "//", "/lead", "trail/",
	"a+b", "~!@$&'()*,;=:", "tab\there", "a\\b", "batch", "x/duplicates", "%", "%zz", "\x01"}

func TestSpecialIDs(t *testing.T) {
	ts := newTestServer(t, Options{})
	c := ts.c
	for i, id := range specialIDs {
		if p := client.DocumentPath(id); p != DocumentPath(id) {
			t.Errorf("%q: client path %q, server path %q", id, p, DocumentPath(id))
		}
		txt := text(uint64(i), 30)
		res, err := c.Add(ctx, id, txt, client.AddOptions{})
		if err != nil || res.ID != id {
			t.Errorf("add %q: %+v, %v", id, res, err)
			continue
		}
		if _, err := c.Add(ctx, id+"-copy", txt, client.AddOptions{}); err != nil {
			t.Fatal(err)
		}
		if d, err := c.Get(ctx, id); err != nil || d.ID != id || d.Text != txt {
			t.Errorf("get %q: %+v, %v", id, d, err)
		}
		if ms, err := c.Duplicates(ctx, id, client.QueryOptions{}); err != nil || len(ms) != 1 || ms[0].ID != id+"-copy" {
			t.Errorf("duplicates of %q: %+v, %v", id, ms, err)
		}
		if ms, err := c.Duplicates(ctx, id+"-copy", client.QueryOptions{}); err != nil || len(ms) != 1 || ms[0].ID != id {
			t.Errorf("duplicates of %q: %+v, %v", id+"-copy", ms, err)
		}
		if err := c.Remove(ctx, id); err != nil {
			t.Errorf("remove %q: %v", id, err)
		}
		if _, err := c.Get(ctx, id); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("get %q after remove: %v", id, err)
		}
		if _, err := c.Get(ctx, id+"-copy"); err != nil {
			t.Errorf("removing %q removed its copy: %v", id, err)
		}
	}
	// The escaping ServeMux undoes: a%2Fb is the id "a/b".
	if _, err := c.Add(ctx, "a/b", text(1, 30), client.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := ts.raw(t, "GET", "/v1/documents/a%2Fb", "", ""); code != 200 {
		t.Errorf("GET a%%2Fb: %d", code)
	}
	if code, _, _ := ts.raw(t, "GET", "/v1/documents/a/b", "", ""); code != 404 {
		t.Errorf("GET a/b unescaped: %d, want 404 (two segments)", code)
	}
}

func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	ts := newTestServer(t, Options{Registry: reg, Token: "t"})
	c := ts.c
	for i := range 3 {
		if _, err := c.Add(ctx, strconv.Itoa(i), text(uint64(i), 30), client.AddOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	c.Add(ctx, "0", text(9, 30), client.AddOptions{}) // 409
	c.Get(ctx, "1")
	c.Get(ctx, "nope")
	c.Get(ctx, "nope")
	if err := c.Remove(ctx, "2"); err != nil {
		t.Fatal(err)
	}
	ts.raw(t, "GET", "/nope", "", "")
	_, _, _ = ts.raw(t, "GET", "/metrics", "", "") // 401, counted
	code, h, _ := ts.raw(t, "GET", "/metrics", "", "", "Authorization", "Bearer t")
	if code != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
		t.Fatalf("metrics: %d %q", code, h.Get("Content-Type"))
	}
	m := parseMetrics(t, ts.rec.ex[len(ts.rec.ex)-1].body)
	for k, want := range map[string]float64{
		`neardup_http_requests_total{code="201",route="POST /v1/documents"}`:                 3,
		`neardup_http_requests_total{code="409",route="POST /v1/documents"}`:                 1,
		`neardup_http_requests_total{code="200",route="GET /v1/documents/{id}"}`:             1,
		`neardup_http_requests_total{code="404",route="GET /v1/documents/{id}"}`:             2,
		`neardup_http_requests_total{code="204",route="DELETE /v1/documents/{id}"}`:          1,
		`neardup_http_requests_total{code="404",route="unmatched"}`:                          1,
		`neardup_http_requests_total{code="401",route="GET /metrics"}`:                       1,
		`neardup_http_request_duration_seconds_count{code="201",route="POST /v1/documents"}`: 3,
		`neardup_index_documents`:                                 2,
		`neardup_index_groups`:                                    2,
		`neardup_store_write_duration_seconds_count{op="add"}`:    4,
		`neardup_store_write_duration_seconds_count{op="remove"}`: 1,
		`neardup_http_requests_in_flight`:                         1, // the scrape itself
	} {
		if got, ok := m[k]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, want)
		}
	}
	if m["neardup_index_resident_bytes"] <= 0 {
		t.Errorf("resident bytes %v", m["neardup_index_resident_bytes"])
	}
	// Ids never become labels.
	for k := range m {
		if strings.Contains(k, "nope") {
			t.Errorf("a raw path became a label: %s", k)
		}
	}
	// Nothing went to the default registry, and a second server has its own.
	mfs, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if strings.HasPrefix(mf.GetName(), "neardup_") {
			t.Errorf("%s in the default registry", mf.GetName())
		}
	}
	if _, err := New(ts.ix, Options{Registry: reg}); err == nil {
		t.Error("a second server on the same registry: no error")
	}
	if _, err := New(ts.ix, Options{}); err != nil {
		t.Errorf("a second server on its own registry: %v", err)
	}
}

// parseMetrics reads the text format: "name{labels} value" per line.
func parseMetrics(t *testing.T, b []byte) map[string]float64 {
	t.Helper()
	m := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		m[line[:i]] = v
	}
	return m
}

func TestReadyz(t *testing.T) {
	ts := newTestServer(t, Options{})
	if err := ts.c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	ts.s.BeginShutdown()
	if err := ts.c.Ready(ctx); !errors.Is(err, client.ErrUnavailable) {
		t.Errorf("ready after BeginShutdown: %v", err)
	}
	if err := ts.c.Health(ctx); err != nil {
		t.Errorf("health after BeginShutdown: %v", err)
	}
	// Requests are still served until the http.Server stops.
	if _, err := ts.c.Add(ctx, "a", text(1, 30), client.AddOptions{}); err != nil {
		t.Errorf("add after BeginShutdown: %v", err)
	}
	// An index that does not answer: not ready, and requests are 503.
	ts2 := newTestServer(t, Options{})
	ts2.ix.Close()
	if err := ts2.c.Ready(ctx); !errors.Is(err, client.ErrUnavailable) {
		t.Errorf("ready with a closed index: %v", err)
	}
	if _, err := ts2.c.Add(ctx, "a", text(1, 30), client.AddOptions{}); !errors.Is(err, client.ErrUnavailable) {
		t.Errorf("add with a closed index: %v", err)
	}
	if _, err := ts2.c.Query(ctx, text(1, 30), client.QueryOptions{}); !errors.Is(err, client.ErrUnavailable) {
		t.Errorf("query with a closed index: %v", err)
	}
}

// A panic in a handler is a logged 500 (or, once the answer has begun, an
// aborted connection), and the server goes on.
func TestPanicRecovered(t *testing.T) {
	var logs strings.Builder
	var mu sync.Mutex
	s, err := New(newIndex(t, index.Meta{}), Options{Logger: slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	s.mux.Handle("GET /panic", s.wrap("GET /panic", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic("boom")
	})))
	s.mux.Handle("GET /panic-late", s.wrap("GET /panic-late", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(200)
		w.Write([]byte("partial"))
		panic("late boom")
	})))
	// Through a recorder: the 500 answer.
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/panic", nil))
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), `"code":"internal"`) || strings.Contains(rec.Body.String(), "boom") {
		t.Errorf("panic: %d %s", rec.Code, rec.Body)
	}
	mu.Lock()
	if l := logs.String(); !strings.Contains(l, "boom") || !strings.Contains(l, "server_test.go") {
		t.Errorf("panic not logged with its stack:\n%s", l)
	}
	mu.Unlock()
	// Over HTTP: a late panic aborts the connection; the server serves on.
	hs := httptest.NewUnstartedServer(s)
	hs.Config.ErrorLog = slog.NewLogLogger(slog.DiscardHandler, slog.LevelError)
	hs.Start()
	defer hs.Close()
	resp, err := hs.Client().Get(hs.URL + "/panic-late")
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Error("a late panic gave a complete answer")
	}
	resp, err = hs.Client().Get(hs.URL + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after the panics: %v", err)
	}
	resp.Body.Close()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// An index that does not keep texts answers GET without "text".
func TestNoTexts(t *testing.T) {
	ts := newTestServerIndex(t, newIndex(t, index.Meta{KeepTexts: false}), Options{})
	if _, err := ts.c.Add(ctx, "a", text(1, 30), client.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	d, err := ts.c.Get(ctx, "a")
	if err != nil || d.HasText || d.Text != "" {
		t.Errorf("get: %+v, %v", d, err)
	}
	if strings.Contains(string(ts.rec.ex[len(ts.rec.ex)-1].body), `"text"`) {
		t.Errorf("text in %s", ts.rec.ex[len(ts.rec.ex)-1].body)
	}
}

// The threshold_too_low message says the index's threshold and why.
func TestThresholdMessage(t *testing.T) {
	ts := newTestServerIndex(t, newIndex(t, index.Meta{Params: neardup.Params{Threshold: 0.7}}), Options{})
	_, err := ts.c.Query(ctx, text(1, 30), client.QueryOptions{Threshold: 0.6})
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Status != 400 || !errors.Is(err, client.ErrThresholdTooLow) || !errors.Is(err, client.ErrBadRequest) ||
		!strings.Contains(ce.Message, "0.7") || !strings.Contains(ce.Message, "LSH") {
		t.Errorf("%#v", err)
	}
	if _, err := ts.c.Query(ctx, text(1, 30), client.QueryOptions{Threshold: 0.7}); err != nil {
		t.Errorf("at the index's threshold: %v", err)
	}
}

// Canceled requests are counted as 499 and do not look like server faults.
func TestCanceled(t *testing.T) {
	ts := newTestServer(t, Options{})
	rec := httptest.NewRecorder()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	req := httptest.NewRequestWithContext(cctx, "POST", "/v1/documents", strings.NewReader(`{"id":"a","text":"`+text(1, 30)+`"}`))
	req.Header.Set("Content-Type", "application/json")
	ts.s.ServeHTTP(rec, req)
	if rec.Code != statusClientClosed || !strings.Contains(rec.Body.String(), CodeCanceled) {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
}

// \u escapes of UTF-16 surrogates must come in pairs.
func TestSurrogates(t *testing.T) {
	f := func(s string, ok bool) {
		t.Helper()
		if got := surrogatesPaired([]byte(s)); got != ok {
			t.Errorf("%s: %v, want %v", s, got, ok)
		}
	}
	f(`{"id":"\ud83e\udd80"}`, true)
	f(`{"id":"\u00e9\n\\ud800"}`, true) // an escaped backslash, then text
	f(`{"id":"\ud800"}`, false)
	f(`{"id":"\udd80"}`, false)
	f(`{"id":"\ud83ex\udd80"}`, false)
	f(`{"id":"\ud83e\n"}`, false)
	f(`{"id":"\ud83e\ud83e"}`, false)
	ts := newTestServer(t, Options{})
	if code, _, ecode := ts.raw(t, "POST", "/v1/documents", "application/json", `{"id":"\ud800","text":"`+text(1, 30)+`"}`); code != 400 || ecode != CodeBadJSON {
		t.Errorf("lone surrogate: %d %s", code, ecode)
	}
	if code, _, _ := ts.raw(t, "POST", "/v1/documents", "application/json", `{"id":"\ud83e\udd80","text":"`+text(1, 30)+`"}`); code != 201 {
		t.Errorf("a pair: %d", code)
	}
	if d, err := ts.c.Get(ctx, "🦀"); err != nil || d.ID != "🦀" {
		t.Errorf("get: %+v, %v", d, err)
	}
}
