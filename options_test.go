package neardup

import (
	"testing"

	"github.com/neardup/neardup/lsh"
)

// CanTwoPass is the rule Batch follows: with Reread set, exactly the modes
// it allows run in two passes.
func TestCanTwoPass(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want bool
	}{
		{Options{}, true},
		{Options{Verify: VerifyEstimate}, false},
		{Options{Params: Params{Weight: WeightIDF}}, false},
		{Options{Refine: RefineEdit}, false},
		{Options{Keep: KeepLongest, Cluster: ClusterComponents, MaxCluster: 3}, true},
	} {
		if got := c.o.CanTwoPass(); got != c.want {
			t.Errorf("%+v: CanTwoPass %v, want %v", c.o, got, c.want)
		}
		c.o.Reread = &sliceReread{}
		if got := c.o.twoPass(); got != c.want {
			t.Errorf("%+v with Reread: twoPass %v, want %v", c.o, got, c.want)
		}
		c.o.Reread = nil
		if c.o.twoPass() {
			t.Errorf("%+v without Reread: two passes", c.o)
		}
	}
	if got := OnePassMemory(1 << 20); got != 5<<19 {
		t.Errorf("OnePassMemory(1 MiB) = %d, want 2.5 MiB", got)
	}
}

// Resolved options given again (a command's, then NewBatch's) are not
// resolved again, but a field changed since is checked anew.
func TestResolveOnce(t *testing.T) {
	o, err := Options{Params: Params{Threshold: 0.7}}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if o.resolvedAs != o.key() || o.LSH.Bands == 0 {
		t.Fatalf("Resolve did not mark its result: %+v", o)
	}
	again, err := o.Resolve()
	if err != nil || again.key() != o.key() {
		t.Errorf("Resolve again: %+v, %v", again, err)
	}
	b, err := NewBatch(o)
	if bo := b.Options(); err != nil || bo.key() != o.key() {
		t.Errorf("NewBatch: %v, options %+v", err, bo)
	}
	bad := o
	bad.Threshold = 2
	if _, err := bad.Resolve(); err == nil {
		t.Error("a field changed after Resolve to a bad value was accepted")
	}
	if _, err := NewBatch(bad); err == nil {
		t.Error("NewBatch accepted a field changed after Resolve to a bad value")
	}
	changed := o
	changed.Slots, changed.LSH = 64, lsh.Params{}
	r, err := changed.Resolve()
	if err != nil || r.LSH.Bands == 0 || r.LSH.Bands*r.LSH.Rows > 64 {
		t.Errorf("changed after Resolve: %+v, %v; want bands and rows chosen for 64 slots", r.LSH, err)
	}
}
