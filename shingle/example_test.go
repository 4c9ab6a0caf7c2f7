package shingle_test

import (
	"fmt"

	"github.com/neardup/neardup/shingle"
)

func Example() {
	s, err := shingle.New(shingle.Options{Mode: shingle.Word, N: 2})
	if err != nil {
		panic(err)
	}
	a := s.AppendSet(nil, []byte("The cat sat on the mat."))
	b := s.AppendSet(nil, []byte("the cat sat on a mat"))
	// Shingles: {the cat, cat sat, sat on, on the, the mat} and
	// {the cat, cat sat, sat on, on a, a mat}: 3 shared out of 7.
	fmt.Println(len(a), len(b), shingle.Intersection(a, b))
	fmt.Printf("%.4f\n", shingle.Jaccard(a, b))
	// Output:
	// 5 5 3
	// 0.4286
}

func ExampleShingler_AppendSet() {
	s, _ := shingle.New(shingle.Options{Mode: shingle.Char, N: 3})
	var buf []uint64
	for _, doc := range []string{"Hello,   WORLD", "hello, world", "", "  "} {
		buf = s.AppendSet(buf[:0], []byte(doc)) // reuse buf: no allocation once it is large enough
		fmt.Println(len(buf))
	}
	// Output:
	// 10
	// 10
	// 0
	// 0
}

func ExampleOptions_bag() {
	set, _ := shingle.New(shingle.Options{Mode: shingle.Word, N: 1})
	bag, _ := shingle.New(shingle.Options{Mode: shingle.Word, N: 1, Bag: true})
	x, y := []byte("spam spam spam eggs"), []byte("spam eggs")
	fmt.Printf("set %.2f\n", shingle.Jaccard(set.AppendSet(nil, x), set.AppendSet(nil, y)))
	// Bags: min(3,1)+min(1,1) = 2 over max(3,1)+max(1,1) = 4.
	fmt.Printf("bag %.2f\n", shingle.Jaccard(bag.AppendSet(nil, x), bag.AppendSet(nil, y)))
	// Output:
	// set 1.00
	// bag 0.50
}

func ExampleParseMode() {
	m, err := shingle.ParseMode("char")
	fmt.Println(m, err)
	_, err = shingle.ParseMode("line")
	fmt.Println(err)
	// Output:
	// char <nil>
	// neardup: invalid options: unknown mode "line" (want word or char)
}

func ExampleJoinTokens() {
	s, _ := shingle.New(shingle.Options{})
	toks := s.AppendTokenStrings(nil, []byte("Linux カーネルの\n説明, version 6"))
	fmt.Printf("%q\n", toks)
	fmt.Println(shingle.JoinTokens(toks))
	// Output:
	// ["linux" "カ" "ー" "ネ" "ル" "の" "説" "明" "version" "6"]
	// linux カーネルの説明 version 6
}
