//go:build !race

package neardup

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = false
