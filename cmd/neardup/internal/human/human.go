// Package human formats durations and byte counts for people to read, as
// neardup's messages and its --report page show them.
package human

import (
	"fmt"
	"strconv"
	"time"
)

// Duration formats d in µs below a millisecond, in ms below a second, and
// else in seconds with 2 decimals, rounding down to whole µs and ms.
func Duration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

// Bytes formats n bytes in GiB, MiB or KiB with a decimal, from one of
// the unit up, and else in bytes.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Plural returns n and one when n is 1, else n and many: Plural(2,
// "step", "steps") is "2 steps", Plural(1, "record has", "records have")
// "1 record has".
func Plural[N ~int | ~int32 | ~int64 | ~uint64](n N, one, many string) string {
	return strconv.FormatInt(int64(n), 10) + " " + Pick(n, one, many)
}

// Pick returns one when n is 1, else many: a noun or verb that agrees
// with a count printed elsewhere.
func Pick[N ~int | ~int32 | ~int64 | ~uint64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
