package report

import (
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup"
)

// TestReportCopyBeforeRepresentative: a copy of the representative read
// before the representative itself (possible when the keep policy picks a
// later document) takes a text slot while it is not known to be a copy; the
// texts shown must still all be kept, whatever the order of reading, also
// when the other members tie with it at Jaccard 1 (white space changes).
func TestReportCopyBeforeRepresentative(t *testing.T) {
	var ws []string
	for i := range 40 {
		ws = append(ws, fmt.Sprintf("w%d", i))
	}
	rep := strings.Join(ws, " ")
	// variant is rep with word i replaced by x<i>.
	variant := func(i int) string {
		v := slices.Clone(ws)
		v[i] = fmt.Sprintf("x%d", i)
		return strings.Join(v, " ")
	}
	f := func(jaccard func(k int) float64, want []string) {
		t.Helper()
		b, err := neardup.NewBatch(neardup.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// Doc 0 is a copy of the representative, doc 9; docs 1-8 differ.
		texts := []string{rep}
		members := []neardup.Member{{Doc: 0, Jaccard: 1}}
		for k := 1; k <= 8; k++ {
			text := variant(3 * k)
			if jaccard(k) == 1 {
				text = strings.Replace(rep, " ", "  ", k)
			}
			texts = append(texts, text)
			members = append(members, neardup.Member{Doc: k, Jaccard: jaccard(k)})
		}
		texts = append(texts, rep)
		members = append(members, neardup.Member{Doc: 9, Jaccard: 1})
		for i, s := range texts {
			if err := b.Add(strconv.Itoa(i), []byte(s)); err != nil {
				t.Fatal(err)
			}
		}
		c := &neardup.Cluster{ID: 1, Representative: 9, Members: members}
		for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {9, 0, 8, 7, 6, 5, 4, 3, 2, 1}, {1, 2, 3, 4, 0, 5, 6, 7, 8, 9}} {
			ct := &clusterTexts{pick: clusterPick{c: c}, seed: maphash.MakeSeed(), groups: map[textKey]*textGroup{}, seen: make([]bool, len(members))}
			for _, d := range order {
				ct.add(d, []byte(texts[d]))
			}
			v := ct.view(b, 0.5, true)
			if v.NCopies != 1 || !slices.Equal(v.Copies, []string{"0"}) {
				t.Errorf("order %v: copies %d %q, want 1: 0", order, v.NCopies, v.Copies)
			}
			var got []string
			for _, m := range v.Members {
				got = append(got, m.IDs...)
				if m.Left[0].Text == Missing {
					t.Errorf("order %v: member %q shown without its text", order, m.IDs)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("order %v: shown %q, want %q", order, got, want)
			}
			if v.More != 2 || v.MoreTexts != 2 {
				t.Errorf("order %v: %d more members with %d texts, want 2 and 2", order, v.More, v.MoreTexts)
			}
		}
	}
	f(func(k int) float64 { return 1 - float64(k)/20 }, []string{"8", "7", "6", "5", "4", "3"})
	f(func(int) float64 { return 1 }, []string{"1", "2", "3", "4", "5", "6"})
}
