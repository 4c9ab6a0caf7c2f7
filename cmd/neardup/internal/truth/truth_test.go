package truth

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// truthOrigins is the obvious reference for Origins's origins over
// source and family maps with no cycle: follow each id's sources one at a
// time (quadratic in a chain's length).
func truthOrigins(source, family map[string]string) map[string]string {
	origin := map[string]string{}
	for id := range source {
		cur := id
		for {
			if fam := family[cur]; fam != "" {
				origin[id] = "f:" + fam
				break
			}
			src := source[cur]
			if src == "" {
				origin[id] = "d:" + cur
				break
			}
			cur = src
		}
	}
	return origin
}

// TestOriginsChains compares Origins with the reference on random
// forests of sources (chains, branches, families part-way, sources not in
// the file), in every row order the file can have.
func TestOriginsChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for round := range 300 {
		n := 1 + rng.IntN(40)
		source, family := map[string]string{}, map[string]string{}
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("d%d", i)
		}
		for i, id := range ids {
			switch k := rng.IntN(10); {
			case k < 6 && i > 0: // an earlier id: no cycle
				source[id] = ids[rng.IntN(i)]
			case k == 6:
				source[id] = "missing" + fmt.Sprint(rng.IntN(3))
			default:
				source[id] = ""
			}
			if rng.IntN(6) == 0 {
				family[id] = fmt.Sprint("fam", rng.IntN(3))
			}
		}
		var sb strings.Builder
		sb.WriteString("id\tkind\tsource\tfamily\r\n")
		for _, i := range rng.Perm(n) {
			fmt.Fprintf(&sb, "%s\tk\t%s\t%s\n", ids[i], source[ids[i]], family[ids[i]])
		}
		got, err := Origins(strings.NewReader(sb.String()), "t")
		if err != nil {
			t.Fatal(err)
		}
		want := truthOrigins(source, family)
		if len(got) != len(want) {
			t.Fatalf("round %d: %d origins, want %d", round, len(got), len(want))
		}
		for id, w := range want {
			if got[id] != w {
				t.Fatalf("round %d: origin of %s = %q, want %q\n%s", round, id, got[id], w, sb.String())
			}
		}
	}
}

// TestOriginsCycles: a cycle of sources gets one origin, its smallest
// id, for its members and the ids whose chains enter it; a long chain and
// a long cycle take linear time (the first version walked each id's chain
// from its start: a cycle of n ids cost n² steps).
func TestOriginsCycles(t *testing.T) {
	in := "id\tsource\n" +
		"c\ta\n" + "a\tb\n" + "b\tc\n" + // a cycle
		"x\tb\n" + "y\tx\n" + // leading into it
		"self\tself\n" +
		"o\t\n" + "p\to\n"
	got, err := Origins(strings.NewReader(in), "t")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "d:a", "b": "d:a", "c": "d:a", "x": "d:a", "y": "d:a", "self": "d:self", "o": "d:o", "p": "d:o"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}

	const n = 200000
	for _, cyclic := range []bool{false, true} {
		var sb strings.Builder
		sb.WriteString("id\tsource\n")
		for i := range n {
			src := fmt.Sprint("i", i+1)
			if i == n-1 {
				src = ""
				if cyclic {
					src = "i0"
				}
			}
			fmt.Fprintf(&sb, "i%d\t%s\n", i, src)
		}
		start := time.Now()
		got, err := Origins(strings.NewReader(sb.String()), "t")
		if err != nil {
			t.Fatal(err)
		}
		root := fmt.Sprint("d:i", n-1)
		if cyclic {
			root = "d:i0"
		}
		for i := range n {
			if o := got[fmt.Sprint("i", i)]; o != root {
				t.Fatalf("cyclic %v: origin of i%d = %q, want %q", cyclic, i, o, root)
			}
		}
		// Not a timing test: a quadratic walk would take hours here, so
		// the bound only has to separate linear from quadratic.
		if el := time.Since(start); el > time.Minute {
			t.Fatalf("cyclic %v: %v for %d rows", cyclic, el, n)
		}
	}
}

// TestOriginsErrors: bad files are refused with the name and line.
func TestOriginsErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "t:1: no header"},
		{"id\tkind\n", "t:1: the header needs the columns id and source"},
		{"id\tsource\tfamily\na\t\t\nb\t\n", "t:3: 2 fields"},
		{"kind\tsource\tid\nx\ty\n", "t:2: 2 fields"},
		{"id\tsource\n" + strings.Repeat("x", 1<<24+1) + "\n", "t:2: bufio.Scanner: token too long"},
	} {
		_, err := Origins(strings.NewReader(c.in), "t")
		if err == nil || err.Error() != c.want {
			t.Errorf("%.40q: error %v, want %q", c.in, err, c.want)
		}
	}
}

// FuzzOrigins: any bytes are parsed or refused with an error that
// names the line, never a panic or a hang; every id of the file gets an
// origin, "f:" or "d:", the same for an id and its source when the source
// is in the file and has no family of its own on the way.
//
//	go test -run '^$' -fuzz FuzzOrigins -fuzzminimizetime 2s ./internal/truth
//
// (The maps make coverage vary from run to run of one input, and the
// fuzzer then spends its whole -fuzzminimizetime, 60 s by default, on
// every new input it cannot reproduce: 8.3 million inputs in 90 s with
// 2 s, on 2026-11-26.)
func FuzzOrigins(f *testing.F) {
	f.Add("id\tkind\tsource\tfamily\nd1\to\t\t\nd2\tc\td1\t\nd3\tt\t\t7\n")
	f.Add("id\tsource\na\tb\nb\ta\n")
	f.Add("source\tid\n\tx\ny\tz\n")
	f.Add("id\tsource\r\na\t\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := Origins(strings.NewReader(in), "t")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "t:") {
				t.Fatalf("error without the name: %v", err)
			}
			return
		}
		// The rows again, split as the parser's scanner splits them.
		sc := bufio.NewScanner(strings.NewReader(in))
		sc.Buffer(nil, 1<<24)
		var lines []string
		for sc.Scan() {
			lines = append(lines, strings.TrimSuffix(sc.Text(), "\r"))
		}
		ci, cs, cf := -1, -1, -1
		for i, h := range strings.Split(lines[0], "\t") {
			switch h {
			case "id":
				ci = i
			case "source":
				cs = i
			case "family":
				cf = i
			}
		}
		source, family := map[string]string{}, map[string]string{}
		var ids []string
		for _, l := range lines[1:] {
			fs := strings.Split(l, "\t")
			if _, seen := source[fs[ci]]; !seen {
				ids = append(ids, fs[ci])
			}
			source[fs[ci]] = fs[cs]
			if cf >= 0 {
				family[fs[ci]] = fs[cf]
			}
		}
		if len(got) != len(source) {
			t.Fatalf("%d origins for %d ids", len(got), len(source))
		}
		for _, id := range ids {
			o, src := got[id], source[id]
			switch {
			case !strings.HasPrefix(o, "f:") && !strings.HasPrefix(o, "d:"):
				t.Fatalf("origin of %q = %q", id, o)
			case family[id] != "":
				if o != "f:"+family[id] {
					t.Fatalf("origin of %q = %q, its family is %q", id, o, family[id])
				}
			case src == "":
				if o != "d:"+id {
					t.Fatalf("origin of the original %q = %q", id, o)
				}
			default:
				if _, in := source[src]; in && o != got[src] {
					t.Fatalf("origin of %q = %q, of its source %q = %q", id, o, src, got[src])
				}
				if _, in := source[src]; !in && o != "d:"+src {
					t.Fatalf("origin of %q = %q, its source %q is not in the file", id, o, src)
				}
			}
		}
	})
}
