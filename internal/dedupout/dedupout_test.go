package dedupout_test

import (
	"fmt"

	"github.com/neardup/neardup/internal/dedupout"
)

func ExampleAppendPair() {
	fmt.Println(string(dedupout.AppendPair(nil, "a\tb", `c\d`, 2.0/3)))
	// Output: a\tb	c\\d	0.666667
}

func ExampleAppendCluster() {
	c := dedupout.Cluster{Cluster: 1, Size: 2, Representative: "<x>", MinJaccard: dedupout.Number(0.5),
		Members: []dedupout.Member{{ID: "<x>", Jaccard: dedupout.Number(1)}, {ID: "y&z", Jaccard: dedupout.Number(0.5)}}}
	b, _ := dedupout.AppendCluster(nil, &c)
	fmt.Print(string(b))
	// Output: {"cluster":1,"size":2,"representative":"<x>","members":[{"id":"<x>","jaccard":1.000000},{"id":"y&z","jaccard":0.500000}],"min_jaccard":0.500000,"below_threshold":0,"review":false}
}
