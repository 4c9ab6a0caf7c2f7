package explain

import (
	"reflect"
	"strings"
	"testing"

	"github.com/neardup/neardup/shingle"
)

func TestSharedRuns(t *testing.T) {
	f := func(a, b string, minLen int, want []string) {
		t.Helper()
		sh, _ := shingle.New(shingle.Options{})
		ta, tb := sh.AppendTokenStrings(nil, []byte(a)), sh.AppendTokenStrings(nil, []byte(b))
		var got []string
		for _, r := range SharedRuns(ta, tb, minLen, 5) {
			got = append(got, strings.Join(ta[r.I:r.I+r.N], " "))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("SharedRuns(%q, %q, %d) = %q, want %q", a, b, minLen, got, want)
		}
	}
	f("The quick brown fox jumps over the lazy dog", "a QUICK brown fox, jumps! under the lazy dog", 3,
		[]string{"quick brown fox jumps", "the lazy dog"})
	f("a b c d e", "x y z", 3, nil)
	f("a b a b a b", "a b a b", 2, []string{"a b a b"})
	f("one two", "one two", 3, nil) // minLen is the caller's: explain lowers it for short texts
	f("Café crème, naïve", "CAFÉ CRÈME naïve x", 2, []string{"café crème naïve"})
}
