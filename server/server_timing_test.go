package server

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/neardup/neardup/index"
)

// BenchmarkQuery is the handler's cost of POST /v1/query in process (no
// network): decoding, the index query, encoding, metrics.
func BenchmarkQuery(b *testing.B) {
	ix := newIndex(b, index.Meta{KeepTexts: true})
	for i := range 1000 {
		if _, err := ix.Add(ctx, strconv.Itoa(i), []byte(text(uint64(i), 250)), index.AddOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	s, err := New(ix, Options{})
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(`{"text":"` + edit(text(7, 250)) + `"}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "/v1/query", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code, rec.Body)
		}
	}
}

// BenchmarkQueryIndex is the index's own share of BenchmarkQuery.
func BenchmarkQueryIndex(b *testing.B) {
	ix := newIndex(b, index.Meta{KeepTexts: true})
	for i := range 1000 {
		if _, err := ix.Add(ctx, strconv.Itoa(i), []byte(text(uint64(i), 250)), index.AddOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	body := []byte(edit(text(7, 250)))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ix.Query(ctx, body, index.QueryOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
