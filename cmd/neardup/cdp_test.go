package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// devtools is a headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: the browser reads NUL-terminated JSON
// messages on fd 3 and writes on fd 4), for what --dump-dom cannot tell:
// which fonts the browser drew a node's text with. It needs no network
// port and no client library. Calls are synchronous; the browser is killed
// when its context ends (90 seconds), which ends any read.
type devtools struct {
	t       *testing.T
	cmd     *exec.Cmd
	cancel  context.CancelFunc
	in      *os.File      // our end of the browser's fd 3
	out     *bufio.Reader // our end of the browser's fd 4
	id      int
	session string
	events  []string // methods of the events seen so far
}

// startDevtools starts Chromium with a blank page and attaches to it.
func startDevtools(t *testing.T) *devtools {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	cmd := exec.CommandContext(ctx, "/usr/bin/chromium", append(chromiumFlags(dir), "--remote-debugging-pipe", "about:blank")...)
	toBrowser, ours, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	theirs, fromBrowser, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = chromiumEnv(dir)
	cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("chromium: %v", err)
	}
	toBrowser.Close()
	fromBrowser.Close()
	d := &devtools{t: t, cmd: cmd, cancel: cancel, in: ours, out: bufio.NewReader(theirs)}
	t.Cleanup(func() {
		d.in.Close()
		cancel()
		cmd.Wait()
		theirs.Close()
		if t.Failed() {
			var lines []string
			for _, l := range strings.Split(errb.String(), "\n") {
				if l != "" && !strings.Contains(l, "dbus") { // no D-Bus in a container: noise
					lines = append(lines, l)
				}
			}
			t.Logf("chromium's standard error:\n%s", strings.Join(lines, "\n"))
		}
	})
	var created struct{ TargetID string }
	d.call("Target.createTarget", map[string]any{"url": "about:blank"}, &created)
	var attached struct{ SessionID string }
	d.call("Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &attached)
	d.session = attached.SessionID
	return d
}

// call sends method with params to the attached page (or the browser before
// one is attached) and decodes the result into result, if not nil. Events
// that arrive meanwhile are recorded.
func (d *devtools) call(method string, params map[string]any, result any) {
	d.t.Helper()
	d.id++
	msg := map[string]any{"id": d.id, "method": method, "params": params}
	if d.session != "" {
		msg["sessionId"] = d.session
	}
	b, err := json.Marshal(msg)
	if err != nil {
		d.t.Fatal(err)
	}
	if _, err := d.in.Write(append(b, 0)); err != nil {
		d.t.Fatalf("devtools %s: write: %v", method, err)
	}
	for {
		var reply struct {
			ID     int
			Method string
			Result json.RawMessage
			Error  *struct {
				Code    int
				Message string
			}
		}
		d.read(method, &reply)
		if reply.ID == 0 {
			d.events = append(d.events, reply.Method)
			continue
		}
		if reply.ID != d.id {
			d.t.Fatalf("devtools %s: reply to call %d, want %d", method, reply.ID, d.id)
		}
		if reply.Error != nil {
			d.t.Fatalf("devtools %s: error %d: %s", method, reply.Error.Code, reply.Error.Message)
		}
		if result != nil {
			if err := json.Unmarshal(reply.Result, result); err != nil {
				d.t.Fatalf("devtools %s: %v in %s", method, err, reply.Result)
			}
		}
		return
	}
}

// read reads one message into v.
func (d *devtools) read(during string, v any) {
	d.t.Helper()
	b, err := d.out.ReadBytes(0)
	if err != nil {
		d.t.Fatalf("devtools %s: read: %v (did the browser die or time out?)", during, err)
	}
	if err := json.Unmarshal(b[:len(b)-1], v); err != nil {
		d.t.Fatalf("devtools %s: %v in %.200q", during, err, b)
	}
}

// await reads messages until the event method has been seen (at most 10,000
// messages; the context's deadline bounds the time).
func (d *devtools) await(method string) {
	d.t.Helper()
	for i := 0; i < 10000; i++ {
		for _, e := range d.events {
			if e == method {
				return
			}
		}
		var ev struct{ Method string }
		d.read(method, &ev)
		d.events = append(d.events, ev.Method)
	}
	d.t.Fatalf("devtools: no %s event", method)
}

// load navigates to the page and waits until it has loaded and its fonts
// are ready.
func (d *devtools) load(page string) {
	d.t.Helper()
	d.call("Page.enable", nil, nil)
	d.events = nil
	d.call("Page.navigate", map[string]any{"url": "file://" + page}, nil)
	d.await("Page.loadEventFired")
	d.eval(`document.fonts.ready.then(() => true)`, nil)
}

// eval evaluates a JavaScript expression in the page, awaiting a promise,
// and decodes its JSON value into v, if not nil.
func (d *devtools) eval(expr string, v any) {
	d.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage
		}
		ExceptionDetails *struct{ Text string }
	}
	d.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r)
	if r.ExceptionDetails != nil {
		d.t.Fatalf("devtools: %s: %s", expr, r.ExceptionDetails.Text)
	}
	if v != nil {
		if err := json.Unmarshal(r.Result.Value, v); err != nil {
			d.t.Fatalf("devtools: %s: %v in %s", expr, err, r.Result.Value)
		}
	}
}

// platformFont is one font the browser drew a node's text with.
type platformFont struct {
	FamilyName     string
	PostScriptName string
	IsCustomFont   bool
	GlyphCount     int
}

// renderedFonts returns, for each element matching selector in document
// order, its text and the fonts its text was drawn with
// (CSS.getPlatformFontsForNode: the platform fonts and how many glyphs each
// drew, fallback fonts included).
func (d *devtools) renderedFonts(selector string) (texts []string, fonts [][]platformFont) {
	d.t.Helper()
	d.call("DOM.enable", nil, nil)
	d.call("CSS.enable", nil, nil)
	var doc struct{ Root struct{ NodeID int } }
	d.call("DOM.getDocument", map[string]any{"depth": 0}, &doc)
	var sel struct{ NodeIDs []int }
	d.call("DOM.querySelectorAll", map[string]any{"nodeId": doc.Root.NodeID, "selector": selector}, &sel)
	js, _ := json.Marshal(selector)
	d.eval(fmt.Sprintf(`Array.from(document.querySelectorAll(%s), e => e.textContent)`, js), &texts)
	if len(texts) != len(sel.NodeIDs) {
		d.t.Fatalf("devtools: %d nodes match %s, but %d texts", len(sel.NodeIDs), selector, len(texts))
	}
	for _, id := range sel.NodeIDs {
		var r struct{ Fonts []platformFont }
		d.call("CSS.getPlatformFontsForNode", map[string]any{"nodeId": id}, &r)
		fonts = append(fonts, r.Fonts)
	}
	return texts, fonts
}

// screenshot writes a PNG of the whole page, width pixels wide, to path.
func (d *devtools) screenshot(path string, width int) {
	d.t.Helper()
	var h float64
	d.eval(`document.documentElement.scrollHeight`, &h)
	d.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": int(h), "deviceScaleFactor": 1, "mobile": false}, nil)
	var r struct{ Data []byte }
	d.call("Page.captureScreenshot", map[string]any{"format": "png"}, &r)
	if err := os.WriteFile(path, r.Data, 0o644); err != nil {
		d.t.Fatal(err)
	}
}
