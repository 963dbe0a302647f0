package rules

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/crdkit/crdkit/schema"
)

// FuzzUntracked compiles a fuzzed rule and messageExpression on a schema
// with bounded and unbounded values of every kind and evaluates a fuzzed
// object, as a create and as an update of a fuzzed old object, with a
// fuzzed budget: ValidateUntracked must give the tracked path's errors and
// warnings, and, on an object of the declared sizes, no tracked evaluation
// may cost more than the bound the untracked path charges for it.
func FuzzUntracked(f *testing.F) {
	f.Add("self.s.matches('^[a-z]+$')", "'bad ' + self.s", `{"spec":{"s":"abc","l":["a","b"]}}`, `{"spec":{"s":"abd"}}`, int64(1000))
	f.Add("self.l.all(x, self.l.all(y, x != y || x == y))", "", `{"spec":{"l":["a","b","c","d","e","f"]}}`, `{}`, int64(50))
	f.Add("self.lu.all(x, x > 0)", "string(self.lu.size())", `{"spec":{"lu":[1,2,0]}}`, `{}`, int64(10_000_000))
	f.Add("self.m.all(k, k.startsWith('a') && self.m[k].size() < 4)", "", `{"spec":{"m":{"ab":"xyz","b":"q"}}}`, `{"spec":{"m":{"ab":"xyz"}}}`, int64(200))
	f.Add("self == oldSelf", "", `{"spec":{"o":{"a":"x","b":1}}}`, `{"spec":{"o":{"a":"y","b":1}}}`, int64(100))
	f.Add("!oldSelf.hasValue() || self.i >= oldSelf.value().i", "'went down'", `{"spec":{"i":1}}`, `{"spec":{"i":2}}`, int64(7))
	f.Add("self.ios == 1 || self.ios == '1'", "", `{"spec":{"ios":"1"}}`, `{"spec":{"ios":2}}`, int64(3))
	f.Add("self.su.contains(self.s) && self.e in ['a', 'bb']", "self.su", `{"spec":{"su":"xxabcxx","s":"abc","e":"bb"}}`, `{}`, int64(1_000_000))
	f.Add("self.t > timestamp('2020-01-01T00:00:00Z')", "", `{"spec":{"t":"2021-01-01T00:00:00Z"}}`, `{}`, int64(1))
	f.Fuzz(func(t *testing.T, rule, msgExpr, obj, old string, budget int64) {
		r := schema.ValidationRule{Rule: rule, MessageExpression: msgExpr}
		if len(rule)%3 == 0 {
			yes := true
			r.OptionalOldSelf = &yes
		}
		rs, err := json.Marshal([]schema.ValidationRule{r})
		if err != nil {
			return
		}
		js := `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":` + string(rs) + `,"properties":{
		  "i":{"type":"integer"},"s":{"type":"string","maxLength":12},"su":{"type":"string"},
		  "e":{"type":"string","enum":["a","bb","ccc"]},
		  "l":{"type":"array","maxItems":8,"items":{"type":"string","maxLength":6}},
		  "lu":{"type":"array","items":{"type":"integer"}},
		  "m":{"type":"object","maxProperties":4,"additionalProperties":{"type":"string","maxLength":5}},
		  "o":{"type":"object","properties":{"a":{"type":"string","maxLength":3},"b":{"type":"integer"}}},
		  "ios":{"x-kubernetes-int-or-string":true,"maxLength":4},
		  "t":{"type":"string","format":"date-time"},
		  "ml":{"type":"array","maxItems":4,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","required":["k"],"properties":{"k":{"type":"string","maxLength":4},"v":{"type":"integer","x-kubernetes-validations":[{"rule":"self < 100"}]}}}}}}}}`
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
		budget %= 2 * RuntimeBudget
		for _, prev := range []any{nil, oo} {
			v.boundsOnce.Do(func() { v.root.buildBounds(map[*apiservercel.DeclType]*bnode{}) })
			conf := v.root.conformsAll(o) && (prev == nil || v.root.conformsAll(prev))
			costHook = func(cr *compiledRule, msg bool, cost uint64) {
				if cr.fast == nil {
					return
				}
				lf := cr.fast.get()
				if !conf && lf.sized {
					return
				}
				if !msg && lf.prog != nil && cost > lf.cost || msg && lf.msgProg != nil && cost > lf.msgCost {
					t.Errorf("rule %q (message %v): tracked cost %d above the bound (%d, %d)", cr.rule.Rule, msg, cost, lf.cost, lf.msgCost)
				}
			}
			tracked := func() ([]string, []string) {
				if prev == nil {
					e, _ := v.Validate(o, budget)
					return fieldErrTexts(e), nil
				}
				e, w, _ := v.ValidateUpdate(o, prev, budget)
				return fieldErrTexts(e), w
			}
			we, ww := tracked()
			costHook = nil
			ge, gw, how := v.validateUntracked(context.Background(), o, prev, budget)
			g := fieldErrTexts(ge)
			if slices.Equal(we, g) && slices.Equal(ww, gw) {
				continue
			}
			agreed := false
			for range 20 { // map-order outcomes (see TestUntrackedCorpus)
				if e, w := tracked(); slices.Equal(e, g) && slices.Equal(w, gw) {
					agreed = true
					break
				}
			}
			if !agreed {
				t.Fatalf("budget %d, old %v, path %d:\n tracked   %q %q\n untracked %q %q", budget, prev != nil, how, we, ww, g, gw)
			}
		}
	})
}
