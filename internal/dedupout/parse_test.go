package dedupout

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestUnescapeField(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{`a\tb`, "a\tb"},
		{`a\nb\rc`, "a\nb\rc"},
		{`back\\slash`, `back\slash`},
		{`\\t`, `\t`}, // an escaped backslash, then a t
		{`\\\t`, "\\\t"},
		{`odd\x`, `odd\x`}, // not an escape: the backslash stays
		{`end\`, `end\`},
		{`\`, `\`},
	} {
		if got := UnescapeField(c.in); got != c.want {
			t.Errorf("UnescapeField(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParsePair(t *testing.T) {
	for _, c := range []struct {
		line         string
		a, b         string
		jaccard, ed  float64
		wantErrMatch string
	}{
		{"a\tb\t0.500000", "a", "b", 0.5, -1, ""},
		{`x\ty` + "\t" + `z\\` + "\t1.000000\t0.250000", "x\ty", `z\`, 1, 0.25, ""},
		{"a\tb\t0", "a", "b", 0, -1, ""},
		{"a\tb", "", "", 0, 0, "got 2"},
		{"a\tb\t0.5\t0.5\t0.5", "", "", 0, 0, "got 5"},
		{"a\tb\tx", "", "", 0, 0, `jaccard "x"`},
		{"a\tb\t1.5", "", "", 0, 0, `jaccard "1.5"`},
		{"a\tb\tNaN", "", "", 0, 0, `jaccard "NaN"`},
		{"a\tb\t-0.1", "", "", 0, 0, `jaccard "-0.1"`},
		{"a\tb\t0.5\t", "", "", 0, 0, `edit ""`},
		{"a\tb\t0.5\t2", "", "", 0, 0, `edit "2"`},
	} {
		a, b, j, e, err := ParsePair(c.line)
		if c.wantErrMatch != "" {
			if !errors.Is(err, ErrPairLine) || !strings.Contains(err.Error(), c.wantErrMatch) {
				t.Errorf("ParsePair(%q): error %v, want ErrPairLine with %q", c.line, err, c.wantErrMatch)
			}
			continue
		}
		if err != nil || a != c.a || b != c.b || j != c.jaccard || e != c.ed {
			t.Errorf("ParsePair(%q) = %q, %q, %v, %v, %v; want %q, %q, %v, %v", c.line, a, b, j, e, err, c.a, c.b, c.jaccard, c.ed)
		}
	}
}

// FuzzPairRoundTrip: every pair of ids and every Jaccard in [0, 1] reads
// back from its line as written (the ids exactly, the Jaccard to its 6
// decimals), and escaping is undone exactly.
func FuzzPairRoundTrip(f *testing.F) {
	f.Add("a", "b", 0.5)
	f.Add("x\ty\\", "\r\n", 1.0)
	f.Add(`\t`, `\\`, 0.1234565)
	f.Fuzz(func(t *testing.T, a, b string, j float64) {
		if got := UnescapeField(EscapeField(a)); got != a {
			t.Fatalf("UnescapeField(EscapeField(%q)) = %q", a, got)
		}
		if !(j >= 0 && j <= 1) {
			return
		}
		line := string(AppendPair(nil, a, b, j))
		ga, gb, gj, ge, err := ParsePair(line)
		if err != nil {
			t.Fatalf("ParsePair(%q): %v", line, err)
		}
		want, _ := strconv.ParseFloat(strconv.FormatFloat(j, 'f', 6, 64), 64)
		if ga != a || gb != b || gj != want || ge != -1 {
			t.Fatalf("ParsePair(%q) = %q, %q, %v, %v; want %q, %q, %v, -1", line, ga, gb, gj, ge, a, b, want)
		}
	})
}

// FuzzParsePair: any line is read or refused with ErrPairLine, never a
// panic; what is read is in range and writes back to a line that reads
// the same.
func FuzzParsePair(f *testing.F) {
	f.Add("a\tb\t0.500000")
	f.Add("a\\tb\tc\t1\t0.25")
	f.Add("\t\t\t")
	f.Add("a\tb\t1e-7")
	f.Fuzz(func(t *testing.T, line string) {
		a, b, j, e, err := ParsePair(line)
		if err != nil {
			if !errors.Is(err, ErrPairLine) {
				t.Fatalf("error %v does not wrap ErrPairLine", err)
			}
			return
		}
		if !(j >= 0 && j <= 1) || !(e == -1 || e >= 0 && e <= 1) || math.IsNaN(e) {
			t.Fatalf("ParsePair(%q): jaccard %v, edit %v", line, j, e)
		}
		again := string(AppendPair(nil, a, b, j))
		a2, b2, _, _, err := ParsePair(again)
		if err != nil || a2 != a || b2 != b {
			t.Fatalf("%q wrote back as %q, read as %q, %q, %v", line, again, a2, b2, err)
		}
	})
}
