package rules

import (
	"testing"

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
