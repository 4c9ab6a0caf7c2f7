//go:build race

package neardup

// raceEnabled reports whether the tests run under the race detector, which
// makes sync.Pool drop a random share of what is put back (so a pooled path
// allocates now and then by design).
const raceEnabled = true
