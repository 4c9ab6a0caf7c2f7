package gen

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func collectAds(t testing.TB, c Config) []Doc {
	t.Helper()
	var docs []Doc
	if err := GenerateAds(c, func(i int, d Doc) error {
		docs = append(docs, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return docs
}

// goldenAdsHash pins the ads of the shipped sample (1500 ads, seed 1); the
// byte-for-byte check of testdata/sample is in bench/gencorpus.
const goldenAdsHash = "3093f16b5a915519"

func TestAdsGolden(t *testing.T) {
	c := Config{Docs: 1500, Seed: 1}
	a, b := hashDocs(collectAds(t, c)), hashDocs(collectAds(t, c))
	if a != b {
		t.Fatalf("two runs differ: %s, %s", a, b)
	}
	if a != goldenAdsHash {
		t.Errorf("hash of 1500 ads for seed 1 = %s, want %s", a, goldenAdsHash)
	}
	if hashDocs(collectAds(t, Config{Docs: 500, Seed: 1})) != hashDocs(collectAds(t, c)[:500]) {
		t.Error("ads are not prefix-stable")
	}
}

func TestAds(t *testing.T) {
	docs := collectAds(t, Config{Docs: 5000, Seed: 2})
	count := map[Kind]int{}
	sum := map[float64]float64{}
	num := map[float64]int{}
	for i, d := range docs {
		count[d.Kind]++
		if d.ID != AdID(i, len(docs)) || d.Title == "" || !utf8.ValidString(d.Text) ||
			strings.ContainsAny(d.Title+d.Text, "\t\r\n{}") || strings.Contains(d.Text, "  ") {
			t.Fatalf("ad %d: bad id, title or text: %+v", i, d)
		}
		if (d.Kind == Empty) != (d.Text == "") && d.Kind != Copy {
			t.Fatalf("ad %s: kind %v with text %q", d.ID, d.Kind, d.Text)
		}
		if d.Kind != Copy {
			continue
		}
		src := docs[d.Source]
		if d.Source >= i || i-d.Source > adRing || d.Depth != src.Depth+1 || d.Boiler != src.Boiler {
			t.Fatalf("ad %s: bad source %d (depth %d, boiler %d)", d.ID, d.Source, d.Depth, d.Boiler)
		}
		if d.EditRate == 0 && d.Text != src.Text {
			t.Fatalf("ad %s: exact repost differs from %s", d.ID, src.ID)
		}
		if len(strings.Fields(src.Text)) >= 60 {
			sum[d.EditRate] += jaccard(words3(d.Text), words3(src.Text))
			num[d.EditRate]++
		}
	}
	frac := func(k Kind) float64 { return float64(count[k]) / float64(len(docs)) }
	if f := frac(Copy); f < 0.22 || f > 0.28 {
		t.Errorf("reposts %.3f, want 0.25", f)
	}
	if f := frac(Template); f < 0.08 || f > 0.12 {
		t.Errorf("templated %.3f, want 0.1", f)
	}
	if f := frac(Short) + frac(Empty); f < 0.025 || f > 0.045 {
		t.Errorf("short and empty %.3f, want 0.035", f)
	}
	want := map[float64][2]float64{0: {1, 1}, 0.02: {0.84, 0.95}, 0.05: {0.7, 0.88}, 0.1: {0.5, 0.72}}
	for e, w := range want {
		m := sum[e] / float64(num[e])
		if num[e] < 20 || m < w[0] || m > w[1] {
			t.Errorf("repost edit rate %v: mean Jaccard %.3f over %d, want in %v", e, m, num[e], w)
		}
	}
}

func TestFixArticles(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		if got := fixArticles(in); got != want {
			t.Errorf("fixArticles(%q) = %q, want %q", in, got, want)
		}
	}
	f("", "")
	f("for a Electrician.", "for an Electrician.")
	f("a a a", "a an a")
	f("is a IT and a Sous Chef, a office", "is an IT and a Sous Chef, an office")
}
