package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestOpenAPIExitCodes(t *testing.T) {
	crd := "../../examples/crontab/crd.yaml"
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"v3", []string{"openapi", "--openapi-version", "3", "--group-version", "stable.example.com/v1", crd}, 0},
		{"v3 flags after files", []string{"openapi", crd, "--openapi-version", "3", "--group-version", "stable.example.com/v1beta1", "-o", "yaml"}, 0},
		{"v2", []string{"openapi", "--openapi-version", "2", "../../examples/crontab/"}, 0},
		{"not served", []string{"openapi", "--openapi-version", "3", "--group-version", "stable.example.com/v2", crd}, 1},
		{"no version", []string{"openapi", crd}, 2},
		{"v3 without group-version", []string{"openapi", "--openapi-version", "3", crd}, 2},
		{"v2 with group-version", []string{"openapi", "--openapi-version", "2", "--group-version", "a/b", crd}, 2},
		{"bad format", []string{"openapi", "--openapi-version", "2", "-o", "xml", crd}, 2},
		{"no files", []string{"openapi", "--openapi-version", "2"}, 2},
		{"refused CRD", []string{"openapi", "--openapi-version", "2", "../../examples/invalid/"}, 2},
		{"explicit non-CRD", []string{"openapi", "--openapi-version", "2", "../../examples/crontab/crontab.yaml"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, _, stderr := runCLI(t, tc.args...); got != tc.want {
				t.Errorf("run(%v) = %d, want %d (%s)", tc.args, got, tc.want, stderr)
			}
		})
	}
}

func TestOpenAPIV3Document(t *testing.T) {
	code, out, stderr := runCLI(t, "openapi", "--openapi-version", "3", "--group-version", "stable.example.com/v1", "../../examples/crontab/crd.yaml")
	if code != 0 {
		t.Fatalf("exit = %d: %s", code, stderr)
	}
	var doc struct {
		OpenAPI    string                     `json:"openapi"`
		Paths      map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.0.0" {
		t.Errorf("openapi = %q, want 3.0.0", doc.OpenAPI)
	}
	for _, p := range []string{"/apis/stable.example.com/v1/crontabs", "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}"} {
		if _, ok := doc.Paths[p]; !ok {
			t.Errorf("paths lack %s", p)
		}
	}
	ct, ok := doc.Components.Schemas["com.example.stable.v1.CronTab"]
	if !ok {
		t.Fatal("components.schemas lack com.example.stable.v1.CronTab")
	}
	if got := string(ct.Properties["metadata"]); !strings.Contains(got, `"allOf"`) {
		t.Errorf("metadata = %s, want the ObjectMeta $ref wrapped in allOf", got)
	}
	if _, ok := doc.Components.Schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]; !ok {
		t.Error("components.schemas lack ObjectMeta")
	}
}

func TestOpenAPIV2Document(t *testing.T) {
	code, out, stderr := runCLI(t, "openapi", "--openapi-version", "2", "../../examples/crontab/crd.yaml")
	if code != 0 {
		t.Fatalf("exit = %d: %s", code, stderr)
	}
	var doc map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc) != 3 || doc["paths"] == nil || doc["definitions"] == nil || doc["parameters"] == nil {
		t.Fatalf("keys of %.200s, want paths, definitions and parameters", out)
	}
	// v1beta1 preserves unknown fields at the root: v2 publishes a bare object.
	if got := string(doc["definitions"]["com.example.stable.v1beta1.CronTab"]); strings.Contains(got, "properties") {
		t.Errorf("v1beta1 definition = %s, want no properties", got)
	}
	if _, ok := doc["parameters"]["pretty-tJGM1-ng"]; !ok {
		t.Errorf("parameters lack pretty-tJGM1-ng")
	}
}

func TestExplain(t *testing.T) {
	code, out, stderr := runCLI(t, "explain", "--crds", "../../examples/crontab/", "ct.spec", "--recursive")
	if code != 0 {
		t.Fatalf("exit = %d: %s", code, stderr)
	}
	for _, want := range []string{"GROUP:      stable.example.com", "KIND:       CronTab", "VERSION:    v1\n", "FIELD: spec <Object>", "cronSpec\t<string>", "replicas\t<integer>"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "explain", "--crds", "../../examples/crontab/crd.yaml", "--api-version", "stable.example.com/v1beta1", "crontabs")
	if code != 0 || !strings.Contains(out, "VERSION:    v1beta1") {
		t.Errorf("explain --api-version v1beta1 = %d:\n%s", code, out)
	}
	for _, args := range [][]string{
		{"explain", "--crds", "../../examples/crontab/", "nothings"},
		{"explain", "--crds", "../../examples/crontab/", "crontabs.spec.nothing"},
	} {
		if code, _, _ := runCLI(t, args...); code != 1 {
			t.Errorf("run(%v) = %d, want 1", args, code)
		}
	}
	for _, args := range [][]string{
		{"explain", "crontabs"},
		{"explain", "--crds", "../../examples/crontab/"},
		{"explain", "--crds", "../../examples/crontab/", "a", "b"},
		{"explain", "--crds", "../../examples/crontab/", "--api-version", "a/b/c", "crontabs"},
	} {
		if code, _, _ := runCLI(t, args...); code != 2 {
			t.Errorf("run(%v) = %d, want 2", args, code)
		}
	}
}

// TestOpenAPILargeIntegers: integers past 2^53 in a CRD file keep every
// digit in the printed documents, as the server publishes them (the
// conformance module compares with the server); bounds are float64s in the
// CRD type and print rounded, on the server too.
func TestOpenAPILargeIntegers(t *testing.T) {
	crd := writeFile(t, "crd.yaml", `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: bigs.example.com}
spec:
  group: example.com
  scope: Cluster
  names: {plural: bigs, singular: big, kind: Big}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: integer
            default: 9007199254740993
            enum: [9007199254740993, -9223372036854775808]
            example: 9223372036854775807
            minimum: -9007199254740993
`)
	for _, tc := range []struct {
		name       string
		args       []string
		want, lack []string
	}{
		{"v3 json", []string{"--openapi-version", "3", "--group-version", "example.com/v1"},
			[]string{`"default": 9007199254740993`, `9007199254740993,`, `-9223372036854775808`, `"example": 9223372036854775807`, `"minimum": -9007199254740992`}, nil},
		{"v3 yaml", []string{"--openapi-version", "3", "--group-version", "example.com/v1", "-o", "yaml"},
			[]string{"default: 9007199254740993", "- 9007199254740993", "- -9223372036854775808", "example: 9223372036854775807"}, nil},
		{"v2 json", []string{"--openapi-version", "2"},
			[]string{`9007199254740993,`, `-9223372036854775808`, `"example": 9223372036854775807`, `"minimum": -9007199254740992`}, []string{`"default"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, append(append([]string{"openapi"}, tc.args...), crd)...)
			if code != 0 {
				t.Fatalf("exit = %d: %s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("openapi %v lacks %s", tc.args, w)
				}
			}
			for _, l := range tc.lack {
				if strings.Contains(out, l) {
					t.Errorf("openapi %v has %s", tc.args, l)
				}
			}
		})
	}
}
