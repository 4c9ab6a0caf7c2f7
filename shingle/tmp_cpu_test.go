package shingle

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func cpuRate(o Options, text []byte) (float64, time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s, _ := New(o)
	dst := make([]uint64, 0, len(text))
	iters := 20000
	best := time.Duration(1 << 62)
	for range 5 {
		t0 := threadCPU()
		for range iters {
			dst = s.AppendSet(dst[:0], text)
		}
		d := threadCPU() - t0
		best = min(best, d)
	}
	per := best / time.Duration(iters)
	return float64(len(text)) / per.Seconds() / 1e6, per
}

func TestTmpCPU(t *testing.T) {
	en := []byte(benchText)
	r := rand.New(rand.NewPCG(1, 1))
	mixed := []byte(randText(r, 300))
	ru := []byte(strings.Repeat("Съешь же ещё этих мягких французских булок, да выпей чаю. ", 14))
	for _, c := range []struct {
		name string
		o    Options
		text []byte
	}{
		{"word/en", Options{Mode: Word}, en},
		{"word-bag/en", Options{Mode: Word, Bag: true}, en},
		{"char/en", Options{Mode: Char}, en},
		{"word/ru", Options{Mode: Word}, ru},
		{"char/ru", Options{Mode: Char}, ru},
		{"word/mixed", Options{Mode: Word}, mixed},
		{"char/mixed", Options{Mode: Char}, mixed},
	} {
		mbs, per := cpuRate(c.o, c.text)
		t.Logf("%-12s %8.1f MB/s (CPU time)  %v/op", c.name, mbs, per)
	}
}
