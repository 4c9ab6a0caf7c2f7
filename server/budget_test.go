package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/neardup/neardup/client"
	"github.com/neardup/neardup/index"
)

// queryBody returns a query body of about size bytes: {"text": ...}.
func queryBody(seed uint64, size int) string {
	return `{"text":"` + text(seed, size/7) + `"}`
}

// liveBodies counts, through Server.bodyHook, the bytes of bodies read
// and not yet released, and their most at once: what the budget bounds,
// counted apart from the budget's own accounting.
type liveBodies struct {
	mu         sync.Mutex
	live, peak int64
}

func (l *liveBodies) hook(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.live += n
	l.peak = max(l.peak, l.live)
}

func (l *liveBodies) get() (live, peak int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.live, l.peak
}

// waitHeld waits, a bounded time, until the budget holds want bytes.
func waitHeld(t *testing.T, s *Server, want int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		held, _ := s.budget.inUse()
		if held == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the budget holds %d bytes, want %d", held, want)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// slowBody reads as the first half of s, then, after pause, the rest.
type slowBody struct {
	s     string
	pause time.Duration
	off   int
}

func (b *slowBody) Read(p []byte) (int, error) {
	if b.off == len(b.s) {
		return 0, io.EOF
	}
	if b.off > 0 && b.off == len(b.s)/2 {
		time.Sleep(b.pause)
	}
	end := len(b.s)
	if b.off < len(b.s)/2 {
		end = len(b.s) / 2
	}
	n := copy(p, b.s[b.off:end])
	b.off += n
	return n, nil
}

// metrics returns the text of /metrics.
func (ts *testServer) metrics(t *testing.T) []byte {
	t.Helper()
	code, _, _ := ts.raw(t, "GET", "/metrics", "", "")
	if code != 200 {
		t.Fatalf("metrics: %d", code)
	}
	ts.rec.mu.Lock()
	defer ts.rec.mu.Unlock()
	return ts.rec.ex[len(ts.rec.ex)-1].body
}

// post sends a JSON body and returns the status, the header and the error
// code of the answer ("" for a success).
func (ts *testServer) post(path, body string) (int, http.Header, string, error) {
	return ts.postReader(path, strings.NewReader(body), int64(len(body)))
}

func (ts *testServer) postReader(path string, body io.Reader, n int64) (int, http.Header, string, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", ts.ts.URL+path, body)
	if err != nil {
		return 0, nil, "", err
	}
	req.ContentLength = n
	req.Header.Set("Content-Type", "application/json")
	resp, err := ts.hc.Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, "", err
	}
	var e struct{ Error struct{ Code string } }
	json.Unmarshal(b, &e)
	return resp.StatusCode, resp.Header, e.Error.Code, nil
}

// A small budget (three bodies) under more concurrent large requests than
// it holds: every request gets its normal answer or 503 overloaded, and
// the bytes of bodies held at once never exceed the budget.
func TestBudgetBoundsBodiesInFlight(t *testing.T) {
	const size = 64 << 10
	body := queryBody(1, size)
	n := int64(len(body))
	budget := 3 * n
	var live liveBodies
	ts := newTestServer(t, Options{MaxBody: 1 << 20, MaxInFlightBytes: budget}, func(s *Server) {
		s.admitWait = 200 * time.Millisecond
		s.bodyHook = live.hook
	})
	if _, err := ts.c.Add(ctx, "a", text(1, size/7), client.AddOptions{}); err != nil {
		t.Fatal(err)
	}

	// Three clients send their header and half their body, then stall:
	// the budget is taken before the body is read, so they fill it.
	addr := ts.ts.Listener.Addr().String()
	var stalled []net.Conn
	for range 3 {
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(c, "POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", n, body[:n/2])
		stalled = append(stalled, c)
	}
	waitHeld(t, ts.s, budget)

	// Others wait up to admitWait, then are refused at once, each with
	// its whole body sent.
	var wg sync.WaitGroup
	start := time.Now()
	for range 4 {
		wg.Go(func() {
			code, h, ecode, err := ts.post("/v1/query", body)
			switch {
			case err != nil:
				t.Errorf("a request over the budget: %v", err)
			case code != 503 || ecode != CodeOverloaded || h.Get("Retry-After") != "1":
				t.Errorf("a request over the budget: %d %q, Retry-After %q; want 503 overloaded, 1", code, ecode, h.Get("Retry-After"))
			}
		})
	}
	wg.Wait()
	if d := time.Since(start); d < ts.s.admitWait || d > ts.s.admitWait+3*time.Second {
		t.Errorf("refused after %v; want about %v", d, ts.s.admitWait)
	}
	// The stalled ones finish and are answered.
	for _, c := range stalled {
		if _, err := io.WriteString(c, body[n/2:]); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("a stalled query: %d", resp.StatusCode)
		}
	}
	waitHeld(t, ts.s, 0)

	// A free-for-all: twelve clients, two requests each, each body sent
	// in two halves 20 ms apart, so that each request holds its bytes a
	// while and the budget is contended.
	before := parseMetrics(t, ts.metrics(t))
	var ok, overloaded atomic.Int64
	for i := range 12 {
		wg.Go(func() {
			for j := range 2 {
				b := queryBody(uint64(100+2*i+j), size) // within a few bytes of n
				code, _, ecode, err := ts.postReader("/v1/query", &slowBody{s: b, pause: 20 * time.Millisecond}, int64(len(b)))
				switch {
				case err != nil:
					t.Errorf("query: %v", err)
				case code == 200:
					ok.Add(1)
				case code == 503 && ecode == CodeOverloaded:
					overloaded.Add(1)
				default:
					t.Errorf("query: %d %s", code, ecode)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d answered, %d overloaded", ok.Load(), overloaded.Load())
	if ok.Load() == 0 {
		t.Error("no request was answered")
	}
	waitHeld(t, ts.s, 0)
	_, peak := ts.s.budget.inUse()
	liveNow, livePeak := live.get()
	if peak > budget || livePeak > budget+budget/100 || livePeak < n {
		t.Errorf("peak held %d, bodies held at once %d; budget %d (bodies of %d bytes)", peak, livePeak, budget, n)
	}
	if liveNow != 0 {
		t.Errorf("%d bytes of bodies not released", liveNow)
	}

	// The metrics count the four refused waits, and those of the
	// free-for-all.
	m := parseMetrics(t, ts.metrics(t))
	const admitted, refused = `neardup_http_request_body_waits_total{outcome="admitted"}`, `neardup_http_request_body_waits_total{outcome="overloaded"}`
	if got := before[refused]; got != 4 {
		t.Errorf("overloaded waits %v, want 4", got)
	}
	if got := m[refused] - before[refused]; got != float64(overloaded.Load()) {
		t.Errorf("overloaded waits %v in the free-for-all, want %d", got, overloaded.Load())
	}
	if m[admitted]+m[refused]-before[admitted]-before[refused] == 0 {
		t.Error("nobody waited in the free-for-all: the budget was not contended")
	}
	if got := m[`neardup_http_request_body_budget_bytes`]; got != float64(budget) {
		t.Errorf("budget metric %v, want %d", got, budget)
	}
	if got, ok := m[`neardup_http_request_body_in_flight_bytes`]; !ok || got != 0 {
		t.Errorf("bytes in flight %v (present %v), want 0", got, ok)
	}
}

// A body over MaxBody by its Content-Length is answered 413 at once,
// whatever the client does with its body, and the connection is closed
// soon after. net/http alone would read an unread body under 256 KiB
// before answering: a client that waits for the answer got none until the
// read timeout.
func TestBodyTooLargeAnsweredAtOnce(t *testing.T) {
	const max = 4 << 10
	ts := newTestServer(t, Options{MaxBody: max})
	addr := ts.ts.Listener.Addr().String()
	head := "POST /v1/documents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
	for _, c := range []struct {
		name, request string
		rest          int // body bytes the client writes before reading, all at once
	}{
		{"no body sent", head + "Content-Length: 8192\r\n\r\n", 0},
		{"100 MiB announced", head + "Content-Length: 104857600\r\n\r\n", 0},
		{"part of the body", head + "Content-Length: 8192\r\n\r\n" + strings.Repeat("x", 3000), 0},
		{"expect 100-continue", head + "Content-Length: 8192\r\nExpect: 100-continue\r\n\r\n", 0},
		{"connection close", head + "Content-Length: 8192\r\nConnection: close\r\n\r\n", 0},
		{"chunked", head + "Transfer-Encoding: chunked\r\n\r\n" + fmt.Sprintf("%x\r\n%s\r\n", 5000, strings.Repeat("x", 5000)), 0},
		{"the whole body first", head + "Content-Length: 16777216\r\n\r\n", 16 << 20},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			t.Parallel() // each lingers up to lingerTime
			conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			start := time.Now()
			conn.SetDeadline(start.Add(5 * time.Second))
			if _, err := io.WriteString(conn, c.request); err != nil {
				t.Fatal(err)
			}
			if c.rest > 0 {
				// A client that reads only once it has sent everything.
				if _, err := conn.Write(make([]byte, c.rest)); err != nil {
					t.Fatalf("writing the body: %v", err)
				}
			}
			conn.SetReadDeadline(time.Now().Add(2 * time.Second))
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("no answer after %v: %v", time.Since(start), err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			var e struct{ Error struct{ Code string } }
			json.Unmarshal(b, &e)
			if err != nil || resp.StatusCode != 413 || e.Error.Code != CodeBodyTooLarge || !resp.Close {
				t.Fatalf("%d %s %q (Connection: close %v), %v; want 413 body_too_large, closed", resp.StatusCode, e.Error.Code, b, resp.Close, err)
			}
			// The server closes the connection, after lingering at most
			// lingerTime for what the client still sends.
			conn.SetReadDeadline(time.Now().Add(lingerTime + 2*time.Second))
			if n, err := io.Copy(io.Discard, br); err != nil && !errors.Is(err, net.ErrClosed) && !isReset(err) {
				t.Errorf("after the answer: %d bytes, %v; want the connection closed", n, err)
			}
		})
	}
	t.Cleanup(func() { // after the subtests
		if st, _ := ts.ix.Stats(ctx); st.Documents != 0 {
			t.Errorf("%d documents", st.Documents)
		}
	})
}

func isReset(err error) bool {
	return strings.Contains(err.Error(), "connection reset")
}

// One body larger than the whole budget, but within MaxBody, is served
// when it is alone, with a Content-Length or chunked.
func TestBodyOverBudgetServedAlone(t *testing.T) {
	const budget = 32 << 10
	var live liveBodies
	ts := newTestServer(t, Options{MaxBody: 1 << 20, MaxInFlightBytes: budget}, func(s *Server) {
		s.admitWait = 200 * time.Millisecond
		s.bodyHook = live.hook
	})
	long := text(7, 100<<10/7) // about 100 KiB
	res, err := ts.c.Add(ctx, "long", long, client.AddOptions{})
	if err != nil || !res.Added {
		t.Fatalf("add of %d bytes over a budget of %d: %+v, %v", len(long), budget, res, err)
	}
	ms, err := ts.c.Query(ctx, edit(long), client.QueryOptions{})
	if err != nil || len(ms) != 1 || ms[0].ID != "long" {
		t.Errorf("query: %+v, %v", ms, err)
	}
	// Chunked: the server takes MaxBody, clamped to the budget.
	pr, pw := io.Pipe()
	go func() {
		io.WriteString(pw, queryBody(7, 0)[:9]) // {"text":"
		for i := 0; i < len(long); i += 8 << 10 {
			io.WriteString(pw, long[i:min(i+8<<10, len(long))])
		}
		io.WriteString(pw, `"}`)
		pw.Close()
	}()
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.ts.URL+"/v1/query", pr)
	req.Header.Set("Content-Type", "application/json")
	resp, err := ts.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"long"`) {
		t.Errorf("chunked query: %d %s", resp.StatusCode, trim(b))
	}
	waitHeld(t, ts.s, 0)
	if _, peak := ts.s.budget.inUse(); peak != budget {
		t.Errorf("peak held %d, want the whole budget %d", peak, budget)
	}
	if _, livePeak := live.get(); livePeak < int64(len(long)) {
		t.Errorf("bodies held at once %d, want one of %d bytes", livePeak, len(long))
	}
}

// A chunked body holds MaxBody of the budget while it is read, then only
// its length.
func TestBudgetChunkedTrimmed(t *testing.T) {
	var heldAfterRead atomic.Int64
	ts := newTestServer(t, Options{MaxBody: 64 << 10}, func(s *Server) {
		s.bodyHook = func(n int64) {
			if n > 0 {
				held, _ := s.budget.inUse()
				heldAfterRead.Store(held)
			}
		}
	})
	body := queryBody(3, 1000)
	gate := make(chan struct{})
	pr, pw := io.Pipe()
	go func() {
		io.WriteString(pw, body[:10])
		<-gate
		io.WriteString(pw, body[10:])
		pw.Close()
	}()
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.ts.URL+"/v1/query", pr)
	req.Header.Set("Content-Type", "application/json")
	done := make(chan int, 1)
	go func() {
		resp, err := ts.hc.Do(req)
		if err != nil {
			t.Error(err)
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	waitHeld(t, ts.s, 64<<10)
	close(gate)
	if code := <-done; code != 200 {
		t.Errorf("chunked query: %d", code)
	}
	waitHeld(t, ts.s, 0)
	if got := heldAfterRead.Load(); got != int64(len(body)) {
		t.Errorf("held %d once the body was read, want its %d bytes", got, len(body))
	}
}

func TestBudgetOptions(t *testing.T) {
	ix := newIndex(t, index.Meta{KeepTexts: true})
	for _, c := range []struct {
		o    Options
		want int64
	}{
		{Options{}, DefaultInFlightBodies * DefaultMaxBody},
		{Options{MaxBody: 1 << 20}, DefaultInFlightBodies << 20},
		{Options{MaxInFlightBytes: 100}, 100},
		{Options{MaxInFlightBytes: -1}, math.MaxInt64},
		{Options{MaxBody: math.MaxInt64}, math.MaxInt64},
	} {
		s, err := New(ix, c.o)
		if err != nil {
			t.Fatal(err)
		}
		if s.budget.size != c.want {
			t.Errorf("%+v: budget %d, want %d", c.o, s.budget.size, c.want)
		}
	}
}

// The budget is first come, first served; a waiter that gives up lets
// those behind it in.
func TestByteBudget(t *testing.T) {
	b := newByteBudget(10)
	if !b.tryAcquire(6) {
		t.Fatal("6 of 10")
	}
	actx, acancel := context.WithCancel(ctx)
	aerr := make(chan error, 1)
	go func() { aerr <- b.acquire(actx, 6) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b.mu.Lock()
		n := b.waiters.Len()
		b.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the waiter never queued")
		}
		time.Sleep(time.Millisecond)
	}
	if b.tryAcquire(2) {
		t.Error("2 bytes overtook a waiter for 6")
	}
	berr := make(chan error, 1)
	go func() {
		bctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		berr <- b.acquire(bctx, 2)
	}()
	acancel()
	if err := <-aerr; !errors.Is(err, context.Canceled) {
		t.Errorf("the canceled waiter: %v", err)
	}
	if err := <-berr; err != nil {
		t.Errorf("the waiter behind it: %v", err)
	}
	if held, peak := b.inUse(); held != 8 || peak != 8 {
		t.Errorf("held %d, peak %d; want 8, 8", held, peak)
	}
	b.release(8)
	if held, _ := b.inUse(); held != 0 {
		t.Errorf("held %d after release", held)
	}
	if b.clamp(100) != 10 || b.clamp(3) != 3 {
		t.Error("clamp")
	}
}
