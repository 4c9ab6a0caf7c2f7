package neardup_test

import (
	"context"
	"fmt"

	"github.com/neardup/neardup"
)

func Example() {
	docs := []string{
		"Senior Go developer wanted in Rome, full time, apply today with your CV",
		"Bakery in Milan looks for a morning baker, early shifts",
		"Senior Go developer wanted in Rome, full time, apply now with your CV",
		"senior go developer wanted in rome full time apply today with your cv",
	}
	b, err := neardup.NewBatch(neardup.Options{Params: neardup.Params{Threshold: 0.5}})
	if err != nil {
		panic(err)
	}
	for i, d := range docs {
		b.Add(fmt.Sprint("ad", i+1), []byte(d))
	}
	res, err := b.Run(context.Background())
	if err != nil {
		panic(err)
	}
	for _, p := range res.Pairs {
		fmt.Printf("%s ~ %s  %.3f\n", b.ID(p.A), b.ID(p.B), p.Jaccard)
	}
	for _, c := range res.Clusters {
		fmt.Printf("cluster %d keeps %s of %d\n", c.ID, b.ID(c.Representative), len(c.Members))
	}
	// ad1 and ad3 have 13 tokens each and differ in the 10th: 3 of their 11
	// word 3-grams differ on each side, so J = 8/14.

	// Output:
	// ad1 ~ ad3  0.571
	// ad1 ~ ad4  1.000
	// cluster 1 keeps ad1 of 3
}

// PairLister splits the full listing of AllPairs by ranges of documents:
// here two goroutines each produce half, and the halves, put side by side,
// are AllPairs' order.
func ExamplePairLister() {
	docs := []string{
		"Senior Go developer wanted in Rome, full time, apply today with your CV",
		"senior go developer wanted in rome full time apply today with your cv",
		"Bakery in Milan looks for a morning baker, early shifts",
		"Senior Go developer wanted in Rome, full time, apply now with your CV",
		"Bakery in Milan looks for a morning baker, early shifts!",
	}
	b, err := neardup.NewBatch(neardup.Options{Params: neardup.Params{Threshold: 0.5}})
	if err != nil {
		panic(err)
	}
	for i, d := range docs {
		b.Add(fmt.Sprint("ad", i+1), []byte(d))
	}
	res, err := b.Run(context.Background())
	if err != nil {
		panic(err)
	}
	l := res.PairLister()
	half := l.Documents() / 2
	var first, second []neardup.Pair
	done := make(chan bool)
	go func() {
		for p := range l.Range(0, half) {
			first = append(first, p)
		}
		done <- true
	}()
	for p := range l.Range(half, l.Documents()) {
		second = append(second, p)
	}
	<-done
	for _, p := range append(first, second...) {
		fmt.Printf("%s ~ %s  %.3f\n", b.ID(p.A), b.ID(p.B), p.Jaccard)
	}
	// Output:
	// ad1 ~ ad2  1.000
	// ad1 ~ ad4  0.571
	// ad2 ~ ad4  0.571
	// ad3 ~ ad5  1.000
}
