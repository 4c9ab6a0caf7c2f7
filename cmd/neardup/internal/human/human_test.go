package human

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0µs", 999 * time.Microsecond: "999µs", time.Millisecond: "1ms",
		1500 * time.Microsecond: "1ms", 999 * time.Millisecond: "999ms",
		time.Second: "1.00s", 90 * time.Second: "90.00s",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB",
		1 << 20: "1.0 MiB", 5 << 30: "5.0 GiB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPlural(t *testing.T) {
	if got := Plural(1, "record has", "records have"); got != "1 record has" {
		t.Errorf("Plural(1) = %q", got)
	}
	if got := Plural(int64(0), "band", "bands"); got != "0 bands" {
		t.Errorf("Plural(0) = %q", got)
	}
	if got := Plural(uint64(2), "band", "bands"); got != "2 bands" {
		t.Errorf("Plural(2) = %q", got)
	}
}
