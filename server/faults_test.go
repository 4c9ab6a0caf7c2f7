package server

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/neardup/neardup/client"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/indextest"
)

// A damaged table met while serving fails that request with 500 corrupt
// and the server goes on serving the rest: no exit, no panic.
func TestServeCorruptTable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	st, err := index.OpenPebble(ctx, dir, index.PebbleOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Create(ctx, st, index.Meta{KeepTexts: true}, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	for i := range n {
		if _, err := ix.Add(ctx, fmt.Sprint(i), []byte(text(uint64(i), 60)), index.AddOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ix.Close()
	// Opening for writing flushes the log to tables; open it again for
	// reading (its band tables are read into memory), then damage the
	// tables under it, as a failing disk would while it serves.
	st, err = index.OpenPebble(ctx, dir, index.PebbleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = index.OpenPebble(ctx, dir, index.PebbleOptions{ReadOnly: true, CacheSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	ix, err = index.Open(ctx, st, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	ssts, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	blobs, _ := filepath.Glob(filepath.Join(dir, "*.blob"))
	if len(ssts) == 0 || len(blobs) == 0 {
		t.Fatalf("no tables to damage: %v %v", ssts, blobs)
	}
	// Texts sort last ("t" keys): damage the second half of each file.
	for _, f := range append(ssts, blobs...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for off := len(b) * 6 / 10; off < len(b)*9/10; off += 3000 {
			b[off] ^= 0x20
		}
		// In place, as a disk would: the open files see it.
		f, err := os.OpenFile(f, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt(b, 0); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	ts := newTestServerIndex(t, ix, Options{})
	corrupt, ok := 0, 0
	for i := range n {
		d, err := ts.c.Get(ctx, fmt.Sprint(i))
		switch {
		case err == nil && d.Text == text(uint64(i), 60):
			ok++
		case errors.Is(err, client.ErrCorrupt) && errors.Is(err, client.ErrInternal):
			corrupt++
		default:
			t.Fatalf("get %d: %+v %v; want its text or 500 corrupt", i, d, err)
		}
		if _, err := ts.c.Query(ctx, text(uint64(i), 60), client.QueryOptions{}); err != nil && !errors.Is(err, client.ErrCorrupt) {
			t.Fatalf("query %d: %v; want the matches or 500 corrupt", i, err)
		}
	}
	if corrupt == 0 || ok == 0 {
		t.Fatalf("%d corrupt, %d read: want some of each", corrupt, ok)
	}
	if err := ts.c.Health(ctx); err != nil {
		t.Fatalf("the server after corrupt reads: %v", err)
	}
}

// A disk below its reserve: writes 507 no_space with Retry-After, nothing
// written; reads 200; ready; writes taken again when space is back. A
// write-ahead log that cannot be written: 507 with "restart", every later
// write too, /readyz 503 saying so, reads 200.
func TestServeDiskFull(t *testing.T) {
	disk := indextest.NewDisk(vfs.NewMem())
	st, err := index.OpenPebble(ctx, "idx", index.PebbleOptions{FS: disk, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Create(ctx, st, index.Meta{KeepTexts: true}, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	ts := newTestServerIndex(t, ix, Options{})
	for i := range 10 {
		if _, err := ts.c.Add(ctx, fmt.Sprint(i), text(uint64(i), 40), client.AddOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	disk.Free.Store(index.DefaultReserve / 2)
	time.Sleep(150 * time.Millisecond) // free space is looked at every 100 ms
	resp := ts.postRaw(t, "/v1/documents", `{"id":"full","text":"`+text(99, 40)+`"}`)
	if resp.StatusCode != http.StatusInsufficientStorage || resp.Header.Get("Retry-After") == "" || !strings.Contains(resp.body, `"no_space"`) {
		t.Fatalf("add below the reserve: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), resp.body)
	}
	if _, err := ts.c.Get(ctx, "full"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("the refused document: %v", err)
	}
	if _, err := ts.c.Get(ctx, "3"); err != nil {
		t.Fatalf("get on a full disk: %v", err)
	}
	if err := ts.c.Ready(ctx); err != nil {
		t.Fatalf("ready on a full disk (reads work, writes wait for space): %v", err)
	}
	disk.Free.Store(1 << 40)
	if _, err := ts.c.Add(ctx, "back", text(100, 40), client.AddOptions{}); err != nil {
		t.Fatalf("add once space is back: %v", err)
	}

	disk.Match = indextest.Suffix(".log")
	disk.Full.Store(true)
	_, err = ts.c.Add(ctx, "lost", text(101, 40), client.AddOptions{})
	if !errors.Is(err, client.ErrNoSpace) {
		t.Fatalf("add when the log cannot be written: %v; want 507 no_space", err)
	}
	disk.Full.Store(false)
	_, err = ts.c.Add(ctx, "later", text(102, 40), client.AddOptions{})
	if !errors.Is(err, client.ErrNoSpace) || !strings.Contains(err.Error(), "restart") {
		t.Fatalf("add after the log failed: %v; want 507 no_space saying a restart is needed", err)
	}
	if err := ts.c.Ready(ctx); !errors.Is(err, client.ErrUnavailable) || !strings.Contains(err.Error(), "restart") {
		t.Fatalf("ready after the log failed: %v; want 503 saying a restart is needed", err)
	}
	if _, err := ts.c.Get(ctx, "back"); err != nil {
		t.Fatalf("get after the log failed: %v", err)
	}
}

// rawResponse is an answer with its body read.
type rawResponse struct {
	*http.Response
	body string
}

func (ts *testServer) postRaw(t *testing.T, path, body string) rawResponse {
	t.Helper()
	resp, err := ts.hc.Post(ts.ts.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := fmt.Fprint(&b, readAll(t, resp)); err != nil {
		t.Fatal(err)
	}
	return rawResponse{resp, b.String()}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return b.String()
}
