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
