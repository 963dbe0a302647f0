package celdiff

import (
	"encoding/json"
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// FuzzValidateAgrees compiles a fuzzed rule (with a messageExpression,
// fieldPath and reason) on a schema with a property of every kind, and
// compares rules.Validator.Validate with the server's CEL validator on a
// fuzzed object.
//
//	go test ./celdiff -run X -fuzz FuzzValidateAgrees -fuzztime 60s
func FuzzValidateAgrees(f *testing.F) {
	f.Add("self.i < 10", "'i is ' + string(self.i)", ".i", "", `{"spec":{"i":12,"s":"x","l":[1,2],"m":{"a":"b"}}}`)
	f.Add("self.l.all(x, x > 0) && self.l.exists_one(x, x == 2)", "", "", "FieldValueForbidden", `{"spec":{"l":[1,2,2,-1]}}`)
	f.Add("self.s.matches('^[a-z]+$')", "self.s + ' is bad'", ".s", "FieldValueDuplicate", `{"spec":{"s":"ABC"}}`)
	f.Add("quantity(self.s).isGreaterThan(quantity('1'))", "", "['m']", "", `{"spec":{"s":"10Mi","m":{}}}`)
	f.Add("isURL(self.s) && url(self.s).getHost() != ''", "1", ".nope", "FieldValueRequired", `{"spec":{"s":"http://x"}}`)
	f.Add("self.ios == 1 || self.ios == '1'", "", "", "", `{"spec":{"ios":true}}`)
	f.Add("oldSelf.hasValue() || self.m.size() > 0", "", "", "", `{"spec":{"m":{}}}`)
	f.Add("self.t > timestamp('2020-01-01T00:00:00Z') && self.d < duration('1h')", "", "", "", `{"spec":{"t":"2021-01-01T00:00:00Z","d":"5h"}}`)
	f.Add("self.e.kind == 'Pod' && self.e.metadata.name.size() < 5", "'kind ' + self.e.kind", ".e", "", `{"spec":{"e":{"apiVersion":"v1","kind":"Service","metadata":{"name":"abcdefg"}}}}`)
	f.Add("self.ml.all(x, x.k != 'b')", "", "", "", `{"spec":{"ml":[{"k":"a"},{"k":"b"}]}}`)
	f.Fuzz(func(t *testing.T, rule, msgExpr, fieldPath, reason, obj string) {
		r := apiextensionsv1.ValidationRule{Rule: rule, MessageExpression: msgExpr, FieldPath: fieldPath}
		if reason != "" {
			rr := apiextensionsv1.FieldValueErrorReason(reason)
			r.Reason = &rr
		}
		if len(rule)%4 == 1 {
			yes := true
			r.OptionalOldSelf = &yes
		}
		rs, _ := json.Marshal([]apiextensionsv1.ValidationRule{r})
		js := `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":` + string(rs) + `,"properties":{
		  "i":{"type":"integer"},"s":{"type":"string","maxLength":64},"l":{"type":"array","maxItems":20,"items":{"type":"integer"}},
		  "m":{"type":"object","additionalProperties":{"type":"string"}},"ios":{"x-kubernetes-int-or-string":true},
		  "t":{"type":"string","format":"date-time"},"d":{"type":"string","format":"duration"},
		  "ml":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","required":["k"],"properties":{"k":{"type":"string"}}}},
		  "e":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}}}`
		props := new(apiextensionsv1.JSONSchemaProps)
		if json.Unmarshal([]byte(js), props) != nil {
			return
		}
		tg, err := newTarget("fuzz", props)
		if err != nil || tg.upstream == nil {
			return
		}
		o, err := decode([]byte(obj))
		if err != nil {
			return
		}
		up, err := runUpstream(tg, o)
		if err != nil {
			return // upstream panicked
		}
		got := runOurs(tg, o, false)
		if !slices.Equal(up.errs, got.errs) || up.budget != got.budget {
			t.Errorf("rule %q on %s:\n upstream: %s\n crdkit:   %s", rule, obj, up, got)
		}
	})
}

// FuzzUpdateAgrees is FuzzValidateAgrees for updates: a fuzzed rule (which
// may use oldSelf, with optionalOldSelf on some) on the same schema, a fuzzed
// new and old object, rules.Validator.ValidateUpdate against the server's
// validator with the correlated object (errors, warnings, budget).
//
//	go test ./celdiff -run X -fuzz FuzzUpdateAgrees -fuzztime 60s
func FuzzUpdateAgrees(f *testing.F) {
	f.Add("self == oldSelf", "", `{"spec":{"i":1,"ml":[{"k":"a"},{"k":"b"}]}}`, `{"spec":{"i":1,"ml":[{"k":"b"},{"k":"a"}]}}`)
	f.Add("self.i < 10", "'i is ' + string(self.i)", `{"spec":{"i":12,"s":"x"}}`, `{"spec":{"i":12,"s":"y"}}`)
	f.Add("self.ml.all(x, x.k != 'b')", "", `{"spec":{"ml":[{"k":"a"},{"k":"b"}]}}`, `{"spec":{"ml":[{"k":"b"},{"k":"a"}]}}`)
	f.Add("!oldSelf.hasValue() || self.i >= oldSelf.value().i", "", `{"spec":{"i":1}}`, `{"spec":{"i":2}}`)
	f.Add("self.l.size() <= oldSelf.l.size()", "", `{"spec":{"l":[1,2,3]}}`, `{}`)
	f.Add("self.e.kind == 'Pod'", "", `{"spec":{"e":{"apiVersion":"v1","kind":"Service","metadata":{"name":"x"}}}}`, `{"spec":{"e":{"apiVersion":"v1","kind":"Service","metadata":{"name":"x"}}}}`)
	f.Fuzz(func(t *testing.T, rule, msgExpr, obj, old string) {
		r := apiextensionsv1.ValidationRule{Rule: rule, MessageExpression: msgExpr}
		if len(rule)%4 == 1 {
			yes := true
			r.OptionalOldSelf = &yes
		}
		rs, _ := json.Marshal([]apiextensionsv1.ValidationRule{r})
		js := `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":` + string(rs) + `,"properties":{
		  "i":{"type":"integer","x-kubernetes-validations":[{"rule":"self < 100","message":"small"}]},"s":{"type":"string","maxLength":64},
		  "l":{"type":"array","maxItems":20,"items":{"type":"integer","x-kubernetes-validations":[{"rule":"self >= 0"}]}},
		  "m":{"type":"object","additionalProperties":{"type":"string","x-kubernetes-validations":[{"rule":"self != 'x'"}]}},
		  "ml":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","required":["k"],"properties":{"k":{"type":"string"},"v":{"type":"integer"}},"x-kubernetes-validations":[{"rule":"!has(self.v) || self.v > 0"},{"rule":"!has(oldSelf.v) || self.v == oldSelf.v","message":"v immutable"}]}},
		  "e":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}}}`
		props := new(apiextensionsv1.JSONSchemaProps)
		if json.Unmarshal([]byte(js), props) != nil {
			return
		}
		tg, err := newTarget("fuzz", props)
		if err != nil || tg.upstream == nil {
			return
		}
		o, err := decode([]byte(obj))
		if err != nil {
			return
		}
		oo, err := decode([]byte(old))
		if err != nil {
			return
		}
		tl := &updateTally{}
		tl.check(tg, "fuzz", o, oo)
		for _, d := range tl.differ {
			t.Error(d)
		}
	})
}
