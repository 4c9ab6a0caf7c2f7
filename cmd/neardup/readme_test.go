package main

// The README is the user guide, and its examples are tested here so that
// it cannot drift from the program. Its fenced code blocks follow one
// convention, by their info string:
//
//	```sh             runs as written from the repository root, with only
//	                  what the repository ships (testdata/sample/) and the
//	                  files earlier blocks make; TestReadme runs it.
//	```sh norun       a command that needs what the repository does not
//	                  ship (the reader's own corpus, a cluster, Redis, a
//	                  running server) or takes minutes (the Beam module's
//	                  build, the benchmarks): not run.
//	```console        a transcript: a line "$ CMD" is a command (a line
//	                  ending in "\" continues it), runnable from the root
//	                  as an sh block is; the lines after it are what it
//	                  prints, standard output and error together. TestReadme
//	                  runs each command and checks that the lines shown
//	                  appear in its output, in order (runs of white space
//	                  compared as one space; a line "..." marks lines left
//	                  out, and lines may be left out without it). A command
//	                  shown without output must exit 0; one shown with
//	                  output may fail (a transcript can show an error).
//	```console norun  a transcript on data TestReadme does not make (the
//	                  generated 20,000-document corpora, seconds of eval
//	                  each): not run.
//	```go, ```text, ```json   not shell.
//
// A fence without an info string, or with another, fails the test: every
// shell example has to say whether it runs.
//
// TestReadme runs the blocks in README order, in one temporary directory
// that holds a copy of testdata/sample/ and, as ./neardup, the binary the
// other tests share (neardupBinary), so the repository is never written.
// Two rewrites make the README's commands run with that binary instead of
// compiling it again: "go run ./cmd/neardup" becomes "./neardup", and the
// line of the build command ("go build ... -o neardup ./cmd/neardup") is
// dropped. A block of "go test" lines is the test suite itself and is not
// run (CI runs it); any other "go" command left in a runnable block fails
// the test, so that no example costs a compilation here. Each block runs
// with "sh -e" under a time limit.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
)

const readmePath = "../../README.md"

// readmeBlock is a fenced code block of a Markdown file.
type readmeBlock struct {
	line int    // line of the opening fence, 1-based
	info string // the info string, trimmed
	text string // the lines between the fences
}

// readmeBlocks returns the fenced code blocks of the Markdown file at path.
func readmeBlocks(t *testing.T, path string) []readmeBlock {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []readmeBlock
	var cur *readmeBlock
	var body []string
	for i, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "```") {
			if cur != nil {
				body = append(body, line)
			}
			continue
		}
		if cur == nil {
			cur = &readmeBlock{line: i + 1, info: strings.TrimSpace(strings.TrimPrefix(line, "```"))}
			body = body[:0]
			continue
		}
		if strings.TrimSpace(line) != "```" {
			t.Fatalf("%s:%d: a fence opens inside the block of line %d", path, i+1, cur.line)
		}
		cur.text = strings.Join(body, "\n")
		blocks = append(blocks, *cur)
		cur = nil
	}
	if cur != nil {
		t.Fatalf("%s:%d: block not closed", path, cur.line)
	}
	return blocks
}

var (
	readmeGoRun   = regexp.MustCompile(`\bgo run \./cmd/neardup\b`)
	readmeGoBuild = regexp.MustCompile(`^go build( \S+)* -o neardup \./cmd/neardup$`)
	readmeGoCmd   = regexp.MustCompile(`(^|[;&|(]\s*)go\s`)
)

// readmeRewrite makes a runnable example use the test's binary (see the
// comment at the top of the file).
func readmeRewrite(t *testing.T, b readmeBlock, script string) string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(script, "\n") {
		if readmeGoBuild.MatchString(strings.TrimSpace(line)) {
			continue
		}
		line = readmeGoRun.ReplaceAllString(line, "./neardup")
		if readmeGoCmd.MatchString(strings.TrimSpace(line)) {
			t.Fatalf("README.md:%d: a runnable block runs the go command: %q; mark the block norun, or teach TestReadme to run it with a built binary", b.line, line)
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// readmeShell runs script with sh in dir and returns its standard output
// and error together.
func readmeShell(dir, script string, flags ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", append(flags, "-c", script)...)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("%w after %v", ctx.Err(), time.Minute)
	}
	return out, err
}

// readmeFields is line with its runs of white space made one space.
func readmeFields(line string) string { return strings.Join(strings.Fields(line), " ") }

// readmeTranscript checks the commands of a console block: each runs in
// dir, and the lines shown after it must appear in its output, in order.
func readmeTranscript(t *testing.T, b readmeBlock, dir string) {
	t.Helper()
	type step struct {
		cmd  string
		want []string
	}
	var steps []step
	lines := strings.Split(b.text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			for strings.HasSuffix(cmd, `\`) && i+1 < len(lines) {
				i++
				cmd += "\n" + lines[i]
			}
			steps = append(steps, step{cmd: readmeRewrite(t, b, cmd)})
			continue
		}
		if len(steps) == 0 {
			t.Fatalf("README.md:%d: a console block starts with output, not a $ command", b.line)
		}
		if w := readmeFields(line); w != "" && w != "..." {
			steps[len(steps)-1].want = append(steps[len(steps)-1].want, w)
		}
	}
	for _, s := range steps {
		out, err := readmeShell(dir, s.cmd)
		if len(s.want) == 0 {
			if err != nil {
				t.Errorf("README.md:%d: $ %s\n%v\n%s", b.line, s.cmd, err, readmeTail(out))
			}
			continue
		}
		want := s.want
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() && len(want) > 0 {
			if readmeFields(sc.Text()) == want[0] {
				want = want[1:]
			}
		}
		if len(want) > 0 {
			t.Errorf("README.md:%d: $ %s (%v)\nthe README shows the line\n\t%s\nwhich is not in the output (in its order):\n%s", b.line, s.cmd, err, want[0], readmeTail(out))
		}
	}
}

// readmeTail is the end of a command's output, for a failure message.
func readmeTail(out []byte) string {
	const max = 4000
	if len(out) > max {
		return "...\n" + string(out[len(out)-max:])
	}
	return string(out)
}

func TestReadme(t *testing.T) {
	blocks := readmeBlocks(t, readmePath)
	for _, b := range blocks {
		switch b.info {
		case "sh", "sh norun", "console", "console norun", "go", "text", "json":
		default:
			t.Fatalf("README.md:%d: code block with info string %q; want sh, sh norun, console, console norun, go, text or json (see readme_test.go)", b.line, b.info)
		}
	}
	bin := neardupBinary(t)
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}

	dir := t.TempDir()
	sample := filepath.Join(dir, "testdata", "sample")
	if err := os.MkdirAll(sample, 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("../../testdata/sample/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("the sample: %v, %d files", err, len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sample, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(bin, filepath.Join(dir, "neardup")); err != nil {
		t.Fatal(err)
	}

	ran := 0
	for _, b := range blocks {
		start := time.Now()
		switch b.info {
		case "sh":
			if readmeGoTestOnly(b.text) {
				continue
			}
			script := readmeRewrite(t, b, b.text)
			if out, err := readmeShell(dir, script, "-e"); err != nil {
				t.Errorf("README.md:%d: %v\n%s\noutput:\n%s", b.line, err, script, readmeTail(out))
			}
			ran++
		case "console":
			readmeTranscript(t, b, dir)
			ran++
		default:
			continue
		}
		t.Logf("README.md:%d (%s): %.2fs", b.line, b.info, time.Since(start).Seconds())
	}
	if ran < 5 {
		t.Errorf("ran %d blocks of the README; the guide's examples are not marked as runnable any more?", ran)
	}
}

// readmeGoTestOnly reports whether every command of an sh block is "go
// test": the suite itself, which CI runs.
func readmeGoTestOnly(text string) bool {
	n := 0
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !strings.HasPrefix(line, "go test") {
			return false
		}
		n++
	}
	return n > 0
}

// TestReadmeNoDatesOrCommits keeps the README free of what belongs with
// the measurements in docs/ and bench/HISTORY.md: dates and commit hashes
// (a word of 7 to 40 hex digits that git knows as a commit).
func TestReadmeNoDatesOrCommits(t *testing.T) {
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range regexp.MustCompile(`\b(19|20)\d\d-\d\d-\d\d\b`).FindAllString(string(data), -1) {
		t.Errorf("README.md has the date %s: dated figures go to docs/ or bench/HISTORY.md", d)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git to tell commit hashes")
	}
	seen := map[string]bool{}
	for _, w := range regexp.MustCompile(`\b[0-9a-f]{7,40}\b`).FindAllString(string(data), -1) {
		if seen[w] || !strings.ContainsAny(w, "0123456789") {
			continue
		}
		seen[w] = true
		cmd := exec.Command(git, "rev-parse", "--quiet", "--verify", w+"^{commit}")
		cmd.Dir = "../.."
		if cmd.Run() == nil {
			t.Errorf("README.md names the commit %s: commits go with their figures in docs/ or bench/HISTORY.md", w)
		}
	}
}

// TestReadmeLinks checks the relative links of the user guide and the
// pages around it: the file exists and, for a Markdown file, so does the
// heading a #fragment names (GitHub's anchors).
func TestReadmeLinks(t *testing.T) {
	root := "../.."
	pages := []string{"README.md", "ARCHITECTURE.md"}
	for _, pat := range []string{"docs/*.md", "bench/*.md"} {
		m, _ := filepath.Glob(filepath.Join(root, pat))
		for _, p := range m {
			rel, _ := filepath.Rel(root, p)
			pages = append(pages, rel)
		}
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		a := markdownAnchors(t, filepath.Join(root, page))
		anchors[page] = a
		return a
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range pages {
		data, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		inFence := false
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "```") {
				inFence = !inFence
			}
			if inFence {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				tpage := page
				if file != "" {
					tpage = filepath.ToSlash(filepath.Join(filepath.Dir(page), file))
					if _, err := os.Stat(filepath.Join(root, tpage)); err != nil {
						t.Errorf("%s:%d: link to %s: %v", page, i+1, target, err)
						continue
					}
				}
				if frag != "" && strings.HasSuffix(tpage, ".md") && !anchorsOf(tpage)[frag] {
					t.Errorf("%s:%d: link to %s: %s has no heading with the anchor #%s", page, i+1, target, tpage, frag)
				}
			}
		}
	}
}

// markdownAnchors returns the anchors GitHub gives the headings of the
// Markdown file at path: lower case, letters, digits, '-' and '_' kept,
// spaces made '-', the rest dropped, "-1", "-2", ... after repeats.
func markdownAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		t.Fatal(err)
	}
	a := map[string]bool{}
	count := map[string]int{}
	inFence := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimLeft(line, "#")
		if h == "" || h[0] != ' ' {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(h)) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		id := b.String()
		if n := count[id]; n > 0 {
			a[fmt.Sprintf("%s-%d", id, n)] = true
		} else {
			a[id] = true
		}
		count[id]++
	}
	return a
}
