package main

import (
	"encoding/json"
	"strings"
	"testing"
)

const warnedCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              when: {type: string, format: timestamp}
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: object, x-kubernetes-map-type: atomic}
`

// The server's CRD strategy warns about unrecognized formats and set lists
// of objects; lint prints its warnings in text and in -o json.
func TestLintStrategyWarnings(t *testing.T) {
	p := writeFile(t, "crd.yaml", warnedCRD)
	want := []string{
		`unrecognized format "timestamp"`,
		`x-kubernetes-list-type: set for items of type "object" is not supported by server-side apply or CEL validation rules`,
	}
	code, out, _ := runCLI(t, "lint", p)
	if code != 0 {
		t.Fatalf("lint exit = %d, want 0\n%s", code, out)
	}
	for _, w := range want {
		if !strings.Contains(out, "warning: "+w+"\n") {
			t.Errorf("lint output = %q, want the warning %q", out, w)
		}
	}
	code, out, _ = runCLI(t, "lint", "-o", "json", p)
	var doc struct {
		Results []lintResult `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 || len(doc.Results) != 1 {
		t.Fatalf("lint -o json = %d %q (%v), want one accepted result", code, out, err)
	}
	if got := doc.Results[0].Warnings; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lint -o json warnings = %q, want %q", got, want)
	}
}
