package minhash_test

import (
	"fmt"

	"github.com/neardup/neardup/minhash"
)

// mix stands in for a shingle hash: it turns i into a well-mixed 64-bit
// value (the splitmix64 finaliser).
func mix(i uint64) uint64 {
	i = (i ^ i>>30) * 0xbf58476d1ce4e5b9
	i = (i ^ i>>27) * 0x94d049bb133111eb
	return i ^ i>>31
}

func Example() {
	// Two documents' shingle hashes: 300 shared, 100 in each alone, so the
	// Jaccard index is 300/500 = 0.6.
	var a, b []uint64
	for i := range uint64(400) {
		a = append(a, mix(i))
		b = append(b, mix(i+100))
	}

	h, err := minhash.New(minhash.DefaultSlots, 1)
	if err != nil {
		panic(err)
	}
	sigA := h.AppendSignature(nil, a)
	sigB := h.AppendSignature(nil, b)
	fmt.Printf("estimated Jaccard: %.2f\n", minhash.Estimate(sigA, sigB))

	enc := minhash.AppendEncoding(nil, h.Seed(), sigA)
	dec, seed, n, err := minhash.Decode(nil, enc)
	fmt.Println(len(enc), n, seed, len(dec), err)
	// Output:
	// estimated Jaccard: 0.55
	// 527 527 1 128 <nil>
}
