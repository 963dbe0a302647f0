package schema

import (
	"slices"
	"testing"
)

// ratchetSchema tightens every kind of value an update can keep: a
// property, an additionalProperties key, a list-type=map item, an atomic
// list's item, a value inside an anyOf branch, and the root's kind.
const ratchetSchema = `{"type":"object","properties":{
  "kind":{"type":"string","maxLength":2},
  "spec":{"type":"object","properties":{
    "name":{"type":"string","maxLength":3},
    "other":{"type":"string"},
    "labels":{"type":"object","additionalProperties":{"type":"string","maxLength":3}},
    "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
      "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"port":{"type":"integer","maximum":10}}}},
    "args":{"type":"array","items":{"type":"string","maxLength":3}},
    "choice":{"type":"object","properties":{"x":{"type":"string"}},"anyOf":[{"properties":{"x":{"type":"string","maxLength":1}}}]},
    "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"maxProperties":1}
  }}}}`

func TestValidateUpdate(t *testing.T) {
	s := mustCompile(t, ratchetSchema)
	cases := []struct {
		name, new, old string
		want           []string
	}{
		{"unchanged property", `{"spec":{"name":"long","other":"a"}}`, `{"spec":{"name":"long","other":"b"}}`, nil},
		{"changed property", `{"spec":{"name":"longer"}}`, `{"spec":{"name":"long"}}`,
			[]string{"spec.name: Too long: may not be more than 3 bytes"}},
		{"new property", `{"spec":{"name":"long"}}`, `{"spec":{}}`,
			[]string{"spec.name: Too long: may not be more than 3 bytes"}},
		{"unchanged additional key", `{"spec":{"labels":{"a":"long","b":"x"}}}`, `{"spec":{"labels":{"a":"long"}}}`, nil},
		{"map list item reordered", `{"spec":{"ports":[{"name":"b","port":1},{"name":"a","port":99}]}}`,
			`{"spec":{"ports":[{"name":"a","port":99},{"name":"b","port":2}]}}`, nil},
		{"map list item changed", `{"spec":{"ports":[{"name":"a","port":98}]}}`, `{"spec":{"ports":[{"name":"a","port":99}]}}`,
			[]string{"spec.ports[0].port: Invalid value: 98: spec.ports[0].port in body should be less than or equal to 10"}},
		{"atomic list item kept, list changed", `{"spec":{"args":["long","x"]}}`, `{"spec":{"args":["long"]}}`,
			[]string{"spec.args[0]: Too long: may not be more than 3 bytes"}},
		{"atomic list unchanged", `{"spec":{"args":["long"],"other":"a"}}`, `{"spec":{"args":["long"]}}`, nil},
		{"anyOf branch not paired", `{"spec":{"choice":{"x":"ab"},"other":"a"}}`, `{"spec":{"choice":{"x":"ab"}}}`, nil},
		{"anyOf branch, object changed", `{"spec":{"choice":{"x":"ab","y":1}}}`, `{"spec":{"choice":{"x":"ab"}}}`,
			[]string{`<nil>: Invalid value: "": "spec.choice" must validate at least one schema (anyOf)`,
				"spec.choice.x: Too long: may not be more than 1 byte"}},
		{"unknown fields are never equal", `{"spec":{"free":{"a":1,"b":2}}}`, `{"spec":{"free":{"a":1,"b":2}}}`,
			[]string{"spec.free: Too many: 2: must have at most 1 item"}},
		{"root kind never paired", `{"kind":"Long","spec":{"other":"a"}}`, `{"kind":"Long"}`,
			[]string{`kind: Too long: may not be more than 2 bytes`}},
		{"whole object unchanged", `{"kind":"Long"}`, `{"kind":"Long"}`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nv, ov := decodeValue(t, c.new), decodeValue(t, c.old)
			got := errorTexts(s.ValidateUpdate(nv, Correlate(s, nv, ov), nil, nil))
			want := c.want
			if want == nil {
				want = []string{}
			}
			if !slices.Equal(got, want) {
				t.Errorf("ValidateUpdate(%s, %s) = %q, want %q", c.new, c.old, got, want)
			}
			if plain := errorTexts(s.Validate(nv, nil, nil)); len(got) > len(plain) {
				t.Errorf("ValidateUpdate reported more than Validate: %q, %q", got, plain)
			}
		})
	}
}

func TestCorrelatedEqual(t *testing.T) {
	s := mustCompile(t, ratchetSchema)
	cases := []struct {
		new, old string
		want     bool
	}{
		{`{"spec":{"name":"a"}}`, `{"spec":{"name":"a"}}`, true},
		{`{"spec":{"name":"a"}}`, `{"spec":{"name":"b"}}`, false},
		{`{"spec":{"name":1}}`, `{"spec":{"name":1.0}}`, false},
		{`{"spec":{"ports":[{"name":"a"},{"name":"b"}]}}`, `{"spec":{"ports":[{"name":"b"},{"name":"a"}]}}`, true},
		{`{"spec":{"ports":[{"name":"a"},{"name":"a"}]}}`, `{"spec":{"ports":[{"name":"a"},{"name":"b"}]}}`, true},
		{`{"spec":{"ports":[{"port":1}]}}`, `{"spec":{"ports":[{"port":1}]}}`, false},
		{`{"spec":{"args":["a","b"]}}`, `{"spec":{"args":["a","b"]}}`, true},
		{`{"undeclared":1}`, `{"undeclared":1}`, false},
		{`{"spec":null}`, `{"spec":null}`, true},
	}
	for _, c := range cases {
		nv, ov := decodeValue(t, c.new), decodeValue(t, c.old)
		if got := Correlate(s, nv, ov).Equal(); got != c.want {
			t.Errorf("Correlate(%s, %s).Equal() = %v, want %v", c.new, c.old, got, c.want)
		}
	}
	var nilC *Correlated
	if nilC.Equal() || nilC.Key("a") != nil || nilC.Index(0) != nil {
		t.Error("nil Correlated pairs something")
	}
}

func TestMapListKeys(t *testing.T) {
	s := mustCompile(t, `{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["a","b"],
	  "items":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"string"}}}}`)
	items := decodeValue(t, `[{"a":1.5,"b":"x","n":1},{"a":1.5000001,"b":"x","n":2},{"a":2,"b":"y"}]`).([]any)
	l := NewMapList(s, items)
	// %f renders both floats as 1.500000: the first item wins.
	if got := l.Get(map[string]any{"a": 1.5000001, "b": "x"}); got.(map[string]any)["n"] != int64(1) {
		t.Errorf("Get(1.5000001) = %v, want the first item", got)
	}
	if got := l.Get(map[string]any{"a": 2.0, "b": "y"}); got != nil {
		t.Errorf("Get(float 2) = %v, want nil (int64 2 was decoded)", got)
	}
	if got := l.Get(map[string]any{"a": int64(2), "b": "y"}); got == nil {
		t.Error("Get(int64 2) = nil")
	}
}
