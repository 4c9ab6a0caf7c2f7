package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/neardup/neardup/index"
)

// fuzzRoutes are the requests FuzzHandler sends; {id} is the fuzzed id,
// escaped, and "{raw}" a path of the fuzzed id as it is.
var fuzzRoutes = []struct{ method, path string }{
	{"POST", "/v1/documents"},
	{"POST", "/v1/documents:batch"},
	{"POST", "/v1/documents/batch"},
	{"POST", "/v1/query"},
	{"GET", "/v1/documents/{id}"},
	{"GET", "/v1/documents/{id}/duplicates"},
	{"DELETE", "/v1/documents/{id}"},
	{"GET", "/healthz"},
	{"GET", "/readyz"},
	{"PUT", "/v1/documents/{id}"},
	{"POST", "{raw}"},
	{"GET", "{raw}"},
}

// FuzzHandler feeds arbitrary bodies, query strings, ids and content types
// to the handler: never a panic, never a 5xx (the index is healthy, so any
// is a client mistake answered wrongly), and every answer conforms to
// openapi.json: a documented status, an error body with a documented code
// or a success body of the documented shape.
func FuzzHandler(f *testing.F) {
	ix := newIndex(f, index.Meta{KeepTexts: true})
	s, err := New(ix, Options{MaxBody: 16 << 10, MaxBatch: 8})
	if err != nil {
		f.Fatal(err)
	}
	const js = "application/json"
	doc := `{"id":"a","text":"` + text(1, 20) + `"}`
	for _, seed := range []struct {
		route               int
		id, query, ct, body string
	}{
		{0, "", "", js, doc},
		{0, "", "", js, doc},
		{0, "", "replace=true&limit=2", js, `{"id":"a","text":"` + edit(text(1, 20)) + `"}`},
		{0, "", "if_unique=1", js, `{"id":"b","text":"` + text(1, 20) + `"}`},
		{0, "", "", js, `{"id":"c","text":"!!!"}`},
		{0, "", "", js, `{"id":"a","text":"t\q"}`},
		{0, "", "", "text/plain", doc},
		{0, "", "limit=-1", js, doc},
		{1, "", "", js, `{"documents":[` + doc + `,{"id":"d"},{"id":"","text":"x y z w"},{"id":"e","text":"` + text(2, 20) + `"}]}`},
		{2, "", "replace=true", js, `{"documents":[]}`},
		{1, "", "", js, `{"documents":[1,2]}`},
		{3, "", "", js, `{"text":"` + text(1, 20) + `","threshold":0.9,"limit":1}`},
		{3, "", "", js, `{"text":"x","threshold":1e309}`},
		{3, "", "", js, `{"text":"x","limit":99999999999999999999}`},
		{4, "a", "", "", ""},
		{4, "a/b", "x=1", "", ""},
		{5, "a", "threshold=0.7&limit=1", "", ""},
		{5, "a", "threshold=0.1", "", ""},
		{6, "..", "", "", ""},
		{7, "", "", "", ""},
		{8, "", "", "", ""},
		{9, "a", "", js, doc},
		{10, "v1/documents/../x", "", js, doc},
		{11, "v1/documents/%2E%2E", "", "", ""},
		{11, "v1//documents/a", "", "", ""},
	} {
		f.Add(uint8(seed.route), seed.id, seed.query, seed.ct, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, route uint8, id, query, ct string, body []byte) {
		rt := fuzzRoutes[int(route)%len(fuzzRoutes)]
		target := strings.ReplaceAll(rt.path, "{id}", EscapeID(id))
		if rt.path == "{raw}" {
			target = "/" + id
		}
		if query != "" {
			target += "?" + query
		}
		req, err := http.NewRequestWithContext(ctx, rt.method, "http://127.0.0.1"+target, bytes.NewReader(body))
		if err != nil || req.URL.Host != "127.0.0.1" {
			return // not a request a client could send
		}
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s", rt.method, target, trim(body), rec.Code, rec.Body)
		}
		if err := conform(exchange{rt.method, req.URL.EscapedPath(), rec.Code, rec.Header(), rec.Body.Bytes()}); err != nil {
			t.Fatalf("%s %s %q: %d %s: %v", rt.method, target, trim(body), rec.Code, trim(rec.Body.Bytes()), err)
		}
		// The id answered is the one encoding/json reads in the body:
		// the two parsers agree.
		if rt.path == "/v1/documents" && rec.Code < 300 {
			var in, out struct{ ID string }
			if err := json.Unmarshal(body, &in); err != nil || json.Unmarshal(rec.Body.Bytes(), &out) != nil || in.ID != out.ID {
				t.Fatalf("body %q (%v): answered id %q", body, err, out.ID)
			}
		}
	})
}
