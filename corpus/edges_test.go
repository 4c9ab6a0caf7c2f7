package corpus

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// readAllFrom reads every record of data, named name, with NewReader.
func readAllFrom(t *testing.T, data []byte, name string, o Options) (recs []rec, r *Reader, err error) {
	t.Helper()
	r, err = NewReader(bytes.NewReader(data), name, o)
	if err != nil {
		return nil, nil, err
	}
	recs, _, err = drain(r)
	return recs, r, err
}

// TestJSONLIDField: an explicit id field that no record has is an error
// listing the fields seen; records that lack it while others have it get
// the id "" and are counted by NoID.
func TestJSONLIDField(t *testing.T) {
	data := []byte(`{"id":"a","text":"one","title":"t"}` + "\n" + `{"id":"b","text":"two","title":"u"}` + "\n")
	recs, _, err := readAllFrom(t, data, "a.jsonl", Options{IDField: "ID"})
	wantErr(t, err, ErrMissingField, "a.jsonl: ", `id field "ID": no record has that field (fields seen: "id", "text", "title")`)
	if len(recs) != 2 {
		t.Errorf("records before the error: %v", recs)
	}
	// The same input, the id field right: no error, nothing counted.
	recs, r, err := readAllFrom(t, data, "a.jsonl", Options{IDField: "id"})
	if err != nil || len(recs) != 2 || recs[1].ID != "b" || r.NoID() != 0 {
		t.Errorf("right id field: %v %v %d", recs, err, r.NoID())
	}
	// Some records lack it (absent, null, empty): they are counted.
	some := []byte(`{"text":"one"}` + "\n" + `{"ID":"x","text":"two"}` + "\n" + `{"ID":null,"text":"three"}` + "\n" + `{"ID":"","text":"four"}` + "\n" + `{"ID":7,"text":"five"}` + "\n")
	recs, r, err = readAllFrom(t, some, "s.jsonl", Options{IDField: "ID"})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "some without the id", recs, []rec{{1, 1, "", "one"}, {2, 2, "x", "two"}, {3, 3, "", "three"}, {4, 4, "", "four"}, {5, 5, "7", "five"}})
	if r.NoID() != 3 {
		t.Errorf("NoID = %d, want 3", r.NoID())
	}
	// The default id field is optional and not counted.
	recs, r, err = readAllFrom(t, some, "s.jsonl", Options{})
	if err != nil || len(recs) != 5 || r.NoID() != 0 {
		t.Errorf("default id field: %v %v %d", recs, err, r.NoID())
	}
	// None of the first IDProbeRecords records has it: an error there,
	// even though a later record has it.
	var b bytes.Buffer
	for i := range IDProbeRecords + 5 {
		if i == IDProbeRecords+2 {
			fmt.Fprintf(&b, "{\"key\":%d,\"text\":\"d\"}\n", i)
		} else {
			fmt.Fprintf(&b, "{\"text\":\"doc %d\",\"n\":%d}\n", i, i)
		}
	}
	recs, _, err = readAllFrom(t, b.Bytes(), "late.jsonl", Options{IDField: "key"})
	wantErr(t, err, ErrMissingField, "late.jsonl: ", fmt.Sprintf(`id field "key": none of the first %d records has that field (fields seen: "text", "n")`, IDProbeRecords))
	if len(recs) != IDProbeRecords-1 {
		t.Errorf("%d records before the error, want %d", len(recs), IDProbeRecords-1)
	}
	// Found within the probe: later records without it are only counted.
	data = bytes.Replace(b.Bytes(), []byte(`{"text":"doc 500"`), []byte(`{"key":"k","text":"doc 500"`), 1)
	recs, r, err = readAllFrom(t, data, "mid.jsonl", Options{IDField: "key"})
	if err != nil || len(recs) != IDProbeRecords+5 || r.NoID() != IDProbeRecords+3 {
		t.Errorf("id field in record 501: %d records, %v, NoID %d", len(recs), err, r.NoID())
	}
	// With SkipBad the error stands (it is about the input, not a record).
	_, _, err = readAllFrom(t, []byte(`{"text":"a"}`+"\nbad\n"), "b.jsonl", Options{IDField: "ID", SkipBad: true})
	wantErr(t, err, ErrMissingField, `id field "ID": no record has that field (fields seen: "text")`)
	// Only malformed records, or none: no object to judge by.
	for _, in := range []string{"", "\n\n", "bad\n"} {
		_, _, err = readAllFrom(t, []byte(in), "e.jsonl", Options{IDField: "ID", SkipBad: true})
		if err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
	// Many field names: the list is cut.
	b.Reset()
	b.WriteString(`{"text":"x"`)
	for i := range 30 {
		fmt.Fprintf(&b, `,"f%02d":1`, i)
	}
	b.WriteString("}\n")
	_, _, err = readAllFrom(t, b.Bytes(), "wide.jsonl", Options{IDField: "ID"})
	e := wantErr(t, err, ErrMissingField, `"text", "f00"`, `"f18", ...)`)
	if strings.Contains(e.Error(), `"f19"`) {
		t.Errorf("more than %d names: %v", maxSeenFields, e)
	}
	// CSV: an empty id cell is counted too.
	recs, r, err = readAllFrom(t, []byte("id,text\na,x\n,y\n"), "c.csv", Options{IDField: "id"})
	if err != nil || len(recs) != 2 || r.NoID() != 1 {
		t.Errorf("CSV empty id: %v %v %d", recs, err, r.NoID())
	}
}

// TestJSONLIDFieldSkipTo: a reader that passed over records (a second
// pass reading some of them again) cannot tell that none had the id field
// and does not say so.
func TestJSONLIDFieldSkipTo(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"ID":"first","text":"x"}` + "\n")
	for i := range IDProbeRecords + 10 {
		fmt.Fprintf(&b, "{\"text\":\"doc %d\"}\n", i)
	}
	r, err := NewReader(bytes.NewReader(b.Bytes()), "a.jsonl", Options{IDField: "ID"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SkipTo(2); err != nil {
		t.Fatal(err)
	}
	recs, _, err := drain(r)
	if err != nil || len(recs) != IDProbeRecords+10 {
		t.Errorf("after SkipTo: %d records, %v", len(recs), err)
	}
}

// TestJSONLTextFieldSeen: the errors for a text field that no record has
// list the fields seen.
func TestJSONLTextFieldSeen(t *testing.T) {
	data := []byte(`{"id":"a","text":"one"}` + "\n" + `{"id":"b","body":"two"}` + "\n")
	_, _, err := readAllFrom(t, data, "a.jsonl", Options{TextFields: []string{"title"}})
	wantErr(t, err, ErrMissingField, "a.jsonl:1: record 1: ", `no text field "title" in the object (fields seen: "id", "text")`)
	_, _, err = readAllFrom(t, data, "a.jsonl", Options{TextFields: []string{"title"}, SkipBad: true})
	wantErr(t, err, ErrMissingField, "a.jsonl: ", `no record has a text field "title" (2 skipped; fields seen: "id", "text", "body")`)
	// Once a record had it, a record without it is reported alone.
	_, _, err = readAllFrom(t, data, "a.jsonl", Options{})
	e := wantErr(t, err, ErrMissingField, "a.jsonl:2: record 2: ", `no text field "text" in the object`)
	if strings.Contains(e.Error(), "seen") {
		t.Errorf("lists the fields though a record had the text: %v", e)
	}
}

// TestBinaryText: a text input whose content has a NUL byte in its first
// 8 KiB is refused (standard input, a named file, compressed or not),
// unless IncludeBinary; other formats are not judged.
func TestBinaryText(t *testing.T) {
	bin := append([]byte("\x7fELF\x02\x01\x01"), bytes.Repeat([]byte{0, 1, 2, 'a', '\n'}, 100)...)
	_, _, err := readAllFrom(t, bin, "-", Options{})
	wantErr(t, err, ErrBinary, "standard input: binary content (a NUL byte in its first 8 KiB) is not read as text; --include-binary reads it anyway")
	_, _, err = readStdin(t, bin, Options{})
	wantErr(t, err, ErrBinary, "standard input: ")
	_, _, err = readStdin(t, gz(t, bin), Options{})
	wantErr(t, err, ErrBinary, "standard input: ")
	dir := t.TempDir()
	p := write(t, dir, "prog.txt.zst", zst(t, bin))
	_, _, err = readFile(t, p, Options{})
	wantErr(t, err, ErrBinary, p+": ")
	_, _, err = readFile(t, p, Options{Format: Text, SkipBad: true})
	wantErr(t, err, ErrBinary, p+": ")
	// UTF-16 gets a hint.
	_, _, err = readAllFrom(t, []byte("\xff\xfeh\x00i\x00\n\x00"), "-", Options{})
	wantErr(t, err, ErrBinary, "UTF-16 text? convert it to UTF-8")
	// IncludeBinary reads it as before.
	recs, _, err := readAllFrom(t, bin, "-", Options{IncludeBinary: true})
	if err != nil || len(recs) != 100 {
		t.Errorf("IncludeBinary: %d records, %v", len(recs), err)
	}
	// A NUL byte after the first 8 KiB is not looked for.
	late := append(bytes.Repeat([]byte("text line\n"), binarySniffLen/10+1), 0, '\n')
	if recs, _, err := readAllFrom(t, late, "-", Options{}); err != nil || len(recs) != binarySniffLen/10+2 {
		t.Errorf("NUL past 8 KiB: %d records, %v", len(recs), err)
	}
	// JSONL is not judged: its parser reports what it finds.
	_, _, err = readAllFrom(t, []byte("{\"text\":\"a\"}\x00\n"), "-", Options{Format: JSONL})
	wantErr(t, err, ErrMalformed, "standard input:1: ")
}

// TestTruncatedCompressed: a compressed input that ends early is an error
// naming the file and the line it cuts, not a malformed record; the
// records before the cut are read.
func TestTruncatedCompressed(t *testing.T) {
	var b bytes.Buffer
	for i := range 20000 {
		fmt.Fprintf(&b, "{\"id\":%d,\"text\":\"document %d of a file that is cut short\"}\n", i, i)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		data []byte
	}{{"a.jsonl.gz", gz(t, b.Bytes())}, {"a.jsonl.zst", zst(t, b.Bytes())}} {
		for _, skip := range []bool{false, true} {
			cut := c.data[:len(c.data)*2/3]
			p := write(t, dir, c.name, cut)
			recs, _, err := readFile(t, p, Options{SkipBad: skip})
			kind := strings.TrimPrefix(filepath.Ext(c.name), ".")
			kind = map[string]string{"gz": "gzip", "zst": "zstd"}[kind]
			e := wantErr(t, err, io.ErrUnexpectedEOF, p+":", ": truncated "+kind+" stream (unexpected EOF)")
			if e.Line != len(recs)+1 || len(recs) == 0 {
				t.Errorf("%s: error at line %d after %d records", c.name, e.Line, len(recs))
			}
			if strings.Contains(err.Error(), "JSON") {
				t.Errorf("%s: %v", c.name, err)
			}
		}
	}
	// Standard input, and a stream cut in its header.
	_, _, err := readAllFrom(t, gz(t, b.Bytes())[:2], "-", Options{})
	wantErr(t, err, io.ErrUnexpectedEOF, "standard input: truncated gzip stream (unexpected EOF)")
	_, _, err = readAllFrom(t, gz(t, b.Bytes())[:300], "-", Options{Format: Text, IncludeBinary: true})
	wantErr(t, err, io.ErrUnexpectedEOF, "standard input:", "truncated gzip stream (unexpected EOF)")
	// A file of a directory.
	d := filepath.Join(dir, "docs")
	write(t, d, "a.txt.gz", gz(t, b.Bytes())[:500])
	_, _, err = readFile(t, d, Options{})
	wantErr(t, err, io.ErrUnexpectedEOF, filepath.Join(d, "a.txt.gz")+": record 1: truncated gzip stream (unexpected EOF)")
}
