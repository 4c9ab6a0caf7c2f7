package index

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// BumpWitnessForTest makes dir's witness file record one more durable
// transaction than it does, as if the records had lost one.
func BumpWitnessForTest(t testing.TB, dir string) {
	t.Helper()
	w, ok, err := readWitness(vfs.Default, dir)
	if err != nil || !ok {
		t.Fatalf("witness of %s: %v %v", dir, ok, err)
	}
	w.updates++
	if err := writeWitness(vfs.Default, dir, w); err != nil {
		t.Fatal(err)
	}
}
