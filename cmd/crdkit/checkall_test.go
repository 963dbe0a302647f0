package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crdkit/crdkit/internal/docs"
)

// TestCheckAllOrder holds checkAllWith's batched hand-off to the order and
// indexes a plain loop over the files gives: files of 0 to 80 documents
// (empty ones, Lists, large ones that end a batch early, YAML errors) and
// unreadable files, with 1 to 5 workers.
func TestCheckAllOrder(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var inputs []string
	for f := range 60 {
		p := filepath.Join(dir, fmt.Sprintf("f%02d.yaml", f))
		inputs = append(inputs, p)
		var b strings.Builder
		for d := range rng.IntN(81) {
			switch rng.IntN(12) {
			case 0:
				b.WriteString("---\n# only a comment\n")
			case 1:
				fmt.Fprintf(&b, "---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: a/v1, kind: K, metadata: {name: i%d-0}}\n- {apiVersion: a/v1, kind: K, metadata: {name: i%d-1}}\n", d, d)
			case 2:
				fmt.Fprintf(&b, "---\napiVersion: a/v1\nkind: K\nmetadata: {name: big%d}\ndata: %q\n", d, strings.Repeat("x", rng.IntN(20<<10)))
			case 3:
				b.WriteString("---\napiVersion: a/v1\nkind: [unclosed\n")
			default:
				fmt.Fprintf(&b, "---\napiVersion: a/v1\nkind: K\nmetadata: {name: n%d}\n", d)
			}
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	isList := func(apiVersion, kind string) bool { return kind == "List" }
	check := func(d docs.Doc) outcome {
		var m struct {
			Metadata struct{ Name string }
		}
		_ = json.Unmarshal(d.JSON, &m)
		return outcome{r: objectResult{File: d.File, Line: d.Line, Path: d.Path, Name: m.Metadata.Name, Allowed: true}}
	}
	run := func(workers int) string {
		var out bytes.Buffer
		status := 0
		n := checkAllWith(inputs, workers, io.Discard, &status, isList, check, func(o outcome) {
			var pe *os.PathError
			if o.err != nil && errors.As(o.err, &pe) {
				fmt.Fprintf(&out, "read error %s\n", filepath.Base(pe.Path))
				return
			}
			fmt.Fprintf(&out, "%s#%d %s line %d %s err=%v\n", filepath.Base(o.r.File), o.r.Index, o.r.Path, o.r.Line, o.r.Name, o.err != nil)
		}, checkOptions{read: func(p string) ([]byte, error) {
			if strings.HasSuffix(p, "5.yaml") {
				return nil, &os.PathError{Op: "read", Path: p, Err: errors.New("injected")}
			}
			return docs.ReadFile(p)
		}})
		fmt.Fprintf(&out, "files %d\n", n)
		return out.String()
	}
	// The reference: a plain loop over the files and their documents.
	var ref bytes.Buffer
	for _, p := range inputs {
		if strings.HasSuffix(p, "5.yaml") {
			fmt.Fprintf(&ref, "read error %s\n", filepath.Base(p))
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		chunks, err := docs.Chunks(p, data)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for _, c := range chunks {
			js, _, err := c.Convert()
			if js == nil && err == nil {
				continue
			}
			if err != nil {
				fmt.Fprintf(&ref, "%s#%d  line 0  err=true\n", filepath.Base(p), i)
			} else {
				for _, o := range checkDoc(docs.Doc{File: p, Line: c.Line, JSON: js}, isList, check) {
					fmt.Fprintf(&ref, "%s#%d %s line %d %s err=%v\n", filepath.Base(p), i, o.r.Path, o.r.Line, o.r.Name, o.err != nil)
				}
			}
			i++
		}
	}
	fmt.Fprintf(&ref, "files %d\n", len(inputs))
	want := ref.String()
	if strings.Count(want, "\n") < 1000 {
		t.Fatalf("the workload has only %d outcomes", strings.Count(want, "\n"))
	}
	for _, workers := range []int{1, 2, 3, 5} {
		if got := run(workers); got != want {
			t.Errorf("with %d workers the outcomes differ from a loop over the documents':\n%s", workers, firstDiff(got, want))
		}
	}
}

// firstDiff shows where two multi-line texts first differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(g), len(w))
}
