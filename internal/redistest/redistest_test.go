package redistest

import (
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

// TestOutages: a paused server takes connections but answers nothing
// until resumed; a killed one refuses them until restarted on the same
// port.
func TestOutages(t *testing.T) {
	s := Start(t)
	if err := ping(s.Addr); err != nil {
		t.Fatalf("a started server: %v", err)
	}
	s.Pause()
	start := time.Now()
	err := ping(s.Addr)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("a paused server: %v after %v, want a timeout", err, time.Since(start))
	}
	s.Resume()
	if err := ping(s.Addr); err != nil {
		t.Fatalf("a resumed server: %v", err)
	}
	s.Pause() // Kill and Restart resume it first
	port := s.Port
	s.Kill()
	if err := ping(s.Addr); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("a killed server: %v, want connection refused", err)
	}
	s.Restart()
	if err := ping(s.Addr); err != nil || s.Port != port {
		t.Fatalf("a restarted server: %v on port %d (was %d)", err, s.Port, port)
	}
	s.Pause() // the cleanup stops a paused server too
}
