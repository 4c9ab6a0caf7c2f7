package textdiff

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func join(sp []Span) string {
	var b strings.Builder
	for _, s := range sp {
		b.WriteString(s.Text)
	}
	return b.String()
}

// changedWords lists the words of the changed spans.
func changedWords(sp []Span) []string {
	var w []string
	for _, s := range sp {
		if s.Changed {
			w = append(w, strings.Fields(s.Text)...)
		}
	}
	return w
}

func TestDiffExamples(t *testing.T) {
	f := func(a, b string, wantA, wantB []string, common int) {
		t.Helper()
		r := Diff(a, b, 0)
		if join(r.A) != a || join(r.B) != b {
			t.Fatalf("Diff(%q, %q): spans give %q, %q", a, b, join(r.A), join(r.B))
		}
		if got := changedWords(r.A); strings.Join(got, "|") != strings.Join(wantA, "|") {
			t.Errorf("Diff(%q, %q): changed in a %q, want %q", a, b, got, wantA)
		}
		if got := changedWords(r.B); strings.Join(got, "|") != strings.Join(wantB, "|") {
			t.Errorf("Diff(%q, %q): changed in b %q, want %q", a, b, got, wantB)
		}
		if r.Common != common {
			t.Errorf("Diff(%q, %q): common %d, want %d", a, b, r.Common, common)
		}
		for _, s := range append(r.A, r.B...) {
			if s.Changed && (strings.TrimSpace(s.Text) != s.Text) {
				t.Errorf("Diff(%q, %q): changed span %q has outer space", a, b, s.Text)
			}
		}
	}
	f("", "", nil, nil, 0)
	f("a b c", "a b c", nil, nil, 3)
	f("a b c", "", []string{"a", "b", "c"}, nil, 0)
	f("", "x y", nil, []string{"x", "y"}, 0)
	f("the quick brown fox", "the slow brown fox", []string{"quick"}, []string{"slow"}, 3)
	f("apply now!", "apply today!", []string{"now!"}, []string{"today!"}, 1)
	f("  lead  space and trail  ", "lead space and\ttrail", nil, nil, 4)
	f("a b c d e", "a c e", []string{"b", "d"}, nil, 3)
	f("a c e", "a b c d e", nil, []string{"b", "d"}, 3)
	f("x y z", "p q", []string{"x", "y", "z"}, []string{"p", "q"}, 0)
	f("Pay £15.65 an hour", "Pay £16 an hour", []string{"£15.65"}, []string{"£16"}, 3)
	f("A b", "a b", []string{"A"}, []string{"a"}, 1)
	// Trailing white space on both sides is not a common word.
	f("x ", "y ", []string{"x"}, []string{"y"}, 0)
	f("a b\n", "a c\n", []string{"b"}, []string{"c"}, 1)
	f("a b ", "a b ", nil, nil, 2)
	f("   ", " ", nil, nil, 0)
}

func TestDiffSpansMergeSpace(t *testing.T) {
	r := Diff("keep one two three keep", "keep keep", 0)
	want := []Span{{"keep ", false}, {"one two three", true}, {" keep", false}}
	if len(r.A) != len(want) {
		t.Fatalf("spans %+v, want %+v", r.A, want)
	}
	for i := range want {
		if r.A[i] != want[i] {
			t.Fatalf("spans %+v, want %+v", r.A, want)
		}
	}
}

func TestDiffTruncates(t *testing.T) {
	a := strings.Repeat("w ", 10)
	r := Diff(a, a+"extra", 5)
	if !r.TruncatedA || !r.TruncatedB {
		t.Fatalf("truncated %v %v, want both", r.TruncatedA, r.TruncatedB)
	}
	if got := join(r.A); got != "w w w w w" {
		t.Fatalf("A = %q", got)
	}
	if len(changedWords(r.A))+len(changedWords(r.B)) != 0 {
		t.Fatalf("changes in identical prefixes: %v", r)
	}
}

// lcs is the reference: the length of a longest common subsequence.
func lcs(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func TestDiffMatchesLCS(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "c", "d", "e"}
	for it := 0; it < 3000; it++ {
		gen := func() []string {
			w := make([]string, rng.IntN(25))
			for i := range w {
				w[i] = words[rng.IntN(1+it%len(words))]
			}
			return w
		}
		wa, wb := gen(), gen()
		a, b := strings.Join(wa, " "), strings.Join(wb, " ")
		r := Diff(a, b, 0)
		if join(r.A) != a || join(r.B) != b {
			t.Fatalf("Diff(%q, %q): spans give %q, %q", a, b, join(r.A), join(r.B))
		}
		want := lcs(wa, wb)
		if r.Common != want {
			t.Fatalf("Diff(%q, %q): common %d, LCS %d", a, b, r.Common, want)
		}
		// Unchanged words of a and b are the same sequence.
		var ua, ub []string
		for _, s := range r.A {
			if !s.Changed {
				ua = append(ua, strings.Fields(s.Text)...)
			}
		}
		for _, s := range r.B {
			if !s.Changed {
				ub = append(ub, strings.Fields(s.Text)...)
			}
		}
		if strings.Join(ua, " ") != strings.Join(ub, " ") {
			t.Fatalf("Diff(%q, %q): unchanged %q vs %q", a, b, ua, ub)
		}
		if len(changedWords(r.A))+len(ua) != len(wa) || len(changedWords(r.B))+len(ub) != len(wb) {
			t.Fatalf("Diff(%q, %q): word counts do not add up", a, b)
		}
	}
}

// randWords returns n words: prefix followed by a random letter.
func randWords(rng *rand.Rand, prefix string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(prefix)
		b.WriteByte(byte('a' + rng.IntN(26)))
		b.WriteByte(' ')
	}
	return b.String()
}

// TestDiffBounded checks the two bounds on Diff's work: texts are cut to
// maxWords words, and a search that would exceed the step budget stops and
// marks what is left changed (Coarse), still giving a valid result. How
// fast Diff is on such texts is measured by BenchmarkDiffDifferent.
func TestDiffBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := randWords(rng, "x", 50000), randWords(rng, "x", 50000)
	r := Diff(a, b, 0)
	if !r.TruncatedA || !r.TruncatedB {
		t.Errorf("not truncated")
	}
	for _, sp := range [][]Span{r.A, r.B} {
		if n := len(strings.Fields(join(sp))); n != DefaultMaxWords {
			t.Errorf("%d words compared, want %d", n, DefaultMaxWords)
		}
	}
	if !strings.HasPrefix(a, join(r.A)) || !strings.HasPrefix(b, join(r.B)) {
		t.Errorf("spans are not prefixes of the texts")
	}
	wa, wb := strings.Fields(join(r.A)), strings.Fields(join(r.B))
	if want := lcs(wa, wb); r.Coarse || r.Common != want {
		t.Errorf("common %d (coarse %v), LCS %d: %d-word texts must be aligned exactly", r.Common, r.Coarse, want, DefaultMaxWords)
	}

	// 50,000 words each and no word in common: the full search would take
	// about (N+M)²/4 = 2.5e9 steps, far over the budget.
	a, b = randWords(rng, "x", 50000), randWords(rng, "y", 50000)
	r = Diff(a, b, 50000)
	if !r.Coarse || r.TruncatedA || r.TruncatedB || r.Common != 0 {
		t.Errorf("coarse %v, truncated %v %v, common %d; want coarse, untruncated, 0", r.Coarse, r.TruncatedA, r.TruncatedB, r.Common)
	}
	if join(r.A) != a || join(r.B) != b || len(changedWords(r.A)) != 50000 || len(changedWords(r.B)) != 50000 {
		t.Errorf("coarse result does not mark both texts changed")
	}
}

// TestBudget runs the search on sequences with no common element: every
// snake is empty, so each step costs one unit of budget, and the search may
// overrun the budget by at most the round in progress (under N+M+4 steps).
func TestBudget(t *testing.T) {
	for _, n := range []int{1, 10, 100, 3000} {
		a, b := make([]uint32, n), make([]uint32, n+7)
		for i := range a {
			a[i] = uint32(i)
		}
		for i := range b {
			b[i] = uint32(n + i)
		}
		for _, budget := range []int{0, 1, 50, 1000, 100000} {
			m := &myers{a: a, b: b, budget: budget, changedA: make([]bool, len(a)), changedB: make([]bool, len(b))}
			m.diff(0, len(a), 0, len(b))
			if spent := budget - m.budget; spent > budget+len(a)+len(b)+4 {
				t.Errorf("n=%d budget %d: %d steps spent", n, budget, spent)
			}
			if slices.Contains(m.changedA, false) || slices.Contains(m.changedB, false) {
				t.Errorf("n=%d budget %d: a word with no match is marked unchanged", n, budget)
			}
		}
	}
}

// Text without spaces is compared character by character, so a one-word
// change in Japanese is a one-character span, and the spans still give the
// texts back.
func TestWideCharacters(t *testing.T) {
	a := "吾輩は猫である。名前はまだ無い。"
	b := "吾輩は犬である。名前はまだ無い。"
	r := Diff(a, b, 0)
	var changed []string
	var all string
	for _, s := range r.A {
		all += s.Text
		if s.Changed {
			changed = append(changed, s.Text)
		}
	}
	if all != a || len(changed) != 1 || changed[0] != "猫" {
		t.Errorf("changed %q (text %q)", changed, all)
	}
	if r := Diff("Linux カーネル", "Linux  カーネル", 0); r.Common != 5 {
		t.Errorf("mixed text: %d common words, want 5", r.Common)
	}
}
