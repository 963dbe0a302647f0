package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/crdkit/crdkit/builtin"
)

// Documents of built-in kinds get decode-level results: checked, with
// "checks": "decode", refusals with the server's Status, acceptances
// without a code.
func TestValidateBuiltinKinds(t *testing.T) {
	p := writeFile(t, "m.yaml", `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  replica: 3
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: prod}
data: {a: "1"}
---
apiVersion: v1
kind: Service
metadata: {name: Web}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
`)
	tests := []struct {
		mode string
		exit int
		want []string // per result: checks code allowed
	}{
		{"Strict", 1, []string{"decode 400 false", "decode 0 true", "decode 422 false", " 0 false"}},
		{"Warn", 1, []string{"decode 0 true", "decode 0 true", "decode 422 false", " 0 false"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			code, out, errs := runCLI(t, "validate", "--field-validation", tt.mode, "-o", "json", p)
			if code != tt.exit {
				t.Fatalf("validate(%s) exit = %d, want %d\n%s", tt.mode, code, tt.exit, errs)
			}
			var doc struct {
				Results []map[string]any `json:"results"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range doc.Results {
				c, _ := r["code"].(float64)
				a, _ := r["allowed"].(bool)
				s, _ := r["checks"].(string)
				got = append(got, strings.TrimSpace(s+" "+jsonNum(c)+" "+map[bool]string{true: "true", false: "false"}[a]))
				if s == "decode" && a {
					if _, ok := r["code"]; ok {
						t.Errorf("validate(%s): accepted built-in has a code: %v", tt.mode, r)
					}
				}
			}
			for i := range tt.want {
				tt.want[i] = strings.TrimSpace(tt.want[i])
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("validate(%s) = %q, want %q", tt.mode, got, tt.want)
			}
		})
	}
	_, out, _ := runCLI(t, "validate", p)
	for _, want := range []string{
		`m.yaml#0 Deployment web: refused (400 BadRequest): Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replica"`,
		`m.yaml#1 ConfigMap prod/cfg: accepted (decode-level checks only: the server's decoding (unknown, duplicate and mistyped fields) and metadata checks; its own validation of the ConfigMap is not run)`,
		`m.yaml#3 Widget w: not checked`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("validate text = %s, want a line with %s", out, want)
		}
	}
}

func jsonNum(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// The help and the README name every built-in kind checked.
func TestBuiltinKindsDocumented(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(validateHelp), " ")
	for _, gvk := range builtin.New().Kinds() {
		apiVersion, kind := gvk.ToAPIVersionAndKind()
		for _, doc := range []struct{ name, text string }{{"validate --help", flat}, {"README", string(readme)}} {
			if !strings.Contains(doc.text, kind) || !strings.Contains(doc.text, strings.TrimSuffix(apiVersion, "/v1")) {
				t.Errorf("%s does not name %s %s", doc.name, apiVersion, kind)
			}
		}
	}
}

// --require-crd fails on documents no check serves, not on built-in kinds.
func TestRequireCRDBuiltin(t *testing.T) {
	cm := writeFile(t, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n")
	w := writeFile(t, "w.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n")
	for _, tt := range []struct {
		file string
		want int
	}{{cm, 0}, {w, 2}} {
		if code, _, errs := runCLI(t, "validate", "--require-crd", tt.file); code != tt.want {
			t.Errorf("validate --require-crd %s = %d, want %d\n%s", tt.file, code, tt.want, errs)
		}
	}
}

// A built-in kind at a version the server no longer serves gets its 404.
func TestValidateBuiltinRemovedVersion(t *testing.T) {
	p := writeFile(t, "old.yaml", "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata: {name: old}\n---\napiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: old}\n")
	code, out, _ := runCLI(t, "validate", p)
	if code != 1 {
		t.Fatalf("validate(removed versions) exit = %d, want 1\n%s", code, out)
	}
	for _, want := range []string{
		"old.yaml#0 Ingress old: refused (404 NotFound): the server could not find the requested resource",
		"(Kubernetes 1.37 does not serve extensions/v1beta1 Ingress; it serves networking.k8s.io/v1)",
		"(Kubernetes 1.37 does not serve batch/v1beta1 CronJob; it serves batch/v1)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("validate(removed versions) = %s, want a line with %s", out, want)
		}
	}
}
