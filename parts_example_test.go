package neardup_test

import (
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
)

// One pair, sketched and verified: the signatures estimate the Jaccard of
// the shingle sets, and the Verifier decides on the exact one (or, under
// VerifyEstimate, on the estimate, with no sets kept).
func ExampleVerifier() {
	p := neardup.Params{Threshold: 0.5}
	sk, err := neardup.NewSketcher(p)
	if err != nil {
		panic(err)
	}
	var a, b neardup.Sketch
	sk.Sketch(&a, []byte("Senior Go developer wanted in Rome, full time, apply today with your CV"), nil)
	sk.Sketch(&b, []byte("Senior Go developer wanted in Rome, full time, apply now with your CV"), nil)
	fmt.Printf("%d and %d shingles, %d slots each\n", a.Size, b.Size, len(a.Signature))
	fmt.Printf("estimate %.3f\n", minhash.Estimate(a.Signature, b.Signature))

	for _, mode := range []neardup.Verify{neardup.VerifyExact, neardup.VerifyEstimate} {
		v, err := neardup.NewVerifier(p, mode)
		if err != nil {
			panic(err)
		}
		j, ok := v.Verify(&a, &b)
		fmt.Printf("%s: %.3f, near-duplicate %v\n", mode, j, ok)
	}
	// Output:
	// 11 and 11 shingles, 128 slots each
	// estimate 0.609
	// exact: 0.571, near-duplicate true
	// estimate: 0.609, near-duplicate true
}

// The parts an online index uses: sketch each document, keep its band keys
// in a table, look up a new document's candidates and verify them.
func ExampleSketcher() {
	p := neardup.Params{Threshold: 0.5}
	sk, err := neardup.NewSketcher(p)
	if err != nil {
		panic(err)
	}
	v, err := neardup.NewVerifier(p, neardup.VerifyExact)
	if err != nil {
		panic(err)
	}
	table := lsh.NewMemTable(sk.Params().LSH.Bands)
	stored := map[uint64]*neardup.Sketch{}
	add := func(id uint64, text string) {
		s := new(neardup.Sketch)
		sk.Sketch(s, []byte(text), nil)
		stored[id] = s
		lsh.Insert(table, id, sk.AppendBandKeys(nil, s.Signature))
	}
	add(1, "Senior Go developer wanted in Rome, full time, apply today with your CV")
	add(2, "Bakery in Milan looks for a morning baker, early shifts")

	var q neardup.Sketch
	sk.Sketch(&q, []byte("Senior Go developer wanted in Rome, full time, apply now with your CV"), nil)
	ids, _ := lsh.Lookup(nil, table, sk.AppendBandKeys(nil, q.Signature))
	for _, id := range ids {
		if j, ok := v.Verify(&q, stored[id]); ok {
			fmt.Printf("near-duplicate of %d: Jaccard %.3f\n", id, j)
		}
	}
	// Output:
	// near-duplicate of 1: Jaccard 0.571
}

// Clusters works on any numbering: here three documents of a component,
// numbered 0..2 locally, with their places in the corpus as Seq.
func ExampleClusters() {
	docs := []neardup.ClusterDoc{
		{Seq: 40, Size: 100, Same: 0},
		{Seq: 12, Size: 90, Same: 1},
		{Seq: 77, Size: 100, Same: 0}, // identical to document 0
	}
	edges := [][2]int{{0, 1}}
	groups, err := neardup.Clusters(docs, edges, neardup.ClusterStar, neardup.KeepFirst)
	if err != nil {
		panic(err)
	}
	for _, g := range groups {
		fmt.Println("keep", g.Representative, "of", g.Members)
	}
	// Output:
	// keep 1 of [1 0 2]
}
