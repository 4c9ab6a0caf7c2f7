package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cliflags"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/redisstore"
	"github.com/neardup/neardup/server"
)

const serveUsage = `Usage: neardup serve --index DIR [flags]
       neardup serve --store redis://HOST:PORT/DB [flags]

Serves a near-duplicate index over HTTP (JSON): POST /v1/documents checks a
document and inserts it in one atomic step, answering its near-duplicates
already indexed with their exact Jaccard; POST /v1/query only looks. The
API is described at /openapi.json; /healthz, /readyz and /metrics
(Prometheus) are there for operators.

--index DIR is the embedded store, created when DIR is missing or empty,
with the shingling and threshold flags (the same as dedup's). An existing
index keeps its own parameters: flags given explicitly are checked against
them. --store keeps the index in Redis instead, shared by several serve
processes.

Memory: a request body is at most --max-body bytes (a larger
Content-Length is answered 413 at once, the body unread), and the bodies
being served at once share --max-in-flight-bytes (8 x --max-body unless
given): a request takes its body's length before reading it and gives it
back when it is answered. One that finds no room within a second is
answered 503 overloaded with Retry-After: 1, for the client to retry.
What the process holds for requests is a few times that budget (the
texts' copies and their shingles).

Without --token-file the server listens only on loopback (127.0.0.0/8,
::1, localhost); with it, every /v1/ and /metrics request must carry
"Authorization: Bearer TOKEN". TLS is for a proxy in front.

On SIGTERM or SIGINT the server stops taking connections (/readyz answers
503 at once), lets requests in flight finish for up to --shutdown-timeout,
closes the index and exits 143 or 130. A 2xx answer to an insertion or a
removal is sent only once the change is durable.

Examples:
  neardup serve --index ads.idx
  neardup serve --index ads.idx --threshold 0.8 --ngram 5 --addr 127.0.0.1:9000
  neardup serve --index ads.idx --addr :8080 --token-file /etc/neardup/token

Flags:
`

type serveFlags struct {
	sh     cliflags.Input
	params cliflags.Params

	dir, store, addr, tokenFile string
	keepTexts                   bool
	maxBody, maxInFlight        int64
	maxBatch, maxBucket         int

	readHeaderTimeout, readTimeout, writeTimeout, idleTimeout, shutdownTimeout time.Duration
	log                                                                        *slog.Logger // where the store reports what Pebble meets while serving
}

func runServe(ctx context.Context, e *env, args []string) error {
	var f serveFlags
	fs := newFlagSet(e, "serve", serveUsage)
	fs.StringVar(&f.dir, "index", "", "the index directory (created when missing or empty)")
	fs.StringVar(&f.store, "store", "", "keep the index in Redis instead: redis://[USER:PASSWORD@]HOST:PORT/DB")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on, HOST:PORT (port 0: any free port, printed on start)")
	fs.StringVar(&f.tokenFile, "token-file", "", "file holding the bearer token that requests must carry (needed to listen beyond loopback)")
	fs.BoolVar(&f.keepTexts, "keep-texts", true, "a new index keeps the documents' texts, so that GET returns them")
	fs.Int64Var(&f.maxBody, "max-body", server.DefaultMaxBody, "largest request body in bytes")
	fs.Int64Var(&f.maxInFlight, "max-in-flight-bytes", 0, "most bytes of request bodies served at once; a request that finds no room within a second gets 503 overloaded (0: 8 x --max-body; -1: no limit)")
	fs.IntVar(&f.maxBatch, "max-batch", server.DefaultMaxBatch, "most documents in one batch request")
	fs.IntVar(&f.maxBucket, "max-bucket", neardup.DefaultMaxBucket, "most groups one LSH bucket contributes to a search, the most recent (-1: no limit)")
	fs.DurationVar(&f.readHeaderTimeout, "read-header-timeout", 5*time.Second, "time to read a request's header")
	fs.DurationVar(&f.readTimeout, "read-timeout", 30*time.Second, "time to read a whole request")
	fs.DurationVar(&f.writeTimeout, "write-timeout", 30*time.Second, "time from the end of the request header to the end of the answer")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", 120*time.Second, "time a kept-alive connection may wait for its next request")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 30*time.Second, "on SIGTERM or SIGINT, time for requests in flight to finish before connections are closed")
	f.sh.RegisterShingle(fs)
	f.params.Register(fs)
	rest, err := parseArgs(fs, args, 0, "")
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: unexpected argument %q (serve takes only flags)", errUsage, rest[0])
	}
	f.params.Given(fs)
	if err := f.check(); err != nil {
		return err
	}
	token, err := readToken(f.tokenFile)
	if err != nil {
		return err
	}
	if token == "" {
		if err := loopbackOnly(f.addr); err != nil {
			return err
		}
	}
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	f.log = log
	ix, where, isNew, err := f.open(ctx)
	if err != nil {
		return err
	}
	err = serve(ctx, e, &f, ix, where, isNew, token, log)
	if cerr := ix.Close(); cerr != nil {
		log.Error("closing the index", "index", where, "err", cerr)
		if err == nil {
			err = fmt.Errorf("closing the index %s: %w", where, cerr)
		}
	}
	return err
}

// check refuses flag values outside their ranges; the messages name the
// flag.
func (f *serveFlags) check() error {
	switch {
	case f.dir == "" && f.store == "":
		return fmt.Errorf("%w: --index DIR or --store redis://HOST:PORT/DB is required", errUsage)
	case f.dir != "" && f.store != "":
		return fmt.Errorf("%w: --index and --store exclude each other", errUsage)
	case f.maxBody < 1:
		return fmt.Errorf("%w: --max-body %d: want a positive number of bytes", errUsage, f.maxBody)
	case f.maxInFlight < -1:
		return fmt.Errorf("%w: --max-in-flight-bytes %d: want a positive number of bytes, 0 (8 x --max-body) or -1 (no limit)", errUsage, f.maxInFlight)
	case f.maxBatch < 1:
		return fmt.Errorf("%w: --max-batch %d: want a positive number", errUsage, f.maxBatch)
	case f.maxBucket == 0 || f.maxBucket < -1:
		return fmt.Errorf("%w: --max-bucket %d: want a positive number, or -1 for no limit", errUsage, f.maxBucket)
	case f.shutdownTimeout <= 0:
		return fmt.Errorf("%w: --shutdown-timeout %v: want a positive duration", errUsage, f.shutdownTimeout)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"read-header-timeout", f.readHeaderTimeout}, {"read-timeout", f.readTimeout}, {"write-timeout", f.writeTimeout}, {"idle-timeout", f.idleTimeout}} {
		if d.v <= 0 {
			return fmt.Errorf("%w: --%s %v: want a positive duration", errUsage, d.name, d.v)
		}
	}
	return nil
}

// readToken reads the bearer token of --token-file: the file's text
// without surrounding white space, which must not be empty.
func readToken(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--token-file %s: %w", path, osReason(err))
	}
	tok := strings.TrimSpace(string(b))
	switch {
	case tok == "":
		return "", fmt.Errorf("--token-file %s: the file is empty", path)
	case strings.ContainsAny(tok, " \t\r\n"):
		return "", fmt.Errorf("--token-file %s: the token has white space inside (one token on one line)", path)
	}
	return tok, nil
}

// loopbackOnly refuses an address beyond loopback, for a server without a
// token.
func loopbackOnly(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%w: --addr %q: want HOST:PORT", errUsage, addr)
	}
	if isLoopback(host) {
		return nil
	}
	what := host
	if host == "" {
		what = "every interface"
	}
	return fmt.Errorf("%w: --addr %s: without --token-file the server listens only on loopback (127.0.0.0/8, ::1, localhost), "+
		"not on %s: anyone who reaches it could read and change the index; give --token-file FILE", errUsage, addr, what)
}

// isLoopback reports whether host is "localhost" or a loopback IP.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	host, _, _ = strings.Cut(host, "%") // an IPv6 zone
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// open opens the index of --index or --store, or creates it with the
// flags' parameters when the store holds none. It returns the index, its
// name for messages, and whether it was created.
func (f *serveFlags) open(ctx context.Context) (*index.Index, string, bool, error) {
	so, err := f.sh.ShingleOptions()
	if err != nil {
		return nil, "", false, err
	}
	want, err := f.params.Params(so) // checks the flags even for an existing index
	if err != nil {
		return nil, "", false, err
	}
	var st index.Store
	var where string
	if f.store != "" {
		where = f.store
		if u, err := url.Parse(f.store); err == nil {
			where = u.Redacted()
		}
		redisstore.LogTo(f.log)
		rs, err := redisstore.Open(ctx, f.store, redisstore.Options{})
		if err != nil {
			if errors.Is(err, neardup.ErrOptions) {
				return nil, "", false, fmt.Errorf("%w: --store %s: %s", errUsage, where, cliflags.ErrText(err))
			}
			return nil, "", false, err
		}
		st = rs
	} else {
		where = f.dir
		ps, err := index.OpenPebble(ctx, f.dir, index.PebbleOptions{Logger: f.log})
		if err != nil {
			return nil, "", false, err
		}
		st = ps
	}
	given := f.params.GivenFields()
	if f.params.Set["keep-texts"] {
		given = append(given, "KeepTexts")
	}
	ix, isNew, err := openAsked(ctx, st, where, index.Meta{Params: want, KeepTexts: f.keepTexts}, given, "keep-texts", index.Options{MaxBucket: f.maxBucket})
	if err != nil {
		st.Close()
		return nil, "", false, err
	}
	return ix, where, isNew, nil
}

// serve runs the HTTP server until ctx is done, then shuts it down
// gracefully; the caller closes the index.
func serve(ctx context.Context, e *env, f *serveFlags, ix *index.Index, where string, isNew bool, token string, log *slog.Logger) error {
	srv, err := server.New(ix, server.Options{Token: token, MaxBody: f.maxBody, MaxInFlightBytes: f.maxInFlight, MaxBatch: f.maxBatch, Logger: log})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", f.addr, err)
	}
	// "localhost" may resolve to something else: check where it listens.
	if ta, ok := ln.Addr().(*net.TCPAddr); token == "" && (!ok || !ta.IP.IsLoopback()) {
		ln.Close()
		return fmt.Errorf("--addr %s: listening on %v, which is not loopback; give --token-file FILE", f.addr, ln.Addr())
	}
	st, err := ix.Stats(ctx)
	if err != nil {
		ln.Close()
		return fmt.Errorf("%s: %w", where, err)
	}
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: f.readHeaderTimeout,
		ReadTimeout:       f.readTimeout,
		WriteTimeout:      f.writeTimeout,
		IdleTimeout:       f.idleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()

	m := ix.Meta()
	state, auth, texts := "opened", "no token, loopback only", "texts kept"
	if isNew {
		state = "created"
	}
	if token != "" {
		auth = "bearer token required"
	}
	if !m.KeepTexts {
		texts = "texts not kept"
	}
	fmt.Fprintf(e.stdout, "neardup serve: listening on http://%s (%s); index %s (%s): %v, %s; %s\n",
		ln.Addr(), auth, where, state, m.Params, texts, plural(st.Documents, "document", "documents"))

	select {
	case err := <-errc: // the listener failed
		return fmt.Errorf("serve on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	srv.BeginShutdown()
	log.Info("shutting down: finishing requests in flight", "grace", f.shutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), f.shutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		log.Warn("grace period over: closing the connections left", "err", err)
		hs.Close()
	}
	<-errc // http.ErrServerClosed
	log.Info("stopped")
	if se := stoppedBy(ctx); se != nil {
		return se // stopped as asked: exit 128 + the signal
	}
	return nil
}
