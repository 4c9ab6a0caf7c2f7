package main

import (
	"fmt"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// populate maps mb fresh megabytes, asks the kernel for all their pages
// at once, then writes them, and prints both times.
func populate(mb int) {
	b, err := unix.Mmap(-1, 0, mb<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		fmt.Println("populate: mmap:", err)
		return
	}
	defer unix.Munmap(b)
	t := time.Now()
	if err := unix.Madvise(b, unix.MADV_POPULATE_WRITE); err != nil {
		fmt.Println("populate: madvise(MADV_POPULATE_WRITE):", err)
		return
	}
	d := time.Since(t)
	fmt.Printf("prefault: %d MB in %v (%.2f ms per MB)\n", mb, d.Round(time.Millisecond), float64(d.Microseconds())/1000/float64(mb))
	w := unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
	t = time.Now()
	for i := range w {
		w[i] = uint64(i)
	}
	d = time.Since(t)
	fmt.Printf("write after it: %d MB in %v (%.2f ms per MB)\n", mb, d.Round(time.Millisecond), float64(d.Microseconds())/1000/float64(mb))
}
