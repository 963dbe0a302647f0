package main

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
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

// causeLine is the line of a cause's field in the result's file, or the
// document's first line.
func (r *objectResult) causeLine(f *fieldLines, c cause) int {
	if r.noFieldLines || c.Field == "" {
		return r.Line
	}
	path := c.Field
	if r.Path != "" {
		path = r.Path + "." + c.Field
	}
	return f.line(r.File, r.Line, path)
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
	if r.Allowed && r.Checks != "" {
		// A built-in kind: what the pass covers.
		c.SystemOut = strings.TrimPrefix(c.SystemOut+"\n"+r.Message, "\n")
	}
	switch {
	case r.NotChecked:
		c.Skipped = &junitSkipped{Message: r.Message}
		s.Skipped++
	case !r.Allowed:
		typ := fmt.Sprintf("%d %s", r.Code, r.Reason)
		if r.Rejected {
			typ = "rejected"
		}
		c.Failure = &junitProblem{Message: r.Message, Type: typ, Text: r.detail() + fmt.Sprintf("\nat %s:%d", r.File, r.Line)}
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
	all := junitSuites{Name: "crdkit", Time: seconds(took), Suites: j.suites}
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
	w     io.Writer
	n     int
	lines fieldLines
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
	case r.Allowed && r.Checks != "":
		t.line(true, r.title()+": accepted ("+r.Message+")", "")
	case r.Allowed:
		t.line(true, r.title(), "")
	case r.Rejected:
		t.line(false, r.title()+": rejected (--reject)", "")
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
	if !r.Allowed && !r.NotChecked && !r.Rejected {
		y.int(2, "code", int(r.Code))
		y.str(2, "reason", r.Reason)
		if len(r.Causes) > 0 {
			y.key(2, "causes")
			for _, c := range r.Causes {
				y.item(3, "field", c.Field)
				y.str(4, "reason", c.Reason)
				y.str(4, "message", c.Message)
				y.int(4, "line", r.causeLine(&t.lines, c))
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
		io.WriteString(t.w, "TAP version 13\n1..0 # SKIP no object documents\n")
		return
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

// sarifReport writes SARIF 2.1.0, as GitHub code scanning and other static
// analysis viewers read it: a result per problem at its file and line. A
// 422's causes are a result each, under the rule of the cause's type
// (FieldValueInvalid...); another refusal is one result under the rule of
// its Status reason (BadRequest, NotFound...); a warning is a result of
// level warning; an error without a result (a YAML syntax error) is one of
// rule LoadError. Accepted objects and documents no CRD serves give none.
type sarifReport struct {
	w       io.Writer
	results []sarifResult
	failed  bool
	lines   fieldLines
}

// The SARIF shape: only what crdkit fills.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool struct {
		Driver sarifDriver `json:"driver"`
	} `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	ShortDescription     sarifMessage `json:"shortDescription"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool `json:"executionSuccessful"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  int             `json:"ruleIndex"`
	Level      string          `json:"level"`
	Message    sarifMessage    `json:"message"`
	Locations  []sarifLocation `json:"locations,omitempty"`
	Properties map[string]any  `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI       string `json:"uri"`
			URIBaseID string `json:"uriBaseId,omitempty"`
		} `json:"artifactLocation"`
		Region *sarifRegion `json:"region,omitempty"`
	} `json:"physicalLocation"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// sarifRules describe the rules crdkit's results may name: the server's
// cause types and Status reasons, and crdkit's own two.
var sarifRules = map[string]string{
	"FieldValueInvalid":      "the server refuses a field's value (422): its schema, format, pattern, bounds or a validation rule",
	"FieldValueRequired":     "the server refuses an object without a required field (422)",
	"FieldValueNotSupported": "the server refuses a value outside a field's enum (422)",
	"FieldValueForbidden":    "the server forbids a field or a change (422)",
	"FieldValueDuplicate":    "the server refuses a duplicate item of a set or map list (422)",
	"FieldValueNotFound":     "the server does not find what a field refers to (422)",
	"FieldValueTooLong":      "the server refuses a value longer than its maximum (422)",
	"FieldValueTooShort":     "the server refuses a value shorter than its minimum (422)",
	"FieldValueTooMany":      "the server refuses a list or map with too many items (422)",
	"FieldValueTooFew":       "the server refuses a list or map with too few items (422)",
	"FieldValueTypeInvalid":  "the server refuses a value of the wrong type (422)",
	"InternalError":          "the server could not evaluate a check (a validation rule, for one) or could not handle the object (500)",
	"Invalid":                "the server refuses the object (422)",
	"BadRequest":             "the server refuses the body as it decodes it (400): unknown or duplicate fields in Strict mode, values of the wrong type",
	"NotFound":               "the server does not serve the object's apiVersion (404)",
	"Warning":                "the server accepts the object with a warning (unknown or duplicate fields in Warn mode, a deprecated version, a YAML key given twice)",
	"LoadError":              "crdkit could not read or check the document (a YAML syntax error, for one)",
	"RejectedKind":           "the object's kind is one that --reject prohibits",
}

func sarifLevel(rule string) string {
	switch rule {
	case "Warning":
		return "warning"
	}
	return "error"
}

// sarifPlace is the location of a file and line: a path relative to the
// checkout, or a file URI for an absolute path; none for standard input.
func sarifPlace(file string, line int) []sarifLocation {
	if file == "" || file == docs.Stdin {
		return nil
	}
	var l sarifLocation
	a := &l.PhysicalLocation.ArtifactLocation
	if filepath.IsAbs(file) {
		a.URI = (&url.URL{Scheme: "file", Path: filepath.ToSlash(file)}).String()
	} else {
		a.URI, a.URIBaseID = (&url.URL{Path: filepath.ToSlash(file)}).String(), "%SRCROOT%"
	}
	if line > 0 {
		l.PhysicalLocation.Region = &sarifRegion{StartLine: line}
	}
	return []sarifLocation{l}
}

func (s *sarifReport) add(rule, text, file string, line int, props map[string]any) {
	s.results = append(s.results, sarifResult{RuleID: rule, Level: sarifLevel(rule), Message: sarifMessage{Text: text},
		Locations: sarifPlace(file, line), Properties: props})
}

func (s *sarifReport) result(r objectResult) {
	if r.NotChecked {
		return
	}
	props := func() map[string]any {
		return map[string]any{"object": r.title(), "apiVersion": r.APIVersion, "kind": r.Kind, "name": r.Name}
	}
	for _, w := range r.Warnings {
		s.add("Warning", w, r.File, r.messageLine(&s.lines, w), props())
	}
	if r.Allowed {
		return
	}
	if r.Rejected {
		s.add("RejectedKind", r.Message, r.File, r.Line, props())
		return
	}
	if r.Code == 422 && len(r.Causes) > 0 {
		for _, c := range r.Causes {
			p := props()
			p["code"], p["reason"], p["serverMessage"], p["field"] = r.Code, r.Reason, r.Message, c.Field
			text := c.Message
			if c.Field != "" {
				text = c.Field + ": " + c.Message
			}
			rule := c.Reason
			if _, ok := sarifRules[rule]; !ok {
				rule = "Invalid"
			}
			s.add(rule, text, r.File, r.causeLine(&s.lines, c), p)
		}
		return
	}
	p := props()
	p["code"], p["reason"] = r.Code, r.Reason
	if len(r.Causes) > 0 {
		p["causes"] = r.Causes
	}
	rule := r.Reason
	if _, ok := sarifRules[rule]; !ok {
		rule = "BadRequest"
		if r.Code == 422 {
			rule = "Invalid"
		}
	}
	s.add(rule, r.detail(), r.File, r.messageLine(&s.lines, r.Message), p)
}

func (s *sarifReport) fail(err error) {
	s.failed = true
	file, line := errorPlace(err)
	s.add("LoadError", err.Error(), file, line, nil)
}

func (s *sarifReport) close() {
	run := sarifRun{Invocations: []sarifInvocation{{ExecutionSuccessful: !s.failed}}, Results: s.results}
	d := &run.Tool.Driver
	d.Name, d.Version, d.InformationURI = "crdkit", moduleVersion(), "https://github.com/crdkit/crdkit"
	// The rules the results name, in a stable order, and each result's
	// index among them.
	index := map[string]int{}
	for _, r := range s.results {
		index[r.RuleID] = 0
	}
	ids := make([]string, 0, len(index))
	for id := range index {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	d.Rules = make([]sarifRule, len(ids))
	for i, id := range ids {
		index[id] = i
		d.Rules[i].ID, d.Rules[i].ShortDescription.Text = id, sarifRules[id]
		d.Rules[i].DefaultConfiguration.Level = sarifLevel(id)
	}
	for i := range run.Results {
		run.Results[i].RuleIndex = index[run.Results[i].RuleID]
	}
	if run.Results == nil {
		run.Results = []sarifResult{}
	}
	writeJSON(s.w, sarifLog{Schema: "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}})
}

// moduleVersion is crdkit's module version, empty for a build from a
// checkout.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return ""
}

// githubReport writes GitHub Actions workflow commands: an ::error
// annotation per cause of a 422 at its field's line, per other refusal and
// per error at the document's first line, a ::warning per warning;
// accepted and not-checked objects are plain log lines, as the text output
// prints them.
type githubReport struct {
	w     io.Writer
	lines fieldLines
}

// annotate writes the workflow command cmd (error, warning) for a file and
// line, with a title and a message.
func (g *githubReport) annotate(cmd, file string, line int, title, msg string) {
	var props []string
	if file != "" && file != docs.Stdin {
		props = append(props, "file="+escapeProperty(file))
		if line > 0 {
			props = append(props, fmt.Sprintf("line=%d", line))
		}
	}
	props = append(props, "title="+escapeProperty(title))
	fmt.Fprintf(g.w, "::%s %s::%s\n", cmd, strings.Join(props, ","), escapeData(msg))
}

func (g *githubReport) result(r objectResult) {
	name := r.Kind + " " + r.Name
	if r.Namespace != "" {
		name = r.Kind + " " + r.Namespace + "/" + r.Name
	}
	for _, w := range r.Warnings {
		g.annotate("warning", r.File, r.messageLine(&g.lines, w), "crdkit: "+name+": warning", w)
	}
	switch {
	case r.NotChecked:
		// On one line, so that no text of the document's starts a command.
		fmt.Fprintln(g.w, oneLine(r.title()+": "+r.Message))
	case r.Allowed && r.Checks != "":
		fmt.Fprintln(g.w, oneLine(r.title()+": accepted ("+r.Message+")"))
	case r.Allowed:
		fmt.Fprintln(g.w, oneLine(r.title()+": accepted"))
	case r.Rejected:
		g.annotate("error", r.File, r.Line, "crdkit: "+name+" rejected (--reject)", r.Message)
	case r.Code == 422 && len(r.Causes) > 0 && !r.noFieldLines:
		// A 422's causes each at its field's line, in the server's words.
		for _, c := range r.Causes {
			msg := c.Message
			if c.Field != "" {
				msg = c.Field + ": " + c.Message
			}
			g.annotate("error", r.File, r.causeLine(&g.lines, c), fmt.Sprintf("crdkit: %s refused (%d %s)", name, r.Code, r.Reason), msg)
		}
	default:
		g.annotate("error", r.File, r.messageLine(&g.lines, r.Message), fmt.Sprintf("crdkit: %s refused (%d %s)", name, r.Code, r.Reason), r.detail())
	}
}

func (g *githubReport) fail(err error) {
	file, line := errorPlace(err)
	g.annotate("error", file, line, "crdkit: error", err.Error())
}

func (g *githubReport) close() {}

// escapeData escapes a workflow command's message as the Actions runner
// unescapes it: %, CR and LF.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value: the message's
// escapes, and ":" and "," that would end it.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
