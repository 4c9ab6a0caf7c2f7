package statusline_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/cmd/neardup/internal/statusline"
)

func ExampleBar() {
	fmt.Println(statusline.Bar(1, 4))
	fmt.Println(statusline.Bar(5, 4))
	fmt.Println(statusline.Bar(3, 0))
	// Output:
	// [#######.......................]  25%
	// [##############################] 100%
	// working
}

// TestShow checks that a run under a second shows nothing, and that a
// longer one shows the line, then clears it when stopped, twice safely.
// The buffers are read once stop has returned: Show's goroutine is done.
func TestShow(t *testing.T) {
	var quick bytes.Buffer
	stop := statusline.Show(&quick, func(float64) string { return "quick" })
	stop()
	if quick.String() != "" {
		t.Errorf("a run under a second wrote %q", quick.String())
	}
	if testing.Short() {
		t.Skip("waits over a second")
	}
	var w bytes.Buffer
	stop = statusline.Show(&w, func(el float64) string { return "stage: x" })
	time.Sleep(1300 * time.Millisecond)
	stop()
	stop()
	s := w.String()
	if !strings.HasPrefix(s, "\r\x1b[Kstage: x  1.") || !strings.HasSuffix(s, "s\r\x1b[K") {
		t.Errorf("display %q: want the line with its seconds over the last, then cleared", s)
	}
}
