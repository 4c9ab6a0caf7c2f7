//go:build race

package lsh

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = true
