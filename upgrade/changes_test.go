package upgrade

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

const liveDoc = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
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
            required: [size]
            properties:
              size: {type: integer, maximum: 10, minimum: 1}
              color: {type: string, enum: [red, blue]}
              name: {type: string, maxLength: 10, pattern: "^a"}
              tags: {type: array, items: {type: string}}
              mode: {type: string, default: fast}
              opt: {type: string, nullable: true}
`

func crdOf(t *testing.T, doc string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	c := new(apiextensionsv1.CustomResourceDefinition)
	if err := yaml.UnmarshalStrict([]byte(doc), c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestChanges(t *testing.T) {
	for _, tc := range []struct {
		name, from, to string
		want           string // "path: kind [BREAKING]", joined by "; "
	}{
		{"none", "", "", ""},
		{"maximum tightened", "maximum: 10", "maximum: 5", "spec.size: maximum tightened (10 -> 5) BREAKING"},
		{"maximum loosened", "maximum: 10", "maximum: 50", "spec.size: maximum loosened (10 -> 50)"},
		{"minimum tightened", "minimum: 1", "minimum: 2", "spec.size: minimum tightened (1 -> 2) BREAKING"},
		{"enum narrowed", "enum: [red, blue]", "enum: [red]", `spec.color: enum narrowed (was "blue") BREAKING`},
		{"enum widened", "enum: [red, blue]", "enum: [red, blue, green]", `spec.color: enum widened ("green")`},
		{"pattern changed", `pattern: "^a"`, `pattern: "^b"`, "spec.name: pattern changed (^a -> ^b) BREAKING"},
		{"type changed", "size: {type: integer", "size: {type: string", "spec.size: type changed (integer -> string) BREAKING"},
		{"field removed", "tags: {type: array, items: {type: string}}", "", "spec.tags: field removed (stored values are pruned) BREAKING"},
		{"field added", "opt: {type: string, nullable: true}", "opt: {type: string, nullable: true}\n              extra: {type: string}", "spec.extra: field added"},
		{"default changed", "default: fast", "default: slow", `spec.mode: default changed ("fast" -> "slow") BREAKING`},
		{"no longer nullable", "nullable: true", "nullable: false", "spec.opt: no longer nullable (nulls are dropped) BREAKING"},
		{"made required", "required: [size]", "required: [size, name]", "spec.name: made required BREAKING"},
		{"list type", "items: {type: string}}", "items: {type: string}, x-kubernetes-list-type: set}", "spec.tags: list type changed (set) BREAKING"},
		{"rule added", "required: [size]", "required: [size]\n            x-kubernetes-validations: [{rule: 'self.size < 5'}]", "spec: rule added (self.size < 5) BREAKING"},
		{"scope", "scope: Namespaced", "scope: Cluster", "scope changed (Namespaced -> Cluster) BREAKING"},
		{"unserved", "served: true", "served: false", "no longer served BREAKING"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live := crdOf(t, liveDoc)
			next := crdOf(t, strings.Replace(liveDoc, tc.from, tc.to, 1))
			var got []string
			for _, c := range Changes(live, next) {
				s := c.String()
				if c.Breaking {
					s += " BREAKING"
				}
				got = append(got, s)
			}
			if g := strings.Join(got, "; "); g != tc.want {
				t.Errorf("Changes(%s) = %q, want %q", tc.name, g, tc.want)
			}
		})
	}
}
