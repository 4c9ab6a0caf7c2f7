package index_test

import (
	"context"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/indextest"
)

// pebbleHarness makes PebbleStores in memory (vfs.NewMem); Reopen closes
// one and opens its file system again, as a restart would.
func pebbleHarness() indextest.Harness {
	var mu sync.Mutex
	fss := map[index.Store]vfs.FS{}
	open := func(t *testing.T, fs vfs.FS) index.Store {
		t.Helper()
		st, err := index.OpenPebble(context.Background(), "idx", index.PebbleOptions{FS: fs})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		mu.Lock()
		fss[st] = fs
		mu.Unlock()
		return st
	}
	return indextest.Harness{
		New: func(t *testing.T) index.Store { return open(t, vfs.NewMem()) },
		Reopen: func(t *testing.T, st index.Store) index.Store {
			t.Helper()
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			fs := fss[st]
			mu.Unlock()
			return open(t, fs)
		},
	}
}

// TestPebbleConformance runs the Store conformance suite on PebbleStore.
func TestPebbleConformance(t *testing.T) { indextest.Run(t, pebbleHarness()) }

// TestPebbleSameAsDedup is the suite's comparison with dedup on a bigger
// corpus (2000 documents), which the embedded store runs in seconds.
func TestPebbleSameAsDedup(t *testing.T) { indextest.SameAsDedup(t, pebbleHarness(), 2000) }
