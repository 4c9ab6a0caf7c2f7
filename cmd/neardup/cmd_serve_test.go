package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/client"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/redistest"
)

// serveText returns a text of 30 words chosen by seed.
func serveText(seed int) string {
	words := strings.Fields("apartment bright spacious kitchen garden balcony parking station quiet street renovated floor heating windows garage storage school market river park view modern wooden bathroom shower")
	w := make([]string, 30)
	x := uint32(seed)*2654435761 + 1
	for i := range w {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		w[i] = words[x%uint32(len(words))]
	}
	return strings.Join(w, " ")
}

var serveListening = regexp.MustCompile(`^neardup serve: listening on (http://\S+) `)

// readStartLine returns the first line of r, within 60 s, and drains the
// rest in the background.
func readStartLine(t *testing.T, r io.Reader) string {
	t.Helper()
	lines := make(chan string, 1)
	go func() {
		br := bufio.NewReader(r)
		line, _ := br.ReadString('\n')
		lines <- line
		io.Copy(io.Discard, br)
	}()
	select {
	case line := <-lines:
		return line
	case <-time.After(60 * time.Second):
		t.Fatal("no start line within 60 s")
		return ""
	}
}

// serveClient returns a client of the server that printed line, once it
// is ready (within 10 s).
func serveClient(t *testing.T, line, token string) *client.Client {
	t.Helper()
	m := serveListening.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("start line %q", line)
	}
	c, err := client.New(m[1], client.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for c.Ready(ctx) != nil {
		if ctx.Err() != nil {
			t.Fatalf("%s not ready within 10 s", m[1])
		}
		time.Sleep(20 * time.Millisecond)
	}
	return c
}

// serveReopen opens the index in dir, checks it and returns its documents' ids.
func serveReopen(t *testing.T, dir string) map[string]bool {
	t.Helper()
	st, err := index.OpenPebble(context.Background(), dir, index.PebbleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(context.Background(), st, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	err = st.View(context.Background(), func(tx index.Tx) error {
		return tx.EachDoc(func(d index.Doc) error { ids[d.ID] = true; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// The binary serves an index it creates, finishes requests in flight on
// SIGTERM and exits 143 with every acknowledged insertion durable; started
// again without parameter flags it opens the index with its own
// parameters, and exits 130 on SIGINT.
func TestServeProcess(t *testing.T) {
	bin := neardupBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "idx") // missing: created
	start := func(args ...string) (*exec.Cmd, *client.Client, string, *bytes.Buffer) {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--index", dir, "--addr", "127.0.0.1:0"}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line := readStartLine(t, stdout)
		return cmd, serveClient(t, line, ""), line, &stderr
	}
	wait := func(cmd *exec.Cmd, sig syscall.Signal, code int, stderr *bytes.Buffer) {
		t.Helper()
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != code {
			t.Fatalf("%v: %v, want exit status %d; stderr:\n%s", sig, err, code, stderr)
		}
	}

	cmd, c, line, stderr := start("--threshold", "0.6", "--ngram", "4")
	if !strings.Contains(line, "(created)") || !strings.Contains(line, "word 4-grams") || !strings.Contains(line, "threshold 0.6") || !strings.Contains(line, "0 documents") {
		t.Errorf("start line %q", line)
	}
	bg := context.Background()
	if _, err := c.Add(bg, "a/1", serveText(1), client.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := c.Add(bg, "a/2", serveText(1), client.AddOptions{})
	if err != nil || len(res.Duplicates) != 1 || res.Duplicates[0].ID != "a/1" {
		t.Fatalf("add a copy: %+v, %v", res, err)
	}
	// Writers keep inserting while SIGTERM arrives: whatever got a 2xx
	// must be in the index afterwards.
	var acked sync.Map
	var nAcked atomic.Int64
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 500 {
				id := fmt.Sprintf("w%d-%d", w, i)
				if _, err := c.Add(bg, id, serveText(1000*w+i+10), client.AddOptions{}); err != nil {
					return // the server went away
				}
				acked.Store(id, true)
				nAcked.Add(1)
			}
		})
	}
	for deadline := time.Now().Add(20 * time.Second); nAcked.Load() < 40 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	wait(cmd, syscall.SIGTERM, 143, stderr)
	wg.Wait()
	if !strings.Contains(stderr.String(), "stopped") {
		t.Errorf("stderr:\n%s", stderr)
	}
	ids := serveReopen(t, dir)
	n := 0
	acked.Range(func(k, _ any) bool {
		n++
		if !ids[k.(string)] {
			t.Errorf("%s was acknowledged but is not in the index", k)
		}
		return true
	})
	if n < 40 || !ids["a/1"] || !ids["a/2"] {
		t.Errorf("%d acknowledged; a/1 %v, a/2 %v", n, ids["a/1"], ids["a/2"])
	}

	// Again, without parameter flags: the index's own are used.
	cmd, c, line, stderr = start()
	if !strings.Contains(line, "(opened)") || !strings.Contains(line, "word 4-grams") || !strings.Contains(line, "threshold 0.6") || !strings.Contains(line, fmt.Sprintf("; %d documents", len(ids))) {
		t.Errorf("start line %q (%d documents)", line, len(ids))
	}
	if d, err := c.Get(bg, "a/1"); err != nil || d.Text != serveText(1) {
		t.Errorf("get a/1 after the restart: %+v, %v", d, err)
	}
	if err := c.Remove(bg, "a/2"); err != nil {
		t.Error(err)
	}
	wait(cmd, syscall.SIGINT, 130, stderr)
	if ids := serveReopen(t, dir); ids["a/2"] || !ids["a/1"] {
		t.Errorf("after the removal: a/1 %v, a/2 %v", ids["a/1"], ids["a/2"])
	}
}

// serveBuffer is a bytes.Buffer safe for concurrent use.
type serveBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *serveBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *serveBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveInProcess runs "neardup serve args" in this process until stop is
// called with a signal, which returns the exit code and standard error.
func serveInProcess(t *testing.T, token string, args ...string) (c *client.Client, line string, stop func(syscall.Signal) (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	pr, pw := io.Pipe()
	stderr := &serveBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), strings.NewReader(""), pw, stderr)
		pw.Close()
	}()
	lines := make(chan string, 1)
	go func() {
		br := bufio.NewReader(pr)
		l, _ := br.ReadString('\n')
		lines <- l
		io.Copy(io.Discard, br)
	}()
	select {
	case line = <-lines:
	case code := <-done:
		t.Fatalf("serve %q: exit %d before serving: %s", args, code, stderr)
	case <-time.After(30 * time.Second):
		cancel(nil)
		t.Fatal("no start line within 30 s")
	}
	stopped := false
	stop = func(sig syscall.Signal) (int, string) {
		stopped = true
		cancel(&signalError{sig})
		select {
		case code := <-done:
			return code, stderr.String()
		case <-time.After(40 * time.Second):
			t.Fatal("serve did not stop within 40 s")
			return 0, ""
		}
	}
	t.Cleanup(func() {
		if !stopped {
			stop(syscall.SIGTERM)
		}
	})
	return serveClient(t, line, token), line, stop
}

// With --token-file, requests need the token; flags that agree with an
// existing index are accepted.
func TestServeToken(t *testing.T) {
	dir := t.TempDir()
	tokFile := write(t, dir, "token", "  s3cret-token\n")
	idx := filepath.Join(dir, "idx")
	c, _, stop := serveInProcess(t, "s3cret-token", "--index", idx, "--token-file", tokFile, "--keep-texts=false")
	bg := context.Background()
	if _, err := c.Add(bg, "a", serveText(1), client.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	if d, err := c.Get(bg, "a"); err != nil || d.HasText {
		t.Errorf("get: %+v, %v", d, err)
	}
	if code, stderr := stop(syscall.SIGTERM); code != 143 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	c, line, stop := serveInProcess(t, "", "--index", idx, "--token-file", tokFile, "--threshold", "0.5", "--num-perm", "128", "--shingle", "word", "--keep-texts=false")
	if !strings.Contains(line, "bearer token required") || !strings.Contains(line, "texts not kept") || !strings.Contains(line, "; 1 document") {
		t.Errorf("start line %q", line)
	}
	if _, err := c.Get(bg, "a"); !errors.Is(err, client.ErrUnauthorized) {
		t.Errorf("without the token: %v", err)
	}
	if code, _ := stop(syscall.SIGINT); code != 130 {
		t.Errorf("exit %d", code)
	}
}

// --max-body and --max-in-flight-bytes reach the server: a Content-Length
// over --max-body is answered 413 at once (the body never sent), with the
// server's timeouts in place; the budget is the flag's, or 8 x --max-body.
func TestServeBodyLimits(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args   []string
		budget string
	}{
		{[]string{"--max-in-flight-bytes", "10000"}, "10000"},
		{nil, "32768"},
		{[]string{"--max-in-flight-bytes", "-1"}, "+Inf"},
	} {
		_, line, stop := serveInProcess(t, "", append([]string{"--index", filepath.Join(dir, "idx"), "--max-body", "4096"}, c.args...)...)
		base := serveListening.FindStringSubmatch(line)[1]
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := "\nneardup_http_request_body_budget_bytes " + c.budget + "\n"; !strings.Contains(string(b), want) {
			t.Errorf("%q: metrics lack %q", c.args, want[1:])
		}
		conn, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(2 * time.Second))
		fmt.Fprintf(conn, "POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 8192\r\n\r\n")
		status, err := bufio.NewReader(conn).ReadString('\n')
		conn.Close()
		if err != nil || !strings.HasPrefix(status, "HTTP/1.1 413 ") {
			t.Errorf("%q: a Content-Length over --max-body: %q, %v; want 413 within 2 s", c.args, status, err)
		}
		if code, stderr := stop(syscall.SIGTERM); code != 143 {
			t.Fatalf("exit %d, stderr:\n%s", code, stderr)
		}
	}
}

// --store serves an index in Redis.
func TestServeRedis(t *testing.T) {
	rs := redistest.Start(t)
	c, line, stop := serveInProcess(t, "", "--store", rs.URL(3), "--threshold", "0.7")
	if !strings.Contains(line, "index "+rs.URL(3)+" (created)") || !strings.Contains(line, "threshold 0.7") {
		t.Errorf("start line %q", line)
	}
	bg := context.Background()
	if _, err := c.Add(bg, "a", serveText(1), client.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := c.Add(bg, "b", serveText(1), client.AddOptions{})
	if err != nil || len(res.Duplicates) != 1 || res.Duplicates[0].ID != "a" {
		t.Fatalf("add a copy: %+v, %v", res, err)
	}
	if code, stderr := stop(syscall.SIGTERM); code != 143 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	// A second process sees the same index.
	c, line, _ = serveInProcess(t, "", "--store", rs.URL(3))
	if !strings.Contains(line, "(opened)") || !strings.Contains(line, "threshold 0.7") || !strings.Contains(line, "; 2 documents") {
		t.Errorf("start line %q", line)
	}
	if ms, err := c.Query(bg, serveText(1), client.QueryOptions{}); err != nil || len(ms) != 2 {
		t.Errorf("query: %+v, %v", ms, err)
	}
}

// Mistakes are refused before anything is opened or listened on, with a
// message naming the flag.
func TestServeRefusals(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx")
	f := func(code int, want string, args ...string) {
		t.Helper()
		got, stdout, stderr := cli(t, "", append([]string{"serve"}, args...)...)
		if got != code || stdout != "" || !strings.Contains(stderr, want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", args, got, stdout, stderr, code, want)
		}
	}
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0", "example.com:80"} {
		f(exitUsage, "without --token-file the server listens only on loopback", "--index", idx, "--addr", addr)
	}
	f(exitUsage, "--addr \"nope\": want HOST:PORT", "--index", idx, "--addr", "nope")
	if _, err := os.Stat(idx); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused serve created the index: %v", err)
	}
	f(exitUsage, "--index DIR or --store redis://HOST:PORT/DB is required")
	f(exitUsage, "--index and --store exclude each other", "--index", idx, "--store", "redis://127.0.0.1:1/0")
	f(exitUsage, "--max-body 0: want a positive", "--index", idx, "--max-body", "0")
	f(exitUsage, "--max-batch -1: want a positive", "--index", idx, "--max-batch", "-1")
	f(exitUsage, "--max-in-flight-bytes -2: want a positive number of bytes, 0 (8 x --max-body) or -1 (no limit)", "--index", idx, "--max-in-flight-bytes", "-2")
	f(exitUsage, "--max-bucket 0: want a positive number, or -1", "--index", idx, "--max-bucket", "0")
	f(exitUsage, "--write-timeout 0s: want a positive duration", "--index", idx, "--write-timeout", "0")
	f(exitUsage, "--threshold 1.5: want a number in (0, 1]", "--index", idx, "--threshold", "1.5")
	f(exitUsage, "unexpected argument \"extra\"", "--index", idx, "extra")
	f(exitUsage, "--store redis://nope:x/0: ", "--store", "redis://nope:x/0")
	f(exitError, "--token-file "+filepath.Join(dir, "none")+": no such file", "--index", idx, "--token-file", filepath.Join(dir, "none"))
	f(exitError, "the file is empty", "--index", idx, "--token-file", write(t, dir, "empty", " \n"))
	f(exitError, "white space inside", "--index", idx, "--token-file", write(t, dir, "two", "a b\n"))
	other := filepath.Join(dir, "other")
	write(t, other, "notes.txt", "mine")
	f(exitError, "holds other files and no index", "--index", other)

	// An existing index: flags given are checked against its parameters.
	st, err := index.OpenPebble(context.Background(), idx, index.PebbleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Create(context.Background(), st, index.Meta{Params: neardup.Params{Threshold: 0.6}, KeepTexts: true}, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	f(exitError, "made with --threshold=0.6; --threshold=0.5 differs from it", "--index", idx, "--threshold", "0.5")
	f(exitError, "made with --ngram=3; --ngram=5 differs from it", "--index", idx, "--ngram", "5")
	f(exitError, "made with --num-perm=128; --num-perm=64 differs from it", "--index", idx, "--num-perm", "64")
	f(exitError, "made with --keep-texts=true; --keep-texts=false differs from it", "--index", idx, "--keep-texts=false")
	if ids := serveReopen(t, idx); len(ids) != 0 {
		t.Errorf("documents %v", ids)
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "127.0.0.1": true, "127.1.2.3": true, "::1": true, "::ffff:127.0.0.1": true, "fe80::1%lo": false, "::1%lo": true,
		"": false, "0.0.0.0": false, "::": false, "10.0.0.1": false, "localhost.example.com": false, "128.0.0.1": false,
	} {
		if got := isLoopback(host); got != want {
			t.Errorf("isLoopback(%q) = %v", host, got)
		}
	}
}
