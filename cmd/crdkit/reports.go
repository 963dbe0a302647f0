package main

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/crdkit/crdkit/internal/docs"
)

// reportFormats are the -o values written by a report: formats for CI
// systems, which take every result and error of a run and may need them all
// before they write anything (JUnit XML and SARIF count them up front).
var reportFormats = []string{"junit", "tap", "sarif", "github"}

// report writes one CI report format. validate hands it every result and
// every error it prints on standard error, in input order, then closes it.
type report interface {
	result(r objectResult)
	fail(err error)
	close()
}

// newReport returns the report for format, or nil when format is not one.
func newReport(w io.Writer, format string) report {
	switch format {
	case "junit":
		return &junitReport{w: w, start: time.Now()}
	case "tap":
		return &tapReport{w: w}
	case "sarif":
		return &sarifReport{w: w}
	case "github":
		return &githubReport{w: w}
	}
	return nil
}

// errorPlace is where an error is, when it says: its file and line.
func errorPlace(err error) (file string, line int) {
	var de *docs.Error
	if errors.As(err, &de) {
		return de.File, de.Line
	}
	return "", 0
}

// title names the result's object as the text output does:
// FILE#INDEX[.PATH] Kind [namespace/]name.
func (r *objectResult) title() string {
	if r.Namespace != "" {
		return fmt.Sprintf("%s %s %s/%s", r.location(), r.Kind, r.Namespace, r.Name)
	}
	return fmt.Sprintf("%s %s %s", r.location(), r.Kind, r.Name)
}

// detail is a refusal as the text output prints it: the server's message,
// then its causes one per line (field: message), then crdkit's note in
// parentheses.
func (r *objectResult) detail() string {
	var b strings.Builder
	b.WriteString(r.Message)
	for _, c := range r.Causes {
		b.WriteString("\n")
		if c.Field != "" {
			b.WriteString(c.Field + ": ")
		}
		b.WriteString(c.Message)
	}
	if r.note != "" {
		b.WriteString("\n(" + r.note + ")")
	}
	return b.String()
}

// junitReport writes JUnit XML: one testsuite per file, one testcase per
// object (a failure for a refusal, skipped for a document no CRD serves), an
// error testcase for a document that could not be read or checked.
type junitReport struct {
	w      io.Writer
	start  time.Time
	suites []*junitSuite
}

// The JUnit XML shape: the attributes the common JUnit schemas require
// (Ant's and Jenkins'), with the file and line attributes that GitLab and
// most CI test reporters read.
type junitSuites struct {
	XMLName  xml.Name      `xml:"testsuites"`
	Name     string        `xml:"name,attr"`
	Tests    int           `xml:"tests,attr"`
	Failures int           `xml:"failures,attr"`
	Errors   int           `xml:"errors,attr"`
	Skipped  int           `xml:"skipped,attr"`
	Time     string        `xml:"time,attr"`
	Suites   []*junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string      `xml:"name,attr"`
	ID         int         `xml:"id,attr"`
	Package    string      `xml:"package,attr"`
	Tests      int         `xml:"tests,attr"`
	Failures   int         `xml:"failures,attr"`
	Errors     int         `xml:"errors,attr"`
	Skipped    int         `xml:"skipped,attr"`
	Time       string      `xml:"time,attr"`
	Timestamp  string      `xml:"timestamp,attr"`
	Hostname   string      `xml:"hostname,attr"`
	Properties struct{}    `xml:"properties"`
	Cases      []junitCase `xml:"testcase"`
	SystemOut  string      `xml:"system-out"`
	SystemErr  string      `xml:"system-err"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitProblem `xml:"failure"`
	Error     *junitProblem `xml:"error"`
	Skipped   *junitSkipped `xml:"skipped"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// suite returns the testsuite of file, the last one when the file is the
// last one's (results come file by file).
func (j *junitReport) suite(file string) *junitSuite {
	if n := len(j.suites); n > 0 && j.suites[n-1].Name == file {
		return j.suites[n-1]
	}
	s := &junitSuite{Name: file, ID: len(j.suites), Package: "crdkit"}
	j.suites = append(j.suites, s)
	return s
}

func (j *junitReport) result(r objectResult) {
	s := j.suite(r.File)
	c := junitCase{Name: r.title(), ClassName: r.File, Time: "0", File: r.File, Line: r.Line}
	if len(r.Warnings) > 0 {
		c.SystemOut = "warning: " + strings.Join(r.Warnings, "\nwarning: ")
	}
	switch {
	case r.NotChecked:
		c.Skipped = &junitSkipped{Message: r.Message}
		s.Skipped++
	case !r.Allowed:
		c.Failure = &junitProblem{Message: r.Message, Type: fmt.Sprintf("%d %s", r.Code, r.Reason), Text: r.detail() + fmt.Sprintf("\nat %s:%d", r.File, r.Line)}
		s.Failures++
	}
	s.Tests++
	s.Cases = append(s.Cases, c)
}

func (j *junitReport) fail(err error) {
	file, line := errorPlace(err)
	s := j.suite(file)
	s.Errors++
	s.Tests++
	s.Cases = append(s.Cases, junitCase{Name: "error", ClassName: file, Time: "0", File: file, Line: line,
		Error: &junitProblem{Message: err.Error(), Type: "error", Text: err.Error()}})
}

func (j *junitReport) close() {
	took := time.Since(j.start)
	host, _ := os.Hostname()
	all := junitSuites{Name: "crdkit validate", Time: seconds(took), Suites: j.suites}
	for _, s := range j.suites {
		s.Time, s.Timestamp, s.Hostname = "0", j.start.UTC().Format("2006-01-02T15:04:05"), host
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Errors += s.Errors
		all.Skipped += s.Skipped
	}
	if len(j.suites) > 0 {
		// Time is not measured per file: the run's goes to the first suite,
		// so that the suites add up to the run.
		j.suites[0].Time = all.Time
	}
	io.WriteString(j.w, xml.Header)
	enc := xml.NewEncoder(j.w)
	enc.Indent("", "  ")
	_ = enc.Encode(all)
	io.WriteString(j.w, "\n")
}

// seconds is a duration as JUnit writes it: seconds, to the millisecond.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%.3f", d.Seconds())
}

// tapReport writes TAP version 13 (which TAP 14 consumers read too): a
// test line per object, written as it comes, "not ok" for a refusal with
// the server's answer in a YAML diagnostic block, "# SKIP" for a document
// no CRD serves; the plan comes last.
type tapReport struct {
	w io.Writer
	n int
}

func (t *tapReport) line(ok bool, desc, directive string) {
	if t.n == 0 {
		io.WriteString(t.w, "TAP version 13\n")
	}
	t.n++
	verdict := "ok"
	if !ok {
		verdict = "not ok"
	}
	fmt.Fprintf(t.w, "%s %d - %s%s\n", verdict, t.n, tapEscape(desc), directive)
}

func (t *tapReport) result(r objectResult) {
	switch {
	case r.NotChecked:
		t.line(true, r.title(), " # SKIP "+oneLine(r.Message))
	case r.Allowed:
		t.line(true, r.title(), "")
	default:
		t.line(false, fmt.Sprintf("%s: refused (%d %s)", r.title(), r.Code, r.Reason), "")
	}
	if r.Allowed && len(r.Warnings) == 0 || r.NotChecked && len(r.Warnings) == 0 {
		return
	}
	var y yamlish
	if !r.Allowed && !r.NotChecked {
		y.str(1, "message", r.Message)
		y.str(1, "severity", "fail")
	}
	y.key(1, "data")
	y.str(2, "file", r.File)
	y.int(2, "line", r.Line)
	if !r.Allowed && !r.NotChecked {
		y.int(2, "code", int(r.Code))
		y.str(2, "reason", r.Reason)
		if len(r.Causes) > 0 {
			y.key(2, "causes")
			for _, c := range r.Causes {
				y.item(3, "field", c.Field)
				y.str(4, "reason", c.Reason)
				y.str(4, "message", c.Message)
			}
		}
		if r.note != "" {
			y.str(2, "note", r.note)
		}
	}
	if len(r.Warnings) > 0 {
		y.key(2, "warnings")
		for _, w := range r.Warnings {
			y.elem(3, w)
		}
	}
	y.write(t.w)
}

func (t *tapReport) fail(err error) {
	file, line := errorPlace(err)
	t.line(false, "error: "+oneLine(err.Error()), "")
	var y yamlish
	y.str(1, "message", err.Error())
	y.str(1, "severity", "fail")
	if file != "" {
		y.key(1, "data")
		y.str(2, "file", file)
		y.int(2, "line", line)
	}
	y.write(t.w)
}

func (t *tapReport) close() {
	if t.n == 0 {
		io.WriteString(t.w, "TAP version 13\n")
	}
	fmt.Fprintf(t.w, "1..%d\n", t.n)
}

// tapEscape escapes a test description: "#" would start a directive.
func tapEscape(s string) string {
	s = strings.ReplaceAll(s, "\\", "\\\\")
	return strings.ReplaceAll(oneLine(s), "#", "\\#")
}

// oneLine puts a text on one line.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// yamlish builds a TAP YAML diagnostic block, strings double-quoted with
// the escapes every YAML reader knows, so that no text can break it.
type yamlish struct{ b strings.Builder }

func (y *yamlish) indent(level int) { y.b.WriteString(strings.Repeat("  ", level)) }

func (y *yamlish) key(level int, k string) {
	y.indent(level)
	y.b.WriteString(k + ":\n")
}

func (y *yamlish) str(level int, k, v string) {
	y.indent(level)
	y.b.WriteString(k + ": " + yamlQuote(v) + "\n")
}

func (y *yamlish) int(level int, k string, v int) {
	y.indent(level)
	fmt.Fprintf(&y.b, "%s: %d\n", k, v)
}

// item starts a mapping in a sequence with its first key.
func (y *yamlish) item(level int, k, v string) {
	y.indent(level)
	y.b.WriteString("- " + k + ": " + yamlQuote(v) + "\n")
}

func (y *yamlish) elem(level int, v string) {
	y.indent(level)
	y.b.WriteString("- " + yamlQuote(v) + "\n")
}

func (y *yamlish) write(w io.Writer) {
	io.WriteString(w, "  ---\n"+y.b.String()+"  ...\n")
}

// yamlQuote is s as a YAML double-quoted scalar: backslash, quote and
// control characters escaped (\xHH for those without a short escape).
func yamlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

type sarifReport struct{ w io.Writer }

func (s *sarifReport) result(r objectResult) {}
func (s *sarifReport) fail(err error)        {}
func (s *sarifReport) close()                {}

type githubReport struct{ w io.Writer }

func (g *githubReport) result(r objectResult) {}
func (g *githubReport) fail(err error)        {}
func (g *githubReport) close()                {}
