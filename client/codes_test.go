package client

import (
	"slices"
	"testing"

	"github.com/neardup/neardup/server"
)

// The sentinels match codes the service uses, and paths are escaped as the
// service expects.
func TestCodesAreTheServers(t *testing.T) {
	for code := range codes {
		if !slices.Contains(server.Codes, code) {
			t.Errorf("sentinel for %q, which the server does not use", code)
		}
	}
	for _, id := range []string{"a", "a/b", ".", "..", "...", "100%", "ü ü", "?#"} {
		if DocumentPath(id) != server.DocumentPath(id) {
			t.Errorf("%q: %q here, %q in the server", id, DocumentPath(id), server.DocumentPath(id))
		}
	}
}
