package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

const reportSample = "../../testdata/sample/ads.jsonl"

// reportOf runs dedup --report on the inputs and returns the page.
func reportOf(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report.html")
	code, _, stderr := cli(t, stdin, append([]string{"dedup", "--quiet", "--report", out}, args...)...)
	if code != 0 {
		t.Fatalf("dedup --report: exit %d: %s", code, stderr)
	}
	return read(t, out)
}

// tagRE matches a start or end tag; its groups are the slash, the name and
// the self-closing slash.
var tagRE = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9-]*)(?:\s[^<>]*?)?(/?)>`)

var voidElements = map[string]bool{"meta": true, "br": true, "hr": true, "img": true, "input": true, "link": true, "wbr": true}

// checkWellFormed checks that page is one HTML document whose elements nest
// properly (every non-void element closed, in order), that no stray '<'
// sits in text, and that the content of <style> and <script> holds no
// markup. It is a strict subset of what an HTML parser accepts, which is
// what the report promises to write.
func checkWellFormed(t *testing.T, page string) {
	t.Helper()
	if !strings.HasPrefix(page, "<!DOCTYPE html>\n") {
		t.Fatalf("page does not start with <!DOCTYPE html>: %.40q", page)
	}
	body := page[len("<!DOCTYPE html>\n"):]
	var stack []string
	pos := 0
	for _, m := range tagRE.FindAllStringSubmatchIndex(body, -1) {
		if m[0] < pos {
			continue // inside <style> or <script>
		}
		if text := body[pos:m[0]]; strings.ContainsAny(text, "<>") {
			t.Fatalf("stray markup in text at byte %d: %.80q", pos, text)
		}
		closing, name, self := body[m[2]:m[3]] == "/", strings.ToLower(body[m[4]:m[5]]), body[m[6]:m[7]] == "/"
		pos = m[1]
		switch {
		case closing:
			if len(stack) == 0 || stack[len(stack)-1] != name {
				t.Fatalf("</%s> at byte %d closes %v", name, m[0], stack)
			}
			stack = stack[:len(stack)-1]
		case self || voidElements[name]:
		case name == "style" || name == "script":
			end := strings.Index(body[pos:], "</"+name+">")
			if end < 0 {
				t.Fatalf("<%s> not closed", name)
			}
			if name == "script" && strings.Contains(body[pos:pos+end], "<") {
				t.Fatalf("markup inside <script>: %q", body[pos:pos+end])
			}
			pos += end + len("</"+name+">")
		default:
			stack = append(stack, name)
		}
	}
	if rest := strings.TrimSpace(body[pos:]); rest != "" || len(stack) != 0 {
		t.Fatalf("unclosed elements %v, trailing %.80q", stack, rest)
	}
	for _, el := range []string{"<html", "<head>", "<body>", "<title>"} {
		if n := strings.Count(page, el); n != 1 {
			t.Errorf("%s appears %d times, want once", el, n)
		}
	}
}

// checkOffline checks that the page names no resource outside itself.
func checkOffline(t *testing.T, page string) {
	t.Helper()
	low := strings.ToLower(page)
	for _, s := range []string{"http://", "https://", "//cdn", "src=", "href=", "url(", "@import", "fetch(", "xmlhttprequest", "<link", "<iframe", "<img"} {
		if i := strings.Index(low, s); i >= 0 {
			t.Errorf("page contains %q (a possible network reference): %.80q", s, page[max(0, i-30):])
		}
	}
	if !strings.Contains(page, `Content-Security-Policy" content="default-src 'none'`) {
		t.Errorf("page has no Content-Security-Policy forbidding external resources")
	}
}

var svgPathRE = regexp.MustCompile(`(?s)<svg class="chart".*?</svg>`)

func TestReportSample(t *testing.T) {
	clusters := filepath.Join(t.TempDir(), "clusters.jsonl")
	page := reportOf(t, "", "--clusters", clusters, reportSample)
	checkWellFormed(t, page)
	checkOffline(t, page)
	for _, want := range []string{
		`id="summary"`, `id="s-curve"`, `id="similarity"`, `id="sizes"`, `id="largest"`, `id="suspicious"`,
		"<td>documents</td><td class=\"v\">1,500</td>",
		"<td>bands × rows</td><td class=\"v\">35 × 3</td>",
		"<td>P(candidate | J = 0.5)</td><td class=\"v\">0.9907</td>",
		"LSH S-curve: 35 bands × 3 rows",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	charts := svgPathRE.FindAllString(page, -1)
	if len(charts) != 3 {
		t.Fatalf("%d charts, want 3 (S-curve, similarity, sizes)", len(charts))
	}
	for i, c := range charts {
		if n := strings.Count(c, "<path d="); n < 5 {
			t.Errorf("chart %d has %d paths", i, n)
		}
	}
	// 10 largest and 10 most suspicious clusters, side by side with diffs.
	if n := strings.Count(page, `<details class="cluster"`); n != 2*reportClusters {
		t.Errorf("%d clusters shown, want %d", n, 2*reportClusters)
	}
	if n := strings.Count(page, `<div class="pair">`); n < 20 {
		t.Errorf("%d side-by-side pairs, want at least 20", n)
	}
	if !strings.Contains(page, `<mark class="del">`) || !strings.Contains(page, `<mark class="ins">`) {
		t.Errorf("no highlighted difference")
	}
	// The most suspicious clusters come by their lowest member Jaccard,
	// ascending, starting from the lowest of the run (from --clusters).
	var lowest float64 = 1
	for _, line := range strings.Split(strings.TrimSpace(read(t, clusters)), "\n") {
		var c struct{ Members []struct{ Jaccard float64 } }
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		for _, m := range c.Members {
			lowest = min(lowest, m.Jaccard)
		}
	}
	sus := page[strings.Index(page, `id="suspicious"`):]
	prev := -1.0
	for i, m := range regexp.MustCompile(`lowest J <span class="j[^"]*">([0-9.]+)</span>`).FindAllStringSubmatch(sus, -1) {
		j, err := strconv.ParseFloat(m[1], 64)
		if err != nil || j < prev {
			t.Errorf("suspicious cluster %d: lowest J %s after %.3f", i, m[1], prev)
		}
		if i == 0 && fmt.Sprintf("%.3f", lowest) != m[1] {
			t.Errorf("first suspicious cluster: lowest J %s, want the run's lowest %.3f", m[1], lowest)
		}
		prev = j
	}
	if strings.Contains(page, reportMissing) {
		t.Errorf("some texts were not found when the input was read again")
	}
}

func TestReportEscapes(t *testing.T) {
	dir := t.TempDir()
	evil := `<script>alert(1)</script> & "quotes" <img src=x onerror=alert(2)>`
	in := write(t, dir, "evil.jsonl", fmt.Sprintf(`{"id":"<b>one</b>","text":%q}
{"id":"two\"'<","text":%q}
`, adA+" "+evil, adC+" "+evil))
	page := reportOf(t, "", in)
	checkWellFormed(t, page)
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "<img") || strings.Contains(page, "<b>one") {
		t.Fatalf("unescaped document text or id in the page")
	}
	if n := strings.Count(page, "<script"); n != 1 {
		t.Errorf("%d <script> elements, want only the page's own", n)
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;b&gt;one&lt;/b&gt;", "&amp;"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks the escaped %q", want)
		}
	}
}

func TestReportStdin(t *testing.T) {
	stdin := fmt.Sprintf("%s\n%s\n%s\n", adA, adB, adC)
	page := reportOf(t, stdin, "--format", "text", "-")
	checkWellFormed(t, page)
	if strings.Contains(page, "not kept") || strings.Contains(page, reportMissing) {
		t.Fatalf("texts from standard input not shown")
	}
	if !strings.Contains(page, `<mark class="del">please</mark>`) || !strings.Contains(page, `<mark class="ins">now</mark>`) {
		t.Errorf("the one-word difference is not highlighted")
	}
}

// TestReportNotCommittedOnFailure: when another output fails after the
// report has been written, no report (nor temporary file) is left.
func TestReportNotCommittedOnFailure(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	write(t, docs, "a.txt", adA)
	write(t, docs, "c.txt", adC)
	outDir := filepath.Join(dir, "out")
	if err := os.Mkdir(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	exists := filepath.Join(outDir, "unique")
	write(t, outDir, "unique", "already here")
	report := filepath.Join(outDir, "report.html")
	code, _, stderr := cli(t, "", "dedup", "--quiet", "--report", report, "--output", exists, docs)
	if code == 0 {
		t.Fatalf("dedup with an --output that exists succeeded")
	}
	if !strings.Contains(stderr, "already exists") {
		t.Fatalf("unexpected failure: %s", stderr)
	}
	ents, _ := os.ReadDir(outDir)
	if len(ents) != 1 || ents[0].Name() != "unique" {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("after a failed run the output directory holds %v, want only the pre-existing file", names)
	}
	// The same run without the failing output does write the report.
	if code, _, stderr := cli(t, "", "dedup", "--quiet", "--report", report, docs); code != 0 {
		t.Fatalf("dedup --report: exit %d: %s", code, stderr)
	}
	checkWellFormed(t, read(t, report))
}

func TestReportRefusesToOverwriteInput(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "a.txt", adA+"\n"+adC+"\n")
	code, _, stderr := cli(t, "", "dedup", "--report", in, in)
	if code != exitUsage || !strings.Contains(stderr, "--report") {
		t.Fatalf("exit %d, %q; want a usage error naming --report", code, stderr)
	}
}

// chromium runs headless Chromium on page with args and returns its
// standard output and the requests it logged that the page made (any
// non-file URL whose initiator is not the browser itself). Name resolution
// is disabled so that nothing leaves the machine.
func chromium(t *testing.T, page string, args ...string) (stdout string, pageRequests []string) {
	t.Helper()
	dir := t.TempDir()
	netlog := filepath.Join(dir, "netlog.json")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--host-resolver-rules=MAP * ~NOTFOUND", "--log-net-log=" + netlog,
		"--user-data-dir=" + filepath.Join(dir, "profile")}, args...)
	cmd := exec.CommandContext(ctx, "/usr/bin/chromium", append(all, "file://"+page)...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL       string `json:"url"`
				Initiator string `json:"initiator"`
			} `json:"params"`
		} `json:"events"`
	}
	raw, err := os.ReadFile(netlog)
	if err != nil {
		t.Fatalf("chromium wrote no net log: %v", err)
	}
	if err := json.Unmarshal(raw, &log); err != nil {
		t.Fatalf("chromium net log: %v", err)
	}
	start, ok := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		t.Fatalf("chromium net log has no URL_REQUEST_START_JOB event type")
	}
	for _, e := range log.Events {
		if e.Type == start && e.Params.URL != "" && !strings.HasPrefix(e.Params.URL, "file:") && e.Params.Initiator != "not an origin" {
			pageRequests = append(pageRequests, e.Params.URL)
		}
	}
	return out.String(), pageRequests
}

// TestReportInBrowser loads the sample's report in headless Chromium: the
// charts and the side-by-side clusters must be in the rendered DOM, the
// page's script must have run, and the page must request nothing. It also
// takes a screenshot, kept at $NEARDUP_REPORT_SCREENSHOT or
// $TMPDIR/neardup-report.png for a look.
func TestReportInBrowser(t *testing.T) {
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Skip("skipping: /usr/bin/chromium is not installed (.ci/install-chromium installs it)")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if code, _, stderr := cli(t, "", "dedup", "--quiet", "--report", page, reportSample); code != 0 {
		t.Fatalf("dedup --report: exit %d: %s", code, stderr)
	}

	// The detector works: a page with an external image is caught.
	control := write(t, dir, "control.html", `<!DOCTYPE html><html><body><img src="http://neardup-test.invalid/x.png"></body></html>`)
	if _, reqs := chromium(t, control, "--dump-dom"); len(reqs) == 0 {
		t.Fatalf("the net log check missed the control page's request")
	}

	dom, reqs := chromium(t, page, "--dump-dom")
	if len(reqs) > 0 {
		t.Errorf("the report made network requests: %q", reqs)
	}
	if !strings.Contains(dom, `data-ready="1"`) {
		t.Errorf("the page's script did not run (no data-ready on <html>)")
	}
	charts := regexp.MustCompile(`(?s)<svg class="chart"[^>]*>.*?</svg>`).FindAllString(dom, -1)
	if len(charts) != 3 {
		t.Errorf("%d charts in the rendered DOM, want 3", len(charts))
	}
	for i, c := range charts {
		if n := strings.Count(c, "<path "); n < 5 {
			t.Errorf("rendered chart %d has %d paths", i, n)
		}
	}
	pairs := regexp.MustCompile(`(?s)<div class="pair">\s*<div class="head">representative.*?<div class="text rep">(.*?)</div>\s*<div class="text mem">(.*?)</div>`).FindAllStringSubmatch(dom, -1)
	if len(pairs) < 20 {
		t.Fatalf("%d side-by-side blocks in the rendered DOM, want at least 20", len(pairs))
	}
	marked := 0
	for _, p := range pairs {
		if strings.Contains(p[1], `<mark class="del">`) || strings.Contains(p[2], `<mark class="ins">`) {
			marked++
		}
	}
	if marked < len(pairs)/2 {
		t.Errorf("only %d of %d side-by-side blocks have highlighted differences", marked, len(pairs))
	}

	shot := os.Getenv("NEARDUP_REPORT_SCREENSHOT")
	if shot == "" {
		shot = filepath.Join(os.TempDir(), "neardup-report.png")
	}
	shot, _ = filepath.Abs(shot)
	os.Remove(shot)
	chromium(t, page, "--screenshot="+shot, "--window-size=1200,3000")
	fi, err := os.Stat(shot)
	if err != nil || fi.Size() < 10000 {
		t.Fatalf("no screenshot at %s (%v)", shot, err)
	}
	t.Logf("screenshot: %s", shot)
}
