package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFieldLines(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.yaml")
	text := `apiVersion: v1
kind: List
items:
- apiVersion: stable.example.com/v1
  kind: CronTab
  metadata: {name: a, labels: {app.kubernetes.io/name: x}}
  spec:
    ports:
    - name: http
    - name: grpc
      port: 9
    base: &base
      size: 3
    copy: *base
---
{"apiVersion": "v1",
 "kind": "Thing",
 "spec": {"replicas": 5,
   "replicas": 6}}
---
# a comment first
kind: Other
spec:
  - 1
`
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var f fieldLines
	for _, tc := range []struct {
		doc  int
		path string
		want int
	}{
		{1, "", 1},
		{1, "items[0].spec", 7},
		{1, "items[0].spec.ports[1].port", 11},
		{1, "items[0].spec.ports[1]", 10},
		{1, "items[0].spec.ports[5].name", 8}, // no such item: its list
		{1, "items[0].metadata.labels[app.kubernetes.io/name]", 6},
		{1, "items[0].spec.missing", 7},         // a required field that is missing: its parent
		{1, "items[0].spec.copy.size", 13},      // through an alias
		{1, "items[0].metadata.name.deeper", 6}, // past a scalar
		{16, "spec.replicas", 19},               // JSON; a key given twice: the last, which is kept
		{16, "kind", 17},
		{21, "spec[0]", 24},
		{21, "spec.x", 23},
	} {
		if got := f.line(file, tc.doc, tc.path); got != tc.want {
			t.Errorf("line(#%d, %s) = %d, want %d", tc.doc, tc.path, got, tc.want)
		}
	}
	if got := f.line("-", 3, "spec.x"); got != 3 {
		t.Errorf("line(stdin) = %d, want the document's line 3", got)
	}
	if got := f.line(filepath.Join(dir, "gone.yaml"), 4, "spec.x"); got != 4 {
		t.Errorf("line(missing file) = %d, want the document's line 4", got)
	}
	for _, tc := range []struct {
		doc  int
		msg  string
		want int
	}{
		{16, `line 3: key "replicas" already set in map`, 18},
		{16, `Thing in version "v1" cannot be handled as a Thing: strict decoding error: unknown field "spec.replicas", duplicate field "kind"`, 19},
		{16, `strict decoding error: duplicate field "kind"`, 17},
		{16, `strict decoding error: duplicate field "spec.\"odd\""`, 18}, // spec's line: no such field
		{16, "something else", 16},
	} {
		r := objectResult{File: file, Line: tc.doc}
		if got := r.messageLine(&f, tc.msg); got != tc.want {
			t.Errorf("messageLine(#%d, %q) = %d, want %d", tc.doc, tc.msg, got, tc.want)
		}
	}
	broken := filepath.Join(dir, "broken.yaml")
	os.WriteFile(broken, []byte("a: [\n"), 0o644)
	if got := f.line(broken, 1, "a"); got != 1 {
		t.Errorf("line(broken YAML) = %d, want the document's line 1", got)
	}
}

// FuzzFieldLines: any document and any field path give a line of the
// document (or the document's own), never a panic.
func FuzzFieldLines(f *testing.F) {
	f.Add("a:\n  b: [1, {c: 2}]\n", "a.b[1].c")
	f.Add("x: &a {y: 1}\nz: *a\n", "z.y")
	f.Add("{\"a\": {\"b\": 1}}", "a[b]")
	f.Add("- 1\n---\nk: v\n", "[0].k[")
	f.Add("a: !!binary aGk=\n", "a..b]]")
	dir := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, text, path string) {
		if len(text) > 1<<16 {
			return
		}
		n++
		file := filepath.Join(dir, fmt.Sprintf("f%d.yaml", n%4))
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		var fl fieldLines
		lines := strings.Count(text, "\n") + 1
		for _, doc := range []int{1, 2} {
			if got := fl.line(file, doc, path); got < doc || got > lines+1 {
				t.Errorf("line(%q, #%d, %q) = %d, outside the file's %d lines", text, doc, path, got, lines)
			}
		}
	})
}
