//go:build !linux

package atomicfile

import "os"

// startWriteback does nothing on this system: Commit's fsync writes
// everything.
func startWriteback(f *os.File, off, n int64) {}
