package server

// Checks of openapi.json: it parses, its references resolve, it describes
// exactly the routes a Server registers and the error codes it uses, and
// real answers conform to it (conform, called on every answer the tests
// record). The schema check covers the subset of JSON Schema the document
// uses: $ref, type, properties, required, additionalProperties: false,
// items, enum, minimum/maximum (with OpenAPI 3.0's exclusiveMinimum),
// minLength, maxItems and format date-time.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"mime"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

type obj = map[string]any

var spec = sync.OnceValues(func() (obj, error) {
	var doc obj
	dec := json.NewDecoder(bytes.NewReader(OpenAPI))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	return doc, nil
})

func mustSpec(t testing.TB) obj {
	t.Helper()
	doc, err := spec()
	if err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	return doc
}

// deref follows a local $ref ("#/components/schemas/X").
func deref(doc, v obj) (obj, error) {
	for i := 0; i < 10; i++ {
		ref, ok := v["$ref"].(string)
		if !ok {
			return v, nil
		}
		p, ok := strings.CutPrefix(ref, "#/")
		if !ok {
			return nil, fmt.Errorf("non-local $ref %q", ref)
		}
		var cur any = doc
		for _, k := range strings.Split(p, "/") {
			m, ok := cur.(obj)
			if !ok {
				return nil, fmt.Errorf("$ref %q: %q is not in an object", ref, k)
			}
			if cur, ok = m[k]; !ok {
				return nil, fmt.Errorf("$ref %q does not resolve", ref)
			}
		}
		if v, ok = cur.(obj); !ok {
			return nil, fmt.Errorf("$ref %q is not an object", ref)
		}
	}
	return nil, fmt.Errorf("$ref chain too long")
}

// validate checks value (decoded with UseNumber) against schema.
func validate(doc, schema obj, value any, at string) error {
	schema, err := deref(doc, schema)
	if err != nil {
		return fmt.Errorf("%s: %v", at, err)
	}
	if enum, ok := schema["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return e == value }) {
		return fmt.Errorf("%s: %v is not one of %v", at, value, enum)
	}
	typ, _ := schema["type"].(string)
	switch typ {
	case "object":
		m, ok := value.(obj)
		if !ok {
			return fmt.Errorf("%s: want an object, got %T", at, value)
		}
		props, _ := schema["properties"].(obj)
		req, _ := schema["required"].([]any)
		for _, r := range req {
			if _, ok := m[r.(string)]; !ok {
				return fmt.Errorf("%s: required %q missing", at, r)
			}
		}
		for k, v := range m {
			ps, ok := props[k].(obj)
			if !ok {
				if ap, ok := schema["additionalProperties"].(bool); ok && !ap {
					return fmt.Errorf("%s: property %q not in the schema", at, k)
				}
				continue
			}
			if err := validate(doc, ps, v, at+"."+k); err != nil {
				return err
			}
		}
	case "array":
		a, ok := value.([]any)
		if !ok {
			return fmt.Errorf("%s: want an array, got %T", at, value)
		}
		if mx, ok := schema["maxItems"].(json.Number); ok {
			if n, _ := mx.Int64(); int64(len(a)) > n {
				return fmt.Errorf("%s: %d items, at most %d", at, len(a), n)
			}
		}
		items, _ := schema["items"].(obj)
		for i, v := range a {
			if err := validate(doc, items, v, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case "string":
		s, ok := value.(string)
		if !ok {
			return fmt.Errorf("%s: want a string, got %T", at, value)
		}
		if ml, ok := schema["minLength"].(json.Number); ok {
			if n, _ := ml.Int64(); int64(len([]rune(s))) < n {
				return fmt.Errorf("%s: %q shorter than %d", at, s, n)
			}
		}
		if schema["format"] == "date-time" {
			if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
				return fmt.Errorf("%s: %q is not an RFC 3339 date-time", at, s)
			}
		}
	case "integer", "number":
		n, ok := value.(json.Number)
		if !ok {
			return fmt.Errorf("%s: want a %s, got %T", at, typ, value)
		}
		f, err := n.Float64()
		if err != nil {
			return fmt.Errorf("%s: %v", at, err)
		}
		if typ == "integer" {
			if _, err := n.Int64(); err != nil {
				return fmt.Errorf("%s: %v is not an integer", at, n)
			}
		}
		if mn, ok := schema["minimum"].(json.Number); ok {
			m, _ := mn.Float64()
			if f < m || f == m && schema["exclusiveMinimum"] == true {
				return fmt.Errorf("%s: %v below the minimum %v", at, f, m)
			}
		}
		if mx, ok := schema["maximum"].(json.Number); ok {
			if m, _ := mx.Float64(); f > m || math.IsNaN(f) {
				return fmt.Errorf("%s: %v above the maximum %v", at, f, m)
			}
		}
	case "boolean":
		if _, ok := value.(bool); !ok {
			return fmt.Errorf("%s: want a boolean, got %T", at, value)
		}
	case "":
	default:
		return fmt.Errorf("%s: the checker does not know type %q", at, typ)
	}
	return nil
}

// operation finds the operation of openapi.json for a method and an
// escaped path: a literal path first, then templates ("{id}" matches one
// non-empty segment).
func operation(doc obj, method, path string) (obj, bool) {
	paths := doc["paths"].(obj)
	m := strings.ToLower(method)
	if m == "head" {
		m = "get"
	}
	if item, ok := paths[path].(obj); ok {
		if op, ok := item[m].(obj); ok {
			return op, true
		}
	}
	segs := strings.Split(path, "/")
	for tmpl, item := range paths {
		ts := strings.Split(tmpl, "/")
		if len(ts) != len(segs) || strings.Contains(path, "//") {
			continue
		}
		match := true
		for i := range ts {
			if strings.HasPrefix(ts[i], "{") {
				match = match && segs[i] != ""
			} else {
				match = match && ts[i] == segs[i]
			}
		}
		if op, ok := item.(obj)[m].(obj); match && ok {
			return op, true
		}
	}
	return nil, false
}

// conform checks an answer against openapi.json: the operation documents
// its status (or has a default response), the media type is documented,
// and a JSON body validates against the schema. An answer for a path or
// method the document does not have must be a 404 no_route or 405
// method_not_allowed error.
func conform(e exchange) error {
	doc, err := spec()
	if err != nil {
		return err
	}
	if e.method == http.MethodHead {
		return nil
	}
	ct, _, _ := mime.ParseMediaType(e.header.Get("Content-Type"))
	op, ok := operation(doc, e.method, e.path)
	if !ok {
		if e.status != http.StatusNotFound && e.status != http.StatusMethodNotAllowed {
			return fmt.Errorf("no operation in openapi.json, and not a 404 or 405")
		}
		return validateBody(doc, obj{"$ref": "#/components/schemas/Error"}, ct, e.body)
	}
	resps := op["responses"].(obj)
	r, ok := resps[strconv.Itoa(e.status)].(obj)
	if !ok {
		if r, ok = resps["default"].(obj); !ok || e.status < 400 {
			return fmt.Errorf("status %d not documented", e.status)
		}
	}
	if r, err = deref(doc, r); err != nil {
		return err
	}
	content, ok := r["content"].(obj)
	if !ok {
		if len(e.body) != 0 {
			return fmt.Errorf("a body where none is documented")
		}
		return nil
	}
	mt, ok := content[ct].(obj)
	if !ok {
		return fmt.Errorf("media type %q not documented", ct)
	}
	if ct != "application/json" {
		return nil
	}
	return validateBody(doc, mt["schema"].(obj), ct, e.body)
}

func validateBody(doc, schema obj, ct string, body []byte) error {
	if ct != "application/json" {
		return fmt.Errorf("Content-Type %q, want application/json", ct)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("body: %v", err)
	}
	if dec.More() {
		return fmt.Errorf("body: data after the value")
	}
	return validate(doc, schema, v, "body")
}

// The document parses, every $ref resolves, and it describes exactly the
// routes the server registers, with bearer auth on exactly the routes
// that ask for it.
func TestOpenAPIRoutes(t *testing.T) {
	doc := mustSpec(t)
	if v := doc["openapi"]; v != "3.0.3" {
		t.Errorf("openapi %v", v)
	}
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case obj:
			if _, ok := v["$ref"]; ok {
				if _, err := deref(doc, v); err != nil {
					t.Errorf("%s: %v", at, err)
				}
			}
			for k, x := range v {
				walk(x, at+"/"+k)
			}
		case []any:
			for i, x := range v {
				walk(x, fmt.Sprintf("%s[%d]", at, i))
			}
		}
	}
	walk(doc, "#")

	ts := newTestServer(t, Options{Token: "secret"})
	registered := slices.Clone(ts.s.patterns)
	var documented []string
	for path, item := range doc["paths"].(obj) {
		for m, op := range item.(obj) {
			if m == "parameters" {
				continue
			}
			pattern := strings.ToUpper(m) + " " + path
			documented = append(documented, pattern)
			sec, hasSec := op.(obj)["security"].([]any)
			public := hasSec && len(sec) == 0
			status, _, _ := ts.raw(t, strings.ToUpper(m), strings.ReplaceAll(strings.ReplaceAll(path, "{id}", "x"), "{", ""), "", "")
			if asks := status == http.StatusUnauthorized; asks == public {
				t.Errorf("%s: documented public=%v, but asks for a token: %v", pattern, public, asks)
			}
		}
	}
	sort.Strings(registered)
	sort.Strings(documented)
	if !slices.Equal(registered, documented) {
		t.Errorf("routes registered:\n%s\ndocumented:\n%s", strings.Join(registered, "\n"), strings.Join(documented, "\n"))
	}
	// Every operation documents the errors every route can give.
	for path, item := range doc["paths"].(obj) {
		for m, op := range item.(obj) {
			if m == "parameters" {
				continue
			}
			if _, ok := op.(obj)["responses"].(obj)["default"]; !ok {
				t.Errorf("%s %s: no default response", m, path)
			}
		}
	}
}

// The error codes documented are exactly the server's, and each code's
// status is the one the document gives it.
func TestOpenAPICodes(t *testing.T) {
	doc := mustSpec(t)
	detail, err := deref(doc, obj{"$ref": "#/components/schemas/ErrorDetail"})
	if err != nil {
		t.Fatal(err)
	}
	code := detail["properties"].(obj)["code"].(obj)
	var enum []string
	for _, e := range code["enum"].([]any) {
		enum = append(enum, e.(string))
	}
	if !slices.Equal(enum, Codes) {
		t.Errorf("codes documented %q, the server's %q", enum, Codes)
	}
	desc := code["description"].(string)
	for _, c := range Codes {
		if !strings.Contains(desc, c+" (") {
			t.Errorf("code %s has no status in the description", c)
		}
	}
}

// The schema checker catches what it is for.
func TestValidate(t *testing.T) {
	doc := mustSpec(t)
	f := func(schema, body string, ok bool) {
		t.Helper()
		err := validateBody(doc, obj{"$ref": "#/components/schemas/" + schema}, "application/json", []byte(body))
		if (err == nil) != ok {
			t.Errorf("%s %s: %v, want ok=%v", schema, body, err, ok)
		}
	}
	f("Match", `{"id":"a","jaccard":0.5}`, true)
	f("Match", `{"id":"a"}`, false)                 // required
	f("Match", `{"id":"a","jaccard":"0.5"}`, false) // type
	f("Match", `{"id":"a","jaccard":1.5}`, false)   // maximum
	f("Match", `{"id":"a","jaccard":0.5,"x":1}`, false)
	f("QueryResponse", `{"duplicates":[{"id":"a","jaccard":1}]}`, true)
	f("QueryResponse", `{"duplicates":[{"id":1,"jaccard":1}]}`, false) // items
	f("DocumentInfo", `{"id":"a","seq":1,"added":"2026-01-02T03:04:05.123Z"}`, true)
	f("DocumentInfo", `{"id":"a","seq":1.5,"added":"2026-01-02T03:04:05Z"}`, false)
	f("DocumentInfo", `{"id":"a","seq":1,"added":"yesterday"}`, false)
	f("Error", `{"error":{"code":"not_found","message":"m"}}`, true)
	f("Error", `{"error":{"code":"nope","message":"m"}}`, false) // enum
	f("Status", `{"status":"ok"} {}`, false)                     // trailing data
}
