// Command loadgen measures the near-duplicate service: throughput and
// latency percentiles (p50, p99, p999) of queries and durable inserts,
// either in process (the index package called directly on an index
// directory) or over HTTP against a running `neardup serve` on loopback.
// Every run is bounded by -duration and -requests.
//
//	loadgen -index DIR -op query -docs queries.jsonl -conns 1
//	loadgen -url http://127.0.0.1:8080 -op insert -docs new.jsonl -conns 32
//	loadgen -bare 127.0.0.1:8090        # a bare handler (read the body, answer {})
//	loadgen -url http://127.0.0.1:8090 -op query -docs q.jsonl   # ... to compare with
//
// Documents come from a JSONL file with "text" (and "id") fields, cycled;
// inserted ids get the -id-prefix so that runs do not collide.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/neardup/neardup/index"
)

func main() {
	var (
		indexDir = flag.String("index", "", "in process: the index directory")
		target   = flag.String("url", "", "over HTTP: the server's base URL (loopback only)")
		bare     = flag.String("bare", "", "serve a bare handler on this loopback address and wait (for comparison)")
		op       = flag.String("op", "query", "query or insert")
		docsPath = flag.String("docs", "", "JSONL file of documents to query or insert")
		conns    = flag.Int("conns", 1, "concurrent clients")
		duration = flag.Duration("duration", 10*time.Second, "run for at most this long")
		requests = flag.Int("requests", 200000, "run at most this many requests")
		warmup   = flag.Duration("warmup", 2*time.Second, "unmeasured warm-up before the run")
		prefix   = flag.String("id-prefix", "load-"+strconv.FormatInt(time.Now().UnixNano(), 36)+"-", "prefix of inserted ids")
		token    = flag.String("token", "", "bearer token for the server")
		jsonOut  = flag.Bool("json", false, "print one JSON object")
		cpuProf  = flag.String("cpuprofile", "", "write a CPU profile of the measured run")
	)
	flag.Parse()
	cpuProfile = *cpuProf
	if err := run(*indexDir, *target, *bare, *op, *docsPath, *conns, *duration, *requests, *warmup, *prefix, *token, *jsonOut); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

// result is one measured run.
type result struct {
	Mode     string  `json:"mode"`
	Op       string  `json:"op"`
	Conns    int     `json:"conns"`
	Requests int     `json:"requests"`
	Errors   int64   `json:"errors"`
	Seconds  float64 `json:"seconds"`
	PerSec   float64 `json:"requests_per_second"`
	P50ms    float64 `json:"p50_ms"`
	P99ms    float64 `json:"p99_ms"`
	P999ms   float64 `json:"p999_ms"`
	Matches  int64   `json:"matches"`
}

type doc struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// cpuProfile is the -cpuprofile file: a profile of the measured phase only.
var cpuProfile string

func run(indexDir, target, bare, op, docsPath string, conns int, duration time.Duration, requests int, warmup time.Duration, prefix, token string, jsonOut bool) error {
	if bare != "" {
		return serveBare(bare)
	}
	if (indexDir == "") == (target == "") {
		return errors.New("give -index DIR (in process) or -url URL (over HTTP)")
	}
	if op != "query" && op != "insert" {
		return fmt.Errorf("-op %q: want query or insert", op)
	}
	if conns < 1 || requests < 1 || duration <= 0 {
		return errors.New("-conns, -requests and -duration must be positive")
	}
	docs, err := readDocs(docsPath)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var do func(ctx context.Context, n int) (matches int, err error)
	mode := "http"
	if indexDir != "" {
		mode = "in-process"
		st, err := index.OpenPebble(context.Background(), indexDir, index.PebbleOptions{})
		if err != nil {
			return err
		}
		ix, err := index.Open(ctx, st, index.Options{})
		if err != nil {
			st.Close()
			return err
		}
		defer ix.Close()
		do = func(ctx context.Context, n int) (int, error) {
			d := docs[n%len(docs)]
			if op == "query" {
				ms, err := ix.Query(ctx, []byte(d.Text), index.QueryOptions{})
				if errors.Is(err, index.ErrNoShingles) {
					err = nil
				}
				return len(ms), err
			}
			r, err := ix.Add(ctx, prefix+strconv.Itoa(n), []byte(d.Text), index.AddOptions{})
			if errors.Is(err, index.ErrNoShingles) {
				err = nil
			}
			return len(r.Duplicates), err
		}
	} else {
		u, err := url.Parse(target)
		if err != nil {
			return err
		}
		if err := checkLoopback(u.Hostname()); err != nil {
			return err
		}
		tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}
		client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
		path := "/v1/query"
		if op == "insert" {
			path = "/v1/documents"
		}
		do = func(ctx context.Context, n int) (int, error) {
			d := docs[n%len(docs)]
			var body []byte
			if op == "query" {
				body, _ = json.Marshal(map[string]string{"text": d.Text})
			} else {
				body, _ = json.Marshal(map[string]string{"id": prefix + strconv.Itoa(n), "text": d.Text})
			}
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, target+path, bytes.NewReader(body))
			if err != nil {
				return 0, err
			}
			req.Header.Set("Content-Type", "application/json")
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := client.Do(req)
			if err != nil {
				return 0, err
			}
			defer resp.Body.Close()
			var out struct {
				Duplicates []json.RawMessage `json:"duplicates"`
			}
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				return 0, err
			}
			if resp.StatusCode >= 300 && !(resp.StatusCode == 422 || resp.StatusCode == 400 && bytes.Contains(b, []byte("no_shingles"))) {
				return 0, fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(b))
			}
			json.Unmarshal(b, &out) // a bare handler answers {}
			return len(out.Duplicates), nil
		}
	}

	// Warm-up: caches, connections, the Go runtime.
	var counter atomic.Int64
	counter.Store(1 << 40) // warm-up requests use their own ids
	phase := func(d time.Duration, limit int, measure bool) (result, error) {
		ctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		lats := make([][]time.Duration, conns)
		var errs, matches atomic.Int64
		var firstErr atomic.Value
		var wg sync.WaitGroup
		var issued atomic.Int64
		start := time.Now()
		for c := range conns {
			wg.Go(func() {
				for ctx.Err() == nil && issued.Add(1) <= int64(limit) {
					n := int(counter.Add(1))
					t0 := time.Now()
					m, err := do(ctx, n)
					el := time.Since(t0)
					if err != nil {
						if ctx.Err() != nil {
							return
						}
						errs.Add(1)
						firstErr.CompareAndSwap(nil, err)
						continue
					}
					matches.Add(int64(m))
					if measure {
						lats[c] = append(lats[c], el)
					}
				}
			})
		}
		wg.Wait()
		el := time.Since(start)
		var all []time.Duration
		for _, l := range lats {
			all = append(all, l...)
		}
		slices.Sort(all)
		pct := func(p float64) float64 {
			if len(all) == 0 {
				return 0
			}
			return float64(all[min(len(all)-1, int(p*float64(len(all))))].Microseconds()) / 1000
		}
		r := result{Mode: mode, Op: op, Conns: conns, Requests: len(all), Errors: errs.Load(), Seconds: el.Seconds(),
			PerSec: float64(len(all)) / el.Seconds(), P50ms: pct(0.50), P99ms: pct(0.99), P999ms: pct(0.999), Matches: matches.Load()}
		if e, ok := firstErr.Load().(error); ok && errs.Load() > ok100(issued.Load(), int64(limit)) {
			return r, fmt.Errorf("%d of %d requests failed, first: %w", errs.Load(), min(issued.Load(), int64(limit)), e)
		}
		return r, nil
	}
	if warmup > 0 {
		if _, err := phase(warmup, requests, false); err != nil {
			return err
		}
	}
	counter.Store(0)
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	r, err := phase(duration, requests, true)
	pprof.StopCPUProfile()
	if err != nil {
		return err
	}
	if jsonOut {
		return json.NewEncoder(os.Stdout).Encode(r)
	}
	fmt.Printf("%-10s %-6s conns %3d: %7d requests in %5.1fs = %8.0f/s; p50 %6.3f ms, p99 %6.3f ms, p999 %6.3f ms; %d errors, %d matches\n",
		r.Mode, r.Op, r.Conns, r.Requests, r.Seconds, r.PerSec, r.P50ms, r.P99ms, r.P999ms, r.Errors, r.Matches)
	return nil
}

func readDocs(path string) ([]doc, error) {
	if path == "" {
		return nil, errors.New("-docs FILE is required")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var docs []doc
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		var d doc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if d.Text == "" {
			continue // the API refuses an empty text (400): not load
		}
		docs = append(docs, d)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s: no documents", path)
	}
	return docs, nil
}

// ok100 is the number of failed requests tolerated: 1% of those issued.
func ok100(issued, limit int64) int64 { return min(issued, limit) / 100 }

// checkLoopback refuses targets that are not this machine.
func checkLoopback(host string) error {
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%s: load is only ever sent to loopback addresses", host)
	}
	return nil
}

// serveBare serves a handler that reads the body and answers {}: the
// ceiling of HTTP and JSON on this machine, for comparison.
func serveBare(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if err := checkLoopback(host); err != nil {
		return err
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v map[string]any
		if err := json.NewDecoder(r.Body).Decode(&v); err != nil {
			http.Error(w, `{"error":{"code":"bad_json"}}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{}\n")
	})
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
