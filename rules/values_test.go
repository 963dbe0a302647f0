package rules

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/crdkit/crdkit/schema"
)

// valuesSchema has properties whose names need escaping, map lists with
// one and several keys, sets, additionalProperties, preserved unknown
// fields and an embedded resource.
const valuesSchema = `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":%s,"properties":{
  "a.b":{"type":"string"},"x-y":{"type":"integer"},"namespace":{"type":"string"},"p__q":{"type":"string"},"s":{"type":"string"},
  "ml":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","required":["k"],"properties":{"k":{"type":"string"},"v":{"type":"integer"}}}},
  "ml2":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k","n.m"],"items":{"type":"object","required":["k","n.m"],"properties":{"k":{"type":"string"},"n.m":{"type":"integer"},"v":{"type":"string"}}}},
  "set":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
  "l":{"type":"array","items":{"type":"object","properties":{"i":{"type":"integer"}}}},
  "m":{"type":"object","additionalProperties":{"type":"object","properties":{"z":{"type":"string"}}}},
  "u":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"known":{"type":"string"}}},
  "e":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},
  "d":{"type":"string","format":"duration"}}}}}`

// FuzzValuesAgree evaluates a fuzzed rule (with oldSelf) on fuzzed new and
// old objects with crdkit's values and with the server's converter: the
// errors, warnings and budget must be the same.
func FuzzValuesAgree(f *testing.F) {
	f.Add("self == oldSelf", `{"spec":{"a.b":"x","ml":[{"k":"a","v":1},{"k":"b"}]}}`, `{"spec":{"a.b":"x","ml":[{"k":"b"},{"k":"a","v":1}]}}`)
	f.Add("self.a__dot__b == 'x' && self.x__dash__y > 0 && self.__namespace__ != '' && self.p__underscores__q == ''", `{"spec":{"a.b":"x","x-y":1,"namespace":"n","p__q":""}}`, `{}`)
	f.Add("self.ml2 == oldSelf.ml2 && self.set == oldSelf.set", `{"spec":{"ml2":[{"k":"a","n.m":1}],"set":["a","b"]}}`, `{"spec":{"ml2":[{"k":"a","n.m":1,"v":"x"}],"set":["b","a"]}}`)
	f.Add("self.u == oldSelf.u && self.e == oldSelf.e", `{"spec":{"u":{"known":"k","x":1},"e":{"kind":"K","apiVersion":"v1","metadata":{"name":"n"},"x":[1]}}}`, `{"spec":{"u":{"known":"k","x":2},"e":{"kind":"K","apiVersion":"v1","metadata":{"name":"n"},"x":[1]}}}`)
	f.Add("self.all(k, k != 'a__dot__b') && self.m.all(k, self.m[k].z != '') && self.l.exists(x, x.i == 1)", `{"spec":{"m":{"q":{"z":""}},"l":[{"i":1}]}}`, `{}`)
	f.Add("(self.ml + oldSelf.ml).size() > 2 && (self.set + ['z']).size() > 0 && 'a' in self.set && self.ml.map(x, x.k).join(',') == 'a'", `{"spec":{"ml":[{"k":"a"}],"set":["a"]}}`, `{"spec":{"ml":[{"k":"b"}],"set":[]}}`)
	f.Add("has(self.s) && self.d > duration('1s') && string(self.l) != ''", `{"spec":{"s":"x","d":"2s","l":[]}}`, `{"spec":{"s":null}}`)
	f.Fuzz(func(t *testing.T, rule, obj, old string) {
		rs, _ := json.Marshal([]map[string]any{{"rule": rule}, {"rule": rule, "optionalOldSelf": true, "messageExpression": "string(self)"}})
		v, err := compileSchema(fmt.Sprintf(valuesSchema, rs))
		if err != nil {
			return
		}
		o, ok1 := decodeFuzzJSON(obj)
		oo, ok2 := decodeFuzzJSON(old)
		if !ok1 || !ok2 {
			return
		}
		run := func(server bool) string {
			serverValues = server
			defer func() { serverValues = false }()
			// Equality of objects with unknown fields follows Go map order
			// on both sides: take the first outcome that repeats.
			errs, warns, left := v.ValidateUpdate(o, oo, 100_000)
			return fmt.Sprintf("%v\n%v\n%d", errs, warns, left)
		}
		ours, theirs := run(false), run(true)
		for i := 0; i < 20 && ours != theirs; i++ {
			ours, theirs = run(false), run(true)
		}
		if ours != theirs {
			t.Errorf("rule %q\nnew %s\nold %s\ncrdkit:\n%s\nserver:\n%s", rule, obj, old, ours, theirs)
		}
	})
}

func compileSchema(js string) (*Validator, error) {
	s, err := schema.CompileJSON([]byte(js))
	if err != nil {
		return nil, err
	}
	return Compile(s)
}
