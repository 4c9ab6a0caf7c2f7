// Package redistest starts a real redis-server on a loopback port for a
// test, the way net/http/httptest starts an HTTP server: tests of the
// Redis store run against the real thing, never a mock.
//
// The server is the redis-server program on PATH (Debian's package; the
// script .ci/install-redis installs it). A test that calls Start skips,
// with a message naming the program and that script, when it is absent.
package redistest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Time limits of Start and of the cleanup.
const (
	readyTimeout = 5 * time.Second // from exec to the first PONG
	stopTimeout  = 5 * time.Second // from SIGTERM to exit, then SIGKILL
	portTries    = 3               // fresh ports tried when one is taken meanwhile
)

// Server is a running redis-server, stopped when its test ends. Its
// methods are not safe for concurrent use.
type Server struct {
	Addr string // "127.0.0.1:PORT"
	Port int
	Dir  string // its working directory (--dir), a temporary directory of the test

	t    testing.TB
	bin  string
	args []string
	proc *os.Process              // the running process
	stop func(sig syscall.Signal) // signals the process and waits for it; idempotent
}

// URL returns the redis:// URL of database db of the server.
func (s *Server) URL(db int) string { return fmt.Sprintf("redis://%s/%d", s.Addr, db) }

// Start starts a redis-server bound to 127.0.0.1 on a free port, with no
// persistence (--save "" --appendonly no) and a temporary --dir; args are
// appended to that command line (later directives win, so "--appendonly",
// "yes" turns the append-only file on). It returns once the server
// answers PING (at most 5 s) and registers a cleanup that stops it
// (SIGTERM, then SIGKILL after 5 s) and waits for it, logging its output
// if the test failed. When redis-server is not on PATH, the test is
// skipped. Start is safe for concurrent use; each call starts its own
// server.
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed (not on PATH): run .ci/install-redis to install Debian's redis-server")
	}
	dir := t.TempDir()
	var lastErr error
	for range portTries {
		port, err := freePort()
		if err != nil {
			t.Fatalf("redistest: no free loopback port: %v", err)
		}
		s := &Server{Port: port, Dir: dir, t: t, bin: bin, args: args}
		if err := s.start(); err == nil {
			t.Cleanup(func() { s.stop(syscall.SIGTERM) })
			return s
		}
		lastErr = err // most likely the port was taken between listen and exec
	}
	t.Fatalf("redistest: %v", lastErr)
	return nil
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	return port, l.Close()
}

// syncBuffer collects the server's output for failure messages.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b.Len() > 64<<10 {
		return len(p), nil // enough to explain a failure
	}
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Kill ends the server at once with SIGKILL, as a crash would (nothing
// is saved on the way out), and waits for it. Its port is closed: clients
// get "connection refused" until Restart.
func (s *Server) Kill() { s.stop(syscall.SIGKILL) }

// Stop ends the server with SIGTERM, as an administrator would (it saves
// what its configuration asks on the way out: an RDB snapshot with
// --save, the append-only file is fsynced), and waits for it (SIGKILL
// after 5 s).
func (s *Server) Stop() { s.stop(syscall.SIGTERM) }

// Restart starts the server again, after Kill or Stop (or stops it
// first), on the same port and directory with the same arguments (so it
// reloads what it persisted there), and waits until it answers PING, at
// most 5 s (a server loading its data answers LOADING until done). It
// fails the test if the server does not come up.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		s.t.Fatalf("redistest: restart: %v", err)
	}
}

// Pause stops the server process with SIGSTOP, as a hung server or a
// machine that stalls would: the kernel still accepts connections on its
// port (up to the listen backlog) and takes what clients send, but
// nothing is answered until Resume. The cleanup, Stop, Kill and Restart
// resume a paused server first.
func (s *Server) Pause() {
	s.t.Helper()
	if err := s.proc.Signal(syscall.SIGSTOP); err != nil {
		s.t.Fatalf("redistest: pause: %v", err)
	}
}

// Resume continues a paused server (SIGCONT) and waits until it answers
// PING again, at most 5 s; it fails the test if it does not.
func (s *Server) Resume() {
	s.t.Helper()
	if err := s.proc.Signal(syscall.SIGCONT); err != nil {
		s.t.Fatalf("redistest: resume: %v", err)
	}
	deadline := time.Now().Add(readyTimeout)
	for {
		err := ping(s.Addr)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redistest: resumed redis-server on port %d did not answer PING within %v: %v", s.Port, readyTimeout, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// start starts the process and waits until it answers PING.
func (s *Server) start() error {
	argv := append([]string{
		"--bind", "127.0.0.1",
		"--port", strconv.Itoa(s.Port),
		"--save", "",
		"--appendonly", "no",
		"--dir", s.Dir,
		"--daemonize", "no",
		"--logfile", "", // the log goes to standard output, kept for failures
	}, s.args...)
	cmd := exec.Command(s.bin, argv...)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	var once sync.Once
	t, port := s.t, s.Port
	s.proc = cmd.Process
	s.stop = func(sig syscall.Signal) {
		once.Do(func() {
			cmd.Process.Signal(sig)
			// A paused (SIGSTOPped) process acts on SIGTERM only once
			// continued; SIGKILL needs no help, and SIGCONT harms none.
			cmd.Process.Signal(syscall.SIGCONT)
			select {
			case <-exited:
			case <-time.After(stopTimeout):
				cmd.Process.Kill()
				<-exited
			}
			if t.Failed() {
				t.Logf("redis-server on port %d output:\n%s", port, out)
			}
		})
	}
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))
	deadline := time.Now().Add(readyTimeout)
	for {
		select {
		case <-exited:
			return fmt.Errorf("redis-server on port %d exited before answering PING (%v); its output:\n%s", s.Port, waitErr, out)
		default:
		}
		if ping(s.Addr) == nil {
			return nil
		}
		if time.Now().After(deadline) {
			s.stop(syscall.SIGKILL)
			return fmt.Errorf("redis-server on port %d did not answer PING within %v; its output:\n%s", s.Port, readyTimeout, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ping sends one PING and expects +PONG, within 500 ms.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}
