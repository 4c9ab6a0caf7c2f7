// Package truth reads the ground truth that bench/gencorpus -truth writes
// beside a generated corpus (a TSV row a document: id, kind, source,
// edit_rate, depth, chain, family, boiler), for scoring reported pairs
// against what was planted (neardup eval --truth).
package truth

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Origins reads a truth TSV from r (name prefixes its errors, with the
// line): a header naming at least the columns id and source, and
// optionally family, then a row a document (an id's last row counts). It
// returns each id's origin: "f:NAME" for the first family met following
// the id's sources (the id's own first), else "d:ID" for the root of the
// chain, the first id on it with no source or a source that is not in
// the file. A cycle of sources (not something bench/gencorpus writes)
// has no root: its ids and those whose chains lead into it take "d:" and
// the smallest id on the cycle. Time is linear in the rows: each id's
// chain is followed once.
func Origins(r io.Reader, name string) (map[string]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s:1: %w", name, err)
		}
		return nil, fmt.Errorf("%s:1: no header", name)
	}
	col := map[string]int{}
	for i, h := range strings.Split(strings.TrimSuffix(sc.Text(), "\r"), "\t") {
		col[h] = i
	}
	ci, ok1 := col["id"]
	cs, ok2 := col["source"]
	cf, hasFamily := col["family"]
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("%s:1: the header needs the columns id and source", name)
	}
	source, family := map[string]string{}, map[string]string{}
	var ids []string // in the file's order: the work does not depend on map order
	line := 1
	for sc.Scan() {
		line++
		fs := strings.Split(strings.TrimSuffix(sc.Text(), "\r"), "\t")
		if len(fs) <= max(ci, cs) || (hasFamily && len(fs) <= cf) {
			return nil, fmt.Errorf("%s:%d: %d fields", name, line, len(fs))
		}
		if _, seen := source[fs[ci]]; !seen {
			ids = append(ids, fs[ci])
		}
		source[fs[ci]] = fs[cs]
		if hasFamily {
			family[fs[ci]] = fs[cf]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	origin := make(map[string]string, len(source))
	onPath := map[string]int{} // id -> its index in path, while followed
	var path []string
	for _, id := range ids {
		if _, done := origin[id]; done {
			continue
		}
		// Follow the sources until an id whose origin is known or found.
		path = path[:0]
		cur := id
		var o string
		for {
			if known, done := origin[cur]; done {
				o = known
				break
			}
			if at, seen := onPath[cur]; seen { // a cycle: path[at:]
				least := cur
				for _, c := range path[at:] {
					least = min(least, c)
				}
				o = "d:" + least
				break
			}
			if fam := family[cur]; fam != "" {
				o = "f:" + fam
				break
			}
			src, ok := source[cur]
			if !ok || src == "" { // an original, or a source not in the file
				o = "d:" + cur
				break
			}
			onPath[cur] = len(path)
			path = append(path, cur)
			cur = src
		}
		for _, c := range path {
			origin[c] = o
			delete(onPath, c)
		}
		if _, inFile := source[cur]; inFile {
			if _, done := origin[cur]; !done {
				origin[cur] = o
			}
		}
	}
	return origin, nil
}
