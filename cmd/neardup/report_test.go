package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/cmd/neardup/internal/report"
	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
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

// fontDataRE matches the one url() the page may hold: the charts' font,
// embedded.
var fontDataRE = regexp.MustCompile(`src:url\(data:font/ttf;base64,[A-Za-z0-9+/=]+\) format\("truetype"\)`)

// checkOffline checks that the page names no resource outside itself.
func checkOffline(t *testing.T, page string) {
	t.Helper()
	if n := len(fontDataRE.FindAllString(page, -1)); n != 1 {
		t.Errorf("%d embedded fonts, want 1 (the charts')", n)
	}
	page = fontDataRE.ReplaceAllString(page, "")
	low := strings.ToLower(page)
	for _, s := range []string{"http://", "https://", "//cdn", "src=", "href=", "url(", "@import", "fetch(", "xmlhttprequest", "<link", "<iframe", "<img"} {
		if i := strings.Index(low, s); i >= 0 {
			t.Errorf("page contains %q (a possible network reference): %.80q", s, page[max(0, i-30):])
		}
	}
	if !strings.Contains(page, `Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; font-src data:">`) {
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
	if n := strings.Count(page, `<details class="cluster"`); n != 2*report.Clusters {
		t.Errorf("%d clusters shown, want %d", n, 2*report.Clusters)
	}
	if n := strings.Count(page, `<div class="pair" `); n < 20 {
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
	if strings.Contains(page, report.Missing) {
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
	if strings.Contains(page, "not kept") || strings.Contains(page, report.Missing) {
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

// chromiumFlags are the flags of every headless Chromium the tests start,
// its profile in dir: nothing leaves the machine (name resolution fails,
// background services off).
func chromiumFlags(dir string) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=" + filepath.Join(dir, "profile")}
}

// chromiumEnv is the environment of every headless Chromium the tests
// start: its temporary files (the singleton socket's directory, which a
// killed browser leaves behind) go in dir, which the test removes.
func chromiumEnv(dir string) []string {
	return append(os.Environ(), "TMPDIR="+dir)
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
	all := append(chromiumFlags(dir), "--log-net-log="+netlog)
	all = append(all, args...)
	cmd := exec.CommandContext(ctx, "/usr/bin/chromium", append(all, "file://"+page)...)
	var out, errb strings.Builder
	cmd.Env = chromiumEnv(dir)
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
// page's script must have run, the page must request nothing, and the
// charts' text must be set in the embedded font, inside the charts and
// clear of each other (checkChartText). It also takes a screenshot, kept at $NEARDUP_REPORT_SCREENSHOT or
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
	pairs := regexp.MustCompile(`(?s)<div class="pair"[^>]*>\s*<div class="head">representative.*?<div class="text rep">(.*?)</div>\s*<div class="text mem">(.*?)</div>`).FindAllStringSubmatch(dom, -1)
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

	checkChartText(t, page)

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

// parseDur parses what dur writes and returns the duration and the
// resolution it was written with.
func parseDur(t *testing.T, s string) (d, res time.Duration) {
	t.Helper()
	for _, u := range []struct {
		suffix string
		unit   time.Duration
		res    time.Duration
	}{{"µs", time.Microsecond, time.Microsecond}, {"ms", time.Millisecond, time.Millisecond}, {"s", time.Second, 10 * time.Millisecond}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("duration %q: %v", s, err)
			}
			return time.Duration(f * float64(u.unit)), u.res
		}
	}
	t.Fatalf("duration %q: no unit", s)
	return 0, 0
}

var kvRowRE = regexp.MustCompile(`<tr><td>([^<]*)</td><td class="v">([^<]*)</td></tr>`)

// TestReportTiming: the timing panel has the engine's stages, the writing
// of the other outputs and of the report, and the total, which is at least
// their sum and at most the time the command took.
func TestReportTiming(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report.html")
	began := time.Now()
	code, _, stderr := cli(t, "", "dedup", "--quiet", "--refine", "edit", "--report", report, "--pairs", filepath.Join(dir, "pairs.tsv"),
		"--clusters", filepath.Join(dir, "clusters.jsonl"), "--output", filepath.Join(dir, "out.jsonl"), "--stats", filepath.Join(dir, "stats.json"), reportSample)
	wall := time.Since(began)
	if code != 0 {
		t.Fatalf("dedup: exit %d: %s", code, stderr)
	}
	page := read(t, report)
	i := strings.Index(page, "<h3>Time</h3>")
	if i < 0 {
		t.Fatalf("no timing panel")
	}
	card := page[i : i+strings.Index(page[i:], "</table>")]
	var labels []string
	var sum, total, res time.Duration
	for _, m := range kvRowRE.FindAllStringSubmatch(card, -1) {
		labels = append(labels, html.UnescapeString(m[1]))
		d, r := parseDur(t, m[2])
		if m[1] == "total" {
			total, res = d, r
		} else {
			sum += d
		}
	}
	want := []string{"read + shingle", "identical sets", "signatures", "LSH + verification", "edit similarities", "clusters",
		"write the other outputs", "write this report", "total"}
	if !slices.Equal(labels, want) {
		t.Fatalf("timing rows %q, want %q", labels, want)
	}
	if total+res < sum {
		t.Errorf("total %v is less than the sum of the rows, %v", total, sum)
	}
	if total > wall {
		t.Errorf("total %v is more than the command took, %v", total, wall)
	}
}

// sizeAxisLabels returns the X axis tick labels of the cluster-size chart:
// the <text> elements on the row of the first one that is a number.
func sizeAxisLabels(t *testing.T, page string) []string {
	t.Helper()
	i := strings.Index(page, `id="sizes"`)
	svg := svgPathRE.FindString(page[i:])
	if svg == "" {
		t.Fatalf("no cluster-size chart")
	}
	var labels []string
	row := ""
	for _, m := range regexp.MustCompile(`<text x="[^"]*" y="([^"]*)"[^>]*>([^<]*)</text>`).FindAllStringSubmatch(svg, -1) {
		if _, err := strconv.Atoi(m[2]); err != nil {
			continue
		}
		if row == "" {
			row = m[1]
		}
		if m[1] == row {
			labels = append(labels, m[2])
		}
	}
	return labels
}

// TestReportSizeAxis: the cluster-size chart labels its X axis with sizes,
// one bar per size up to 60, else one bar per power of two with its
// bounds as labels (not log2 values).
func TestReportSizeAxis(t *testing.T) {
	dir := t.TempDir()
	corpus := func(sizes ...int) string {
		var b strings.Builder
		for k, n := range sizes {
			for i := range n {
				fmt.Fprintf(&b, "{\"id\":\"c%d.%d\",\"text\":%q}\n", k, i, words(1000*k, 1000*k+30))
			}
		}
		return write(t, dir, fmt.Sprintf("sizes%d.jsonl", len(sizes)), b.String())
	}
	f := func(in string, want []string) {
		t.Helper()
		page := reportOf(t, "", in)
		if got := sizeAxisLabels(t, page); !slices.Equal(got, want) {
			t.Errorf("size axis labels %q, want %q", got, want)
		}
		if strings.Contains(page, "log2") {
			t.Errorf("the page speaks of log2")
		}
	}
	f(corpus(2, 3, 5), []string{"2", "3", "4", "5"})
	f(corpus(2, 14), []string{"2", "4", "6", "8", "10", "12", "14"})
	f(corpus(2, 3, 300), []string{"2", "4", "8", "16", "32", "64", "128", "256", "512"})
}

// measureJS, added to a copy of the page, waits for the fonts and then
// writes, as JSON in <pre id="measure">, the fonts of the page with their
// status and, for each <text> of each chart, its content, font size,
// advance length (getComputedTextLength) and box in the chart's viewBox
// units.
const measureJS = `<script>
document.fonts.ready.then(function () {
  var out = {fonts: [], texts: []};
  document.fonts.forEach(function (f) { out.fonts.push(f.family + " " + f.status); });
  document.querySelectorAll("svg.chart").forEach(function (svg, i) {
    var s = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal, k = vb.width / s.width;
    svg.querySelectorAll("text").forEach(function (t) {
      var r = t.getBoundingClientRect();
      out.texts.push({chart: i, text: t.textContent, size: parseFloat(getComputedStyle(t).fontSize), len: t.getComputedTextLength(),
        x0: (r.left - s.left) * k, x1: (r.right - s.left) * k, y0: (r.top - s.top) * k, y1: (r.bottom - s.top) * k,
        w: vb.width, h: vb.height});
    });
  });
  var pre = document.createElement("pre");
  pre.id = "measure";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>`

type measuredText struct {
	Chart          int
	Text           string
	Size, Len      float64
	X0, X1, Y0, Y1 float64
	W, H           float64
}

var fontData = regexp.MustCompile(`src:url\(data:font/ttf;base64,([A-Za-z0-9+/=]+)\)`)

// checkChartText loads page, with measureJS, in Chromium and checks the
// text of its charts:
//   - the embedded font loaded (Chromium accepted it);
//   - each text is as long as the embedded font makes it, which is what
//     gonum measured to place it: a fallback font is caught here;
//   - each text is inside its chart (along its advance to half a unit,
//     across it to 15% of the font size, for ascent and descent);
//   - no two texts of a chart overlap (by more than those margins).
func checkChartText(t *testing.T, page string) {
	t.Helper()
	raw := read(t, page)
	m := fontData.FindStringSubmatch(raw)
	if m == nil {
		t.Fatalf("no embedded font in the page")
	}
	ttf, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		t.Fatal(err)
	}
	f, err := sfnt.Parse(ttf)
	if err != nil {
		t.Fatalf("embedded font: %v", err)
	}
	measured := write(t, filepath.Dir(page), "measured.html", strings.Replace(raw, "</body>", measureJS+"</body>", 1))
	dom, _ := chromium(t, measured, "--dump-dom", "--virtual-time-budget=2000")
	pm := regexp.MustCompile(`<pre id="measure">([^<]*)</pre>`).FindStringSubmatch(dom)
	if pm == nil {
		t.Fatalf("the measuring script wrote nothing")
	}
	var out struct {
		Fonts []string
		Texts []measuredText
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(pm[1])), &out); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.Fonts, []string{"Go loaded"}) {
		t.Errorf("page fonts %q, want the embedded Go font, loaded", out.Fonts)
	}
	if len(out.Texts) < 20 {
		t.Fatalf("%d chart texts measured", len(out.Texts))
	}
	var buf sfnt.Buffer
	upem := fixed.Int26_6(f.UnitsPerEm())
	width := func(s string, size float64) float64 {
		var sum fixed.Int26_6
		for _, r := range s {
			g, err := f.GlyphIndex(&buf, r)
			if err != nil || g == 0 {
				t.Errorf("%q of %q: not in the embedded font", r, s)
				continue
			}
			if segs, err := f.LoadGlyph(&buf, g, upem, nil); r != ' ' && (err != nil || len(segs) == 0) {
				t.Errorf("%q of %q: no outline in the embedded font", r, s)
			}
			a, err := f.GlyphAdvance(&buf, g, upem, font.HintingNone)
			if err != nil {
				t.Fatal(err)
			}
			sum += a
		}
		return float64(sum) / float64(upem) * size
	}
	for _, x := range out.Texts {
		if want := width(x.Text, x.Size); math.Abs(x.Len-want) > max(0.3, want/100) {
			t.Errorf("chart %d: %q is %.2f long, %.2f in the embedded font: drawn in another font", x.Chart, x.Text, x.Len, want)
		}
		along, across := 0.5, 0.15*x.Size
		if x.Y1-x.Y0 > x.X1-x.X0 && len(x.Text) > 1 { // rotated
			along, across = across, along
		}
		if x.X0 < -along || x.X1 > x.W+along || x.Y0 < -across || x.Y1 > x.H+across {
			t.Errorf("chart %d: %q at x [%.1f, %.1f], y [%.1f, %.1f] is cut by the chart's %gx%g box", x.Chart, x.Text, x.X0, x.X1, x.Y0, x.Y1, x.W, x.H)
		}
	}
	for i, a := range out.Texts {
		for _, b := range out.Texts[i+1:] {
			if a.Chart != b.Chart {
				continue
			}
			ox := min(a.X1, b.X1) - max(a.X0, b.X0)
			oy := min(a.Y1, b.Y1) - max(a.Y0, b.Y0)
			if ox > 0.5 && oy > 0.15*min(a.Size, b.Size) {
				t.Errorf("chart %d: %q and %q overlap (%.1f by %.1f)", a.Chart, a.Text, b.Text, ox, oy)
			}
		}
	}
}
