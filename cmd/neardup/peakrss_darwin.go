package main

import "syscall"

// peakRSS returns the process's peak resident set size in bytes
// (getrusage's ru_maxrss, which macOS gives in bytes), and whether it is known.
func peakRSS() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil || ru.Maxrss <= 0 {
		return 0, false
	}
	return int64(ru.Maxrss), true
}
