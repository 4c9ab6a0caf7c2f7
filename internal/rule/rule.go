// Package rule states once the ranges of neardup's numeric parameters, so
// that every package that must check one (the engine's Params, the flags,
// lsh.Choose, allpairs, the index, the server) checks the same range and
// describes it in the same words. It imports nothing of the module.
package rule

// Threshold reports whether t is a Jaccard threshold: a number in (0, 1].
// NaN is not.
func Threshold(t float64) bool { return t > 0 && t <= 1 }

// ThresholdWant describes the range of Threshold, for messages
// ("threshold 2: want a number in (0, 1]").
const ThresholdWant = "a number in (0, 1]"

// Recall reports whether r is an LSH recall at the threshold: a number in
// (0, 1). NaN is not.
func Recall(r float64) bool { return r > 0 && r < 1 }

// RecallWant describes the range of Recall.
const RecallWant = "a number in (0, 1)"

// MaxSlots is the most MinHash slots a signature may have.
const MaxSlots = 1 << 16

// Slots reports whether n is a number of MinHash slots: 1 to MaxSlots.
func Slots(n int) bool { return n >= 1 && n <= MaxSlots }

// SlotsWant describes the range of Slots.
const SlotsWant = "1 to 65536"
