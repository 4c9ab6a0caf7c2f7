package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/client"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/server"
)

// Crash tests: writers insert into a served index while it dies (SIGKILL
// of the serve process, or a simulated power failure); after a restart on
// the same index every insertion that got a 2xx answer is there with its
// text, the duplicates that answer named are there too, and the index
// passes its consistency check.

const (
	crashWriters     = 8
	crashPerWriter   = 5000            // most insertions a writer tries in a cycle
	crashWantAcked   = 300             // acknowledged insertions before the crash...
	crashLoadTimeout = 5 * time.Second // ...or this long, whichever comes first
	crashReqTimeout  = 10 * time.Second
)

// crashAck is an acknowledged insertion.
type crashAck struct {
	id, text string
	dups     []string // the duplicates its answer named
	copyOf   string   // the id of the text it nearly copies, if that was acknowledged before it was sent
}

// crashText returns writer w's i-th text of a cycle and, for every fourth
// one, the index of the text it nearly copies (the previous one with a
// word more), else -1.
func crashText(cycle, w, i int) (string, int) {
	if i%4 == 3 {
		return serveText(1_000_000*cycle+10_000*w+i-1) + " cellar", i - 1
	}
	return serveText(1_000_000*cycle + 10_000*w + i), -1
}

// crashWithin runs fn and fails the test, with every goroutine's stack,
// if it takes longer than d (a deadlock, say). fn must not call t.Fatal.
func crashWithin(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(d):
		buf := make([]byte, 4<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("%s: not done within %v; goroutines:\n%s", what, d, buf)
	}
}

// crashLoad runs the writers against c and calls crash, while they are
// inserting, once crashWantAcked insertions were acknowledged or after
// crashLoadTimeout. crash must make every later request fail. record
// reports whether an acknowledgement that arrived counts (see
// TestServeCrashUnsynced); crashLoad returns those that count.
func crashLoad(t *testing.T, c *client.Client, cycle int, record func(func()) bool, crash func()) []crashAck {
	t.Helper()
	var (
		mu       sync.Mutex
		acks     []crashAck
		nAcked   atomic.Int64
		crashed  atomic.Bool
		inFlight atomic.Int64 // requests that failed after the crash
	)
	bg := context.Background()
	var wg sync.WaitGroup
	for w := range crashWriters {
		wg.Go(func() {
			ackedText := map[int]string{} // this writer's acknowledged texts, by i
			for i := 0; i < crashPerWriter && !crashed.Load(); i++ {
				id := fmt.Sprintf("c%d-w%d-%04d", cycle, w, i)
				text, orig := crashText(cycle, w, i)
				ctx, cancel := context.WithTimeout(bg, crashReqTimeout)
				res, err := c.Add(ctx, id, text, client.AddOptions{})
				cancel()
				if err != nil {
					if !crashed.Load() {
						t.Errorf("add %s before the crash: %v", id, err)
					} else {
						inFlight.Add(1)
					}
					return
				}
				a := crashAck{id: id, text: text}
				for _, m := range res.Duplicates {
					a.dups = append(a.dups, m.ID)
				}
				if _, ok := ackedText[orig]; ok {
					a.copyOf = fmt.Sprintf("c%d-w%d-%04d", cycle, w, orig)
					if !slices.Contains(a.dups, a.copyOf) {
						t.Errorf("add %s, a near-copy of %s: duplicates %v", id, a.copyOf, a.dups)
					}
				}
				if res.Status != 201 || !res.Added {
					t.Errorf("add %s: %+v", id, res)
				}
				ackedText[i] = text
				if record(func() { mu.Lock(); acks = append(acks, a); mu.Unlock() }) {
					nAcked.Add(1)
				}
			}
		})
	}
	deadline := time.Now().Add(crashLoadTimeout)
	for nAcked.Load() < crashWantAcked && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond) // vary the moment
	crashed.Store(true)
	crash()
	crashWithin(t, 60*time.Second, "the writers", wg.Wait)
	mu.Lock()
	defer mu.Unlock()
	t.Logf("cycle %d: %d insertions acknowledged before the crash, %d requests failed by it", cycle, len(acks), inFlight.Load())
	if len(acks) < 10 {
		t.Fatalf("cycle %d: only %d insertions acknowledged in %v", cycle, len(acks), crashLoadTimeout)
	}
	return acks
}

// crashVerify checks through c that every acknowledged insertion is in
// the index with its text, that the duplicates its answer named are in
// the index, and that a near-copy still finds what it copies.
func crashVerify(t *testing.T, c *client.Client, acks []crashAck) {
	t.Helper()
	bg := context.Background()
	seen := map[string]bool{}
	for _, a := range acks {
		seen[a.id] = true
	}
	missing := 0
	for _, a := range acks {
		ctx, cancel := context.WithTimeout(bg, crashReqTimeout)
		d, err := c.Get(ctx, a.id)
		if err == nil && a.copyOf != "" {
			var ms []client.Match
			ms, err = c.Duplicates(ctx, a.id, client.QueryOptions{})
			if err == nil && !slices.ContainsFunc(ms, func(m client.Match) bool { return m.ID == a.copyOf }) {
				t.Errorf("%s: duplicates %+v after the restart, without %s", a.id, ms, a.copyOf)
			}
		}
		cancel()
		switch {
		case errors.Is(err, client.ErrNotFound):
			missing++
			if missing <= 10 {
				t.Errorf("%s was acknowledged but is not in the index after the restart", a.id)
			}
		case err != nil:
			t.Fatalf("get %s: %v", a.id, err)
		case d.Text != a.text:
			t.Errorf("%s: text %q after the restart, want %q", a.id, d.Text, a.text)
		}
		// A duplicate an acknowledged answer named was committed before
		// it, so it is durable too, acknowledged or not.
		for _, id := range a.dups {
			if seen[id] {
				continue
			}
			seen[id] = true
			ctx, cancel := context.WithTimeout(bg, crashReqTimeout)
			_, err := c.Get(ctx, id)
			cancel()
			if err != nil {
				t.Errorf("%s, named as a duplicate of acknowledged %s: %v", id, a.id, err)
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d acknowledged insertions lost", missing, len(acks))
	}
}

// crashProc is a serve process.
type crashProc struct {
	cmd    *exec.Cmd
	c      *client.Client
	line   string
	stderr *serveBuffer
}

// crashStart starts bin serving dir on a free loopback port and waits
// until it is ready; the process is killed at cleanup if it still runs.
func crashStart(t *testing.T, bin, dir string) *crashProc {
	t.Helper()
	p := &crashProc{stderr: &serveBuffer{}}
	p.cmd = exec.Command(bin, "serve", "--index", dir, "--addr", "127.0.0.1:0", "--shutdown-timeout", "20s")
	p.cmd.Stderr = p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	p.line = readStartLine(t, stdout)
	if !serveListening.MatchString(p.line) {
		p.cmd.Process.Kill()
		p.cmd.Wait()
		t.Fatalf("start line %q; stderr:\n%s", p.line, p.stderr)
	}
	p.c = serveClient(t, p.line, "")
	return p
}

// stop sends sig and waits (up to 30 s) for the process to end; it returns
// how it ended.
func (p *crashProc) stop(t *testing.T, sig syscall.Signal) syscall.WaitStatus {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		<-done
		t.Fatalf("%v: the process did not end within 30 s; stderr:\n%s", sig, p.stderr)
	}
	return p.cmd.ProcessState.Sys().(syscall.WaitStatus)
}

// crashCheckCLI runs `neardup index stats --check` on dir and requires it
// to succeed (Fatal if not), and the index to hold between least and most
// documents (Error if not).
func crashCheckCLI(t *testing.T, bin, dir string, least, most int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "index", "stats", "--index", dir, "--check", "--json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("index stats --check: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	var rep struct {
		Documents int    `json:"documents"`
		Check     string `json:"check"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("index stats --check --json: %v\n%s", err, &stdout)
	}
	if rep.Check != "ok" {
		t.Fatalf("index stats --check: %s", &stdout)
	}
	if rep.Documents < least || rep.Documents > most {
		t.Errorf("index stats --check: %d documents, want %d to %d", rep.Documents, least, most)
	}
}

// The serve process is killed (SIGKILL) while writers insert, three times
// on the same index: each time `neardup index stats --check` passes on
// what is left, and the server started again has every insertion it
// acknowledged, and the duplicates it named. Then it stops on SIGTERM and
// the index passes the check again.
//
// Every 2xx answer counts, even one read after the kill: the server sent
// it before it died. A killed process loses only what it had not handed
// to the kernel. That covers a commit without pebble.Sync (Pebble keeps
// the tail of its write-ahead log, up to a 32 KiB block, in memory until
// a sync is asked for: the check then finds fewer documents than were
// acknowledged), an answer sent before the commit, or a broken recovery;
// but not data written and never fsynced, which TestServeCrashUnsynced
// catches.
func TestServeCrash(t *testing.T) {
	t0 := time.Now()
	bin := neardupBinary(t)
	dir := filepath.Join(t.TempDir(), "idx")

	var acks []crashAck
	attempted := 0 // at most
	const cycles = 3
	for cycle := range cycles {
		p := crashStart(t, bin, dir)
		if cycle == 0 && !strings.Contains(p.line, "(created)") {
			t.Errorf("start line %q", p.line)
		}
		crashVerify(t, p.c, acks)
		if t.Failed() {
			t.FailNow()
		}
		acks = append(acks, crashLoad(t, p.c, cycle, func(add func()) bool { add(); return true }, func() {
			ws := p.stop(t, syscall.SIGKILL)
			if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Errorf("killed: %v; stderr:\n%s", ws, p.stderr)
			}
		})...)
		attempted += crashWriters * crashPerWriter
		crashCheckCLI(t, bin, dir, len(acks), attempted)
	}
	p := crashStart(t, bin, dir)
	crashVerify(t, p.c, acks)
	if ws := p.stop(t, syscall.SIGTERM); ws.ExitStatus() != 143 || !strings.Contains(p.stderr.String(), "stopped") {
		t.Errorf("SIGTERM: %v; stderr:\n%s", ws, p.stderr)
	}
	crashCheckCLI(t, bin, dir, len(acks), attempted)
	t.Logf("%d insertions acknowledged in all, checked; %v", len(acks), time.Since(t0).Round(time.Millisecond))
}

// A simulated power failure (a copy of the file system as it was last
// synced, with some of the unsynced data) while writers insert through
// the HTTP server, three times on the same index: every insertion
// acknowledged before the copy was taken is in it, with the duplicates
// its answer named, and the index passes its check. Unlike a killed
// process, this loses what was written but not synced: it fails whenever
// an answer is sent before the write-ahead log is synced.
func TestServeCrashUnsynced(t *testing.T) {
	t0 := time.Now()
	bg := context.Background()
	fs := vfs.NewCrashableMem()
	rng := rand.New(rand.NewPCG(1, 2))
	open := func(fs vfs.FS, create bool) (*index.Index, *httptest.Server, *client.Client) {
		t.Helper()
		st, err := index.OpenPebble(context.Background(), "idx", index.PebbleOptions{FS: fs, CacheSize: 8 << 20})
		if err != nil {
			t.Fatal(err)
		}
		var ix *index.Index
		if create {
			ix, err = index.Create(bg, st, index.Meta{Params: neardup.Params{}, KeepTexts: true}, index.Options{})
		} else {
			ix, err = index.Open(bg, st, index.Options{})
		}
		if err != nil {
			st.Close()
			t.Fatal(err)
		}
		if !create {
			if _, err := ix.Check(bg); err != nil {
				ix.Close()
				t.Fatalf("after the crash: %v", err)
			}
		}
		srv, err := server.New(ix, server.Options{})
		if err != nil {
			ix.Close()
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv)
		c, err := client.New(ts.URL, client.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return ix, ts, c
	}
	ix, ts, c := open(fs, true)
	var acks []crashAck
	const cycles = 3
	for cycle := range cycles {
		var mu sync.Mutex // held while an acknowledgement is recorded, and while the copy is taken
		var crashed bool
		var crashFS *vfs.MemFS
		record := func(add func()) bool {
			mu.Lock()
			defer mu.Unlock()
			if crashed {
				return false // its sync may have come after the copy
			}
			add()
			return true
		}
		acks = append(acks, crashLoad(t, c, cycle, record, func() {
			cfg := vfs.CrashCloneCfg{}
			if cycle > 0 {
				cfg = vfs.CrashCloneCfg{UnsyncedDataPercent: 50, RNG: rng}
			}
			mu.Lock()
			crashFS = fs.CrashClone(cfg)
			crashed = true
			mu.Unlock()
			ts.CloseClientConnections()
			crashWithin(t, 30*time.Second, "closing the HTTP server", ts.Close)
		})...)
		var err error
		crashWithin(t, 30*time.Second, "closing the index", func() { err = ix.Close() })
		if err != nil {
			t.Fatal(err)
		}
		fs = crashFS
		ix, ts, c = open(fs, false)
		crashVerify(t, c, acks)
	}
	crashWithin(t, 30*time.Second, "closing the HTTP server", ts.Close)
	var err error
	crashWithin(t, 30*time.Second, "closing the index", func() { err = ix.Close() })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d insertions acknowledged in all, checked; %v", len(acks), time.Since(t0).Round(time.Millisecond))
}
