package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for a writer and a poller.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// index query - and index query --add - answer each document as soon as
// it has been read when the input pauses, not at the end of the input: a
// writer that waits for each answer before sending the next document
// gets them all.
func TestIndexQueryStreamsStdin(t *testing.T) {
	dir := t.TempDir()
	ix := filepath.Join(dir, "ix")
	in := write(t, dir, "in.jsonl", fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n", adA))
	if code, _, stderr := cli(t, "", "index", "build", "--quiet", "--index", ix, in); code != 0 {
		t.Fatal(stderr)
	}
	other := "A completely different text about gardening, tomatoes and roses in the spring sun of the hills"
	for _, args := range [][]string{
		{"index", "query", "--quiet", "--index", ix, "-"},
		{"index", "query", "--quiet", "--add", "--index", ix, "-"},
	} {
		pr, pw := io.Pipe()
		var stdout, stderr syncBuffer
		done := make(chan int, 1)
		go func() { done <- run(context.Background(), args, pr, &stdout, &stderr) }()
		send := func(id, text, want string) {
			t.Helper()
			if _, err := fmt.Fprintf(pw, "{\"id\":%q,\"text\":%q}\n", id, text); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(5 * time.Second)
			for !strings.Contains(stdout.String(), want) {
				if time.Now().After(deadline) {
					t.Fatalf("%v: no answer %q for %s within 5 s of sending it; output so far %q, stderr %q", args[3], want, id, stdout.String(), stderr.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		send("q1", adC, "q1\ta\t")
		send("q2", adA, "q2\ta\t1.000000")
		if args[3] == "--add" {
			// q3 has no near-duplicate: added; q4, its copy, is answered
			// with it, so q3 was in the index before q4 was read.
			send("q3", other, "q2\ta\t1.000000")
			send("q4", other, "q4\tq3\t1.000000")
		}
		pw.Close()
		select {
		case code := <-done:
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v: did not end at the end of the input", args)
		}
	}
}
