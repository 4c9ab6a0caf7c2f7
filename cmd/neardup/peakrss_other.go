//go:build !linux && !darwin

package main

// peakRSS reports that the peak resident set size is not known here.
func peakRSS() (int64, bool) { return 0, false }
