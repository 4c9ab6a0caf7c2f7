package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"path"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/neardup/neardup/index"
)

// Defaults for Options fields left zero.
const (
	DefaultMaxBody  = 8 << 20
	DefaultMaxBatch = 1000
	// DefaultInFlightBodies is how many bodies of the largest size
	// (MaxBody) the default MaxInFlightBytes holds: 64 MiB with the
	// default MaxBody.
	DefaultInFlightBodies = 8
)

// Options configure a Server.
type Options struct {
	// Token is the bearer token every request to /v1/ and /metrics must
	// carry (Authorization: Bearer TOKEN); "" means no authentication.
	// /healthz, /readyz and /openapi.json never ask for it.
	Token string
	// MaxBody bounds a request body in bytes; 0 means DefaultMaxBody. A
	// Content-Length over it is answered 413 body_too_large at once,
	// without reading the body, and the connection is closed.
	MaxBody int64
	// MaxInFlightBytes bounds the bytes of the request bodies being
	// served at once, the memory budget of requests. Before reading a
	// body a request takes its length from the budget (its
	// Content-Length, or MaxBody when it is chunked, then trimmed to what
	// came), and gives it back when its handler returns: the parsed
	// values and the texts handed to the index live until then. A request
	// that cannot get its bytes within a second waits no longer: it is
	// answered 503 overloaded (with Retry-After). A body larger than the
	// whole budget, but within MaxBody, is served alone. The memory a
	// request holds is a few times its body (the texts' copies, their
	// shingles), so the process's memory for requests is a few times this
	// bound. 0 means DefaultInFlightBodies x MaxBody; negative means no
	// bound.
	MaxInFlightBytes int64
	// MaxBatch bounds the documents of one batch request; 0 means
	// DefaultMaxBatch.
	MaxBatch int
	// Registry receives the server's metrics, served at /metrics; nil
	// means a new registry that also holds the Go runtime and process
	// collectors. The default global registry is never used, so several
	// servers can live in one process.
	Registry *prometheus.Registry
	// Logger receives server faults (500s with their cause, recovered
	// panics with their stack); nil discards them.
	Logger *slog.Logger
}

// Server is the HTTP service of an index: an http.Handler answering the
// JSON API described in the package documentation and in openapi.json. It
// is safe for concurrent use. It does not own the index: closing it is the
// caller's, after the http.Server serving it has shut down.
type Server struct {
	ix       *index.Index
	o        Options
	log      *slog.Logger
	mux      *http.ServeMux
	m        *metrics
	token    [sha256.Size]byte
	stopping atomic.Bool
	patterns []string // registered routes, "METHOD /path"
	noRoute  http.Handler

	budget    *byteBudget   // of request bodies (Options.MaxInFlightBytes)
	admitWait time.Duration // bounds a request's wait for budget (admitWait; shorter in tests)
	bodyHook  func(n int64) // tests: told +n when n bytes of a body were read, -n when released
}

// New returns a Server for ix. It registers its metrics in o.Registry and
// fails if they are registered there already (by another Server).
func New(ix *index.Index, o Options) (*Server, error) {
	if ix == nil {
		return nil, fmt.Errorf("server: nil index")
	}
	if o.MaxBody == 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.MaxBatch == 0 {
		o.MaxBatch = DefaultMaxBatch
	}
	if o.MaxBody < 0 || o.MaxBatch < 0 {
		return nil, fmt.Errorf("server: MaxBody %d, MaxBatch %d: want 0 (default) or more", o.MaxBody, o.MaxBatch)
	}
	budget := o.MaxInFlightBytes
	switch {
	case budget == 0:
		budget = DefaultInFlightBodies * o.MaxBody
		if budget/DefaultInFlightBodies != o.MaxBody { // overflow
			budget = math.MaxInt64
		}
	case budget < 0:
		budget = math.MaxInt64 // no bound, but the bytes are still counted
	}
	if o.Registry == nil {
		o.Registry = prometheus.NewRegistry()
		o.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	s := &Server{ix: ix, o: o, log: o.Logger, mux: http.NewServeMux(), budget: newByteBudget(budget), admitWait: admitWait}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.token = sha256.Sum256([]byte(o.Token))
	m, err := newMetrics(o.Registry, ix, s.budget, s.log)
	if err != nil {
		return nil, fmt.Errorf("server: metrics: %w", err)
	}
	s.m = m
	for _, rt := range []struct {
		pattern string
		h       http.HandlerFunc
		public  bool
	}{
		{"POST /v1/documents", s.add, false},
		{"POST /v1/documents:batch", s.addBatch, false},
		{"POST /v1/documents/batch", s.addBatch, false},
		{"POST /v1/query", s.query, false},
		{"GET /v1/documents/{id}", s.get, false},
		{"GET /v1/documents/{id}/duplicates", s.duplicates, false},
		{"DELETE /v1/documents/{id}", s.remove, false},
		{"GET /healthz", s.healthz, true},
		{"GET /readyz", s.readyz, true},
		{"GET /metrics", s.m.handler(o.Registry, s.log).ServeHTTP, false},
		{"GET /openapi.json", serveOpenAPI, true},
	} {
		h := http.Handler(rt.h)
		if !rt.public && o.Token != "" {
			h = s.auth(h)
		}
		s.mux.Handle(rt.pattern, s.wrap(rt.pattern, h))
		s.patterns = append(s.patterns, rt.pattern)
	}
	s.noRoute = s.wrap("unmatched", http.HandlerFunc(s.unmatched))
	s.mux.Handle("/", s.noRoute)
	return s, nil
}

// BeginShutdown marks the server as shutting down: from now on /readyz
// answers 503, so that load balancers stop sending requests, while
// requests are still served. Call it before http.Server.Shutdown.
func (s *Server) BeginShutdown() { s.stopping.Store(true) }

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// ServeMux would redirect a path with "." or ".." segments or "//"
	// to its cleaned form, which is another resource: an id "..", sent
	// unescaped, would address the collection. Such paths name no route.
	if p := r.URL.EscapedPath(); strings.Contains(p, "//") || strings.Contains(p, "/.") {
		if c := cleanPath(p); c != p {
			s.noRoute.ServeHTTP(w, r)
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// cleanPath is the form ServeMux redirects p to: path.Clean keeping a
// trailing slash.
func cleanPath(p string) string {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

// unmatched answers a request no route takes: 405 with Allow when the path
// has routes for other methods, else 404.
func (s *Server) unmatched(w http.ResponseWriter, r *http.Request) {
	var allow []string
	if p := r.URL.EscapedPath(); cleanPath(p) == p {
		probe := r.Clone(r.Context())
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodDelete} {
			probe.Method = m
			if _, pat := s.mux.Handler(probe); pat != "/" && pat != "" {
				allow = append(allow, m)
			}
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		s.fail(w, r, errorf(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "%s is not allowed on %s; allowed: %s", r.Method, r.URL.EscapedPath(), strings.Join(allow, ", ")))
		return
	}
	s.fail(w, r, errorf(http.StatusNotFound, CodeNoRoute, "no route %s %s (see /openapi.json; an id \".\" or \"..\" must be escaped as %%2E)", r.Method, r.URL.EscapedPath()))
}

// auth refuses requests without the bearer token.
func (s *Server) auth(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := bearer(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="neardup"`)
			s.fail(w, r, errorf(http.StatusUnauthorized, CodeUnauthorized, "missing bearer token (Authorization: Bearer TOKEN)"))
			return
		}
		// Hashes compare in constant time whatever the lengths.
		sum := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(sum[:], s.token[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="neardup", error="invalid_token"`)
			s.fail(w, r, errorf(http.StatusUnauthorized, CodeUnauthorized, "invalid bearer token"))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// bearer returns the token of an Authorization header value "Bearer
// TOKEN" (the scheme in any case).
func bearer(v string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// statusWriter records the status of an answer.
type statusWriter struct {
	http.ResponseWriter
	status int
	after  func() // run by wrap once the request is counted (refuse's drain)
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// wrap counts and times the requests of route, and turns a panic of h into
// a 500 answer (or, when the answer has begun, an aborted connection) that
// is logged with its stack: a panic never takes the process down.
func (s *Server) wrap(route string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		s.m.inflight.Inc()
		defer func() {
			s.m.inflight.Dec()
			p := recover()
			began := sw.status != 0
			abort := p == http.ErrAbortHandler //nolint:errorlint // compared as net/http does
			if p != nil && !abort {
				s.log.Error("panic serving request", "route", route, "method", r.Method, "path", r.URL.EscapedPath(),
					"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if !began {
					s.fail(sw, r, errorf(http.StatusInternalServerError, CodeInternal, "internal error"))
				}
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			s.m.observe(route, status, time.Since(start))
			if p != nil && (began || abort) {
				// The answer had begun: only aborting the connection
				// tells the client that it is incomplete.
				panic(http.ErrAbortHandler)
			}
			if p == nil && sw.after != nil {
				sw.after()
			}
		}()
		h.ServeHTTP(sw, r)
	})
}
