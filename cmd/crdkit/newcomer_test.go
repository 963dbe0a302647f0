package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const crontabCRD = "../../examples/crontab/crd.yaml"

// crontabList is what kubectl get crontabs -A -o yaml prints: a v1 List
// whose items carry their own type meta.
const crontabList = `apiVersion: v1
kind: List
metadata:
  resourceVersion: ""
items:
- apiVersion: stable.example.com/v1
  kind: CronTab
  metadata: {name: good, namespace: prod}
  spec: {cronSpec: "* * * * */5", image: img}
- apiVersion: stable.example.com/v1
  kind: CronTab
  metadata: {name: bad, namespace: prod}
  spec: {cronSpec: "* * * * */5", replicas: 99}
- apiVersion: example.com/v1
  kind: Widget
  metadata: {name: cm, namespace: prod}
`

// crontabTypedList is a CronTabList as the API returns it: items without
// type meta take the List's apiVersion and the kind CronTab, as kubectl
// gives them; a List inside it is expanded too.
const crontabTypedList = `{"apiVersion":"stable.example.com/v1","kind":"CronTabList","metadata":{},"items":[
 {"metadata":{"name":"a"},"spec":{"cronSpec":"* * * * */5"}},
 {"metadata":{"name":"b"},"spec":{"cronSpec":"* * * * */5","replicas":0}},
 {"apiVersion":"v1","kind":"List","items":[{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"c"},"spec":{}}]}
]}`

type resultsDoc struct {
	Results []objectResult `json:"results"`
}

func decodeResults(t *testing.T, out string) []objectResult {
	t.Helper()
	var doc resultsDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	return doc.Results
}

// brief is a result reduced to what the List tests compare.
func brief(r objectResult) string {
	if r.NotChecked {
		return fmt.Sprintf("#%d %s %s %s not checked", r.Index, r.Path, r.Kind, r.Name)
	}
	return fmt.Sprintf("#%d %s %s %s %d", r.Index, r.Path, r.Kind, r.Name, r.Code)
}

func TestValidateList(t *testing.T) {
	list := writeFile(t, "list.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: first}\n---\n"+crontabList)
	typed := writeFile(t, "typed.json", crontabTypedList)
	code, out, errs := runCLI(t, "validate", "--crds", crontabCRD, "-o", "json", list, typed)
	if code != 1 {
		t.Fatalf("exit = %d, want 1 (a refused item)\n%s%s", code, out, errs)
	}
	var got []string
	for _, r := range decodeResults(t, out) {
		got = append(got, brief(r))
	}
	want := []string{
		"#0  Widget first not checked",
		"#1 items[0] CronTab good 201",
		"#1 items[1] CronTab bad 422",
		"#1 items[2] Widget cm not checked",
		"#0 items[0] CronTab a 201",
		"#0 items[1] CronTab b 422",
		"#0 items[2].items[0] CronTab c 201",
	}
	if !slices.Equal(got, want) {
		t.Errorf("validate of Lists = %q, want %q", got, want)
	}
	// The text output names the item.
	_, out, _ = runCLI(t, "validate", "--crds", crontabCRD, list)
	if !strings.Contains(out, "list.yaml#1.items[1] CronTab prod/bad: refused (422 Invalid)") {
		t.Errorf("text output does not locate the item:\n%s", out)
	}
	// Standard input, as in kubectl get ... -o yaml | crdkit validate -.
	code, out, _ = runStdin(t, crontabList, "validate", "--crds", crontabCRD, "-")
	if code != 1 || !strings.Contains(out, "-#0.items[0] CronTab prod/good: accepted") {
		t.Errorf("validate - = %d\n%s", code, out)
	}
	// A List of a kind no CRD defines is one document, not checked.
	other := writeFile(t, "other.yaml", "apiVersion: example.com/v1\nkind: WidgetList\nitems: [{metadata: {name: w}}]\n")
	code, out, _ = runCLI(t, "validate", "--crds", crontabCRD, "-o", "json", other)
	if rs := decodeResults(t, out); code != 0 || len(rs) != 1 || !rs[0].NotChecked || rs[0].Kind != "WidgetList" {
		t.Errorf("WidgetList = %d %+v, want one document, not checked", code, rs)
	}
}

// runStdin runs the CLI with text on standard input.
func runStdin(t *testing.T, text string, args ...string) (int, string, string) {
	t.Helper()
	p := writeFile(t, "stdin", text)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = saved }()
	return runCLI(t, args...)
}

func TestListsInOtherCommands(t *testing.T) {
	list := writeFile(t, "list.yaml", crontabList)
	typed := writeFile(t, "typed.json", crontabTypedList)
	t.Run("get", func(t *testing.T) {
		code, out, errs := runCLI(t, "get", "--crds", crontabCRD, typed)
		if code != 1 || !regexp.MustCompile(`(?m)^a\s`).MatchString(out) || !regexp.MustCompile(`(?m)^c\s`).MatchString(out) ||
			!strings.Contains(errs, "typed.json#0.items[1]: the API server would refuse this object") {
			t.Errorf("get of a CronTabList = %d\n%s%s", code, out, errs)
		}
	})
	t.Run("convert", func(t *testing.T) {
		code, out, errs := runCLI(t, "convert", "--crds", crontabCRD, "--to", "v1beta1", typed)
		if code != 0 {
			t.Fatalf("convert = %d\n%s", code, errs)
		}
		var got []string
		for _, r := range decodeResults(t, out) {
			got = append(got, brief(r)+" "+r.Object["apiVersion"].(string))
		}
		want := []string{"#0 items[0] CronTab a 200 stable.example.com/v1beta1", "#0 items[1] CronTab b 200 stable.example.com/v1beta1", "#0 items[2].items[0] CronTab c 200 stable.example.com/v1beta1"}
		if !slices.Equal(got, want) {
			t.Errorf("convert of a CronTabList = %q, want %q", got, want)
		}
	})
	t.Run("--old", func(t *testing.T) {
		// The live objects as a CronTabList whose items have no type meta.
		live := writeFile(t, "live.json", `{"apiVersion":"stable.example.com/v1","kind":"CronTabList","items":[
			{"metadata":{"name":"good","namespace":"prod","resourceVersion":"7","generation":1,"uid":"u"},"spec":{"cronSpec":"* * * * */5","image":"img","replicas":1}}]}`)
		code, out, errs := runCLI(t, "validate", "--crds", crontabCRD, "--old", live, "-o", "json", list)
		rs := decodeResults(t, out)
		if code != 1 || len(rs) != 3 || rs[0].Code != 200 || rs[0].Name != "good" {
			t.Errorf("validate --old CronTabList = %d, %+v\n%s", code, rs, errs)
		}
	})
	t.Run("lint of a CRD List", func(t *testing.T) {
		crd, err := os.ReadFile(crontabCRD)
		if err != nil {
			t.Fatal(err)
		}
		var item strings.Builder
		for _, l := range strings.Split(strings.TrimSpace(string(crd)), "\n") {
			if !strings.HasPrefix(l, "#") {
				item.WriteString("  " + l + "\n")
			}
		}
		crds := writeFile(t, "crds.yaml", "apiVersion: v1\nkind: List\nitems:\n-"+strings.TrimPrefix(item.String(), " "))
		code, out, errs := runCLI(t, "lint", crds)
		if code != 0 || !strings.Contains(out, "crds.yaml#0.items[0]: crontabs.stable.example.com: accepted") {
			t.Errorf("lint of a List of CRDs = %d\n%s%s", code, out, errs)
		}
		// The same List given as --crds serves the objects.
		if code, out, errs := runCLI(t, "validate", "--crds", crds, list); code != 1 || !strings.Contains(out, "good: accepted") {
			t.Errorf("validate --crds LIST = %d\n%s%s", code, out, errs)
		}
	})
}

// unservedCRD defines v1 (served), v2 (not served).
const unservedCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
  - {name: v2, served: false, storage: false, schema: {openAPIV3Schema: {type: object}}}
`

func TestValidateUnservedVersion(t *testing.T) {
	crd := writeFile(t, "crd.yaml", unservedCRD)
	objs := writeFile(t, "objs.yaml", "apiVersion: example.com/v2\nkind: Widget\nmetadata: {name: a}\n---\napiVersion: example.com/v3\nkind: Widget\nmetadata: {name: b}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: c}\n")
	code, out, errs := runCLI(t, "validate", "--crds", crd, "-o", "json", objs)
	if code != 1 {
		t.Fatalf("exit = %d, want 1\n%s%s", code, out, errs)
	}
	rs := decodeResults(t, out)
	if len(rs) != 3 {
		t.Fatalf("%d results, want 3\n%s", len(rs), out)
	}
	// What client-go (and so kubectl) makes of the server's answer, a 404
	// with the text "404 page not found" (conformance/servertest checks it
	// against the server: TestCLIUnservedVersion).
	want := objectResult{File: objs, Line: 1, APIVersion: "example.com/v2", Kind: "Widget", Name: "a", Checked: true, Code: 404, Reason: "NotFound",
		Message: "the server could not find the requested resource", Causes: []cause{{Reason: "UnexpectedServerResponse", Message: "404 page not found"}}}
	if got := rs[0]; !reflect.DeepEqual(got, want) {
		t.Errorf("v2 (defined, not served) = %+v, want %+v", got, want)
	}
	if got := rs[1]; got.Code != 404 || got.Allowed || !got.Checked {
		t.Errorf("v3 (not defined) = %+v, want the same 404", got)
	}
	if got := rs[2]; got.Code != 201 || !got.Allowed {
		t.Errorf("v1 = %+v, want accepted", got)
	}
	_, out, _ = runCLI(t, "validate", "--crds", crd, objs)
	if !strings.Contains(out, "objs.yaml#0 Widget a: refused (404 NotFound): the server could not find the requested resource\n  404 page not found\n  (CRD widgets.example.com does not serve example.com/v2; it serves example.com/v1)\n") {
		t.Errorf("text output:\n%s", out)
	}
}

func TestValidateRefusedCRDAmongInputs(t *testing.T) {
	dir := t.TempDir()
	bad, err := os.ReadFile("../../examples/invalid/non-structural.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"bad-crd.yaml": string(bad), "crontab.yaml": "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: x}\nspec: {cronSpec: \"* * * * */5\"}\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// No object uses the refused CRD: among the inputs it still fails the run.
	code, out, errs := runCLI(t, "validate", "--crds", crontabCRD, dir)
	if code != 2 || !strings.Contains(errs, "bad-crd.yaml:") || !strings.Contains(errs, "the API server would refuse this CRD") || !strings.Contains(out, "accepted") {
		t.Errorf("validate with a refused CRD among the inputs = %d\n%s%s", code, out, errs)
	}
	// Given with --crds, a CRD no object needs is not compiled.
	code, _, errs = runCLI(t, "validate", "--crds", crontabCRD, "--crds", filepath.Join(dir, "bad-crd.yaml"), filepath.Join(dir, "crontab.yaml"))
	if code != 0 {
		t.Errorf("validate with a refused, unused --crds CRD = %d, want 0\n%s", code, errs)
	}
	// get reads inputs the same way.
	if code, _, errs := runCLI(t, "get", "--crds", crontabCRD, dir); code != 2 {
		t.Errorf("get with a refused CRD among the inputs = %d, want 2\n%s", code, errs)
	}
}

func TestHelpEveryCommand(t *testing.T) {
	for _, c := range commands {
		for _, flag := range []string{"--help", "-h"} {
			t.Run(c.name+flag, func(t *testing.T) {
				code, out, errs := runCLI(t, c.name, flag)
				if code != 0 || errs != "" {
					t.Fatalf("crdkit %s %s = %d, stderr %q; want 0 and nothing on stderr", c.name, flag, code, errs)
				}
				// A synopsis, a blank line, then a description of at
				// least a few lines.
				synopsis, rest, _ := strings.Cut(out, "\n\n")
				description, _, _ := strings.Cut(rest, "\nFlags:\n")
				if !strings.HasPrefix(synopsis, "usage: crdkit "+c.name) || strings.Count(description, "\n") < 3 {
					t.Errorf("crdkit %s %s:\n%s\nwant a usage line and a description", c.name, flag, out)
				}
			})
		}
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"help", "validate"}} {
		if code, out, _ := runCLI(t, args...); code != 0 || !strings.Contains(out, "usage: crdkit") {
			t.Errorf("crdkit %v = %d %q", args, code, out)
		}
	}
	// A bad flag: exit 2, the error and the synopsis on stderr.
	code, out, errs := runCLI(t, "lint", "--bogus", "x")
	if code != 2 || out != "" || !strings.Contains(errs, "flag provided but not defined: -bogus") || !strings.Contains(errs, "usage: crdkit lint") {
		t.Errorf("lint --bogus = %d %q %q", code, out, errs)
	}
}

func TestFlagsAfterPaths(t *testing.T) {
	objects := "../../examples/objects/"
	for _, tc := range []struct {
		name string
		args []string
		want int
		out  string // in stdout
	}{
		{"validate", []string{"validate", objects, "--crds", crontabCRD, "-o", "json", "--field-validation", "Warn"}, 0, `"checked": true`},
		{"validate, -ojson joined", []string{"validate", objects, "--crds", crontabCRD, "-ojson"}, 1, `"code": 400`},
		{"validate, after --", []string{"validate", "--crds", crontabCRD, "--", objects}, 1, "refused (400"},
		{"lint", []string{"lint", "../../examples/crontab/crd.yaml", "-o", "json"}, 0, `"allowed": true`},
		{"get", []string{"get", "../../examples/crontab/", "-o", "json"}, 0, `"kind": "Table"`},
		{"get -n", []string{"get", "../../examples/crontab/", "-n", "prod", "-o", "json"}, 0, `"namespace": "prod"`},
		{"versions", []string{"versions", crontabCRD, "-o", "json"}, 0, `"versions"`},
		{"openapi", []string{"openapi", "../../examples/crontab/", "--openapi-version", "3", "--group-version", "stable.example.com/v1"}, 0, `"openapi"`},
		{"explain", []string{"explain", "crontabs", "--crds", crontabCRD}, 0, "KIND:"},
		{"convert", []string{"convert", "../../examples/crontab/crontab.yaml", "--crds", crontabCRD, "--to", "v1beta1", "-o", "yaml"}, 0, "results:"},
		{"bench", []string{"bench", "../../examples/crontab/", "--duration", "5ms", "-o", "json"}, 0, `"results"`},
		{"version", []string{"version", "-o", "json"}, 0, `"apiextensionsApiserver"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			if code != tc.want || !strings.Contains(out, tc.out) {
				t.Errorf("crdkit %q = %d, want %d with %q in the output\n%s%s", tc.args, code, tc.want, tc.out, out, errs)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, _ := runCLI(t, args...)
		if code != 0 || !strings.HasPrefix(out, "crdkit ") || !strings.Contains(out, "follows k8s.io/apiextensions-apiserver v0.37.") {
			t.Errorf("crdkit %v = %d %q", args, code, out)
		}
	}
	if code, _, _ := runCLI(t, "version", "extra"); code != 2 {
		t.Errorf("crdkit version extra = %d, want 2", code)
	}
}

func TestValidateDefaultsToStrict(t *testing.T) {
	objects := "../../examples/objects/"
	for _, tc := range []struct {
		args []string
		want int32
	}{
		{nil, 400}, // kubectl apply's default
		{[]string{"--field-validation", "Strict"}, 400},
		{[]string{"--field-validation", "Warn"}, 201},
		{[]string{"--field-validation", "Ignore"}, 201},
	} {
		args := append([]string{"validate", "--crds", crontabCRD, "-o", "json", objects}, tc.args...)
		_, out, _ := runCLI(t, args...)
		if rs := decodeResults(t, out); len(rs) != 1 || rs[0].Code != tc.want {
			t.Errorf("crdkit %q: code %+v, want %d", args, rs, tc.want)
		}
	}
	if _, out, _ := runCLI(t, "validate", "--help"); !strings.Contains(out, "defaults to Strict, as kubectl apply") {
		t.Errorf("validate --help does not say the default is kubectl's:\n%s", out)
	}
}

func TestYAMLDuplicateKey(t *testing.T) {
	p := writeFile(t, "dup.yaml", "# a comment\n---\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: dup\nspec:\n  cronSpec: \"* * * * */5\"\n  image: first\n  image: second\n")
	for _, tc := range []struct {
		mode     string
		warnings []string
	}{
		{"Strict", []string{`line 8: key "image" already set in map`}},
		{"Warn", []string{`line 8: key "image" already set in map`}},
		{"Ignore", nil},
	} {
		code, out, errs := runCLI(t, "validate", "--crds", crontabCRD, "--field-validation", tc.mode, "-o", "json", p)
		rs := decodeResults(t, out)
		if code != 0 || len(rs) != 1 {
			t.Fatalf("%s: exit %d\n%s%s", tc.mode, code, out, errs)
		}
		spec, _ := rs[0].Object["spec"].(map[string]any)
		if !slices.Equal(rs[0].Warnings, tc.warnings) || spec["image"] != "second" {
			t.Errorf("%s: warnings %q, image %v; want %q and the last value, as kubectl reads YAML", tc.mode, rs[0].Warnings, spec["image"], tc.warnings)
		}
	}
	if _, out, _ := runCLI(t, "validate", "--crds", crontabCRD, p); !strings.Contains(out, `dup.yaml#0 CronTab default/dup: warning: line 8: key "image" already set in map`) {
		t.Errorf("text output:\n%s", out)
	}
}

func TestEmptyDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not YAML"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"validate"}, {"lint"}, {"get"}, {"validate", "--crds", dir, "../../examples/crontab/crontab.yaml"}} {
		args := append(cmd, dir)
		if cmd[len(cmd)-1] == "../../examples/crontab/crontab.yaml" {
			args = cmd
		}
		code, out, errs := runCLI(t, args...)
		if code != 2 || strings.Count(errs, "nothing found: no .yaml, .yml or .json file in this directory or under it") != 1 {
			t.Errorf("crdkit %q = %d, stdout %q, stderr %q; want 2 and one 'nothing found'", args, code, out, errs)
		}
	}
	// A file without documents is not an error; the summary says so.
	empty := writeFile(t, "empty.yaml", "# nothing yet\n")
	code, out, errs := runCLI(t, "validate", empty)
	if code != 0 || out != "" || !strings.Contains(errs, "crdkit: nothing checked: no object documents in 1 file") {
		t.Errorf("validate of an empty file = %d %q %q", code, out, errs)
	}
}

func TestNotCheckedJSONShape(t *testing.T) {
	cm := writeFile(t, "cm.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: noisy}\n")
	code, out, _ := runCLI(t, "validate", "-o", "json", cm, "../../examples/crontab/")
	if code != 0 {
		t.Fatalf("exit = %d", code)
	}
	var doc struct {
		Results []map[string]any `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Results) != 2 {
		t.Fatalf("%v\n%s", err, out)
	}
	nc, ok := doc.Results[0], doc.Results[1]
	if nc["checked"] != false || nc["notChecked"] != true || nc["name"] != "noisy" {
		t.Errorf("not checked = %v, want checked false, notChecked true", nc)
	}
	for _, k := range []string{"allowed", "code", "reason", "causes", "object"} {
		if _, has := nc[k]; has {
			t.Errorf("not checked has %q: %v", k, nc)
		}
	}
	if ok["checked"] != true || ok["allowed"] != true || ok["code"] != 201.0 {
		t.Errorf("accepted = %v", ok)
	}
}

func TestSummaryAndQuiet(t *testing.T) {
	list := writeFile(t, "list.yaml", crontabList)
	code, out, errs := runCLI(t, "validate", "--crds", crontabCRD, list)
	want := regexp.MustCompile(`(?m)^crdkit: 2 objects checked \(1 accepted, 1 refused\), 1 not checked, 0 errors, in 1 file \(\d+(\.\d+)?m?s\)$`)
	if code != 1 || !want.MatchString(errs) || strings.Count(out, "\n") < 3 {
		t.Errorf("summary: exit %d, stderr %q, want a line matching %s", code, errs, want)
	}
	code, out, errs = runCLI(t, "validate", "--crds", crontabCRD, list, "-q")
	if code != 1 || strings.Contains(out, "accepted") || strings.Contains(out, "not checked") || !strings.Contains(out, "prod/bad: refused (422 Invalid)") || !want.MatchString(errs) {
		t.Errorf("-q: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = runCLI(t, "validate", "--crds", crontabCRD, "--quiet", "-o", "json", list)
	if rs := decodeResults(t, out); code != 1 || len(rs) != 1 || rs[0].Name != "bad" {
		t.Errorf("--quiet -o json = %d %+v, want the refusal alone", code, rs)
	}
}

func TestValidateListKind(t *testing.T) {
	// A CRD may name its list kind otherwise than <Kind>List.
	crd := writeFile(t, "crd.yaml", strings.Replace(unservedCRD, "kind: Widget}", "kind: Widget, listKind: WidgetBag}", 1))
	bag := writeFile(t, "bag.yaml", "apiVersion: example.com/v1\nkind: WidgetBag\nitems:\n- {apiVersion: example.com/v1, kind: Widget, metadata: {name: a}}\n- {apiVersion: example.com/v2, kind: Widget, metadata: {name: b}}\n")
	code, out, errs := runCLI(t, "validate", "--crds", crd, "-o", "json", bag)
	var got []string
	for _, r := range decodeResults(t, out) {
		got = append(got, brief(r))
	}
	if want := []string{"#0 items[0] Widget a 201", "#0 items[1] Widget b 404"}; code != 1 || !slices.Equal(got, want) {
		t.Errorf("validate of a WidgetBag = %d %q, want 1 and %q\n%s", code, got, want, errs)
	}
}
