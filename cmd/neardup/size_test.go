package main

import (
	"os"
	"testing"
)

// maxBinaryMB bounds the size of the neardup binary as `go build` makes
// it (47.3 MB when this test was written; 37.1 MB with -ldflags=-w, the
// README's build line). It is there to catch one mistake that costs about
// 15 MB at once: a call of reflect.Value.MethodByName with a name not
// known at link time (what the standard library's text/template and
// html/template execute) makes the linker keep every exported method of
// every type used through an interface (golang/go#72895). The report's
// template runs on DataDog's fork of html/template, which calls none; a
// new dependency that executes a standard template trips this.
const maxBinaryMB = 52

func TestBinarySize(t *testing.T) {
	bin := neardupBinary(t)
	fi, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	if mb := float64(fi.Size()) / 1e6; mb > maxBinaryMB {
		t.Fatalf("the neardup binary is %.1f MB, over %d: does something now execute a standard text/template or html/template (reflect.Value.MethodByName with a name not known at link time)?", mb, maxBinaryMB)
	}
}
