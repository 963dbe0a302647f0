package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLintExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"accepted", []string{"lint", "../../examples/crontab/"}, 0},
		{"refused", []string{"lint", "../../examples/invalid/"}, 1},
		{"no args", []string{"lint"}, 2},
		{"bad format", []string{"lint", "-o", "xml", "../../examples/crontab/"}, 2},
		{"missing file", []string{"lint", "does-not-exist.yaml"}, 2},
		{"explicit non-CRD", []string{"lint", "../../examples/crontab/crontab.yaml"}, 2},
		{"unknown command", []string{"frobnicate"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, _, _ := runCLI(t, tc.args...); got != tc.want {
				t.Errorf("run(%v) = %d, want %d", tc.args, got, tc.want)
			}
		})
	}
}

func TestLintJSON(t *testing.T) {
	code, out, _ := runCLI(t, "lint", "-o", "json", "../../examples/invalid/non-structural.yaml")
	if code != 1 {
		t.Fatalf("exit = %d, want 1", code)
	}
	var doc struct {
		Results []lintResult `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if len(doc.Results) != 1 {
		t.Fatalf("results = %d, want 1", len(doc.Results))
	}
	r := doc.Results[0]
	if r.Allowed || r.Code != 422 || r.Reason != "Invalid" || r.Name != "widgets.example.com" {
		t.Errorf("result = %+v, want a 422 Invalid refusal of widgets.example.com", r)
	}
	want := cause{Field: "spec.validation.openAPIV3Schema.type", Reason: "FieldValueRequired", Message: "Required value: must not be empty at the root"}
	found := false
	for _, c := range r.Causes {
		found = found || c == want
	}
	if !found {
		t.Errorf("causes = %+v, want one of them to be %+v", r.Causes, want)
	}
	if !strings.HasPrefix(r.Message, `CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: [`) {
		t.Errorf("message = %q, want the server's aggregate", r.Message)
	}
}

func TestLintYAMLErrorHasLine(t *testing.T) {
	p := writeFile(t, "bad.yaml", "apiVersion: v1\nkind: X\n---\na: b\n  c: : d\n")
	code, _, errs := runCLI(t, "lint", p)
	if code != 2 {
		t.Fatalf("exit = %d, want 2", code)
	}
	if !strings.Contains(errs, "bad.yaml:") || !strings.Contains(errs, "invalid YAML") {
		t.Errorf("stderr = %q, want the file, a line and 'invalid YAML'", errs)
	}
}

func TestLintWarnsOnUnknownFields(t *testing.T) {
	crd, err := os.ReadFile("../../examples/crontab/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := writeFile(t, "crd.yaml", strings.Replace(string(crd), "  scope: Namespaced\n", "  scope: Namespaced\n  bogus: 1\n", 1))
	code, out, _ := runCLI(t, "lint", p)
	if code != 0 || !strings.Contains(out, `unknown field "spec.bogus"`) {
		t.Errorf("run = %d, %q; want 0 and an unknown-field warning", code, out)
	}
}

func TestVersions(t *testing.T) {
	code, out, _ := runCLI(t, "versions", "-o", "json", "../../examples/crontab/crd.yaml")
	if code != 0 {
		t.Fatalf("exit = %d", code)
	}
	var doc struct {
		Versions []versionInfo `json:"versions"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	want := []versionInfo{
		{Name: "v1", Served: true, Storage: true},
		{Name: "v1beta1", Served: true, Deprecated: true, DeprecationWarning: "stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab"},
	}
	if len(doc.Versions) != len(want) {
		t.Fatalf("versions = %+v, want %+v", doc.Versions, want)
	}
	for i := range want {
		if doc.Versions[i] != want[i] {
			t.Errorf("versions[%d] = %+v, want %+v", i, doc.Versions[i], want[i])
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		want     int
		contains string
	}{
		{"accepted", []string{"validate", "../../examples/crontab/"}, 0, "accepted"},
		{"warn", []string{"validate", "--field-validation", "Warn", "--crds", "../../examples/crontab", "../../examples/objects/"}, 0, `warning: unknown field "spec.colour"`},
		{"strict", []string{"validate", "--crds", "../../examples/crontab", "--field-validation", "Strict", "../../examples/objects/"}, 1, `strict decoding error: duplicate field "spec.image", unknown field "metadata.owner", unknown field "spec.colour"`},
		{"no crd: not checked", []string{"validate", "../../examples/objects/"}, 0, `CronTab noisy: not checked: no CRD serves apiVersion "stable.example.com/v1", kind "CronTab"`},
		{"no crd, required", []string{"validate", "--require-crd", "../../examples/objects/"}, 2, ""},
		{"bad mode", []string{"validate", "--field-validation", "Loose", "../../examples/crontab/"}, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, out, _ := runCLI(t, tc.args...)
			if got != tc.want || !strings.Contains(out, tc.contains) {
				t.Errorf("run(%v) = %d, %q; want %d and output containing %q", tc.args, got, out, tc.want, tc.contains)
			}
		})
	}
}

func TestGet(t *testing.T) {
	code, out, errs := runCLI(t, "get", "../../examples/crontab/")
	if code != 0 {
		t.Fatalf("exit = %d, stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME SPEC REPLICAS AGE" {
		t.Fatalf("output = %q, want the seed's header NAME SPEC REPLICAS AGE and one row", out)
	}
	// The age is 0s, or 1s when the run crossed a second after the create:
	// creationTimestamp keeps whole seconds only.
	if got := strings.Fields(lines[1]); len(got) != 8 || got[0] != "my-new-cron-object" || got[6] != "1" || (got[7] != "0s" && got[7] != "1s") {
		t.Errorf("row = %q, want my-new-cron-object, the cron spec, 1 replica (defaulted), age 0s or 1s", got)
	}
	code, out, _ = runCLI(t, "get", "-o", "json", "../../examples/crontab/")
	if code != 0 || !strings.Contains(out, `"kind": "Table"`) || !strings.Contains(out, `"columnDefinitions"`) {
		t.Errorf("get -o json = %d, %q; want a metav1.Table", code, out)
	}
}

func TestLintUndecodableCRD(t *testing.T) {
	crd, err := os.ReadFile("../../examples/crontab/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(crd), "    served: true\n", "    served: \"yes\"\n", 1)
	p := writeFile(t, "crd.yaml", text)
	code, out, errs := runCLI(t, "lint", "-o", "json", p)
	if code != 1 {
		t.Fatalf("exit = %d, want 1 (a refusal)\n%s%s", code, out, errs)
	}
	var doc struct {
		Results []lintResult `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Results) != 1 {
		t.Fatalf("output: %v\n%s", err, out)
	}
	r := doc.Results[0]
	want := `CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: json: cannot unmarshal string into Go struct field CustomResourceDefinitionVersion.spec.versions.served of type bool`
	if r.Allowed || r.Code != 400 || r.Reason != "BadRequest" || r.Message != want || r.Name != "crontabs.stable.example.com" {
		t.Errorf("lint = %+v, want 400 BadRequest %q", r, want)
	}
	if code, out, _ := runCLI(t, "lint", p); code != 1 || !strings.Contains(out, want) {
		t.Errorf("lint (text) = %d\n%s", code, out)
	}
}

func TestValidateNamespaceFlag(t *testing.T) {
	crd := "../../examples/crontab/crd.yaml"
	other := writeFile(t, "other.yaml", "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: x\n  namespace: staging\nspec:\n  cronSpec: \"* * * * */5\"\n")
	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		wantNS   string
		wantHTTP int32
	}{
		{"no -n: default", []string{"validate", "-o", "json", "--crds", crd, "../../examples/crontab/crontab.yaml"}, 0, "default", 201},
		{"-n", []string{"validate", "-o", "json", "-n", "prod", "--crds", crd, "../../examples/crontab/crontab.yaml"}, 0, "prod", 201},
		{"--namespace", []string{"validate", "-o", "json", "--namespace", "prod", "--crds", crd, "../../examples/crontab/crontab.yaml"}, 0, "prod", 201},
		{"object's own namespace", []string{"validate", "-o", "json", "--crds", crd, other}, 0, "staging", 201},
		{"same namespace", []string{"validate", "-o", "json", "-n", "staging", "--crds", crd, other}, 0, "staging", 201},
		{"another namespace", []string{"validate", "-o", "json", "-n", "prod", "--crds", crd, other}, 1, "staging", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			if code != tc.wantCode {
				t.Fatalf("exit = %d, want %d\n%s%s", code, tc.wantCode, out, errs)
			}
			var doc struct {
				Results []objectResult `json:"results"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Results) != 1 {
				t.Fatalf("output: %v\n%s", err, out)
			}
			r := doc.Results[0]
			if r.Code != tc.wantHTTP || r.Namespace != tc.wantNS {
				t.Errorf("result = %d in %q, want %d in %q (%s)", r.Code, r.Namespace, tc.wantHTTP, tc.wantNS, r.Message)
			}
			if tc.wantHTTP == 400 && r.Message != "the namespace of the provided object does not match the namespace sent on the request" {
				t.Errorf("message = %q", r.Message)
			}
			if tc.wantHTTP == 201 {
				if md, _ := r.Object["metadata"].(map[string]any); md["namespace"] != tc.wantNS {
					t.Errorf("object namespace = %v, want %s", md["namespace"], tc.wantNS)
				}
			}
		})
	}
}

func TestGetNamespaceFlag(t *testing.T) {
	code, out, errs := runCLI(t, "get", "-n", "prod", "-o", "json", "../../examples/crontab/")
	if code != 0 {
		t.Fatalf("exit = %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, `"namespace": "prod"`) {
		t.Errorf("get -n prod: the row's object is not in prod:\n%s", out)
	}
}

// TestValidateManyDocuments checks the worker pool: results in input order,
// one valid JSON document, not-checked documents, YAML and empty outputs.
func TestValidateManyDocuments(t *testing.T) {
	var b strings.Builder
	const n = 300
	for i := range n {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, "---\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: ok-%d\nspec:\n  cronSpec: \"* * * * */5\"\n", i)
		case 1:
			fmt.Fprintf(&b, "---\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: bad-%d\nspec:\n  replicas: 99\n", i)
		default:
			fmt.Fprintf(&b, "---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: cm-%d\n", i)
		}
	}
	p := writeFile(t, "many.yaml", b.String())
	for _, workers := range []string{"1", "7"} {
		code, out, errs := runCLI(t, "validate", "--workers", workers, "-o", "json", "--crds", "../../examples/crontab/crd.yaml", p)
		if code != 1 {
			t.Fatalf("workers %s: exit = %d, want 1\n%s", workers, code, errs)
		}
		var doc struct {
			Results []objectResult `json:"results"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Results) != n {
			t.Fatalf("workers %s: %v, %d results\n%s", workers, err, len(doc.Results), out[:min(len(out), 2000)])
		}
		for i, r := range doc.Results {
			want := map[int]string{0: fmt.Sprintf("ok-%d", i), 1: fmt.Sprintf("bad-%d", i), 2: fmt.Sprintf("cm-%d", i)}[i%3]
			if r.Index != i || r.Name != want {
				t.Fatalf("workers %s: result %d is document %d %s, want %s", workers, i, r.Index, r.Name, want)
			}
			if ok := map[int]bool{0: r.Allowed && r.Code == 201, 1: !r.Allowed && r.Code == 422, 2: r.NotChecked && !r.Allowed}[i%3]; !ok {
				t.Errorf("workers %s: result %d = %+v", workers, i, r)
			}
		}
	}
	code, out, _ := runCLI(t, "validate", "-o", "yaml", "--crds", "../../examples/crontab/crd.yaml", p)
	var y struct {
		Results []objectResult `json:"results"`
	}
	if err := yaml.Unmarshal([]byte(out), &y); code != 1 || err != nil || len(y.Results) != n {
		t.Errorf("-o yaml: exit %d, %v, %d results", code, err, len(y.Results))
	}
	empty := writeFile(t, "empty.yaml", "# nothing\n")
	for format, want := range map[string]string{"json": "{\n  \"results\": []\n}\n", "yaml": "results: []\n"} {
		if code, out, _ := runCLI(t, "validate", "-o", format, empty); code != 0 || out != want {
			t.Errorf("-o %s on no documents = %d %q, want %q", format, code, out, want)
		}
	}
}

func TestBench(t *testing.T) {
	code, out, errs := runCLI(t, "bench", "--duration", "20ms", "-o", "json", "../../examples/crontab/")
	if code != 0 {
		t.Fatalf("exit = %d\n%s", code, errs)
	}
	var doc struct {
		Objects int          `json:"objects"`
		Results []stepResult `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	steps := map[string]bool{}
	for _, r := range doc.Results {
		steps[r.Step] = true
		if r.Objects <= 0 || r.ObjectsPerSec <= 0 || r.Cores < 1 {
			t.Errorf("result %+v: nothing measured", r)
		}
	}
	// The CronTab example has no CEL rules: no cel step.
	if doc.Objects != 1 || !steps["prune"] || !steps["default"] || !steps["validate"] || !steps["create"] || steps["cel"] {
		t.Errorf("bench = %d objects, steps %v", doc.Objects, steps)
	}
	if code, _, _ := runCLI(t, "bench", "../../examples/objects/"); code != 2 {
		t.Errorf("bench without a CRD for the objects = %d, want 2", code)
	}
}
