package cliflags

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/neardup/neardup"
)

// engineOptions parses args as a command with the engine and shingling
// flags and returns its options or error.
func engineOptions(t *testing.T, args ...string) (neardup.Options, error) {
	t.Helper()
	var in Input
	var eng Engine
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	in.RegisterShingle(fs)
	eng.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	so, err := in.ShingleOptions()
	if err != nil {
		return neardup.Options{}, err
	}
	return eng.Options(so)
}

// Every range the engine checks is said with the flag that set the field,
// the value given and the engine's reason; explicit zeros are refused.
func TestEngineOptionsErrors(t *testing.T) {
	f := func(want string, args ...string) {
		t.Helper()
		_, err := engineOptions(t, args...)
		if !errors.Is(err, ErrUsage) || err.Error() != ErrUsage.Error()+": "+want {
			t.Errorf("%q: %v, want usage: %s", args, err, want)
		}
	}
	f("--threshold 1.5: want a number in (0, 1]", "--threshold", "1.5")
	f("--threshold 0: want a number in (0, 1]", "--threshold", "0")
	f("--threshold NaN: want a number in (0, 1]", "--threshold", "NaN")
	f("--recall 1: want a number in (0, 1)", "--recall", "1")
	f("--recall 0: want a number in (0, 1)", "--recall", "0")
	f("--num-perm 0: want 1 to 65536", "--num-perm", "0")
	f("--num-perm 70000: want 1 to 65536", "--num-perm", "70000")
	f("--seed 0 is reserved; use any other value", "--seed", "0")
	f("--workers -1: want 0 (one per CPU) or more", "--workers", "-1")
	f("--max-cluster -2: want 0 (no limit) or more", "--max-cluster", "-2")
	f("--verify x: want exact or estimate", "--verify", "x")
	f("--weight x: want none or idf", "--weight", "x")
	f("--refine x: want none or edit", "--refine", "x")
	f("--keep x: want first, longest or shortest", "--keep", "x")
	f("--cluster x: want components or star", "--cluster", "x")
	f("--weight idf: needs --verify exact (the shingle sets in memory)", "--weight", "idf", "--verify", "estimate")
	f("--bands 5 --rows 0: want bands and rows both, each at least 1", "--bands", "5")
	f("--bands -1 --rows 3: want bands and rows both, each at least 1", "--bands", "-1", "--rows", "3")
	f("--bands 40 --rows 4: want bands x rows at most the 128 slots", "--bands", "40", "--rows", "4")
	f("--ngram 0: want a length from 1 to 1000", "--ngram", "0")
	_, err := engineOptions(t, "--num-perm", "1", "--recall", "0.999999", "--threshold", "0.99")
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "--num-perm 1, --threshold 0.99, --recall 0.999999: ") {
		t.Errorf("no bands and rows: %v", err)
	}
}

// The options are resolved once, here: bands and rows chosen, defaults
// in place, and a second Resolve changes nothing.
func TestEngineOptionsResolved(t *testing.T) {
	o, err := engineOptions(t, "--threshold", "0.8", "--shingle", "char")
	if err != nil {
		t.Fatal(err)
	}
	if o.LSH.Bands == 0 || o.Shingle.N != 5 || o.Workers == 0 || o.Threshold != 0.8 {
		t.Errorf("not resolved: %+v", o)
	}
	r, err := o.Resolve()
	if err != nil || r.Params != o.Params || r.Workers != o.Workers || r.MaxBucket != o.MaxBucket {
		t.Errorf("Resolve again: %+v, %v; want %+v", r, err, o)
	}
}

func TestFlagOf(t *testing.T) {
	for field, name := range map[string]string{"Threshold": "threshold", "Slots": "num-perm", "Shingle.N": "ngram", "MaxCluster": "max-cluster", "LSH": "", "Nope": ""} {
		if got := FlagOf(field); got != name {
			t.Errorf("FlagOf(%q) = %q, want %q", field, got, name)
		}
	}
}
