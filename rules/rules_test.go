package rules

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/crdkit/crdkit/schema"
)

func mustCompile(t testing.TB, js string) *Validator {
	t.Helper()
	s, err := schema.CompileJSON([]byte(js))
	if err != nil {
		t.Fatalf("schema: %v", err)
	}
	v, err := Compile(s)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return v
}

func decode(t testing.TB, js string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(js))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return ints(v)
}

// ints types numbers as the server's decoder does: int64 when integral.
func ints(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = ints(e)
		}
	case []any:
		for i, e := range x {
			x[i] = ints(e)
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// spec wraps properties of spec, and rules on spec, into a root schema.
func spec(rules, props string) string {
	return `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":` + rules +
		`,"properties":` + props + `}}}`
}

var validateTests = []struct {
	name   string
	schema string
	obj    string
	budget int64 // 0: RuntimeBudget
	want   []string
}{
	{
		name:   "message",
		schema: spec(`[{"rule":"self.a < self.b","message":" a must be below b "}]`, `{"a":{"type":"integer"},"b":{"type":"integer"}}`),
		obj:    `{"spec":{"a":3,"b":2}}`,
		want:   []string{"spec: Invalid value: a must be below b"},
	},
	{
		name:   "default message",
		schema: spec(`[{"rule":"self.a < self.b"}]`, `{"a":{"type":"integer"},"b":{"type":"integer"}}`),
		obj:    `{"spec":{"a":3,"b":2}}`,
		want:   []string{"spec: Invalid value: failed rule: self.a < self.b"},
	},
	{
		name:   "passes",
		schema: spec(`[{"rule":"self.a < self.b"}]`, `{"a":{"type":"integer"},"b":{"type":"integer"}}`),
		obj:    `{"spec":{"a":1,"b":2}}`,
	},
	{
		name:   "null is not validated",
		schema: `{"type":"object","properties":{"spec":{"type":"object","nullable":true,"x-kubernetes-validations":[{"rule":"false"}]}}}`,
		obj:    `{"spec":null}`,
	},
	{
		name:   "scalar value shown",
		schema: `{"type":"object","properties":{"n":{"type":"integer","x-kubernetes-validations":[{"rule":"self < 10"}]},"s":{"type":"string","x-kubernetes-validations":[{"rule":"self != 'x'"}]}}}`,
		obj:    `{"n":15,"s":"x"}`,
		want:   []string{`n: Invalid value: 15: failed rule: self < 10`, `s: Invalid value: "x": failed rule: self != 'x'`},
	},
	{
		name:   "reasons",
		schema: spec(`[{"rule":"false","message":"f","reason":"FieldValueForbidden"},{"rule":"false","message":"r","reason":"FieldValueRequired"},{"rule":"false","message":"d","reason":"FieldValueDuplicate"},{"rule":"false","message":"i","reason":"FieldValueInvalid"}]`, `{}`),
		obj:    `{"spec":{}}`,
		want:   []string{"spec: Forbidden: f", "spec: Required value: r", "spec: Duplicate value", "spec: Invalid value: i"},
	},
	{
		name:   "fieldPath",
		schema: spec(`[{"rule":"false","fieldPath":".a"},{"rule":"false","fieldPath":"['b.c']"}]`, `{"a":{"type":"integer"},"b.c":{"type":"integer"}}`),
		obj:    `{"spec":{}}`,
		want:   []string{"spec.a: Invalid value: failed rule: false", "spec.b.c: Invalid value: failed rule: false"},
	},
	{
		name:   "messageExpression",
		schema: spec(`[{"rule":"self.a > 1","messageExpression":"'a is ' + string(self.a)"}]`, `{"a":{"type":"integer"}}`),
		obj:    `{"spec":{"a":1}}`,
		want:   []string{"spec: Invalid value: a is 1"},
	},
	{
		name:   "messageExpression falls back to message",
		schema: spec(`[{"rule":"false","message":"m","messageExpression":"self.missing"},{"rule":"false","messageExpression":"'  '"},{"rule":"false","messageExpression":"'a\\nb'"}]`, `{"missing":{"type":"string"}}`),
		obj:    `{"spec":{}}`,
		want:   []string{"spec: Invalid value: m", "spec: Invalid value: failed rule: false", "spec: Invalid value: failed rule: false"},
	},
	{
		name:   "messageExpression too long",
		schema: spec(`[{"rule":"self.s.size() < 10","messageExpression":"self.s"}]`, `{"s":{"type":"string"}}`),
		obj:    `{"spec":{"s":"` + strings.Repeat("x", MaxMessageExpressionBytes+1) + `"}}`,
		want:   []string{"spec: Invalid value: failed rule: self.s.size() < 10"},
	},
	{
		name:   "messageExpression out of budget",
		schema: spec(`[{"rule":"self.a > 0","messageExpression":"self.l.map(x, 'a').join('')"}]`, `{"a":{"type":"integer"},"l":{"type":"array","items":{"type":"integer"}}}`),
		obj:    `{"spec":{"a":0,"l":[1,2,3,4,5,6,7,8,9,10]}}`,
		budget: 20,
		want:   []string{`spec: Invalid value: "object": messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run`},
	},
	{
		name:   "runtime errors",
		schema: spec(`[{"rule":"self.a == 'x'"},{"rule":"self.i / self.z > 0"},{"rule":"self.ios > 5"}]`, `{"a":{"type":"string"},"i":{"type":"integer"},"z":{"type":"integer"},"ios":{"x-kubernetes-int-or-string":true}}`),
		obj:    `{"spec":{"i":1,"z":0,"ios":"7"}}`,
		want: []string{
			"spec: Invalid value: \"object\": no such key: a evaluating rule: self.a == 'x'",
			"spec: Invalid value: \"object\": division by zero evaluating rule: self.i / self.z > 0",
			"spec: Invalid value: \"object\": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self.ios > 5",
		},
	},
	{
		name:   "negative budget: nothing runs",
		schema: spec(`[{"rule":"false"}]`, `{}`),
		obj:    `{"spec":{}}`,
		budget: -5,
	},
	{
		name:   "budget runs out",
		schema: spec(`[{"rule":"self.a > 0"},{"rule":"false"}]`, `{"a":{"type":"integer"}}`),
		obj:    `{"spec":{"a":1}}`,
		budget: 1,
		want:   []string{`spec: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run`},
	},
	{
		name:   "per-call limit",
		schema: `{"type":"object","properties":{"l":{"type":"array","items":{"type":"integer"},"x-kubernetes-validations":[{"rule":"self.all(x, self.all(y, self.all(z, x + y + z >= 0)))"},{"rule":"false"}]}}}`,
		obj:    `{"l":[` + strings.Repeat("1,", 199) + `1]}`,
		want:   []string{`l: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, self.all(y, self.all(z, x + y + z >= 0)))`},
	},
	{
		name:   "resource root is widened",
		schema: `{"type":"object","x-kubernetes-validations":[{"rule":"self.metadata.name.startsWith('a') && self.kind == 'K' && self.apiVersion == 'g/v1'"}]}`,
		obj:    `{"apiVersion":"g/v1","kind":"K","metadata":{"name":"b"}}`,
		want:   []string{"<nil>: Invalid value: failed rule: self.metadata.name.startsWith('a') && self.kind == 'K' && self.apiVersion == 'g/v1'"},
	},
	{
		name:   "embedded resource",
		schema: `{"type":"object","properties":{"tpl":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-validations":[{"rule":"self.kind == 'Pod'"}]}}}`,
		obj:    `{"tpl":{"apiVersion":"v1","kind":"Service","metadata":{}}}`,
		want:   []string{"tpl: Invalid value: failed rule: self.kind == 'Pod'"},
	},
	{
		name:   "oldSelf on create",
		schema: spec(`[{"rule":"self == oldSelf"},{"rule":"oldSelf.hasValue() || self.a > 0","optionalOldSelf":true}]`, `{"a":{"type":"integer"}}`),
		obj:    `{"spec":{"a":0}}`,
		want:   []string{"spec: Invalid value: failed rule: oldSelf.hasValue() || self.a > 0"},
	},
	{
		name:   "allOf, items and map values in order",
		schema: `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer","x-kubernetes-validations":[{"rule":"self > 0"}]}},"l":{"type":"array","items":{"type":"string","allOf":[{"x-kubernetes-validations":[{"rule":"self.size() > 1"}]}]}}}}`,
		obj:    `{"m":{"b":0,"a":-1,"c":1},"l":["x","yy","z"]}`,
		want: []string{
			`l[0]: Invalid value: "x": failed rule: self.size() > 1`,
			`l[2]: Invalid value: "z": failed rule: self.size() > 1`,
			`m[a]: Invalid value: -1: failed rule: self > 0`,
			`m[b]: Invalid value: 0: failed rule: self > 0`,
		},
	},
	{
		name:   "compile errors are reported on values",
		schema: spec(`[{"rule":"self.nope > 1"},{"rule":"1"}]`, `{}`),
		obj:    `{"spec":{}}`,
		want: []string{
			"spec: Invalid value: \"object\": rule compile error: compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope > 1\n | ....^",
			`spec: Invalid value: "object": rule compile error: cel expression must evaluate to a bool`,
		},
	},
}

func TestValidate(t *testing.T) {
	for _, tc := range validateTests {
		t.Run(tc.name, func(t *testing.T) {
			v := mustCompile(t, tc.schema)
			budget := tc.budget
			if budget == 0 {
				budget = RuntimeBudget
			}
			errs, _ := v.Validate(decode(t, tc.obj), budget)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n--\n") != strings.Join(tc.want, "\n--\n") {
				t.Errorf("Validate(%s) =\n%s\nwant\n%s", tc.obj, strings.Join(got, "\n--\n"), strings.Join(tc.want, "\n--\n"))
			}
		})
	}
}

// TestDeepPaths checks the path of an error below more steps than the
// walk keeps inline: objects, list items and map values, 24 levels down,
// and that a later error at a shallower node gets its own path.
func TestDeepPaths(t *testing.T) {
	leaf := `{"type":"object","properties":{"x":{"type":"integer"}},"x-kubernetes-validations":[{"rule":"self.x > 1"}]}`
	sch, obj, want := leaf, `{"x":1}`, ""
	for i := 23; i >= 0; i-- {
		switch i % 3 {
		case 0:
			sch = `{"type":"object","properties":{"a":` + sch + `}}`
			obj, want = `{"a":`+obj+`}`, ".a"+want
		case 1:
			sch = `{"type":"array","items":` + sch + `}`
			obj, want = `[{},`+obj+`]`, "[1]"+want
		case 2:
			sch = `{"type":"object","additionalProperties":` + sch + `}`
			obj, want = `{"k":`+obj+`}`, "[k]"+want
		}
	}
	sch = `{"type":"object","properties":{"spec":` + sch + `,"top":` + leaf + `}}`
	v := mustCompile(t, sch)
	errs, _ := v.Validate(decode(t, `{"spec":`+obj+`,"top":{"x":0}}`), RuntimeBudget)
	var got []string
	for _, e := range errs {
		got = append(got, e.Field)
	}
	if w := []string{"spec" + want, "top"}; strings.Join(got, " ") != strings.Join(w, " ") {
		t.Errorf("error fields %q, want %q", got, w)
	}
}
