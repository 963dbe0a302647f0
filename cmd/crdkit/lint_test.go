package main

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/crdkit/crdkit/upgrade"
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

const liveCRD = `apiVersion: apiextensions.k8s.io/v1
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
              size: {type: integer}
`

// lint --old checks a revision as an update of its live CRD: what the
// server refuses only on update (an immutable scope, a stored version
// removed), the warnings only for what is new.
func TestLintOld(t *testing.T) {
	live := writeFile(t, "live.yaml", liveCRD)
	for _, tc := range []struct {
		name, doc string
		code      int
		want      []string
	}{
		{"no-op", liveCRD, 0, []string{"widgets.example.com: update accepted (200)"}},
		{"scope changed", strings.Replace(liveCRD, "scope: Namespaced", "scope: Cluster", 1), 1,
			[]string{"update refused (422 Invalid)", `spec.scope: Invalid value: "Cluster": field is immutable`}},
		{"stored version removed", strings.Replace(liveCRD, "name: v1\n", "name: v2\n", 1), 1,
			[]string{`status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version`}},
		{"format added", strings.Replace(liveCRD, "size: {type: integer}", "size: {type: integer}\n              at: {type: string, format: instant}", 1), 0,
			[]string{`warning: unrecognized format "instant"`, "update accepted (200)"}},
		{"not in LIVE: a create", strings.Replace(liveCRD, "widgets.example.com", "gadgets.example.com", 1), 1,
			[]string{"gadgets.example.com: refused (422 Invalid)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, "new.yaml", tc.doc)
			code, out, errs := runCLI(t, "lint", "--old", live, p)
			if code != tc.code {
				t.Errorf("lint --old exit = %d, want %d\n%s%s", code, tc.code, out, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("lint --old output = %q, want it to contain %q", out, w)
				}
			}
		})
	}
	p := writeFile(t, "new.yaml", strings.Replace(liveCRD, "scope: Namespaced", "scope: Cluster", 1))
	_, out, _ := runCLI(t, "lint", "-o", "json", "--old", live, p)
	var doc struct {
		Results []lintResult `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Results) != 1 {
		t.Fatalf("lint -o json --old = %q (%v)", out, err)
	}
	if r := doc.Results[0]; r.Operation != "update" || r.Code != 422 || len(r.Causes) != 1 || r.Causes[0].Field != "spec.scope" {
		t.Errorf("lint -o json --old = %+v, want an update refused for spec.scope", r)
	}
}

// upgrade reports the example's breaking revision and exits 1; a revision
// that changes nothing exits 0.
func TestUpgradeCommand(t *testing.T) {
	dir := "../../examples/crd-upgrade/"
	code, out, errs := runCLI(t, "upgrade", "--old", dir+"live.yaml", "--new", dir+"next.yaml", "--objects", dir+"stored.yaml")
	if code != 1 {
		t.Fatalf("upgrade exit = %d, want 1\n%s%s", code, out, errs)
	}
	for _, w := range []string{
		"CRD backups.example.com: update accepted (200)",
		"BREAKING spec.retentionDays: maximum added (30)",
		"a GET prunes spec.legacyBucket (lost at the next write)",
		"ratcheted: spec.retentionDays is kept only while unchanged",
		"changing it to 366 is refused (422 Invalid)",
		"summary: update accepted; 4 changes, 3 breaking; 4 objects, 3 break",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("upgrade output lacks %q:\n%s", w, out)
		}
	}
	code, out, _ = runCLI(t, "upgrade", "-o", "json", "--old", dir+"live.yaml", "--new", dir+"live.yaml", "--objects", dir+"stored.yaml")
	var r struct {
		Summary struct {
			ObjectsBreaking int `json:"objectsBreaking"`
			Objects         int `json:"objects"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 || r.Summary.Objects != 4 || r.Summary.ObjectsBreaking != 0 {
		t.Errorf("upgrade -o json of an unchanged revision = %d %+v (%v), want 0 and 4 objects, none breaking\n%s", code, r.Summary, err, out)
	}
	if code, _, _ := runCLI(t, "upgrade", "--old", dir+"live.yaml"); code != 2 {
		t.Errorf("upgrade without --new exit = %d, want 2", code)
	}
}

// TestUpgradeJSONDocumented holds docs/output.md's account of upgrade -o
// json to the report's fields: every JSON name in upgrade.Report (and the
// types it holds) is named in the upgrade bullet.
func TestUpgradeJSONDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/output.md")
	if err != nil {
		t.Fatal(err)
	}
	_, bullet, ok := strings.Cut(string(doc), "- `crdkit upgrade -o json`")
	if !ok {
		t.Fatal("docs/output.md has no `crdkit upgrade -o json` bullet")
	}
	bullet, _, _ = strings.Cut(bullet, "\n- ")
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for i := range ty.NumField() {
			f := ty.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if !strings.Contains(bullet, `"`+name+`"`) {
				t.Errorf("docs/output.md's upgrade -o json bullet does not name %q (%s.%s)", name, ty.Name(), f.Name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[upgrade.Report]())
	if len(seen) < 5 {
		t.Fatalf("walked only %d types", len(seen))
	}
}
