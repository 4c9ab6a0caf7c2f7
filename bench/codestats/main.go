// Command codestats prints the shape of the code: lines per package, the
// longest functions, the imports that run from internal/ up into the rest
// of the module, and the exported identifiers per package. It reads the
// non-test Go files under the given root (default .) with go/parser, so
// anyone can rerun it on any commit:
//
//	go run ./bench/codestats            # this checkout
//	go run ./bench/codestats -top 20 /tmp/old
//
// Packages are named by their directory; the beam/ and bench/ modules are
// included. Function lengths count the lines from func to its closing
// brace.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

const module = "github.com/neardup/neardup"

type fn struct {
	name  string
	pos   string
	lines int
}

func main() {
	top := flag.Int("top", 10, "how many of the longest functions to list")
	over := flag.String("over", "cmd/neardup=80,.=120,allpairs=120,index=120,lsh=120", "dir=N: count the functions longer than N lines in each directory")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	lines := map[string]int{}
	exported := map[string]int{}
	imports := map[string]map[string]bool{}
	var fns []fn
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		dir := filepath.ToSlash(filepath.Dir(rel))
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		lines[dir] += strings.Count(string(src), "\n")
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if p == module || strings.HasPrefix(p, module+"/") {
				to := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
				if to == "" {
					to = "."
				}
				if imports[dir] == nil {
					imports[dir] = map[string]bool{}
				}
				imports[dir][to] = true
			}
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				recvExported := true
				if d.Recv != nil && len(d.Recv.List) > 0 {
					t := d.Recv.List[0].Type
					for {
						switch x := t.(type) {
						case *ast.StarExpr:
							t = x.X
							continue
						case *ast.IndexExpr:
							t = x.X
							continue
						case *ast.IndexListExpr:
							t = x.X
							continue
						}
						break
					}
					if id, ok := t.(*ast.Ident); ok {
						name = id.Name + "." + name
						recvExported = id.IsExported()
					}
				}
				if d.Name.IsExported() && recvExported && f.Name.Name != "main" {
					exported[dir]++
				}
				a, b := fset.Position(d.Pos()), fset.Position(d.End())
				fns = append(fns, fn{name: name, pos: fmt.Sprintf("%s:%d", filepath.ToSlash(rel), a.Line), lines: b.Line - a.Line + 1})
			case *ast.GenDecl:
				if f.Name.Name == "main" {
					continue
				}
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							exported[dir]++
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								exported[dir]++
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "codestats:", err)
		os.Exit(1)
	}
	dirs := make([]string, 0, len(lines))
	total := 0
	for d, n := range lines {
		dirs = append(dirs, d)
		total += n
	}
	sort.Strings(dirs)
	fmt.Printf("lines per package (non-test Go; total %d)\n", total)
	for _, d := range dirs {
		fmt.Printf("  %-32s %6d\n", d, lines[d])
	}
	sort.Slice(fns, func(i, j int) bool {
		if fns[i].lines != fns[j].lines {
			return fns[i].lines > fns[j].lines
		}
		return fns[i].pos < fns[j].pos
	})
	fmt.Printf("\nthe %d longest functions (lines)\n", *top)
	for _, f := range fns[:min(*top, len(fns))] {
		fmt.Printf("  %4d  %-36s %s\n", f.lines, f.name, f.pos)
	}
	fmt.Println("\nfunctions over a limit, per directory")
	for _, kv := range strings.Split(*over, ",") {
		d, n, _ := strings.Cut(kv, "=")
		limit, _ := strconv.Atoi(n)
		var names []string
		for _, f := range fns {
			if filepath.ToSlash(filepath.Dir(f.pos)) == d && f.lines > limit {
				names = append(names, fmt.Sprintf("%s %d", f.name, f.lines))
			}
		}
		fmt.Printf("  %-12s > %3d lines: %d %s\n", d, limit, len(names), strings.Join(names, ", "))
	}
	fmt.Println("\nimports from internal/ to packages outside internal/ (upward edges)")
	up := 0
	for _, d := range dirs {
		if !strings.HasPrefix(d, "internal/") && d != "internal" {
			continue
		}
		var to []string
		for t := range imports[d] {
			if !strings.HasPrefix(t, "internal/") {
				to = append(to, t)
			}
		}
		sort.Strings(to)
		for _, t := range to {
			fmt.Printf("  %s -> %s\n", d, t)
			up++
		}
	}
	if up == 0 {
		fmt.Println("  none")
	}
	fmt.Println("\nexported identifiers per package (not main; methods of exported types counted)")
	for _, d := range dirs {
		if exported[d] > 0 {
			fmt.Printf("  %-32s %4d\n", d, exported[d])
		}
	}
}
