//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A target that is not a regular file (a device, a named pipe) is written
// in place: renaming over /dev/null would replace the device by a file.
func TestNonRegularTarget(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(fifo) // blocks until the writer opens and closes
		got <- b
	}()
	f, err := Create(fifo)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("through the pipe"); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-got:
		if string(b) != "through the pipe" {
			t.Errorf("read %q", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing arrived through the pipe")
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v, %v", fi.Mode(), err)
	}
}
