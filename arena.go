package neardup

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"unsafe"

	"github.com/neardup/neardup/shingle"
)

// A sigArena holds the per-document signatures of a batch that keeps no
// sets (VerifyEstimate and the two-pass mode) in one reserved range of
// address space, document d at u32[d*slots:(d+1)*slots]. Workers write
// their chunks' signatures straight into it; once the identical sets are
// known, the distinct sets' signatures are moved to the front in place,
// which is then the flat array LSH reads, and the rest is given back.
// Without it, the chunks' signatures and the flat copy are both in memory
// for a moment (10 GB for 10 million documents instead of 5), and the copy
// touches fresh memory.
//
// The arena must stay reachable while anything reads u32: the views keep
// it.
//
// The arena is memory the Go runtime does not count: the bytes it holds
// (from the first handed out to the last not released, in whole pages)
// are taken off the runtime's soft memory limit while it holds them
// (offHeap), so that a limit set for the process (dedup --memory-limit)
// bounds the heap and the arenas together.
type sigArena struct {
	u32   []uint32
	slots int
	held  *arenaHeld
}

// chunk returns the zero-length slice with room for the signatures of n
// documents from start on, or nil if the arena is too small for them. It
// may be called concurrently for disjoint ranges.
func (a *sigArena) chunk(start, n int) []uint32 {
	if a == nil {
		return nil
	}
	lo, hi := start*a.slots, (start+n)*a.slots
	if hi > len(a.u32) {
		return nil
	}
	a.held.reach(int64(hi) * 4)
	return a.u32[lo:lo:hi]
}

// bitmaps is chunk for an arena of shingle.Bitmap values (slots
// bitmapSlots): room for those of n documents from start on, zero, or nil.
func (a *sigArena) bitmaps(start, n int) []shingle.Bitmap {
	s := a.chunk(start, n)
	if s == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*shingle.Bitmap)(unsafe.Pointer(unsafe.SliceData(s[:n*bitmapSlots]))), n)
}

// uint64s is chunk for an arena of uint64 values (slots uint64Slots):
// room for n values from start on, zero, or nil.
func (a *sigArena) uint64s(start, n int) []uint64 {
	s := a.chunk(start, n)
	if s == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(s[:n*uint64Slots]))), n)
}

// reuse returns the arena's first n values as uint64s, whatever they hold
// (what was written there before and not released reads as it was; the
// rest as zero), or nil if the arena is too small: for a new use of an
// arena whose values are no longer needed, whose pages are already
// touched. The arena's own view of its values must not be used again.
func (a *sigArena) reuse(n int) []uint64 {
	if a == nil || uint64Slots*n > len(a.u32) {
		return nil
	}
	a.held.reach(int64(n) * 8)
	if n == 0 {
		return []uint64{}
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&a.u32[0])), n)
}

// uint64Slots is the number of uint32 values of a uint64: an arena
// created with it holds uint64 values (uint64s).
const uint64Slots = 2

// arenaPage is the unit release gives back.
const arenaPage = 1 << 12

// bitmapSlots is the number of uint32 values of a shingle.Bitmap: an arena
// created with it holds bitmaps.
const bitmapSlots = int(unsafe.Sizeof(shingle.Bitmap{}) / 4)

// arenaHeld counts the bytes an arena holds: reach moves the high-water
// mark up, release (through add) takes whole pages off. Each change is
// passed on to offHeap.
type arenaHeld struct {
	mu     sync.Mutex
	high   int64 // bytes from the start of the arena ever handed out
	bytes  int64 // of those, not released
	closed bool
}

func (h *arenaHeld) reach(to int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if to <= h.high || h.closed {
		return
	}
	d := to - h.high
	h.high, h.bytes = to, h.bytes+d
	offHeap.add(d)
}

func (h *arenaHeld) add(d int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	d = max(d, -h.bytes)
	if d < 0 && h.bytes+d < 4*arenaPage {
		// What is left are partial pages at the edges of released
		// ranges: not worth a lowered limit until the arena is unmapped.
		d = -h.bytes
	}
	h.bytes += d
	offHeap.add(d)
}

// drop gives back whatever the arena still held (it is unmapped).
func (h *arenaHeld) drop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		offHeap.add(-h.bytes)
		h.bytes, h.closed = 0, true
	}
}

// offHeap holds the bytes all arenas hold, and the runtime's soft memory
// limit as it was when they went from none to some: while they hold n
// bytes the limit is that one minus n (at least a quarter of it), and it
// is put back when they hold none again. With no limit set
// (math.MaxInt64, the default) nothing changes.
var offHeap offHeapLimit

type offHeapLimit struct {
	mu          sync.Mutex
	bytes, base int64
}

// add changes the bytes the arenas hold by d and sets the limit for them.
func (o *offHeapLimit) add(d int64) {
	if d == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.bytes == 0 {
		o.base = debug.SetMemoryLimit(-1)
	}
	o.bytes = max(o.bytes+d, 0)
	switch {
	case o.base == math.MaxInt64:
	case o.bytes == 0:
		debug.SetMemoryLimit(o.base)
	default:
		debug.SetMemoryLimit(max(o.base-o.bytes, o.base/4))
	}
}

// compact moves the signature of document uniq[u] to position u, for each
// u in order, and returns the first len(uniq) signatures. uniq must be
// increasing, so uniq[u] >= u and no signature is overwritten before it is
// moved. The memory of the other docs-len(uniq) signatures is released.
func (a *sigArena) compact(uniq []uint32, docs int) []uint32 {
	k := a.slots
	for u, d := range uniq {
		if int(d) != u {
			copy(a.u32[u*k:(u+1)*k], a.u32[int(d)*k:int(d+1)*k])
		}
	}
	n := len(uniq) * k
	a.release(n, docs*k)
	return a.u32[:n:n]
}

// useSigArena lets tests run the batch without an arena (the copy path of
// systems that refuse the reservation).
var useSigArena = true

// returnFreed collects garbage and returns the freed memory to the system
// now (debug.FreeOSMemory) before an allocation of about need bytes, at a
// point where most of the heap has just become garbage, so that the new
// pages do not come on top of freed ones not yet returned. It does so only
// when a soft memory limit is set and the memory the runtime holds plus
// need would come within half of it: far below the limit, the garbage is
// left to the collector, whose freed pages later allocations reuse without
// a fault (each page given back and touched again costs one, 1.6 to 15 µs
// a 4 KiB page on this project's machine depending on the host), and the
// forced collection and the release are not paid for (about 0.25 s at 1M
// documents).
func returnFreed(need int64) {
	if nearLimit(debug.SetMemoryLimit(-1), need) {
		debug.FreeOSMemory()
	}
}

// nearLimit reports whether the memory the runtime holds from the system
// plus need bytes would come within half of limit (false for no limit,
// math.MaxInt64).
func nearLimit(limit, need int64) bool {
	return limit != math.MaxInt64 && heldFromSystem()+max(need, 0) > limit/2
}

// heldFromSystem returns the bytes of memory the Go runtime holds from
// the system: everything it mapped, minus the heap pages it gave back.
func heldFromSystem() int64 {
	s := [2]metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	metrics.Read(s[:])
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return math.MaxInt64 / 2 // unknown: as if near the limit
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}
