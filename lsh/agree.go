package lsh

// agreeRowsGeneric appends to dst the y in [lo, hi) whose packed row
// low[y*words:(y+1)*words] has at least need bytes equal to a's (agreeLow).
func agreeRowsGeneric(dst []int32, a, low []uint64, words, lo, hi, need int) []int32 {
	for y := lo; y < hi; y++ {
		if agreeLow(a, low[y*words:(y+1)*words]) >= need {
			dst = append(dst, int32(y))
		}
	}
	return dst
}
