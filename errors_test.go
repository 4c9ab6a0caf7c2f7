package neardup_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/client"
	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/shingle"
)

// TestSentinelsShared: a condition several packages report is one error
// value, so errors.Is with any of their names matches an error of any of
// them.
func TestSentinelsShared(t *testing.T) {
	same := []struct {
		name string
		a, b error
	}{
		{"shingle.ErrInvalidOptions", shingle.ErrInvalidOptions, neardup.ErrOptions},
		{"lsh.ErrInvalid", lsh.ErrInvalid, neardup.ErrInvalid},
		{"minhash.ErrCorrupt", minhash.ErrCorrupt, neardup.ErrCorrupt},
		{"minhash.ErrVersion", minhash.ErrVersion, neardup.ErrVersion},
		{"corpus.ErrCorrupt", corpus.ErrCorrupt, neardup.ErrCorrupt},
		{"client.ErrCorrupt", client.ErrCorrupt, neardup.ErrCorrupt},
		{"client.ErrNotFound", client.ErrNotFound, index.ErrNotFound},
		{"client.ErrExists", client.ErrExists, index.ErrExists},
		{"client.ErrNoShingles", client.ErrNoShingles, index.ErrNoShingles},
		{"client.ErrThresholdTooLow", client.ErrThresholdTooLow, index.ErrThreshold},
		{"client.ErrNoSpace", client.ErrNoSpace, index.ErrNoSpace},
	}
	for _, s := range same {
		if s.a != s.b {
			t.Errorf("%s (%q) is not the error of that meaning (%q)", s.name, s.a, s.b)
		}
	}
	// Through the packages' own errors.
	if _, _, _, err := minhash.Decode(nil, []byte("garbage")); !errors.Is(err, neardup.ErrCorrupt) {
		t.Errorf("minhash.Decode of garbage: %v, want neardup.ErrCorrupt", err)
	}
	if _, err := lsh.Choose(0, 0.5, 0.9); !errors.Is(err, neardup.ErrInvalid) {
		t.Errorf("lsh.Choose(0 slots): %v, want neardup.ErrInvalid", err)
	}
	if _, err := shingle.ParseMode("words"); !errors.Is(err, neardup.ErrOptions) {
		t.Errorf("shingle.ParseMode: %v, want neardup.ErrOptions", err)
	}
}

// TestSentinelPrefix: every sentinel error a public package defines
// (var ErrX = errors.New("...")) has a message that starts with the
// package's name, as the standard library's and klauspost/compress's do.
func TestSentinelPrefix(t *testing.T) {
	found := 0
	for _, dir := range publicPackageDirs(t) {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for name, pkg := range pkgs {
			if strings.HasSuffix(name, "_test") {
				continue
			}
			for path, f := range pkg.Files {
				if strings.HasSuffix(path, "_test.go") {
					continue
				}
				for _, msg := range sentinelMessages(f) {
					found++
					if !strings.HasPrefix(msg[1], name+": ") {
						t.Errorf("%s: %s = %q: want the prefix %q", filepath.ToSlash(path), msg[0], msg[1], name+": ")
					}
				}
			}
		}
	}
	if found < 30 {
		t.Errorf("found %d sentinel errors, want the module's (30 or more)", found)
	}
}

// sentinelMessages returns the name and message of each package-level
// var Err... = errors.New("...") in f.
func sentinelMessages(f *ast.File) [][2]string {
	var out [][2]string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, "Err") || i >= len(vs.Values) {
					continue
				}
				call, ok := vs.Values[i].(*ast.CallExpr)
				if !ok || len(call.Args) != 1 {
					continue
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "New" {
					continue
				}
				if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "errors" {
					continue
				}
				lit, ok := call.Args[0].(*ast.BasicLit)
				if !ok {
					continue
				}
				msg, err := strconv.Unquote(lit.Value)
				if err != nil {
					continue
				}
				out = append(out, [2]string{n.Name, msg})
			}
		}
	}
	return out
}
