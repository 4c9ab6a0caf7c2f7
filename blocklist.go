// blockList: the lists the workers append candidate and verified pairs
// to, grown a block at a time so that growing never copies.

package neardup

import (
	"unsafe"

	"github.com/neardup/neardup/internal/hugepage"
)

// blockList is a list that grows in blocks of blockLen values, so that
// growing it never copies what it holds: a slice grown by append copies
// everything at each doubling and touches about twice the memory, which on
// a machine where fresh memory is slow to touch costs more than the values.
//
// The workers' lists sit side by side in a slice and each is written on
// every add: the padding keeps two lists off one cache line and off its
// pair (the CPU fetches lines two at a time). Unpadded, the two workers'
// adds took the line from each other, 46 ns an add of a verified pair
// (6.7 s of CPU at 10M documents).
type blockList[T any] struct {
	blocks [][]T
	n      int
	// more, when not nil, gives the next block (an empty slice with
	// room), or nil for one of blockLen from the heap.
	more func() []T
	// slab is where the next blocks from the heap are cut: four times the
	// blocks the list has, up to listSlabBytes, on huge pages until its last
	// block is cut (as a block from the heap at a time, the held pairs'
	// blocks were a tenth of the page faults of a 1M run).
	slab, whole []T
	_           [128 - 88]byte
}

const blockLen = 1 << 14

// listSlabBytes is the size of a blockList's slabs (tests make it
// smaller).
var listSlabBytes = 8 << 20

func (l *blockList[T]) add(x T) {
	if len(l.blocks) == 0 || len(l.blocks[len(l.blocks)-1]) == cap(l.blocks[len(l.blocks)-1]) {
		var blk []T
		if l.more != nil {
			blk = l.more()
		}
		if blk == nil {
			if len(l.slab) == 0 {
				// Four times the blocks the list has, up to
				// listSlabBytes: a short list takes one block, as
				// before slabs.
				most := max(1, listSlabBytes/(blockLen*int(unsafe.Sizeof(x))))
				l.slab = hugepage.Make[T](blockLen * min(max(1, 4*len(l.blocks)), most))
				l.whole = l.slab
			}
			blk, l.slab = l.slab[:0:blockLen], l.slab[blockLen:]
			if len(l.slab) == 0 {
				hugepage.Done(l.whole) // the last block on small pages
				l.whole = nil
			}
		}
		l.blocks = append(l.blocks, blk)
	}
	last := &l.blocks[len(l.blocks)-1]
	*last = append(*last, x)
	l.n++
}
