package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"golang.org/x/term"
	"sigs.k8s.io/yaml"
)

// resultWriter prints object results as they come: text lines, or one
// {"results":[...]} document (JSON or YAML) written element by element.
type resultWriter struct {
	w      io.Writer
	format string
	n      int
	// JSON: one encoder into buf for every result, so that its buffers
	// are reused.
	buf bytes.Buffer
	enc *json.Encoder
	// scratch: appendResultJSON's, reused.
	scratch []byte
	// report writes the CI formats (reports.go); nil for the others.
	report report
	// bw buffers w when buffer was called: flush writes it out.
	bw *bufio.Writer
}

// buffer makes the writer keep what it writes until flush or close (or
// 64 KiB): one system call for many results instead of a few for each.
// Its caller flushes whenever it is about to wait for the next result and
// before it writes to standard error, so output is neither late nor out of
// order. The CI reports keep their own writer.
func (rw *resultWriter) buffer() {
	if rw.report == nil && rw.bw == nil {
		rw.bw = bufio.NewWriterSize(rw.w, 64<<10)
		rw.w = rw.bw
	}
}

// flush writes out what buffer kept.
func (rw *resultWriter) flush() {
	if rw.bw != nil {
		rw.bw.Flush()
	}
}

func newResultWriter(w io.Writer, format string) *resultWriter {
	return &resultWriter{w: w, format: format, report: newReport(w, format)}
}

// all reports whether the format holds every result whatever -q says: the
// reports that count results (JUnit, TAP, SARIF).
func (rw *resultWriter) all() bool {
	return rw.report != nil && rw.format != "github"
}

// fail reports an error that has no result (a document that could not be
// read or checked) in the CI formats; the others leave it to standard error.
func (rw *resultWriter) fail(err error) {
	if rw.report != nil {
		rw.report.fail(err)
	}
}

func (rw *resultWriter) write(r objectResult) {
	if rw.report != nil {
		rw.report.result(r)
		return
	}
	defer func() { rw.n++ }()
	objectJSON := r.objectJSON
	if objectJSON != nil && rw.format == "json" {
		r.Object = nil // written from objectJSON, after the other fields
	}
	// A checked result is written as it is; the others have forms of
	// their own. (Built only when needed: boxing the result cost an
	// allocation of its size per document.)
	plain := !r.NotChecked && !r.Rejected && !(r.Checks != "" && r.Allowed)
	value := func() any {
		switch {
		case r.Checks != "" && r.Allowed:
			// No code: the server's own validation of the kind was not run.
			return builtinAcceptedResult{File: r.File, Index: r.Index, Path: r.Path, APIVersion: r.APIVersion, Kind: r.Kind,
				Namespace: r.Namespace, Name: r.Name, Line: r.Line, Checked: true, Checks: r.Checks, Allowed: true, Message: r.Message, Warnings: r.Warnings}
		case r.NotChecked:
			return notCheckedResult{File: r.File, Index: r.Index, Line: r.Line, Path: r.Path, APIVersion: r.APIVersion, Kind: r.Kind,
				Namespace: r.Namespace, Name: r.Name, NotChecked: true, Skipped: r.Skipped, Message: r.Message, Warnings: r.Warnings}
		case r.Rejected:
			return rejectedResult{File: r.File, Index: r.Index, Line: r.Line, Path: r.Path, APIVersion: r.APIVersion, Kind: r.Kind,
				Namespace: r.Namespace, Name: r.Name, Rejected: true, Message: r.Message, Warnings: r.Warnings}
		}
		return r
	}
	switch rw.format {
	case "json":
		b, ok := []byte(nil), false
		if plain {
			b, ok = appendResultJSON(rw.scratch[:0], &r)
			rw.scratch = b
		}
		if !ok {
			v := value()
			if rw.enc == nil {
				rw.enc = newIndentEncoder(&rw.buf, "    ")
			}
			rw.buf.Reset()
			_ = rw.enc.Encode(v)
			b = bytes.TrimRight(rw.buf.Bytes(), "\n")
		}
		if rw.n == 0 {
			io.WriteString(rw.w, "{\n  \"results\": [\n    ")
		} else {
			io.WriteString(rw.w, ",\n    ")
		}
		if objectJSON != nil {
			writeSpliced(rw.w, b, objectJSON)
			putObjectBuffer(objectJSON)
		} else {
			rw.w.Write(b)
		}
	case "yaml":
		js, _ := json.Marshal([]any{value()})
		y, _ := yaml.JSONToYAML(js)
		if rw.n == 0 {
			fmt.Fprint(rw.w, "results:\n")
		}
		rw.w.Write(y)
	default:
		id := fmt.Sprintf("%s %s %s", r.location(), r.Kind, r.Name)
		if r.Namespace != "" {
			id = fmt.Sprintf("%s %s %s/%s", r.location(), r.Kind, r.Namespace, r.Name)
		}
		for _, w := range r.Warnings {
			fmt.Fprintf(rw.w, "%s: warning: %s\n", id, w)
		}
		switch {
		case r.NotChecked, r.Rejected:
			fmt.Fprintf(rw.w, "%s: %s\n", id, r.Message)
		case r.Allowed && r.Checks != "":
			fmt.Fprintf(rw.w, "%s: accepted (%s)\n", id, r.Message)
		case r.Allowed:
			fmt.Fprintf(rw.w, "%s: accepted\n", id)
		default:
			fmt.Fprintf(rw.w, "%s: refused (%d %s): %s\n", id, r.Code, r.Reason, r.Message)
			for _, c := range r.Causes {
				if c.Field == "" {
					fmt.Fprintf(rw.w, "  %s\n", c.Message)
					continue
				}
				fmt.Fprintf(rw.w, "  %s: %s\n", c.Field, c.Message)
			}
			if r.note != "" {
				fmt.Fprintf(rw.w, "  (%s)\n", r.note)
			}
		}
	}
}

// spliceObject puts "object" (its encoding) last in a result encoded
// without it, where the encoder puts it: the fields after it are empty in
// a checked result (see objectResult).
func spliceObject(b, objectJSON []byte) []byte {
	var out bytes.Buffer
	writeSpliced(&out, b, objectJSON)
	return out.Bytes()
}

// writeSpliced writes what spliceObject returns, without building it.
func writeSpliced(w io.Writer, b, objectJSON []byte) {
	const end = "\n    }"
	w.Write(bytes.TrimSuffix(b, []byte(end)))
	io.WriteString(w, ",\n      \"object\": ")
	w.Write(objectJSON)
	io.WriteString(w, end)
}

// objectBuffers holds the buffers of written objects' encodings
// (objectResult.objectJSON) for the next documents' (a 10,000-document
// run allocated 45 MB in growing them): a bounded free list, which, unlike
// a sync.Pool of slices, costs no allocation to give one back, with room
// for more than the documents in flight (checkAllWith: 4 batches of up to
// 32 a worker).
var objectBuffers = make(chan []byte, 512)

// objectBuffer returns an empty buffer for an object's encoding.
func objectBuffer() []byte {
	select {
	case b := <-objectBuffers:
		return b[:0]
	default:
		return make([]byte, 0, 4<<10)
	}
}

// putObjectBuffer gives back a buffer objectBuffer returned once nothing
// holds it; very large ones, and any beyond the list's room, are left to
// the collector.
func putObjectBuffer(b []byte) {
	if cap(b) > 1<<20 {
		return
	}
	select {
	case objectBuffers <- b:
	default:
	}
}

// close ends the document.
func (rw *resultWriter) close() {
	defer rw.flush()
	switch {
	case rw.report != nil:
		rw.report.close()
	case rw.format == "json" && rw.n == 0:
		fmt.Fprint(rw.w, "{\n  \"results\": []\n}\n")
	case rw.format == "json":
		fmt.Fprint(rw.w, "\n  ]\n}\n")
	case rw.format == "yaml" && rw.n == 0:
		fmt.Fprint(rw.w, "results: []\n")
	}
}

// newIndentEncoder encodes as writeJSON does, each line after the first
// indented under prefix.
func newIndentEncoder(w io.Writer, prefix string) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	return enc
}

// progress prints a line on standard error every second on long runs, when
// standard error is a terminal.
type progress struct {
	w     io.Writer
	on    bool
	start time.Time
	last  time.Time
	n     int
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, start: time.Now()}
	p.last = p.start
	if f, ok := w.(*os.File); ok {
		// A terminal, not any character device: /dev/null is one too, and
		// a run with 2>/dev/null would flush its output at every
		// document for a progress line nobody sees.
		p.on = term.IsTerminal(int(f.Fd()))
	}
	return p
}

func (p *progress) tick() {
	p.n++
	if !p.on {
		return
	}
	if now := time.Now(); now.Sub(p.last) >= time.Second {
		p.last = now
		el := now.Sub(p.start)
		fmt.Fprintf(p.w, "\r%d documents checked in %v (%.0f/s)", p.n, el.Round(time.Second), float64(p.n)/el.Seconds())
	}
}

func (p *progress) done() {
	if p.on && p.last != p.start {
		fmt.Fprintln(p.w)
	}
}

// builtinAcceptedResult is how a document of a built-in kind that passes
// the decode-level checks is written: allowed, but no code, since the
// server's own validation of the kind was not run.
type builtinAcceptedResult struct {
	File       string   `json:"file"`
	Index      int      `json:"index"`
	Path       string   `json:"path,omitempty"`
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace,omitempty"`
	Name       string   `json:"name"`
	Line       int      `json:"line,omitempty"`
	Checked    bool     `json:"checked"`
	Checks     string   `json:"checks"`
	Allowed    bool     `json:"allowed"`
	Message    string   `json:"message"`
	Warnings   []string `json:"warnings,omitempty"`
}

// appendResultJSON appends r as -o json writes a result (the encoder of
// newIndentEncoder with prefix "    ", without the object), for a result
// written as objectResult without causes; false for any other, which the
// encoder writes. TestAppendResultJSON holds it to the encoder.
func appendResultJSON(b []byte, r *objectResult) ([]byte, bool) {
	if r.NotChecked || r.Rejected || r.Checks != "" || len(r.Causes) > 0 || r.Object != nil {
		return b, false
	}
	const in = "\n      "
	str := func(name, v string) {
		b = append(b, ","+in+`"`...)
		b = append(b, name...)
		b = append(b, `": `...)
		b = appendJSONString(b, v)
	}
	b = append(b, "{"+in+`"file": `...)
	b = appendJSONString(b, r.File)
	b = append(b, ","+in+`"index": `...)
	b = strconv.AppendInt(b, int64(r.Index), 10)
	if r.Path != "" {
		str("path", r.Path)
	}
	str("apiVersion", r.APIVersion)
	str("kind", r.Kind)
	if r.Namespace != "" {
		str("namespace", r.Namespace)
	}
	str("name", r.Name)
	if r.Line != 0 {
		b = append(b, ","+in+`"line": `...)
		b = strconv.AppendInt(b, int64(r.Line), 10)
	}
	b = append(b, ","+in+`"checked": `...)
	b = strconv.AppendBool(b, r.Checked)
	b = append(b, ","+in+`"allowed": `...)
	b = strconv.AppendBool(b, r.Allowed)
	b = append(b, ","+in+`"code": `...)
	b = strconv.AppendInt(b, int64(r.Code), 10)
	if r.Reason != "" {
		str("reason", r.Reason)
	}
	if r.Message != "" {
		str("message", r.Message)
	}
	if len(r.Warnings) > 0 {
		b = append(b, ","+in+`"warnings": [`...)
		for i, w := range r.Warnings {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, in+"  "...)
			b = appendJSONString(b, w)
		}
		b = append(b, in+"]"...)
	}
	if r.Skipped {
		b = append(b, ","+in+`"skipped": true`...)
	}
	return append(b, "\n    }"...), true
}
