package shingle

import "math/bits"

// distinctMax is the most hashes distinct deduplicates with its table;
// larger documents take the sort (whose scratch memory is bounded).
const distinctMax = 1 << 15

// distinct removes the duplicates of a in place, keeping each value's first
// occurrence in order, and returns how many values are left. It uses an
// open-addressing table of at least 4 slots a value, kept in s.table and
// cleared before it returns; once the probes past a value's home slot
// exceed 4 a value (keys crafted to share their top bits), it gives up
// and sorts instead, so it stays O(n log n) on any input.
func (s *Shingler) distinct(a []uint64) int {
	if len(a) <= insertionMax || len(a) > distinctMax {
		return s.sortDedup(a)
	}
	b := uint(bits.Len(uint(len(a)-1))) + 2 // 4n <= 1<<b < 8n
	if cap(s.table) < 1<<b {
		s.table = make([]uint64, 1<<b)
	}
	t := s.table[:1<<b]
	mask := uint64(len(t) - 1)
	down := 64 - b
	w, zero, probes := 0, false, 0
	for _, x := range a {
		if x == 0 { // 0 marks an empty slot
			if !zero {
				zero = true
				a[w] = 0
				w++
			}
			continue
		}
		for i := x >> down; ; i = (i + 1) & mask {
			y := t[i]
			if y == x {
				break
			}
			if y == 0 {
				t[i] = x
				a[w] = x
				w++
				break
			}
			probes++
		}
		if probes > 4*len(a) {
			clear(t)
			return s.sortDedup(a)
		}
	}
	clear(t)
	return w
}
