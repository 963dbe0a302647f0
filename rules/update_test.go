package rules

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

var updateTests = []struct {
	name      string
	schema    string
	old, obj  string
	wantErrs  []string
	wantWarns []string
}{
	{
		name:     "changed value fails",
		schema:   spec(`[{"rule":"self.a < self.b","message":"a must be below b"}]`, `{"a":{"type":"integer"},"b":{"type":"integer"}}`),
		old:      `{"spec":{"a":3,"b":1}}`,
		obj:      `{"spec":{"a":3,"b":2}}`,
		wantErrs: []string{"spec: Invalid value: a must be below b"},
	},
	{
		name:      "unchanged value is ratcheted",
		schema:    spec(`[{"rule":"self.a < self.b","message":"a must be below b"}]`, `{"a":{"type":"integer"},"b":{"type":"integer"}}`),
		old:       `{"spec":{"a":3,"b":2},"other":1}`,
		obj:       `{"spec":{"a":3,"b":2},"other":2}`,
		wantWarns: []string{"spec: Invalid value: a must be below b"},
	},
	{
		name:     "a value without a property schema never equals its old value",
		schema:   `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-validations":[{"rule":"false","message":"no"}]}}}`,
		old:      `{"spec":{"x":1}}`,
		obj:      `{"spec":{"x":1}}`,
		wantErrs: []string{"spec: Invalid value: no"},
	},
	{
		name:     "kind is never ratcheted",
		schema:   `{"type":"object","properties":{"kind":{"type":"string","x-kubernetes-validations":[{"rule":"self == 'K'","message":"kind"}]},"spec":{"type":"object","properties":{"a":{"type":"integer","x-kubernetes-validations":[{"rule":"self > 0","message":"a"}]}}}}}`,
		old:      `{"kind":"X","spec":{"a":0}}`,
		obj:      `{"kind":"X","spec":{"a":0}}`,
		wantErrs: []string{`kind: Invalid value: "X": kind`},
		wantWarns: []string{
			"spec.a: Invalid value: 0: a",
		},
	},
	{
		name:     "transition rule runs where old correlates",
		schema:   spec(`[{"rule":"self.a == oldSelf.a","message":"immutable"}]`, `{"a":{"type":"integer"}}`),
		old:      `{"spec":{"a":1}}`,
		obj:      `{"spec":{"a":2}}`,
		wantErrs: []string{"spec: Invalid value: immutable"},
	},
	{
		name:   "transition rule is not ratcheted but passes when unchanged",
		schema: spec(`[{"rule":"self.a == oldSelf.a","message":"immutable"}]`, `{"a":{"type":"integer"}}`),
		old:    `{"spec":{"a":1}}`,
		obj:    `{"spec":{"a":1}}`,
	},
	{
		name:   "no transition rule on a new value",
		schema: spec(`[{"rule":"self == oldSelf","message":"immutable"}]`, `{"a":{"type":"integer"}}`),
		old:    `{}`,
		obj:    `{"spec":{"a":2}}`,
	},
	{
		name:     "optionalOldSelf sees none on a new value",
		schema:   spec(`[{"rule":"oldSelf.hasValue()","optionalOldSelf":true,"message":"must have existed"}]`, `{"a":{"type":"integer"}}`),
		old:      `{}`,
		obj:      `{"spec":{"a":2}}`,
		wantErrs: []string{"spec: Invalid value: must have existed"},
	},
	{
		name:     "map list items correlate by key",
		schema:   `{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","required":["k"],"properties":{"k":{"type":"string"},"v":{"type":"integer"}},"x-kubernetes-validations":[{"rule":"self.v == oldSelf.v","message":"v immutable"},{"rule":"self.v > 0","message":"v positive"}]}}}}`,
		old:      `{"l":[{"k":"a","v":0},{"k":"b","v":1}]}`,
		obj:      `{"l":[{"k":"b","v":2},{"k":"a","v":0},{"k":"c","v":-1}]}`,
		wantErrs: []string{"l[0]: Invalid value: v immutable", "l[2]: Invalid value: v positive"},
		wantWarns: []string{
			"l[1]: Invalid value: v positive",
		},
	},
	{
		name:     "atomic list items do not correlate, unchanged lists ratchet",
		schema:   `{"type":"object","properties":{"l":{"type":"array","items":{"type":"integer","x-kubernetes-validations":[{"rule":"self == oldSelf","message":"immutable"},{"rule":"self > 0","message":"positive"}]}},"s":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"integer","x-kubernetes-validations":[{"rule":"self > 0","message":"positive"}]}}}}`,
		old:      `{"l":[0,1],"s":[0]}`,
		obj:      `{"l":[0,2],"s":[0,3]}`,
		wantErrs: []string{"l[0]: Invalid value: 0: positive", "s[0]: Invalid value: 0: positive"},
	},
	{
		name:      "atomic list unchanged",
		schema:    `{"type":"object","properties":{"l":{"type":"array","items":{"type":"integer","x-kubernetes-validations":[{"rule":"self > 0","message":"positive"}]}}}}`,
		old:       `{"l":[0,1],"x":1}`,
		obj:       `{"l":[0,1]}`,
		wantWarns: []string{"l[0]: Invalid value: 0: positive"},
	},
	{
		name:     "allOf ratchets by the parent only",
		schema:   `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"true"}],"properties":{"a":{"type":"integer","allOf":[{"x-kubernetes-validations":[{"rule":"self > 0","message":"allOf"}]}]},"b":{"type":"integer"}}}}}`,
		old:      `{"spec":{"a":0,"b":1}}`,
		obj:      `{"spec":{"a":0,"b":2}}`,
		wantErrs: []string{"spec.a: Invalid value: 0: allOf"},
	},
	{
		name:      "allOf unchanged parent",
		schema:    `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"true"}],"properties":{"a":{"type":"integer","allOf":[{"x-kubernetes-validations":[{"rule":"self > 0","message":"allOf"}]}]}}}}}`,
		old:       `{"spec":{"a":0},"x":1}`,
		obj:       `{"spec":{"a":0}}`,
		wantWarns: []string{"spec.a: Invalid value: 0: allOf"},
	},
	{
		name:     "runtime errors are not ratcheted",
		schema:   spec(`[{"rule":"self.a == 'x'"}]`, `{"a":{"type":"string"}}`),
		old:      `{"spec":{}}`,
		obj:      `{"spec":{}}`,
		wantErrs: []string{"spec: Invalid value: \"object\": no such key: a evaluating rule: self.a == 'x'"},
	},
	{
		name:     "granular map values correlate",
		schema:   `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer","x-kubernetes-validations":[{"rule":"self >= oldSelf","message":"no decrease"},{"rule":"self < 10","message":"small"}]}}}}`,
		old:      `{"m":{"a":5,"b":20}}`,
		obj:      `{"m":{"a":4,"b":20,"c":30}}`,
		wantErrs: []string{"m[a]: Invalid value: 4: no decrease", "m[c]: Invalid value: 30: small"},
		wantWarns: []string{
			"m[b]: Invalid value: 20: small",
		},
	},
}

func TestValidateUpdate(t *testing.T) {
	for _, tc := range updateTests {
		t.Run(tc.name, func(t *testing.T) {
			v := mustCompile(t, tc.schema)
			errs, warns, left := v.ValidateUpdate(decode(t, tc.obj), decode(t, tc.old), RuntimeBudget)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.wantErrs, "\n") {
				t.Errorf("errors:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.wantErrs, "\n"))
			}
			if strings.Join(warns, "\n") != strings.Join(tc.wantWarns, "\n") {
				t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(warns, "\n"), strings.Join(tc.wantWarns, "\n"))
			}
			if left <= 0 || left > RuntimeBudget {
				t.Errorf("budget left %d", left)
			}
		})
	}
}

// TestValidateUpdateNilOldIsCreate: without an old object an update is a
// create.
func TestValidateUpdateNilOldIsCreate(t *testing.T) {
	for _, tc := range validateTests {
		v := mustCompile(t, tc.schema)
		budget := tc.budget
		if budget == 0 {
			budget = RuntimeBudget
		}
		obj := decode(t, tc.obj)
		errs, left := v.Validate(obj, budget)
		uerrs, warns, uleft := v.ValidateUpdate(obj, nil, budget)
		if fmt.Sprint(errs) != fmt.Sprint(uerrs) || left != uleft || len(warns) != 0 {
			t.Errorf("%s: Validate %v %d, ValidateUpdate %v %v %d", tc.name, errs, left, uerrs, warns, uleft)
		}
	}
}

// TestValidateUpdateConcurrent runs updates on one Validator from several
// goroutines (go test -race) and checks they leave their inputs alone.
func TestValidateUpdateConcurrent(t *testing.T) {
	tc := updateTests[8] // map list, transition rules, ratcheting
	v := mustCompile(t, tc.schema)
	obj, old := decode(t, tc.obj), decode(t, tc.old)
	before, _ := json.Marshal([]any{obj, old})
	want, wantWarns, wantLeft := v.ValidateUpdate(obj, old, RuntimeBudget)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				errs, warns, left := v.ValidateUpdate(obj, old, RuntimeBudget)
				if fmt.Sprint(errs) != fmt.Sprint(want) || fmt.Sprint(warns) != fmt.Sprint(wantWarns) || left != wantLeft {
					t.Errorf("got %v %v %d, want %v %v %d", errs, warns, left, want, wantWarns, wantLeft)
					return
				}
			}
		}()
	}
	wg.Wait()
	if after, _ := json.Marshal([]any{obj, old}); string(after) != string(before) {
		t.Errorf("inputs modified:\n%s\n%s", before, after)
	}
}
