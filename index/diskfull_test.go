package index_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/indextest"
)

func openDisk(t *testing.T, fs vfs.FS, create bool, memtable int) (*index.Index, *index.PebbleStore) {
	t.Helper()
	st, err := index.OpenPebble(context.Background(), "idx", index.PebbleOptions{FS: fs, Create: create, MemTableSize: memtable})
	if err != nil {
		t.Fatal(err)
	}
	var ix *index.Index
	if create {
		ix, err = index.Create(context.Background(), st, index.Meta{Params: faultParams(t), KeepTexts: true}, index.Options{})
	} else {
		ix, err = index.Open(context.Background(), st, index.Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	return ix, st
}

// bounded runs fn and fails the test if it takes longer than d: nothing
// may hang on a full disk.
func bounded(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: still running after %v", what, d)
	}
}

// Below the reserve, writes are refused with ErrNoSpace and change
// nothing; reads go on; writes are taken again when space is back.
func TestDiskBelowReserve(t *testing.T) {
	docs := indextest.GenDocs(t, 60, 3)
	fs := indextest.NewDisk(vfs.NewMem())
	ix, _ := openDisk(t, fs, true, 0)
	defer ix.Close()
	for i := range 30 {
		if _, err := ix.Add(ctx, fmt.Sprint(i), []byte(docs[i]), index.AddOptions{}); err != nil && !errors.Is(err, index.ErrNoShingles) {
			t.Fatal(err)
		}
	}
	before, err := ix.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fs.Free.Store(index.DefaultReserve - 1)
	time.Sleep(150 * time.Millisecond) // free space is looked at every 100 ms
	_, err = ix.Add(ctx, "refused", []byte(docs[40]), index.AddOptions{})
	if !errors.Is(err, index.ErrNoSpace) || !strings.Contains(err.Error(), "reserve") {
		t.Fatalf("add below the reserve: %v; want ErrNoSpace", err)
	}
	if err := ix.Remove(ctx, "0"); !errors.Is(err, index.ErrNoSpace) {
		t.Fatalf("remove below the reserve: %v; want ErrNoSpace", err)
	}
	after, err := ix.Stats(ctx)
	if err != nil || after != before {
		t.Fatalf("stats after refused writes: %+v %v; want %+v", after, err, before)
	}
	if _, err := ix.Get(ctx, "refused"); !errors.Is(err, index.ErrNotFound) {
		t.Fatalf("the refused document: %v", err)
	}
	if _, err := ix.Get(ctx, "0"); err != nil {
		t.Fatalf("read on a full disk: %v", err)
	}
	if _, err := ix.Query(ctx, []byte(docs[1]), index.QueryOptions{}); err != nil {
		t.Fatalf("query on a full disk: %v", err)
	}
	fs.Free.Store(1 << 40)
	if _, err := ix.Add(ctx, "taken", []byte(docs[41]), index.AddOptions{}); err != nil {
		t.Fatalf("add once space is back: %v", err)
	}
}

// A write of the write-ahead log that meets a full disk fails, and every
// later write fails at once (Pebble cannot take writes any more) while
// reads go on; no panic, no exit, Close returns; reopened, the index has
// every acknowledged document.
func TestDiskFullWAL(t *testing.T) {
	docs := indextest.GenDocs(t, 60, 4)
	mem := vfs.NewMem()
	fs := indextest.NewDisk(mem)
	fs.Match = indextest.Suffix(".log")
	ix, st := openDisk(t, fs, true, 0)
	acked := map[string]bool{}
	for i := range 20 {
		id := fmt.Sprint(i)
		if _, err := ix.Add(ctx, id, []byte(docs[i]), index.AddOptions{}); err == nil {
			acked[id] = true
		}
	}
	fs.Full.Store(true)
	var err error
	bounded(t, 10*time.Second, "add on a full disk", func() {
		_, err = ix.Add(ctx, "x", []byte(docs[30]), index.AddOptions{})
	})
	if !errors.Is(err, index.ErrNoSpace) {
		t.Fatalf("add when the log cannot be written: %v; want ErrNoSpace", err)
	}
	if st.Failed() == nil {
		t.Fatal("Failed is nil after the log could not be written")
	}
	fs.Full.Store(false) // space is back, but this Pebble cannot write again
	bounded(t, time.Second, "a later add", func() {
		_, err = ix.Add(ctx, "y", []byte(docs[31]), index.AddOptions{})
	})
	if !errors.Is(err, index.ErrNoSpace) || !strings.Contains(err.Error(), "reopened") {
		t.Fatalf("add after the store failed: %v; want ErrNoSpace saying it needs reopening", err)
	}
	bounded(t, 5*time.Second, "reads after the failure", func() {
		for id := range acked {
			if _, err := ix.Get(ctx, id); err != nil {
				t.Errorf("get %s: %v", id, err)
			}
		}
	})
	bounded(t, 10*time.Second, "close", func() { ix.Close() })

	ix, _ = openDisk(t, mem, false, 0)
	defer ix.Close()
	for id := range acked {
		if _, err := ix.Get(ctx, id); err != nil {
			t.Errorf("acknowledged %s after reopening: %v", id, err)
		}
	}
	indextest.Check(t, ix)
}

// A flush that meets a full disk: writes are refused with ErrNoSpace
// within a bounded time (never a hang), reads go on throughout, files do
// not pile up, and writes are taken again once space is back.
func TestDiskFullFlush(t *testing.T) {
	docs := indextest.GenDocs(t, 400, 5)
	mem := vfs.NewMem()
	fs := indextest.NewDisk(mem)
	fs.Match = indextest.Suffix(".sst", ".blob")
	ix, _ := openDisk(t, fs, true, 256<<10) // small memtables: a flush every few dozen documents
	acked := map[string]bool{}
	var mu sync.Mutex
	add := func(id, text string) error {
		_, err := ix.Add(ctx, id, []byte(text), index.AddOptions{})
		if err == nil {
			mu.Lock()
			acked[id] = true
			mu.Unlock()
		}
		return err
	}
	for i := range 50 {
		if err := add(fmt.Sprint(i), docs[i]); err != nil && !errors.Is(err, index.ErrNoShingles) {
			t.Fatal(err)
		}
	}
	files0, _ := mem.List("idx")

	// Readers run all along; none may wait more than two seconds.
	stop := make(chan struct{})
	var readers sync.WaitGroup
	readers.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			start := time.Now()
			if _, err := ix.Get(ctx, fmt.Sprint(i%40)); err != nil && !errors.Is(err, index.ErrNotFound) {
				t.Errorf("read during a full disk: %v", err)
				return
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("a read took %v during a full disk", d)
				return
			}
			time.Sleep(time.Millisecond)
		}
	})

	fs.Full.Store(true)
	refused := false
	deadline := time.Now().Add(20 * time.Second)
	for i := 50; i < len(docs) && time.Now().Before(deadline); i++ {
		var err error
		bounded(t, 15*time.Second, "an add while flushes fail", func() { err = add(fmt.Sprint(i), docs[i]) })
		if errors.Is(err, index.ErrNoSpace) {
			refused = true
			break
		}
		if err != nil && !errors.Is(err, index.ErrNoShingles) {
			t.Fatalf("add while flushes fail: %v", err)
		}
	}
	if !refused {
		t.Fatal("writes were never refused while flushes failed")
	}
	time.Sleep(time.Second) // Pebble retries the flush meanwhile
	files1, _ := mem.List("idx")
	if len(files1) > len(files0)+20 {
		t.Errorf("files went from %d to %d while flushes failed", len(files0), len(files1))
	}
	fs.Full.Store(false)
	taken := false
	for i := 0; i < 100 && !taken; i++ {
		err := add(fmt.Sprintf("back%d", i), docs[300+i%100])
		taken = err == nil
		if !taken {
			time.Sleep(100 * time.Millisecond)
		}
	}
	close(stop)
	readers.Wait()
	if !taken {
		t.Fatal("writes were not taken again within 10 s of space coming back")
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, _ = openDisk(t, mem, false, 256<<10)
	defer ix.Close()
	for id := range acked {
		if _, err := ix.Get(ctx, id); err != nil {
			t.Errorf("acknowledged %s after reopening: %v", id, err)
		}
	}
	indextest.Check(t, ix)
}

// Opening for writing on a disk below the reserve fails at once with
// ErrNoSpace; read-only works.
func TestDiskFullOpen(t *testing.T) {
	mem := vfs.NewMem()
	ix, _ := openDisk(t, mem, true, 0)
	if _, err := ix.Add(ctx, "a", []byte(indextest.GenDocs(t, 1, 6)[0]), index.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	fs := indextest.NewDisk(mem)
	fs.Free.Store(10 << 20)
	var err error
	bounded(t, 5*time.Second, "open on a full disk", func() {
		_, err = index.OpenPebble(ctx, "idx", index.PebbleOptions{FS: fs})
	})
	if !errors.Is(err, index.ErrNoSpace) || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("open for writing below the reserve: %v; want ErrNoSpace", err)
	}
	st, err := index.OpenPebble(ctx, "idx", index.PebbleOptions{FS: fs, ReadOnly: true})
	if err != nil {
		t.Fatalf("open read-only on a full disk: %v", err)
	}
	st.Close()
}

// An open whose flush of the replayed log meets a full disk returns
// ErrNoSpace within seconds, and one that waits on the disk returns when
// its context ends, instead of retrying for ever.
func TestDiskFullOpenBounded(t *testing.T) {
	docs := indextest.GenDocs(t, 50, 8)
	mem := vfs.NewMem()
	ix, _ := openDisk(t, mem, true, 0)
	for i, d := range docs {
		ix.Add(ctx, fmt.Sprint(i), []byte(d), index.AddOptions{})
	}
	ix.Close() // the records are in the log: opening for writing flushes them

	fs := indextest.NewDisk(mem)
	fs.Match = indextest.Suffix(".sst", ".blob")
	fs.Full.Store(true)
	var err error
	bounded(t, 10*time.Second, "open whose flush fails", func() {
		_, err = index.OpenPebble(ctx, "idx", index.PebbleOptions{FS: fs})
	})
	if !errors.Is(err, index.ErrNoSpace) {
		t.Fatalf("open whose flush meets a full disk: %v; want ErrNoSpace", err)
	}
	fs.Full.Store(false) // let the abandoned open finish and close
	for i := 0; ; i++ {
		st, err := index.OpenPebble(ctx, "idx", index.PebbleOptions{FS: mem, ReadOnly: true})
		if err == nil {
			st.Close()
			break
		}
		if !errors.Is(err, index.ErrInUse) || i == 100 {
			t.Fatalf("the abandoned open did not finish: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	fs2 := indextest.NewDisk(mem)
	fs2.Block = make(chan struct{})
	defer close(fs2.Block)
	c, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	bounded(t, 5*time.Second, "open whose disk does not answer", func() {
		_, err = index.OpenPebble(c, "idx", index.PebbleOptions{FS: fs2})
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("open whose disk does not answer: %v; want the context's error", err)
	}
}
