package rules

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/common"

	"github.com/crdkit/crdkit/schema"
)

// The key of a declaration depends on its content only: two builds of one
// schema (objects with defaults, enums, embedded metadata) have one key,
// and a changed default another. (Keys written from addresses missed every
// compilation remembered for a type with an object default.)
func TestKeyOfByContent(t *testing.T) {
	tests := []struct{ name, a, b string }{
		{"object default", `{"type":"object","properties":{"a":{"type":"object","default":{"x":1},"properties":{"x":{"type":"integer"}}}}}`, `{"type":"object","properties":{"a":{"type":"object","default":{"x":2},"properties":{"x":{"type":"integer"}}}}}`},
		{"list default", `{"type":"object","properties":{"l":{"type":"array","default":[1],"items":{"type":"integer"}}}}`, `{"type":"object","properties":{"l":{"type":"array","default":[2],"items":{"type":"integer"}}}}`},
		{"enum", `{"type":"object","properties":{"e":{"type":"string","enum":["a","b"]}}}`, `{"type":"object","properties":{"e":{"type":"string","enum":["a","c"]}}}`},
	}
	key := func(js string) declKey {
		s, err := schema.CompileJSON([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		return keyOf(common.SchemaDeclType(newNode(s), true).MaybeAssignTypeName(selfTypeName))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if k1, k2 := key(tc.a), key(tc.a); k1 != k2 {
				t.Errorf("keyOf(%s) = %x, then %x, want one key", tc.a, k1, k2)
			}
			if k1, k2 := key(tc.a), key(tc.b); k1 == k2 {
				t.Errorf("keyOf(%s) = keyOf(%s) = %x, want two keys", tc.a, tc.b, k1)
			}
		})
	}
}

// Types that differ only in what the environment does not see (sizes,
// required fields, enums, defaults) share a rule environment; types that
// differ in a name or a CEL type do not. Check gives the same errors with
// the environment shared as with one of the type's own.
func TestEnvShapeShared(t *testing.T) {
	const rules = `"x-kubernetes-validations":[{"rule":"self.a.size() < 10 && self.a.startsWith('x')"},{"rule":"self.b > 0"},{"rule":"self.a.nope == 1"},{"rule":"self.all(k, k.size() > 1)"},{"rule":"!has(self.c) || self.c.all(x, x.size() < 3)"}]`
	obj := func(a, b, c string) string {
		return `{"type":"object",` + rules + `,"properties":{"a":` + a + `,"b":` + b + `,"c":` + c + `}}`
	}
	const str, num, list = `{"type":"string"}`, `{"type":"integer"}`, `{"type":"array","items":{"type":"string"}}`
	base := obj(str, num, list)
	tests := []struct {
		name  string
		other string
		share bool
	}{
		{"maxLength", obj(`{"type":"string","maxLength":5}`, num, list), true},
		{"huge maxLength", obj(`{"type":"string","maxLength":100000000}`, num, list), true},
		{"maxItems", obj(str, num, `{"type":"array","maxItems":4,"items":{"type":"string","maxLength":2}}`), true},
		{"enum", obj(`{"type":"string","enum":["x","y"]}`, num, list), true},
		{"default", obj(`{"type":"string","default":"x"}`, `{"type":"integer","default":3}`, list), true},
		{"required", `{"type":"object",` + rules + `,"required":["a"],"properties":{"a":` + str + `,"b":` + num + `,"c":` + list + `}}`, true},
		{"field type", obj(str, `{"type":"number"}`, list), false},
		{"field name", `{"type":"object",` + rules + `,"properties":{"a":` + str + `,"d":` + num + `,"c":` + list + `}}`, false},
		{"nested field", obj(str, `{"type":"object","properties":{"z":{"type":"integer"}}}`, list), false},
		{"list items", obj(str, num, `{"type":"array","items":{"type":"integer"}}`), false},
	}
	compile := func(js string) *schema.Schema {
		s, err := schema.CompileJSON([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	shapes := func(js string) (declKey, declKey) {
		return keysOf(common.SchemaDeclType(newNode(compile(js)), true).MaybeAssignTypeName(selfTypeName))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k1, e1 := shapes(base)
			k2, e2 := shapes(tc.other)
			if k1 == k2 {
				t.Errorf("keyOf(%s) = keyOf(%s), want two keys", base, tc.other)
			}
			if (e1 == e2) != tc.share {
				t.Errorf("environment shapes of %s and %s equal = %v, want %v", base, tc.other, e1 == e2, tc.share)
			}
			p := field.NewPath("spec", "validation", "openAPIV3Schema")
			DropCaches()
			own := Check(compile(tc.other), p, nil)
			DropCaches()
			NewCompiler().Check(compile(base), p, nil)
			shared := NewCompiler().Check(compile(tc.other), p, nil)
			if fmt.Sprint(shared) != fmt.Sprint(own) {
				t.Errorf("Check(%s) after Check(%s) = %v, want %v", tc.other, base, shared, own)
			}
			if len(own) == 0 {
				t.Errorf("Check(%s) = no errors, want the rule on self.a.nope refused", tc.other)
			}
		})
	}
}
