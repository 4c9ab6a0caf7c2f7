//go:build !linux

package main

// populate is Linux-only (madvise MADV_POPULATE_WRITE).
func populate(int) {}
