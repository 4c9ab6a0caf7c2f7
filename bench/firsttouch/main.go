// Command firsttouch measures what touching memory for the first time
// costs on this machine: it writes every byte of a fresh buffer twice and
// prints both times. On a virtual machine
// the first pass can be many times slower than the second, which is why
// neardup reuses its buffers. On Linux it then times the kernel's
// prefault of a fresh mapping of the same size in one call
// (madvise MADV_POPULATE_WRITE, Linux 5.14 and later) and a write over it:
// what asking for the pages at once, instead of a fault a page, would
// save.
//
//	go run ./bench/firsttouch            # 400 MB
//	go run ./bench/firsttouch -mb 1000
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	mb := flag.Int("mb", 400, "megabytes to write")
	flag.Parse()
	if *mb < 1 || *mb > 1<<16 {
		fmt.Fprintln(os.Stderr, "firsttouch: -mb must be in [1, 65536]")
		os.Exit(2)
	}
	a := make([]uint64, *mb<<20/8)
	for pass := 1; pass <= 2; pass++ {
		t := time.Now()
		for i := range a {
			a[i] = uint64(i)
		}
		d := time.Since(t)
		fmt.Printf("pass %d: %d MB in %v (%.2f ms per MB)\n",
			pass, *mb, d.Round(time.Millisecond), float64(d.Microseconds())/1000/float64(*mb))
	}
	populate(*mb)
}
