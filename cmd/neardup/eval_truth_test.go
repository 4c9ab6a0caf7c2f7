package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/gen"
)

// TestEvalTruth scores eval's reported pairs against the generator's plant,
// with the origins computed here from gen.Doc.Source and Family directly.
func TestEvalTruth(t *testing.T) {
	dir := t.TempDir()
	var docs []gen.Doc
	if err := gen.Generate(gen.Config{Docs: 3000, Seed: 3, MeanWords: 80}, func(i int, d gen.Doc) error {
		docs = append(docs, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var corpus, truth strings.Builder
	truth.WriteString("id\tkind\tsource\tfamily\n")
	for _, d := range docs {
		b, _ := json.Marshal(map[string]string{"id": d.ID, "text": d.Text})
		corpus.Write(b)
		corpus.WriteByte('\n')
		src, fam := "", ""
		if d.Source >= 0 {
			src = docs[d.Source].ID
		}
		if d.Family >= 0 {
			fam = fmt.Sprint(d.Family)
		}
		fmt.Fprintf(&truth, "%s\t%v\t%s\t%s\n", d.ID, d.Kind, src, fam)
	}
	in := write(t, dir, "c.jsonl", corpus.String())
	tf := write(t, dir, "truth.tsv", truth.String())

	code, out, stderr := cli(t, "", "eval", "--json", "--refine", "edit", "--truth", tf, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	pl := rep.Planted
	if pl == nil || len(pl.ByEdit) == 0 {
		t.Fatalf("no planted report: %s", out)
	}

	// The same run through the library, classified here.
	origin := func(i int) string {
		for steps := 0; steps < len(docs); steps++ {
			if docs[i].Family >= 0 {
				return fmt.Sprint("f", docs[i].Family)
			}
			if docs[i].Source < 0 {
				return fmt.Sprint("d", i)
			}
			i = docs[i].Source
		}
		t.Fatal("cycle in sources")
		return ""
	}
	b, err := neardup.NewBatch(neardup.Options{Refine: neardup.RefineEdit})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		b.Add(d.ID, []byte(d.Text))
	}
	res, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	related, relatedAt8 := 0, 0
	for _, p := range res.Pairs {
		if origin(p.A) == origin(p.B) {
			related++
			if p.Edit >= 0.8 {
				relatedAt8++
			}
		}
	}
	if pl.Reported != len(res.Pairs) || pl.Related != related || pl.Unrelated != len(res.Pairs)-related {
		t.Errorf("planted = %+v; want %d reported, %d related", pl, len(res.Pairs), related)
	}
	if related == 0 || pl.Unrelated == 0 {
		t.Errorf("the corpus should have both planted and accidental pairs: %+v", pl)
	}
	for _, be := range pl.ByEdit {
		if be.MinEdit == 0.8 && be.Related != relatedAt8 {
			t.Errorf("edit >= 0.8: %d related, want %d", be.Related, relatedAt8)
		}
	}
	// Weighted: eval scores the same pairs a weighted Batch reports.
	code, out, stderr = cli(t, "", "eval", "--json", "--weight", "idf", "--truth", tf, in)
	if code != 0 {
		t.Fatalf("eval --weight idf: exit %d: %s", code, stderr)
	}
	var wrep evalReport
	if err := json.Unmarshal([]byte(out), &wrep); err != nil {
		t.Fatal(err)
	}
	wb, _ := neardup.NewBatch(neardup.Options{Params: neardup.Params{Weight: neardup.WeightIDF}})
	for _, d := range docs {
		wb.Add(d.ID, []byte(d.Text))
	}
	wres, err := wb.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wrel := 0
	for _, p := range wres.Pairs {
		if origin(p.A) == origin(p.B) {
			wrel++
		}
	}
	if !wrep.Weighted || wrep.Planted == nil || wrep.Planted.Reported != len(wres.Pairs) || wrep.Planted.Related != wrel {
		t.Errorf("weighted eval: %+v, want %d reported, %d related", wrep.Planted, len(wres.Pairs), wrel)
	}

	if code, _, _ := cli(t, "", "eval", "--truth", filepath.Join(dir, "nope.tsv"), in); code != 1 {
		t.Errorf("missing truth file: exit %d, want 1", code)
	}
}

// TestEvalClusterModes: on a generated corpus full of chains, eval shows
// components dropping documents below t with the kept one, and star none.
func TestEvalClusterModes(t *testing.T) {
	dir := t.TempDir()
	var corpus strings.Builder
	if err := gen.Generate(gen.Config{Docs: 3000, Seed: 2, MeanWords: 80, DupRate: 0.5, ChainRate: 0.8}, func(i int, d gen.Doc) error {
		b, _ := json.Marshal(map[string]string{"id": d.ID, "text": d.Text})
		corpus.Write(b)
		corpus.WriteByte('\n')
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	in := write(t, dir, "chains.jsonl", corpus.String())
	got := map[string]evalClusters{}
	for _, mode := range []string{"components", "star"} {
		code, out, stderr := cli(t, "", "eval", "--json", "--cluster", mode, in)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", mode, code, stderr)
		}
		var r evalReport
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		got[mode] = r.Clusters
	}
	c, s := got["components"], got["star"]
	if s.Below != 0 || s.WithBelow != 0 {
		t.Errorf("star: %+v, want no member below t", s)
	}
	if c.Below == 0 || c.Largest <= s.Largest {
		t.Errorf("components %+v vs star %+v: chains should show", c, s)
	}
	t.Logf("components %+v; star %+v", c, s)
}
