package gen_test

import (
	"fmt"

	"github.com/neardup/neardup/internal/gen"
)

func ExampleGenerateAds() {
	gen.GenerateAds(gen.Config{Docs: 3, Seed: 1}, func(i int, d gen.Doc) error {
		fmt.Printf("%s %-8v source %2d  %s\n", d.ID, d.Kind, d.Source, d.Title)
		return nil
	})
	// Output:
	// ad00001 original source -1  DevOps Engineer
	// ad00002 original source -1  Support Worker
	// ad00003 copy     source  1  Support Worker
}

func ExampleGenerate() {
	gen.Generate(gen.Config{Docs: 2, Seed: 1, MeanWords: 12}, func(i int, d gen.Doc) error {
		fmt.Printf("%s %v: %s\n", d.ID, d.Kind, d.Text)
		return nil
	})
	// Output:
	// d000001 original: Stastcleand pe pouns mischound lee texlisdensart cerasteel ham steexmioast dren wostdo planbetim sten drengvar cre. Segrox nindmairend ro thepout lond crilgrea toang oal ches. Doat te bu slais bu hens lond thee ham preel ceertrunswot.
	// d000002 original: Pouns thatrio bu boasla.
}
