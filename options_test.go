package neardup

import "testing"

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
