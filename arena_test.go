package neardup

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestArenaMemoryLimit: while an arena holds memory, the runtime's soft
// memory limit is lowered by it (the runtime does not count the arena), and
// it comes back as the arena releases it; with no limit set nothing changes.
func TestArenaMemoryLimit(t *testing.T) {
	a := newSigArena(32)
	if a == nil {
		t.Skip("no arena on this system")
	}
	const limit = 8 << 30
	prev := debug.SetMemoryLimit(limit)
	defer debug.SetMemoryLimit(prev)
	if got := a.chunk(0, 1000); got == nil {
		t.Fatal("chunk refused")
	}
	held := int64(1000 * 32 * 4)
	if got := debug.SetMemoryLimit(-1); got != limit-held {
		t.Fatalf("limit %d with %d bytes in the arena, want %d", got, held, limit-held)
	}
	a.chunk(500, 200) // below the high-water mark: nothing more
	if got := debug.SetMemoryLimit(-1); got != limit-held {
		t.Fatalf("limit %d after a chunk already counted, want %d", got, limit-held)
	}
	a.release(0, 1000*32/2)
	half := limit - held + 1000*32*4/2/4096*4096 // whole pages only
	if got := debug.SetMemoryLimit(-1); got != half {
		t.Fatalf("limit %d after releasing half, want %d", got, half)
	}
	a.release(1000*32/2, 1000*32)
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Fatalf("limit %d after releasing all, want %d back", got, limit)
	}
	// No limit: nothing changes.
	debug.SetMemoryLimit(math.MaxInt64)
	b := newSigArena(32)
	b.chunk(0, 1000)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("limit %d with none set", got)
	}
	b.release(0, 1000*32)
}

// TestArenaBitmaps: an arena of bitmaps hands out zeroed, distinct ranges,
// and compact moves the distinct sets' bitmaps to the front.
func TestArenaBitmaps(t *testing.T) {
	a := newSigArena(bitmapSlots)
	if a == nil {
		t.Skip("no arena on this system")
	}
	x, y := a.bitmaps(0, 3), a.bitmaps(3, 2)
	if len(x) != 3 || len(y) != 2 {
		t.Fatalf("lengths %d and %d", len(x), len(y))
	}
	for i := range x {
		x[i][i] = uint64(i + 1)
	}
	y[0][15], y[1][7] = 40, 50
	a.compact([]uint32{0, 2, 4}, 5)
	got := a.bitmaps(0, 3)
	if got[0][0] != 1 || got[1][2] != 3 || got[2][7] != 50 || got[2][15] != 0 {
		t.Fatalf("compacted bitmaps wrong: %v", got)
	}
}

// TestArenaReuse: an arena taken over as uint64s keeps what was written
// (the two passes' set store overwrites every value it reads) and reads
// released pages as zero, and counts toward the bytes arenas hold (which
// lower the memory limit) only what lies past its high-water mark.
func TestArenaReuse(t *testing.T) {
	a := newSigArena(4)
	if a == nil {
		t.Skip("no arena on this system")
	}
	held := func() int64 {
		offHeap.mu.Lock()
		defer offHeap.mu.Unlock()
		return offHeap.bytes
	}
	const docs = 4096 // 64 KiB of signatures
	sigs := a.chunk(0, docs)[:docs*4]
	for i := range sigs {
		sigs[i] = uint32(i + 1)
	}
	a.release(0, docs*4/2) // the first half's pages
	before := held()
	vals := a.reuse(docs * 2) // 64 KiB: what the signatures reached
	if len(vals) != docs*2 {
		t.Fatalf("reuse gave %d values", len(vals))
	}
	if vals[0] != 0 || vals[docs/2] != 0 {
		t.Fatalf("released pages read %#x, %#x, want 0", vals[0], vals[docs/2])
	}
	if want := uint64(docs*3+1) | uint64(docs*3+2)<<32; vals[docs*3/2] != want {
		t.Fatalf("value %d reads %#x, want the signatures' %#x", docs*3/2, vals[docs*3/2], want)
	}
	if got := held() - before; got != 0 {
		t.Fatalf("a reuse within the high-water mark added %d bytes", got)
	}
	more := a.reuse(docs * 4) // 128 KiB: 64 past the mark
	if len(more) != docs*4 || more[docs*3] != 0 {
		t.Fatalf("reuse past the mark: %d values, %#x at %d", len(more), more[docs*3], docs*3)
	}
	if got := held() - before; got != docs*4*4 {
		t.Fatalf("a reuse 64 KiB past the mark added %d bytes", got)
	}
	if a.reuse(len(a.u32)) != nil {
		t.Fatal("reuse beyond the arena gave values")
	}
	a.release(0, docs*4*2)
}

// TestNearLimit: memory is given back before a large allocation only when
// what the runtime holds plus the allocation would come within half of
// the soft limit, and never without a limit.
func TestNearLimit(t *testing.T) {
	live := make([]byte, 64<<20)
	for i := range live {
		live[i] = byte(i)
	}
	held := heldFromSystem()
	if held < int64(len(live)) || held > 1<<40 {
		t.Fatalf("heldFromSystem %d with %d bytes live", held, len(live))
	}
	for _, c := range []struct {
		limit, need int64
		want        bool
	}{
		{math.MaxInt64, 1 << 50, false},
		{8 * held, 0, false},
		{8 * held, held, false},
		{8 * held, 4 * held, true},
		{held, 0, true},
		{3 * held / 2, -1, true},
	} {
		if got := nearLimit(c.limit, c.need); got != c.want {
			t.Errorf("nearLimit(%d, %d) = %v with %d held, want %v", c.limit, c.need, got, held, c.want)
		}
	}
	runtime.KeepAlive(live)
}
