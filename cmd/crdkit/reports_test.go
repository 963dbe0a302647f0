package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// reportObjects has, in one multi-document file, an accepted CronTab, one
// refused with two causes (422), one with a YAML duplicate key (a warning),
// a Widget no CRD serves (nor is it a built-in kind), and one refused by the strict decoder (400)
// whose message holds the characters the formats must escape.
const reportObjects = `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: good}
spec: {cronSpec: "* * * * */5", image: a}
---
# a refusal with two causes
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: bad, namespace: prod}
spec:
  cronSpec: "every minute"
  replicas: 15
---
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: twice}
spec:
  image: first
  image: second
---
apiVersion: other.example.com/v1
kind: Widget
metadata: {name: settings}
---
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: odd}
spec: {"a%b,c:d": 1, "e\r\nf": 2}
`

// reportInputs writes the inputs of the report tests: the CronTab CRD,
// reportObjects, and a file with a YAML syntax error on line 3.
func reportInputs(t *testing.T) (crds, dir string) {
	t.Helper()
	dir = t.TempDir()
	for name, text := range map[string]string{
		"objects.yaml": reportObjects,
		"broken.yaml":  "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: [\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return "../../examples/crontab/crd.yaml", dir
}

// reportRun runs validate on the report inputs with -o format and with -o
// json, and returns the report, the JSON results (the facade's answers,
// which the report must carry) and standard error.
func reportRun(t *testing.T, format string) (out string, results []objectResult, errs string) {
	t.Helper()
	crds, dir := reportInputs(t)
	code, out, errs := runCLI(t, "validate", "--crds", crds, "-o", format, dir)
	if code != 2 {
		t.Fatalf("validate -o %s = %d, want 2 (a YAML error among refusals)\n%s%s", format, code, out, errs)
	}
	_, js, _ := runCLI(t, "validate", "--crds", crds, "-o", "json", dir)
	results = decodeResults(t, js)
	if len(results) != 5 {
		t.Fatalf("validate -o json gave %d results, want 5:\n%s", len(results), js)
	}
	return out, results, errs
}

func TestReportJUnit(t *testing.T) {
	out, results, _ := reportRun(t, "junit")
	// The report as JUnit consumers read it: the attributes the common
	// JUnit schemas require are the ones decoded here; a missing one is an
	// error below.
	type problem struct {
		Message *string `xml:"message,attr"`
		Type    *string `xml:"type,attr"`
		Text    string  `xml:",chardata"`
	}
	type testcase struct {
		Name      *string  `xml:"name,attr"`
		ClassName *string  `xml:"classname,attr"`
		Time      *string  `xml:"time,attr"`
		File      string   `xml:"file,attr"`
		Line      int      `xml:"line,attr"`
		Failure   *problem `xml:"failure"`
		Error     *problem `xml:"error"`
		Skipped   *struct {
			Message string `xml:"message,attr"`
		} `xml:"skipped"`
		SystemOut string `xml:"system-out"`
	}
	type testsuite struct {
		Name       *string    `xml:"name,attr"`
		Tests      *int       `xml:"tests,attr"`
		Failures   *int       `xml:"failures,attr"`
		Errors     *int       `xml:"errors,attr"`
		Skipped    *int       `xml:"skipped,attr"`
		Time       *string    `xml:"time,attr"`
		Timestamp  *string    `xml:"timestamp,attr"`
		Hostname   *string    `xml:"hostname,attr"`
		ID         *int       `xml:"id,attr"`
		Package    *string    `xml:"package,attr"`
		Properties *struct{}  `xml:"properties"`
		SystemOut  *string    `xml:"system-out"`
		SystemErr  *string    `xml:"system-err"`
		Cases      []testcase `xml:"testcase"`
	}
	var doc struct {
		XMLName  xml.Name    `xml:"testsuites"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Suites   []testsuite `xml:"testsuite"`
	}
	dec := xml.NewDecoder(strings.NewReader(out))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("JUnit XML does not parse: %v\n%s", err, out)
	}
	if doc.Tests != 6 || doc.Failures != 2 || doc.Errors != 1 || doc.Skipped != 1 || len(doc.Suites) != 2 {
		t.Fatalf("testsuites = %d tests, %d failures, %d errors, %d skipped in %d suites, want 6, 2, 1, 1 in 2\n%s",
			doc.Tests, doc.Failures, doc.Errors, doc.Skipped, len(doc.Suites), out)
	}
	var cases []testcase
	sum := 0
	for _, s := range doc.Suites {
		if s.Name == nil || s.Tests == nil || s.Failures == nil || s.Errors == nil || s.Time == nil || s.Timestamp == nil ||
			s.Hostname == nil || s.ID == nil || s.Package == nil || s.Properties == nil || s.SystemOut == nil || s.SystemErr == nil || s.Skipped == nil {
			t.Errorf("testsuite %v lacks an attribute or element the JUnit schema requires", s.Name)
			continue
		}
		if *s.Tests != len(s.Cases) {
			t.Errorf("testsuite %s: tests = %d, has %d testcases", *s.Name, *s.Tests, len(s.Cases))
		}
		sum += *s.Tests
		for _, c := range s.Cases {
			if c.Name == nil || c.ClassName == nil || c.Time == nil {
				t.Errorf("testcase %v lacks name, classname or time", c.Name)
				continue
			}
			for _, p := range []*problem{c.Failure, c.Error} {
				if p != nil && (p.Message == nil || p.Type == nil) {
					t.Errorf("testcase %s: failure or error lacks message or type", *c.Name)
				}
			}
			cases = append(cases, c)
		}
	}
	if sum != doc.Tests {
		t.Errorf("testsuites tests = %d, the suites' add up to %d", doc.Tests, sum)
	}
	// broken.yaml's suite comes first (files in sorted order), then one
	// testcase per result of -o json.
	if c := cases[0]; c.Error == nil || c.Line != 3 || !strings.HasSuffix(c.File, "broken.yaml") || !strings.Contains(*c.Error.Message, "broken.yaml:3: ") {
		t.Errorf("YAML error testcase = %+v, want an error at broken.yaml line 3", c)
	}
	for i, r := range results {
		c := cases[i+1]
		if *c.Name != r.title() || c.File != r.File || c.Line != r.Line {
			t.Errorf("testcase %d = %s at %s:%d, want %s at %s:%d", i, *c.Name, c.File, c.Line, r.title(), r.File, r.Line)
		}
		switch {
		case r.NotChecked:
			if c.Skipped == nil || c.Skipped.Message != r.Message {
				t.Errorf("testcase %s skipped = %+v, want the message %q", *c.Name, c.Skipped, r.Message)
			}
		case !r.Allowed:
			want := fmt.Sprintf("%d %s", r.Code, r.Reason)
			if c.Failure == nil || *c.Failure.Message != r.Message || *c.Failure.Type != want {
				t.Errorf("testcase %s failure = %+v, want message %q, type %q", *c.Name, c.Failure, r.Message, want)
				continue
			}
			for _, cs := range r.Causes {
				if !strings.Contains(c.Failure.Text, cs.Field+": "+cs.Message) {
					t.Errorf("testcase %s failure text = %q, want the cause %s: %s", *c.Name, c.Failure.Text, cs.Field, cs.Message)
				}
			}
		default:
			if c.Failure != nil || c.Error != nil || c.Skipped != nil {
				t.Errorf("accepted testcase %s = %+v, want a pass", *c.Name, c)
			}
		}
		for _, w := range r.Warnings {
			if !strings.Contains(c.SystemOut, "warning: "+w) {
				t.Errorf("testcase %s system-out = %q, want the warning %q", *c.Name, c.SystemOut, w)
			}
		}
	}
	if xmllint, err := exec.LookPath("xmllint"); err == nil {
		cmd := exec.Command(xmllint, "--noout", "-")
		cmd.Stdin = strings.NewReader(out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("xmllint: %v\n%s", err, b)
		}
	} else {
		t.Log("xmllint not on PATH (Debian's libxml2-utils): the report was parsed by encoding/xml only")
	}
	if !t.Failed() {
		fmt.Printf("conformance: junit report parsed, %d/%d results with the facade's messages\n", len(results), len(results))
	}
}

// TestResultLines checks that the JSON results carry the lines of their
// documents in reportObjects.
func TestResultLines(t *testing.T) {
	_, results, _ := reportRun(t, "json")
	for i, want := range []int{1, 6, 14, 21, 25} {
		if results[i].Line != want {
			t.Errorf("result %d (%s) line = %d, want %d", i, results[i].title(), results[i].Line, want)
		}
	}
	if len(results[2].Warnings) != 1 || len(results[1].Causes) != 2 || results[4].Code != 400 || !results[3].NotChecked {
		t.Errorf("results = %+v, want a warning on #2, two causes on #1, a 400 on #4, #3 not checked", results)
	}
}

func decodeJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
}

// tapReader is a Perl program that reads a TAP stream with TAP::Parser
// (Perl's own TAP consumer, the one prove uses) and prints what it read as
// JSON: the version, the plan, the parse errors and each test with the
// YAML diagnostics that follow it.
const tapReader = `use strict; use TAP::Parser; use JSON::PP;
my $p = TAP::Parser->new({ source => $ARGV[0] });
my @tests;
while (my $r = $p->next) {
  if ($r->is_test) {
    push @tests, { number => $r->number, ok => $r->is_ok ? JSON::PP::true : JSON::PP::false,
      actualOk => $r->is_actual_ok ? JSON::PP::true : JSON::PP::false,
      description => $r->description, directive => $r->directive, explanation => $r->explanation };
  } elsif ($r->is_yaml) {
    $tests[-1]{yaml} = $r->data;
  }
}
print encode_json({ version => $p->version, plan => $p->plan, errors => [$p->parse_errors],
  passed => scalar($p->passed), failed => scalar($p->failed), skipped => scalar($p->skipped), tests => \@tests });
`

func TestReportTAP(t *testing.T) {
	perl, err := exec.LookPath("perl")
	if err != nil {
		t.Skip("perl not on PATH: TAP::Parser (Perl's TAP consumer) reads the report")
	}
	out, results, _ := reportRun(t, "tap")
	dir := t.TempDir()
	tap, prog := filepath.Join(dir, "report.tap"), filepath.Join(dir, "read.pl")
	if err := os.WriteFile(tap, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prog, []byte(tapReader), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := exec.Command(perl, prog, tap).Output()
	if err != nil {
		t.Skipf("perl with TAP::Parser and JSON::PP (core modules) could not run: %v", err)
	}
	type diag struct {
		Message  string `json:"message"`
		Severity string `json:"severity"`
		Data     struct {
			File     string   `json:"file"`
			Line     int      `json:"line,string"` // Perl's numbers are strings
			Code     int32    `json:"code,string"`
			Reason   string   `json:"reason"`
			Causes   []cause  `json:"causes"`
			Warnings []string `json:"warnings"`
		} `json:"data"`
	}
	var got struct {
		Version                 int      `json:"version"`
		Plan                    string   `json:"plan"`
		Errors                  []string `json:"errors"`
		Passed, Failed, Skipped int
		Tests                   []struct {
			Number      int    `json:"number"`
			OK          bool   `json:"ok"`
			Description string `json:"description"`
			Directive   string `json:"directive"`
			Explanation string `json:"explanation"`
			YAML        *diag  `json:"yaml"`
		} `json:"tests"`
	}
	decodeJSON(t, string(b), &got)
	if got.Version != 13 || got.Plan != "1..6" || len(got.Errors) > 0 || len(got.Tests) != 6 || got.Failed != 3 || got.Skipped != 1 {
		t.Fatalf("TAP::Parser read version %d, plan %s, errors %q, %d tests (%d failed, %d skipped), want 13, 1..6, none, 6 (3, 1)\n%s",
			got.Version, got.Plan, got.Errors, len(got.Tests), got.Failed, got.Skipped, out)
	}
	if e := got.Tests[0]; e.OK || e.YAML == nil || e.YAML.Data.Line != 3 || !strings.Contains(e.YAML.Message, "broken.yaml:3: ") {
		t.Errorf("YAML error test = %+v, want not ok at broken.yaml line 3", e)
	}
	unescape := strings.NewReplacer(`\#`, "#", `\\`, `\`)
	for i, r := range results {
		tc := got.Tests[i+1]
		desc := unescape.Replace(strings.TrimPrefix(tc.Description, "- "))
		if !strings.HasPrefix(desc, r.title()) {
			t.Errorf("test %d description = %q, want it to start with %q", tc.Number, desc, r.title())
		}
		switch {
		case r.NotChecked:
			if !tc.OK || tc.Directive != "SKIP" || tc.Explanation != r.Message {
				t.Errorf("test %d = %+v, want ok # SKIP %s", tc.Number, tc, r.Message)
			}
		case r.Allowed:
			if !tc.OK {
				t.Errorf("test %d = %+v, want ok", tc.Number, tc)
			}
		default:
			y := tc.YAML
			if tc.OK || y == nil {
				t.Errorf("test %d = %+v, want not ok with diagnostics", tc.Number, tc)
				continue
			}
			if y.Message != r.Message || y.Data.Code != r.Code || y.Data.Reason != r.Reason || y.Data.File != r.File || y.Data.Line != r.Line || fmt.Sprint(y.Data.Causes) != fmt.Sprint(r.Causes) {
				t.Errorf("test %d diagnostics = %+v, want %+v", tc.Number, *y, r)
			}
		}
		if len(r.Warnings) > 0 && (tc.YAML == nil || fmt.Sprint(tc.YAML.Data.Warnings) != fmt.Sprint(r.Warnings)) {
			t.Errorf("test %d diagnostics = %+v, want the warnings %q", tc.Number, tc.YAML, r.Warnings)
		}
	}
	if !t.Failed() {
		fmt.Printf("conformance: tap report read by TAP::Parser, %d/%d results with the facade's messages\n", len(results), len(results))
	}
}

// sarifSchemaModule is a Go module whose zip holds the OASIS SARIF 2.1.0
// JSON schema (errata 01) among its test data; the test reads the schema
// from the module cache, downloading the module through the Go module
// proxy when it is not there.
const sarifSchemaModule, sarifSchemaPath = "github.com/securego/gosec/v2@v2.30.0", "report/sarif/testdata/sarif-schema-2.1.0.json"

// sarifSchema returns the SARIF 2.1.0 schema, or skips the test.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	b, err := exec.Command(goBin, "mod", "download", "-json", sarifSchemaModule).Output()
	var mod struct{ Dir, Error string }
	if err == nil {
		err = json.Unmarshal(b, &mod)
	}
	if err != nil || mod.Dir == "" {
		t.Skipf("the SARIF 2.1.0 schema: go mod download %s: %v %s (needs the module cache or the Go module proxy)", sarifSchemaModule, err, mod.Error)
	}
	f, err := os.Open(filepath.Join(mod.Dir, sarifSchemaPath))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const id = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(id)
	if err != nil {
		t.Fatalf("compiling the SARIF schema: %v", err)
	}
	return s
}

func TestReportSARIF(t *testing.T) {
	out, results, _ := reportRun(t, "sarif")
	// What GitHub code scanning requires of an upload, checked whether or
	// not the schema is at hand.
	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Invocations []struct {
				ExecutionSuccessful bool `json:"executionSuccessful"`
			} `json:"invocations"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				Properties map[string]any `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	decodeJSON(t, out, &log)
	if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "crdkit" {
		t.Fatalf("SARIF log = version %q, %d runs, want 2.1.0, one run of crdkit\n%s", log.Version, len(log.Runs), out)
	}
	run := log.Runs[0]
	if len(run.Invocations) != 1 || run.Invocations[0].ExecutionSuccessful {
		t.Errorf("invocations = %+v, want one, not successful (a YAML error)", run.Invocations)
	}
	// The problems of the run, in order: the YAML error, the 422's two
	// causes, the duplicate key's warning, the 400.
	type want struct {
		rule, level, text string
		file              string
		line              int
	}
	var wants []want
	wants = append(wants, want{"LoadError", "error", "", "broken.yaml", 3})
	for _, r := range results {
		for _, w := range r.Warnings {
			// At the line of the key given twice: line 6 of the
			// document that starts on line 14.
			wants = append(wants, want{"Warning", "warning", w, r.File, 19})
		}
		switch {
		case r.Allowed || r.NotChecked:
		case r.Code == 422:
			// Each cause at its field's line in reportObjects.
			at := map[string]int{"spec.cronSpec": 11, "spec.replicas": 12}
			for _, c := range r.Causes {
				wants = append(wants, want{c.Reason, "error", c.Field + ": " + c.Message, r.File, at[c.Field]})
			}
		default:
			// At the first unknown field's line.
			wants = append(wants, want{r.Reason, "error", r.Message, r.File, 28})
		}
	}
	if len(run.Results) != len(wants) || len(wants) != 5 {
		t.Fatalf("SARIF results = %d, want %d (and 5)\n%s", len(run.Results), len(wants), out)
	}
	for i, w := range wants {
		g := run.Results[i]
		if g.RuleID != w.rule || g.Level != w.level || w.text != "" && g.Message.Text != w.text {
			t.Errorf("result %d = %s %s %q, want %s %s %q", i, g.RuleID, g.Level, g.Message.Text, w.rule, w.level, w.text)
		}
		if g.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[g.RuleIndex].ID != g.RuleID {
			t.Errorf("result %d: ruleIndex %d does not name rule %s", i, g.RuleIndex, g.RuleID)
		}
		if len(g.Locations) != 1 || !strings.HasSuffix(g.Locations[0].PhysicalLocation.ArtifactLocation.URI, filepath.Base(w.file)) ||
			!strings.HasPrefix(g.Locations[0].PhysicalLocation.ArtifactLocation.URI, "file:///") || g.Locations[0].PhysicalLocation.Region.StartLine != w.line {
			t.Errorf("result %d locations = %+v, want file://...%s line %d", i, g.Locations, filepath.Base(w.file), w.line)
		}
	}
	if p := run.Results[1].Properties; p["serverMessage"] != results[1].Message || p["field"] != "spec.cronSpec" {
		t.Errorf("a cause's properties = %v, want the server's message %q and the field", p, results[1].Message)
	}
	// A relative path is relative to the checkout's root.
	_, rel, _ := runCLI(t, "validate", "-o", "sarif", "--crds", "../../examples/crontab", "../../examples/lists")
	if !strings.Contains(rel, `"uri": "../../examples/lists/crontabs.yaml",`) || !strings.Contains(rel, `"uriBaseId": "%SRCROOT%"`) {
		t.Errorf("relative paths: want uri ../../examples/lists/crontabs.yaml with uriBaseId %%SRCROOT%%:\n%s", rel)
	}

	schema := sarifSchema(t)
	for name, doc := range map[string]string{"report": out, "relative paths": rel} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(inst); err != nil {
			t.Errorf("%s: not valid SARIF 2.1.0: %v", name, err)
		}
	}
	// The schema is enforced: a result without a message is refused.
	broken, _ := jsonschema.UnmarshalJSON(strings.NewReader(strings.Replace(out, `"message": {`, `"notMessage": {`, 1)))
	if schema.Validate(broken) == nil {
		t.Errorf("the SARIF schema accepts a result without a message")
	}
	if !t.Failed() {
		fmt.Printf("conformance: sarif report valid against the SARIF 2.1.0 schema, %d/%d results with the facade's messages\n", len(results), len(results))
	}
}

// workflowCommand is a GitHub Actions workflow command as the Actions
// runner reads a line of a step's output: "::command k=v,k=v::message",
// properties and message unescaped as the runner unescapes them (a
// property's %3A and %2C, then CR, LF and %, in that order).
type workflowCommand struct {
	Command string
	Props   map[string]string
	Message string
}

func parseWorkflowCommand(line string) (workflowCommand, bool) {
	rest, ok := strings.CutPrefix(line, "::")
	if !ok {
		return workflowCommand{}, false
	}
	head, msg, ok := strings.Cut(rest, "::")
	if !ok {
		return workflowCommand{}, false
	}
	cmd, props, _ := strings.Cut(head, " ")
	c := workflowCommand{Command: cmd, Props: map[string]string{}, Message: unescapeWorkflow(msg, false)}
	if props != "" {
		for _, p := range strings.Split(props, ",") {
			k, v, ok := strings.Cut(p, "=")
			if !ok {
				return workflowCommand{}, false
			}
			c.Props[k] = unescapeWorkflow(v, true)
		}
	}
	return c, true
}

func unescapeWorkflow(s string, property bool) string {
	if property {
		s = strings.NewReplacer("%3A", ":", "%2C", ",").Replace(s)
	}
	s = strings.ReplaceAll(s, "%0D", "\r")
	s = strings.ReplaceAll(s, "%0A", "\n")
	return strings.ReplaceAll(s, "%25", "%")
}

func TestReportGitHub(t *testing.T) {
	out, results, _ := reportRun(t, "github")
	var cmds []workflowCommand
	plain := 0
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if c, ok := parseWorkflowCommand(line); ok {
			cmds = append(cmds, c)
			continue
		}
		if strings.HasPrefix(line, "::") {
			t.Errorf("a line the runner would not read as a command: %q", line)
		}
		plain++
	}
	if plain != 3 {
		t.Errorf("%d plain lines, want 3 (the two accepted objects and the one not checked):\n%s", plain, out)
	}
	type want struct{ cmd, file, line, title, msg string }
	wants := []want{{"error", "broken.yaml", "3", "crdkit: error", ""}}
	for _, r := range results {
		name := r.Kind + " " + r.Name
		if r.Namespace != "" {
			name = r.Kind + " " + r.Namespace + "/" + r.Name
		}
		for _, w := range r.Warnings {
			wants = append(wants, want{"warning", r.File, "19", "crdkit: " + name + ": warning", w})
		}
		title := fmt.Sprintf("crdkit: %s refused (%d %s)", name, r.Code, r.Reason)
		switch {
		case r.Allowed || r.NotChecked:
		case r.Code == 422:
			// Each cause at its field's line in reportObjects.
			at := map[string]string{"spec.cronSpec": "11", "spec.replicas": "12"}
			for _, c := range r.Causes {
				wants = append(wants, want{"error", r.File, at[c.Field], title, c.Field + ": " + c.Message})
			}
		default:
			msg := r.Message
			for _, c := range r.Causes {
				msg += "\n" + c.Field + ": " + c.Message
			}
			wants = append(wants, want{"error", r.File, "28", title, msg})
		}
	}
	if len(cmds) != len(wants) || len(wants) != 5 {
		t.Fatalf("%d workflow commands, want %d (and 5):\n%s", len(cmds), len(wants), out)
	}
	for i, w := range wants {
		c := cmds[i]
		if c.Command != w.cmd || !strings.HasSuffix(c.Props["file"], w.file) || c.Props["line"] != w.line || c.Props["title"] != w.title || w.msg != "" && c.Message != w.msg {
			t.Errorf("command %d = %+v, want %+v", i, c, w)
		}
	}
	// The 400's message has %, ",", ":" and CR LF in it (an unknown field's
	// name): it comes back whole.
	if m := cmds[4].Message; !strings.Contains(m, `unknown field "spec.a%b,c:d"`) || !strings.Contains(m, "\"spec.e\r\nf\"") {
		t.Errorf("400 message = %q, want the field names back, escapes undone", m)
	}
	if !t.Failed() {
		fmt.Printf("conformance: github annotations parsed, %d/%d results with the facade's messages\n", len(results), len(results))
	}
}

func TestWorkflowEscapes(t *testing.T) {
	for _, s := range []string{"plain", "100%", "%25", "a\r\nb", "k:v,w", "%0A", "::x::", "%3A%2C"} {
		c, ok := parseWorkflowCommand("::error title=" + escapeProperty(s) + "::" + escapeData(s))
		if !ok || c.Props["title"] != s || c.Message != s {
			t.Errorf("escape(%q) = %+v, want title and message %q", s, c, s)
		}
	}
}

// TestLintReports checks lint's CI reports against its JSON results: a
// SARIF result per cause (valid SARIF 2.1.0), a JUnit failure, a TAP
// "not ok", a GitHub ::error, all with the server's message.
func TestLintReports(t *testing.T) {
	const crd = "../../examples/invalid/non-structural.yaml"
	_, js, _ := runCLI(t, "lint", "-o", "json", crd)
	var doc struct {
		Results []lintResult `json:"results"`
	}
	decodeJSON(t, js, &doc)
	if len(doc.Results) != 1 || len(doc.Results[0].Causes) < 2 {
		t.Fatalf("lint -o json = %s, want one refusal with causes", js)
	}
	r := doc.Results[0]
	outs := map[string]string{}
	for _, f := range reportFormats {
		code, out, errs := runCLI(t, "lint", "-o", f, crd)
		if code != 1 {
			t.Errorf("lint -o %s = %d, want 1\n%s", f, code, errs)
		}
		outs[f] = out
	}
	var junit struct {
		Suites []struct {
			Cases []struct {
				Line    int `xml:"line,attr"`
				Failure struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(outs["junit"]), &junit); err != nil || len(junit.Suites) != 1 || len(junit.Suites[0].Cases) != 1 ||
		junit.Suites[0].Cases[0].Failure.Message != r.Message || junit.Suites[0].Cases[0].Failure.Type != "422 Invalid" || junit.Suites[0].Cases[0].Line != 1 {
		t.Errorf("lint -o junit = %v\n%s", err, outs["junit"])
	}
	if !strings.Contains(outs["tap"], "not ok 1 - ") || !strings.Contains(outs["tap"], "CustomResourceDefinition widgets.example.com: refused (422 Invalid)") {
		t.Errorf("lint -o tap:\n%s", outs["tap"])
	}
	c, ok := parseWorkflowCommand(strings.TrimSpace(outs["github"]))
	if !ok || c.Command != "error" || !strings.HasPrefix(c.Message, r.Message+"\n") || c.Props["line"] != "1" {
		t.Errorf("lint -o github = %+v\n%s", c, outs["github"])
	}
	var sarif struct {
		Runs []struct {
			Results []struct {
				RuleID  string `json:"ruleId"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	decodeJSON(t, outs["sarif"], &sarif)
	if len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) != len(r.Causes) {
		t.Fatalf("lint -o sarif: %d runs, want 1 with %d results\n%s", len(sarif.Runs), len(r.Causes), outs["sarif"])
	}
	for i, c := range r.Causes {
		if g := sarif.Runs[0].Results[i]; g.RuleID != c.Reason || g.Message.Text != c.Field+": "+c.Message {
			t.Errorf("lint -o sarif result %d = %s %q, want %s %q", i, g.RuleID, g.Message.Text, c.Reason, c.Field+": "+c.Message)
		}
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(outs["sarif"]))
	if err != nil {
		t.Fatal(err)
	}
	if err := sarifSchema(t).Validate(inst); err != nil {
		t.Errorf("lint -o sarif: not valid SARIF 2.1.0: %v", err)
	}
}
