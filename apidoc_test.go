package neardup_test

import (
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestAPIDocumented fails on an exported identifier of the module's public
// packages (not internal/, not commands, not other modules) that has no doc
// comment: a package, type, function, method of an exported type, or a
// constant or variable outside a documented group; and on a lower package
// whose doc does not say who uses it from outside. The files are those the
// current platform builds.
func TestAPIDocumented(t *testing.T) {
	dirs := publicPackageDirs(t)
	if len(dirs) < 10 {
		t.Fatalf("found %d public packages, want the module's (%v)", len(dirs), dirs)
	}
	for _, dir := range dirs {
		for _, miss := range undocumented(t, dir) {
			t.Errorf("%s: %s has no doc comment", dir, miss)
		}
	}
}

// TestUndocumentedFinds checks the check: a package with gaps of every
// kind is reported in full.
func TestUndocumentedFinds(t *testing.T) {
	dir := t.TempDir()
	src := `package p

type T struct{}

func (T) M() {}

// N is documented.
func (T) N() {}

func (t *T) unexported() {}

func F() {}

// G is documented.
func G() {}

func New() T { return T{} }

const C = 1

// D is documented.
const D = 2

var (
	V = 1
	// W is documented.
	W = 2
	w = 3
)

// Documented group.
const (
	X = 1
	Y = 2
)
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o666); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(undocumented(t, dir), ", ")
	want := "package p, const C, var V, func F, type T, func New, method T.M"
	if got != want {
		t.Errorf("undocumented:\n got %s\nwant %s", got, want)
	}

	// A package doc without the sentence on who uses it.
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte("// Package p does things.\npackage p\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(undocumented(t, dir), ", "), "package p's \""+whoUses+"\""; got != want {
		t.Errorf("undocumented:\n got %s\nwant %s", got, want)
	}
}

// publicPackageDirs lists the directories below the module root that hold
// an importable package a library user may take: it skips internal/,
// testdata/, hidden directories, directories of other modules (beam/,
// bench/peers) and commands (package main, found by undocumented).
func publicPackageDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != "." {
			if name == "internal" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		p, err := build.ImportDir(path, 0)
		if err != nil || p.Name == "main" || len(p.GoFiles) == 0 {
			return nil
		}
		dirs = append(dirs, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// whoUses starts the sentence of a lower package's doc that says what a
// user of the library would take the package for.
const whoUses = "Who uses it from outside:"

// undocumented returns what dir's package exports without a doc comment,
// in go/doc's order; the doc of a package other than the root's must also
// have a paragraph starting with whoUses.
func undocumented(t *testing.T, dir string) []string {
	t.Helper()
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	names := append(append([]string(nil), bp.GoFiles...), bp.CgoFiles...)
	sort.Strings(names)
	for _, name := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, "example.com/"+filepath.ToSlash(dir))
	if err != nil {
		t.Fatal(err)
	}
	var miss []string
	if strings.TrimSpace(pkg.Doc) == "" {
		miss = append(miss, "package "+pkg.Name)
	} else if dir != "." && !strings.Contains(pkg.Doc, whoUses) {
		miss = append(miss, "package "+pkg.Name+"'s "+strconv.Quote(whoUses))
	}
	values := func(kind string, vs []*doc.Value) {
		for _, v := range vs {
			if v.Doc != "" {
				continue
			}
			for _, spec := range v.Decl.Specs {
				s := spec.(*ast.ValueSpec)
				if s.Doc != nil || s.Comment != nil {
					continue
				}
				for _, n := range s.Names {
					if n.IsExported() {
						miss = append(miss, kind+" "+n.Name)
					}
				}
			}
		}
	}
	funcs := func(prefix string, fs []*doc.Func) {
		for _, f := range fs {
			if f.Doc == "" {
				miss = append(miss, prefix+f.Name)
			}
		}
	}
	values("const", pkg.Consts)
	values("var", pkg.Vars)
	funcs("func ", pkg.Funcs)
	for _, typ := range pkg.Types {
		if typ.Doc == "" {
			miss = append(miss, "type "+typ.Name)
		}
		values("const", typ.Consts)
		values("var", typ.Vars)
		funcs("func ", typ.Funcs)
		funcs("method "+typ.Name+".", typ.Methods)
	}
	return miss
}
