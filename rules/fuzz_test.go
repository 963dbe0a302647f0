package rules

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit/schema"
)

// FuzzValidate compiles a rule (with a messageExpression and a fieldPath) on
// a schema with one property of every kind, checks it as at CRD time, and
// evaluates it on an object: nothing may panic, and evaluation stays within
// the budget.
func FuzzValidate(f *testing.F) {
	f.Add("self.i < 10", "'i is ' + string(self.i)", ".i", `{"spec":{"i":12,"s":"x","l":[1,2],"m":{"a":"b"}}}`)
	f.Add("self.l.all(x, self.l.all(y, x != y || x == y))", "", "", `{"spec":{"l":[1,2,3,4,5,6,7,8,9]}}`)
	f.Add("self.s.matches('^(a+)+$')", "self.s", ".s", `{"spec":{"s":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"}}`)
	f.Add("quantity(self.s).isGreaterThan(quantity('1'))", "", "['m']", `{"spec":{"s":"10Mi"}}`)
	f.Add("isURL(self.s) && url(self.s).getHost() != ''", "1", ".nope", `{"spec":{"s":"http://x"}}`)
	f.Add("self.ios == 1 || self.ios == '1'", "", "", `{"spec":{"ios":"1"}}`)
	f.Add("oldSelf.hasValue() || self.m.size() > 0", "", "", `{"spec":{"m":{}}}`)
	f.Add("self.t > timestamp('2020-01-01T00:00:00Z') && self.d < duration('1h')", "", "", `{"spec":{"t":"2021-01-01T00:00:00Z","d":"5m"}}`)
	f.Fuzz(func(t *testing.T, rule, msgExpr, fieldPath, obj string) {
		r := schema.ValidationRule{Rule: rule, MessageExpression: msgExpr, FieldPath: fieldPath}
		if len(rule)%3 == 0 {
			yes := true
			r.OptionalOldSelf = &yes
		}
		rules, err := json.Marshal([]schema.ValidationRule{r})
		if err != nil {
			return
		}
		js := `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":` + string(rules) + `,"properties":{
		  "i":{"type":"integer"},"s":{"type":"string"},"l":{"type":"array","items":{"type":"integer"}},
		  "m":{"type":"object","additionalProperties":{"type":"string"}},"ios":{"x-kubernetes-int-or-string":true},
		  "t":{"type":"string","format":"date-time"},"d":{"type":"string","format":"duration"},
		  "e":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}}}`
		s, err := schema.CompileJSON([]byte(js))
		if err != nil {
			return
		}
		_ = Check(s, field.NewPath("s"), nil)
		v, err := Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		d := json.NewDecoder(strings.NewReader(obj))
		d.UseNumber()
		var o any
		if d.Decode(&o) != nil {
			return
		}
		const budget = 200_000
		_, left := v.Validate(ints(o), budget)
		if left > budget {
			t.Fatalf("budget grew: %d", left)
		}
	})
}

// FuzzValidateUpdate compiles a rule on the schema of FuzzValidate and
// evaluates it on an update of a fuzzed old object: nothing may panic, the
// budget never grows, an update without an old object is a create, and an
// update to an equal object reports what a create reports, as errors or
// ratcheted warnings, when the rule does not use oldSelf.
func FuzzValidateUpdate(f *testing.F) {
	f.Add("self.i < 10", "'i is ' + string(self.i)", `{"spec":{"i":12,"l":[1,2]}}`, `{"spec":{"i":12,"l":[1]}}`)
	f.Add("self == oldSelf", "", `{"spec":{"i":1,"ml":[{"k":"a","v":1}]}}`, `{"spec":{"i":2,"ml":[{"k":"a","v":2}]}}`)
	f.Add("!oldSelf.hasValue() || self.i >= oldSelf.value().i", "", `{"spec":{"i":1}}`, `{"spec":{"i":2}}`)
	f.Add("self.ml.all(x, x.v > 0)", "", `{"spec":{"ml":[{"k":"a","v":0},{"k":"b","v":1}]}}`, `{"spec":{"ml":[{"k":"b","v":1},{"k":"a","v":0}]}}`)
	f.Add("self.m.all(k, self.m[k] != 'x')", "self.m.size()", `{"spec":{"m":{"a":"x"},"e":{"kind":"K","apiVersion":"v1","metadata":{}}}}`, `{"spec":{"m":{"a":"x"}}}`)
	f.Fuzz(func(t *testing.T, rule, msgExpr, obj, old string) {
		r := schema.ValidationRule{Rule: rule, MessageExpression: msgExpr}
		if len(rule)%3 == 0 {
			yes := true
			r.OptionalOldSelf = &yes
		}
		rules, err := json.Marshal([]schema.ValidationRule{r})
		if err != nil {
			return
		}
		js := `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":` + string(rules) + `,"properties":{
		  "i":{"type":"integer"},"s":{"type":"string"},"l":{"type":"array","items":{"type":"integer"}},
		  "ml":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","required":["k"],"properties":{"k":{"type":"string"},"v":{"type":"integer","x-kubernetes-validations":[{"rule":"self < 100"}]}}}},
		  "m":{"type":"object","additionalProperties":{"type":"string"}},"ios":{"x-kubernetes-int-or-string":true},
		  "e":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}}}`
		s, err := schema.CompileJSON([]byte(js))
		if err != nil {
			return
		}
		v, err := Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		o, ok1 := decodeFuzzJSON(obj)
		oo, ok2 := decodeFuzzJSON(old)
		if !ok1 || !ok2 {
			return
		}
		const budget = 200_000
		if _, _, left := v.ValidateUpdate(o, oo, budget); left > budget {
			t.Fatalf("budget grew: %d", left)
		}
		cerrs, cleft := v.Validate(o, budget)
		uerrs, uwarns, uleft := v.ValidateUpdate(o, nil, budget)
		if len(uwarns) != 0 || uleft != cleft || len(uerrs) != len(cerrs) {
			t.Fatalf("update without old: %v %v %d; create: %v %d", uerrs, uwarns, uleft, cerrs, cleft)
		}
		if strings.Contains(rule, "oldSelf") || strings.Contains(msgExpr, "oldSelf") || cleft < 0 {
			return
		}
		same, _ := decodeFuzzJSON(obj)
		serrs, swarns, sleft := v.ValidateUpdate(o, same, budget)
		if sleft != cleft || len(serrs)+len(swarns) != len(cerrs) {
			t.Fatalf("update to an equal object: %v %v %d; create: %v %d", serrs, swarns, sleft, cerrs, cleft)
		}
	})
}

// decodeFuzzJSON decodes a fuzzed JSON value with numbers typed as the
// server's decoder types them (int64 when integral); false if it does not
// decode.
func decodeFuzzJSON(in string) (any, bool) {
	d := json.NewDecoder(strings.NewReader(in))
	d.UseNumber()
	var o any
	if d.Decode(&o) != nil {
		return nil, false
	}
	return ints(o), true
}
