package redisstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/indextest"
	"github.com/neardup/neardup/internal/redistest"
)

// The outage tests run with a small Timeout; every failed operation must
// come back within outageBound (generous for a slow machine), however
// long the outage lasts.
const (
	outageTimeout = 300 * time.Millisecond
	outageBound   = 3 * outageTimeout
	recoverWithin = 5 * time.Second // from the server's return to a served read and write
)

// writer adds documents one at a time in its own goroutine, as a client
// of the service would, until stopped or out of documents, and records
// which Adds were acknowledged and which failed.
type writer struct {
	ix       *index.Index
	docs     []string
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}

	mu     sync.Mutex
	acked  map[string]uint64 // id -> Seq
	failed []string          // ids whose Add returned an error
	errs   []error           // errors other than index.ErrUnavailable, or too slow
}

func startWriter(t *testing.T, ix *index.Index, docs []string) *writer {
	w := &writer{ix: ix, docs: docs, stop: make(chan struct{}), done: make(chan struct{}), acked: map[string]uint64{}}
	t.Cleanup(func() { // after a failure, before the store is closed
		w.stopOnce.Do(func() { close(w.stop) })
		<-w.done
	})
	go func() {
		defer close(w.done)
		for i, d := range w.docs {
			select {
			case <-w.stop:
				return
			default:
			}
			id := fmt.Sprint("w", i)
			start := time.Now()
			res, err := w.ix.Add(ctx, id, []byte(d), index.AddOptions{})
			took := time.Since(start)
			w.mu.Lock()
			switch {
			case err == nil:
				w.acked[id] = res.Seq
			case errors.Is(err, index.ErrNoShingles):
			case errors.Is(err, index.ErrUnavailable) && took < outageBound:
				w.failed = append(w.failed, id)
			default:
				w.failed = append(w.failed, id)
				w.errs = append(w.errs, fmt.Errorf("Add %s after %v: %w", id, took, err))
			}
			w.mu.Unlock()
			if err != nil {
				time.Sleep(20 * time.Millisecond) // as a client would, before its next request
			}
		}
	}()
	return w
}

// counts returns the numbers of acknowledged and failed Adds so far.
func (w *writer) counts() (acked, failed int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.acked), len(w.failed)
}

// waitFor waits until cond holds of the writer's counts, at most 5 s.
func (w *writer) waitFor(t *testing.T, what string, cond func(acked, failed int) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		a, f := w.counts()
		if cond(a, f) {
			return
		}
		select {
		case <-w.done:
			t.Fatalf("the writer ran out of documents before %s (%d acknowledged, %d failed)", what, a, f)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("not %s within 5 s (%d acknowledged, %d failed)", what, a, f)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// finish stops the writer and fails t on any error that was not a prompt
// index.ErrUnavailable.
func (w *writer) finish(t *testing.T) {
	t.Helper()
	w.stopOnce.Do(func() { close(w.stop) })
	select {
	case <-w.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the writer did not stop within 10 s")
	}
	for _, err := range w.errs {
		t.Errorf("writer: %v; want success or index.ErrUnavailable within %v", err, outageBound)
	}
}

// outageIndex opens a store of srv with the outage tests' Timeout and
// makes an index in it.
func outageIndex(t *testing.T, srv *redistest.Server) (*Store, *index.Index) {
	t.Helper()
	st := open(t, srv, Options{Prefix: newPrefix(), Timeout: outageTimeout})
	ix, err := index.Create(ctx, st, index.Meta{KeepTexts: true}, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st, ix
}

// wantUnavailable runs op, which must fail with an error wrapping
// index.ErrUnavailable and naming the server, within outageBound.
func wantUnavailable(t *testing.T, srv *redistest.Server, name string, op func(context.Context) error) {
	t.Helper()
	start := time.Now()
	err := op(ctx)
	took := time.Since(start)
	if !errors.Is(err, index.ErrUnavailable) {
		t.Errorf("%s: %v after %v; want index.ErrUnavailable", name, err, took)
		return
	}
	if took >= outageBound {
		t.Errorf("%s: index.ErrUnavailable after %v; want it within %v (Timeout %v)", name, took, outageBound, outageTimeout)
	}
	if where := "redis://" + srv.Addr + "/0"; !strings.Contains(err.Error(), where) {
		t.Errorf("%s: %q does not name the server %s", name, err, where)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Errorf("%s: %v reads as the caller's context error", name, err)
	}
	t.Logf("%s: %v: %v", name, took.Round(time.Millisecond), err)
}

// outageOps are an Add, a Get and a Query (the requests of the service
// that reach the store), each a fresh one per call of the returned ops.
func outageOps(ix *index.Index, docs []string, known string) []struct {
	name string
	op   func(context.Context) error
} {
	return []struct {
		name string
		op   func(context.Context) error
	}{
		{"Add", func(c context.Context) error {
			n := duringIDs.Add(1)
			_, err := ix.Add(c, fmt.Sprint("during-", n), []byte(docs[int(n)%len(docs)]), index.AddOptions{})
			return err
		}},
		{"Get", func(c context.Context) error { _, err := ix.Get(c, known); return err }},
		{"Query", func(c context.Context) error {
			_, err := ix.Query(c, []byte(docs[0]), index.QueryOptions{})
			return err
		}},
	}
}

// duringIDs numbers the documents added during outages.
var duringIDs atomic.Int64

// waitServed waits until ix answers a Get of id and takes an Add of text
// (under a new id) again, at most recoverWithin, and returns how long
// that took. (Reads and transactions use go-redis connection pools of
// their own, each dialing again at its own pace.)
func waitServed(t *testing.T, ix *index.Index, id, text string) time.Duration {
	t.Helper()
	start := time.Now()
	read := false
	for try := 0; ; try++ {
		var err error
		if !read {
			_, err = ix.Get(ctx, id)
			read = err == nil
		}
		if read {
			_, err = ix.Add(ctx, fmt.Sprint("probe-", duringIDs.Add(1)), []byte(text), index.AddOptions{})
			if err == nil {
				return time.Since(start)
			}
		}
		if !errors.Is(err, index.ErrUnavailable) {
			t.Fatalf("Get %s or Add after the server came back: %v; want success or index.ErrUnavailable", id, err)
		}
		if time.Since(start) > recoverWithin || try > 500 {
			t.Fatalf("the store did not serve again within %v (%d tries): %v", recoverWithin, try, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkAfter checks, once the server is back, that every acknowledged Add
// is in the index with its Seq, that an Add that failed can be retried
// (it is added now, or was applied after all: ErrExists), that the index
// is consistent, and that it takes writes and answers queries.
func checkAfter(t *testing.T, ix *index.Index, w *writer) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, seq := range w.acked {
		d, err := ix.Get(ctx, id)
		if err != nil || d.Seq != seq {
			t.Errorf("acknowledged %s (seq %d): %+v, %v after the outage; lost", id, seq, d.Seq, err)
		}
	}
	for _, id := range w.failed {
		var i int
		fmt.Sscanf(id, "w%d", &i)
		if _, err := ix.Add(ctx, id, []byte(w.docs[i]), index.AddOptions{}); err != nil && !errors.Is(err, index.ErrExists) {
			t.Errorf("retry of the failed Add %s: %v; want success or ErrExists", id, err)
		}
	}
	r := indextest.Check(t, ix)
	if r.Documents < int64(len(w.acked)+len(w.failed)) {
		t.Errorf("%d documents after the outage and the retries, want at least %d", r.Documents, len(w.acked)+len(w.failed))
	}
	if _, err := ix.Add(ctx, "after", []byte(w.docs[0]+" and then some more words after it"), index.AddOptions{}); err != nil {
		t.Errorf("Add after the outage: %v", err)
	}
	ms, err := ix.Query(ctx, []byte(w.docs[0]), index.QueryOptions{})
	if err != nil || len(ms) == 0 {
		t.Errorf("Query after the outage: %v, %v; want the document itself at least", ms, err)
	}
	t.Logf("%d Adds acknowledged, %d failed during the outage and retried; %d documents", len(w.acked), len(w.failed), r.Documents)
}

// TestOutageStopped: the server is killed under a steady load of Adds.
// Every Add, Get and Query (and an Open of the index) fails with
// index.ErrUnavailable within outageBound, never another error; once the
// server is restarted on its port, the same store serves again within
// recoverWithin, and (with appendfsync always) no acknowledged Add was
// lost.
func TestOutageStopped(t *testing.T) {
	srv := redistest.Start(t, "--appendonly", "yes", "--appendfsync", "always")
	st, ix := outageIndex(t, srv)
	st2 := open(t, srv, st.o) // another client, whose meta is not read yet
	docs := indextest.GenDocs(t, 2000, 31)
	w := startWriter(t, ix, docs)
	w.waitFor(t, "20 acknowledged Adds", func(a, _ int) bool { return a >= 20 })
	var known string
	w.mu.Lock()
	for id := range w.acked {
		known = id
		break
	}
	w.mu.Unlock()

	srv.Kill()
	down := time.Now()
	for round := 0; round < 3; round++ { // the first dials fail, later ones meet go-redis's dial breaker
		for _, o := range outageOps(ix, docs, known) {
			wantUnavailable(t, srv, fmt.Sprint(o.name, " ", round), o.op)
		}
	}
	wantUnavailable(t, srv, "Open", func(c context.Context) error { _, err := index.Open(c, st2, index.Options{}); return err })
	w.waitFor(t, "a failed Add", func(_, f int) bool { return f > 0 })
	t.Logf("down for %v", time.Since(down))

	srv.Restart()
	t.Logf("served again %v after the restart", waitServed(t, ix, known, docs[len(docs)-1]))
	a, _ := w.counts()
	w.waitFor(t, "10 more Adds acknowledged", func(acked, _ int) bool { return acked >= a+10 })
	w.finish(t)
	if _, err := index.Open(ctx, st2, index.Options{}); err != nil {
		t.Errorf("Open after the restart: %v", err)
	}
	checkAfter(t, ix, w)
}

// TestOutagePaused: the server is paused (SIGSTOP) under a steady load of
// Adds, for longer than several Timeouts: every request comes back with
// index.ErrUnavailable within outageBound rather than when the pause
// ends, sequential or concurrent, and Open does too; a caller's own
// deadline or cancellation is its context error, not ErrUnavailable.
// Once resumed, the same store serves again and nothing acknowledged is
// lost.
func TestOutagePaused(t *testing.T) {
	srv := redistest.Start(t)
	st, ix := outageIndex(t, srv)
	st2 := open(t, srv, st.o)
	docs := indextest.GenDocs(t, 2000, 37)
	w := startWriter(t, ix, docs)
	w.waitFor(t, "20 acknowledged Adds", func(a, _ int) bool { return a >= 20 })
	var known string
	w.mu.Lock()
	for id := range w.acked {
		known = id
		break
	}
	w.mu.Unlock()

	srv.Pause()
	paused := time.Now()
	for _, o := range outageOps(ix, docs, known) {
		wantUnavailable(t, srv, o.name, o.op)
	}
	var wg sync.WaitGroup
	for i := range 6 { // several requests at once, each on its own connection
		ops := outageOps(ix, docs[i*7:], known)
		wg.Go(func() { wantUnavailable(t, srv, "concurrent "+ops[i%3].name, ops[i%3].op) })
	}
	wg.Wait()
	wantUnavailable(t, srv, "Open", func(c context.Context) error { _, err := index.Open(c, st2, index.Options{}); return err })
	wantUnavailable(t, srv, "redisstore.Open", func(c context.Context) error {
		st, err := Open(c, srv.URL(0), Options{Timeout: outageTimeout})
		if err == nil {
			st.Close()
		}
		return err
	})

	// The caller's own deadline and cancellation.
	for _, c := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"deadline", func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, 100*time.Millisecond) }, context.DeadlineExceeded},
		{"cancel", func() (context.Context, context.CancelFunc) {
			c, cancel := context.WithCancel(ctx)
			time.AfterFunc(50*time.Millisecond, cancel)
			return c, cancel
		}, context.Canceled},
		{"canceled before", func() (context.Context, context.CancelFunc) {
			c, cancel := context.WithCancel(ctx)
			cancel()
			return c, cancel
		}, context.Canceled},
	} {
		for _, o := range outageOps(ix, docs, known) {
			cctx, cancel := c.ctx()
			start := time.Now()
			err := o.op(cctx)
			took := time.Since(start)
			cancel()
			if !errors.Is(err, c.want) || errors.Is(err, index.ErrUnavailable) || took >= outageBound {
				t.Errorf("%s with the caller's %s: %v after %v; want %v, not ErrUnavailable, within %v", o.name, c.name, err, took, c.want, outageBound)
			}
		}
	}
	w.waitFor(t, "a failed Add", func(_, f int) bool { return f > 0 })
	if d := time.Since(paused); d < 4*outageTimeout {
		t.Fatalf("paused for only %v: the test proves nothing", d)
	} else {
		t.Logf("paused for %v", d)
	}

	srv.Resume()
	t.Logf("served again %v after the resumption", waitServed(t, ix, known, docs[len(docs)-1]))
	a, _ := w.counts()
	w.waitFor(t, "10 more Adds acknowledged", func(acked, _ int) bool { return acked >= a+10 })
	w.finish(t)
	if _, err := index.Open(ctx, st2, index.Options{}); err != nil {
		t.Errorf("Open after the resumption: %v", err)
	}
	checkAfter(t, ix, w)
}

// replyError is a reply of the server, as go-redis makes them.
type replyError string

func (e replyError) Error() string { return string(e) }
func (replyError) RedisError()     {}

// TestUnavailableErrors: which errors mean that the server cannot be
// reached or did not answer in time, and what failure makes of them.
func TestUnavailableErrors(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &net.AddrError{Err: "x"}}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{io.EOF, true},
		{io.ErrUnexpectedEOF, true},
		{refused, true},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), true},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{fmt.Errorf("write: %w", syscall.EPIPE), true},
		{context.DeadlineExceeded, true},
		{redis.ErrPoolTimeout, true},
		{redis.ErrClosed, true},
		{replyError("LOADING Redis is loading the dataset in memory"), true},
		{replyError("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSCRIPT."), true},
		{replyError("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."), true},
		{replyError("ERR max number of clients reached"), true},
		{replyError("WRONGTYPE Operation against a key holding the wrong kind of value"), false},
		{replyError("OOM command not allowed when used memory > 'maxmemory'."), false},
		{redis.Nil, false},
		{redis.TxFailedErr, false},
		{context.Canceled, false},
		{neardup.ErrCorrupt, false},
		{errors.New("redis: can't parse reply"), false},
	} {
		if got := unavailable(c.err); got != c.want {
			t.Errorf("unavailable(%v) = %v, want %v", c.err, got, c.want)
		}
	}

	s := &Store{where: "redis://127.0.0.1:1/0", o: Options{Timeout: time.Second}}
	if err := s.failure(ctx, "GET", context.DeadlineExceeded); !errors.Is(err, index.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) ||
		err.Error() != "redisstore: redis://127.0.0.1:1/0: GET: no answer within 1s: index: store unavailable" {
		t.Errorf("the round trip's own deadline: %v", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.failure(canceled, "GET", context.DeadlineExceeded); !errors.Is(err, context.Canceled) || errors.Is(err, index.ErrUnavailable) {
		t.Errorf("the caller's cancellation: %v", err)
	}
	if err := s.failure(ctx, "GET", replyError("WRONGTYPE x")); errors.Is(err, index.ErrUnavailable) || !strings.Contains(err.Error(), "WRONGTYPE") {
		t.Errorf("a fault: %v", err)
	}
	s.closed.Store(true)
	if err := s.failure(ctx, "GET", io.EOF); !errors.Is(err, index.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}
