package parallel_test

import (
	"fmt"

	"github.com/neardup/neardup/internal/parallel"
)

// Sum items in two ranges of about equal weight, each worker writing only
// its own slot.
func Example() {
	items := []int{5, 1, 1, 1, 1, 1, 4, 2}
	start := make([]int, len(items)+1)
	for k, x := range items {
		start[k+1] = start[k] + x
	}
	from := parallel.Split(start, 2)
	sums := make([]int, 2)
	parallel.Run(2, func(w int) {
		for _, x := range items[from[w]:from[w+1]] {
			sums[w] += x
		}
	})
	fmt.Println(from, sums)
	// Output: [0 4 8] [8 8]
}
