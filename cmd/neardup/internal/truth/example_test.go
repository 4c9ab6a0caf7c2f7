package truth_test

import (
	"fmt"
	"strings"

	"github.com/neardup/neardup/cmd/neardup/internal/truth"
)

func ExampleOrigins() {
	tsv := "id\tkind\tsource\tfamily\n" +
		"d1\toriginal\t\t\n" +
		"d2\tcopy\td1\t\n" +
		"d3\tcopy\td2\t\n" + // a copy of a copy: d1's chain
		"t1\ttemplate\t\t7\n" +
		"t2\ttemplate\tt1\t\n" // family 7 through its source
	origin, err := truth.Origins(strings.NewReader(tsv), "truth.tsv")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, id := range []string{"d1", "d2", "d3", "t1", "t2"} {
		fmt.Println(id, origin[id])
	}
	_, err = truth.Origins(strings.NewReader("id\tkind\n"), "truth.tsv")
	fmt.Println(err)
	// Output:
	// d1 d:d1
	// d2 d:d1
	// d3 d:d1
	// t1 f:7
	// t2 f:7
	// truth.tsv:1: the header needs the columns id and source
}
