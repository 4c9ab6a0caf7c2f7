package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// The tests that run neardup as a separate process (signals, the
// service, crashes) share one build of it, made on first use and removed
// when the tests end.
var testBin struct {
	once     sync.Once
	dir, bin string
	err      error
	out      []byte
}

func TestMain(m *testing.M) {
	code := m.Run()
	if testBin.dir != "" {
		os.RemoveAll(testBin.dir)
	}
	os.Exit(code)
}

// neardupBinary returns the path of a neardup binary built from this
// package, skipping the test under -short, on Windows (no signals to
// send) or without the go command.
func neardupBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if runtime.GOOS == "windows" {
		t.Skip("sends POSIX signals")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	testBin.once.Do(func() {
		if testBin.dir, testBin.err = os.MkdirTemp("", "neardup-test-bin-"); testBin.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		testBin.bin = filepath.Join(testBin.dir, "neardup")
		testBin.out, testBin.err = exec.CommandContext(ctx, goTool, "build", "-o", testBin.bin, ".").CombinedOutput()
	})
	if testBin.err != nil {
		t.Fatalf("go build: %v\n%s", testBin.err, testBin.out)
	}
	return testBin.bin
}
