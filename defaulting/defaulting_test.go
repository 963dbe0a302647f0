package defaulting

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/crdkit/crdkit/schema"
)

// decode decodes JSON as the server does: integral numbers as int64, others
// as float64.
func decode(t testing.TB, s string) any {
	t.Helper()
	v, err := decodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, strconv.ErrSyntax
	}
	return numbers(v), nil
}

func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case map[string]any:
		for k, x := range v {
			v[k] = numbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = numbers(x)
		}
	}
	return v
}

func compile(t testing.TB, js string) *schema.Schema {
	t.Helper()
	s, err := schema.CompileJSON([]byte(js))
	if err != nil {
		t.Fatalf("compile %s: %v", js, err)
	}
	return s
}

func encode(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

type testCase struct {
	name   string
	schema string
	in     string
	want   string
}

// sameTypes reports whether got equals want including the Go number types,
// which JSON text would hide.
func sameTypes(got, want any) bool { return reflect.DeepEqual(got, want) }

var applyCases = []testCase{
	{"nil schema", ``, `{"a":null}`, `{"a":null}`},
	{"null object", `{"properties":{"a":{"type":"string","default":"A"}}}`, `null`, `null`},
	{"scalar", `{"type":"string","default":"x"}`, `4`, `4`},
	{"root default not applied", `{"type":"object","default":{"a":1}}`, `{}`, `{}`},
	{"absent", `{"properties":{"a":{"type":"string","default":"A"}}}`, `{}`, `{"a":"A"}`},
	{"present", `{"properties":{"a":{"type":"string","default":"A"}}}`, `{"a":"x"}`, `{"a":"x"}`},
	{"zero values kept", `{"items":{"properties":{"a":{"default":"A"}}}}`,
		`[{},{"a":0},{"a":0.5},{"a":""},{"a":false},{"a":[]},{"a":{}},{"a":null}]`,
		`[{"a":"A"},{"a":0},{"a":0.5},{"a":""},{"a":false},{"a":[]},{"a":{}},{"a":"A"}]`},
	{"null non-nullable", `{"properties":{"a":{"type":"string","default":"A"}}}`, `{"a":null}`, `{"a":"A"}`},
	{"null nullable", `{"properties":{"a":{"type":"string","nullable":true,"default":"A"}}}`, `{"a":null}`, `{"a":null}`},
	{"nullable absent defaulted", `{"properties":{"a":{"type":"string","nullable":true,"default":"A"}}}`, `{}`, `{"a":"A"}`},
	{"null without default kept", `{"properties":{"a":{"type":"string"},"b":{"type":"string","default":"B"}}}`, `{"a":null}`, `{"a":null,"b":"B"}`},
	{"default null is no default", `{"properties":{"a":{"type":"string","default":null}}}`, `{"b":1}`, `{"b":1}`},
	{"nested defaults in default", `{"properties":{"spec":{"type":"object","default":{},"properties":{"r":{"type":"integer","default":1},"s":{"type":"object","default":{"x":null},"properties":{"x":{"type":"string","default":"X"}}}}}}}`,
		`{}`, `{"spec":{"r":1,"s":{"x":"X"}}}`},
	{"default not overwritten by nested", `{"properties":{"spec":{"type":"object","default":{"r":5},"properties":{"r":{"type":"integer","default":1},"t":{"type":"integer","default":2}}}}}`,
		`{}`, `{"spec":{"r":5,"t":2}}`},
	{"numbers keep their type", `{"properties":{"i":{"type":"integer","default":3},"f":{"type":"number","default":1.5}}}`,
		`{}`, `{"i":3,"f":1.5}`}, // ParseProps decodes integral defaults as int64, as the server does
	{"additionalProperties null non-nullable", `{"additionalProperties":{"type":"string","default":"A"}}`,
		`{"x":null,"y":"b"}`, `{"x":"A","y":"b"}`},
	{"additionalProperties null nullable", `{"additionalProperties":{"type":"string","nullable":true,"default":"A"}}`,
		`{"x":null}`, `{"x":null}`},
	{"additionalProperties null without default", `{"additionalProperties":{"type":"object","properties":{"a":{"default":1}}}}`,
		`{"x":null,"y":{}}`, `{"x":null,"y":{"a":1}}`},
	{"additionalProperties true", `{"type":"object","additionalProperties":true}`, `{"x":null}`, `{"x":null}`},
	{"additionalProperties nested", `{"additionalProperties":{"type":"object","properties":{"a":{"type":"string","default":"alpha"},"b":{"type":"string","default":"beta"}}}}`,
		`{"x":{"a":"1"},"y":{"b":"2"}}`, `{"x":{"a":"1","b":"beta"},"y":{"a":"alpha","b":"2"}}`},
	{"declared property not under additionalProperties", `{"properties":{"p":{"type":"string"}},"additionalProperties":{"type":"string","default":"A"}}`,
		`{"p":null,"q":null}`, `{"p":null,"q":"A"}`},
	{"few keys with additionalProperties", `{"properties":{"p":{},"q":{"default":"Q"},"r":{"nullable":true},"s":{"properties":{"t":{"default":"T"}}}},"additionalProperties":{"type":"string","default":"A"}}`,
		`{"x":null}`, `{"q":"Q","x":"A"}`},
	{"many keys with additionalProperties", `{"properties":{"p":{},"q":{"default":"Q"},"s":{"properties":{"t":{"default":"T"}}}},"additionalProperties":{"type":"string","default":"A"}}`,
		`{"x":null,"y":"b","p":null,"s":{}}`, `{"p":null,"q":"Q","s":{"t":"T"},"x":"A","y":"b"}`},
	{"array null non-nullable items", `{"items":{"type":"string","default":"A"}}`, `[null,"b",null]`, `["A","b","A"]`},
	{"array null nullable items", `{"items":{"type":"string","nullable":true,"default":"A"}}`, `[null]`, `[null]`},
	{"array null items without default", `{"items":{"type":"object","properties":{"a":{"default":1}}}}`, `[null,{}]`, `[null,{"a":1}]`},
	{"array of objects", `{"items":{"properties":{"a":{"default":"A"},"b":{"default":"B"}}}}`,
		`[{"a":1},{"b":1}]`, `[{"a":1,"b":"B"},{"a":"A","b":1}]`},
	{"array default then items", `{"properties":{"l":{"type":"array","default":[null,{}],"items":{"type":"object","default":{"d":0},"properties":{"e":{"type":"string","default":"E"}}}}}}`,
		`{}`, `{"l":[{"d":0,"e":"E"},{"e":"E"}]}`},
	{"nested arrays", `{"items":{"items":{"type":"integer","default":7}}}`, `[[null],null,[1,null]]`, `[[7],null,[1,7]]`},
	{"type mismatch not walked", `{"properties":{"a":{"type":"object","properties":{"b":{"default":"B"}}}}}`,
		`{"a":"str"}`, `{"a":"str"}`},
	{"schema type ignored", `{"type":"array","properties":{"a":{"default":"A"}},"items":{"properties":{"b":{"default":"B"}}}}`,
		`{}`, `{"a":"A"}`},
	{"preserve unknown fields no special case", `{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"a":{"default":"A"}}}`,
		`{"u":{"a":null}}`, `{"a":"A","u":{"a":null}}`},
	{"embedded resource no special case", `{"properties":{"r":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"apiVersion":{"type":"string","default":"v1"},"kind":{"type":"string"},"metadata":{"type":"object","properties":{"name":{"type":"string","default":"n"}}}}}}}`,
		`{"r":{"metadata":{}}}`, `{"r":{"apiVersion":"v1","metadata":{"name":"n"}}}`},
	{"int-or-string", `{"properties":{"port":{"x-kubernetes-int-or-string":true,"default":"http"}}}`, `{"port":null}`, `{"port":"http"}`},
	{"unknown keys not walked", `{"properties":{"a":{"properties":{"b":{"default":1}}}}}`, `{"a":{},"z":{"b":null}}`, `{"a":{"b":1},"z":{"b":null}}`},
}

func TestApply(t *testing.T) {
	for _, tc := range applyCases {
		t.Run(tc.name, func(t *testing.T) {
			var s *schema.Schema
			if tc.schema != "" {
				s = compile(t, tc.schema)
			}
			obj, want := decode(t, tc.in), decode(t, tc.want)
			Apply(obj, s)
			if !sameTypes(obj, want) {
				t.Errorf("Apply(%s) = %s (%#v), want %s", tc.in, encode(obj), obj, tc.want)
			}
			// The reference walk must agree on every case.
			ref := decode(t, tc.in)
			refApply(ref, s)
			if !reflect.DeepEqual(ref, want) {
				t.Errorf("refApply(%s) = %s, want %s", tc.in, encode(ref), tc.want)
			}
			checkApplyProperty(t, s, decode(t, tc.in))
		})
	}
}

var pruneCases = []testCase{
	{"nil schema", ``, `{"a":null}`, `{"a":null}`},
	{"null object", `{"properties":{"a":{"type":"string"}}}`, `null`, `null`},
	{"scalar", `{"type":"string","default":"x"}`, `4`, `4`},
	{"non-nullable without default", `{"properties":{"a":{"type":"string"}}}`, `{"a":null,"b":null}`, `{"b":null}`},
	{"nullable kept", `{"properties":{"a":{"type":"string","nullable":true}}}`, `{"a":null}`, `{"a":null}`},
	{"default kept", `{"properties":{"a":{"type":"string","default":"A"}}}`, `{"a":null}`, `{"a":null}`},
	{"nullable with default kept", `{"properties":{"a":{"type":"string","nullable":true,"default":"A"}}}`, `{"a":null}`, `{"a":null}`},
	{"array elements never deleted", `{"items":{"type":"string"}}`, `[null,"a",null]`, `[null,"a",null]`},
	{"in array items", `{"items":{"properties":{"a":{"default":"A"},"b":{"nullable":true},"c":{"nullable":true,"default":"C"},"d":{}}}}`,
		`[{"a":null},{"b":null},{"c":null},{"d":null},{"e":null}]`, `[{"a":null},{"b":null},{"c":null},{},{"e":null}]`},
	{"additionalProperties schema", `{"additionalProperties":{"type":"string"}}`, `{"x":null,"y":"a"}`, `{"y":"a"}`},
	{"additionalProperties nullable", `{"additionalProperties":{"type":"string","nullable":true}}`, `{"x":null}`, `{"x":null}`},
	{"additionalProperties default", `{"additionalProperties":{"type":"string","default":"A"}}`, `{"x":null}`, `{"x":null}`},
	{"additionalProperties true", `{"type":"object","additionalProperties":true}`, `{"x":null}`, `{"x":null}`},
	{"declared before additionalProperties", `{"properties":{"p":{"nullable":true}},"additionalProperties":{"type":"string"}}`,
		`{"p":null,"q":null}`, `{"p":null}`},
	{"nested", `{"properties":{"spec":{"type":"object","properties":{"foo":{"type":"string","default":"default"},"bar":{"type":"string","nullable":true},"baz":{"type":"string"}}}}}`,
		`{"spec":{"foo":null,"bar":null,"baz":null}}`, `{"spec":{"foo":null,"bar":null}}`},
	{"unknown keys not walked", `{"properties":{"a":{"properties":{"b":{}}}}}`, `{"a":{"b":null},"z":{"b":null}}`, `{"a":{},"z":{"b":null}}`},
	{"type mismatch", `{"properties":{"a":{"type":"array","items":{"type":"object","properties":{"b":{}}}}}}`,
		`{"a":{"b":null}}`, `{"a":{"b":null}}`},
	{"nested arrays", `{"items":{"items":{"properties":{"b":{}}}}}`, `[[{"b":null}],[null]]`, `[[{}],[null]]`},
}

func TestPruneNulls(t *testing.T) {
	for _, tc := range pruneCases {
		t.Run(tc.name, func(t *testing.T) {
			var s *schema.Schema
			if tc.schema != "" {
				s = compile(t, tc.schema)
			}
			obj, want := decode(t, tc.in), decode(t, tc.want)
			PruneNulls(obj, s)
			if !reflect.DeepEqual(obj, want) {
				t.Errorf("PruneNulls(%s) = %s, want %s", tc.in, encode(obj), tc.want)
			}
			ref := decode(t, tc.in)
			refPruneNulls(ref, s)
			if !reflect.DeepEqual(ref, want) {
				t.Errorf("refPruneNulls(%s) = %s, want %s", tc.in, encode(ref), tc.want)
			}
		})
	}
}

func TestGoTypes(t *testing.T) {
	s := compile(t, `{"properties":{"m":{"type":"object","properties":{"a":{"default":"A"}}},"l":{"type":"array","items":{"default":"I"}},"n":{"default":"N"}}}`)
	// Typed nil maps and slices are not null, and foreign types are scalars.
	obj := map[string]any{
		"m": map[string]any(nil),
		"l": []any(nil),
		"n": map[string]string{"x": "y"},
	}
	Apply(obj, s)
	PruneNulls(obj, s)
	if m, ok := obj["m"].(map[string]any); !ok || m != nil {
		t.Errorf("Apply changed a typed nil map: %#v", obj["m"])
	}
	if l, ok := obj["l"].([]any); !ok || l != nil {
		t.Errorf("Apply changed a typed nil slice: %#v", obj["l"])
	}
	if _, ok := obj["n"].(map[string]string); !ok {
		t.Errorf("Apply replaced a foreign type: %#v", obj["n"])
	}
}

func TestDefaultsAreCopied(t *testing.T) {
	s := compile(t, `{"properties":{"spec":{"type":"object","default":{"l":[{"a":"A"}],"m":{"k":"v"}},"properties":{"l":{"type":"array","items":{"type":"object","properties":{"a":{"type":"string"}}}},"m":{"type":"object","additionalProperties":{"type":"string"}}}}}}`)
	first := map[string]any{}
	Apply(first, s)
	spec := first["spec"].(map[string]any)
	spec["l"].([]any)[0].(map[string]any)["a"] = "changed"
	spec["m"].(map[string]any)["k"] = "changed"
	spec["new"] = true

	second := map[string]any{}
	Apply(second, s)
	want := decode(t, `{"spec":{"l":[{"a":"A"}],"m":{"k":"v"}}}`)
	if !reflect.DeepEqual(second, want) {
		t.Errorf("Apply after modifying an earlier result = %s, want %s", encode(second), encode(want))
	}
	def, _ := s.Property("spec").Default()
	if got := encode(def); got != `{"l":[{"a":"A"}],"m":{"k":"v"}}` {
		t.Errorf("schema default changed to %s", got)
	}
}

// deepSchema nests a property "a" depth levels deep, with a default at the
// bottom and a non-nullable property "n" at every level.
func deepSchema(depth int) string {
	var b strings.Builder
	for range depth {
		b.WriteString(`{"type":"object","properties":{"n":{"type":"string"},"a":`)
	}
	b.WriteString(`{"type":"object","properties":{"d":{"type":"string","default":"D"}}}`)
	for range depth {
		b.WriteString(`}}`)
	}
	return b.String()
}

// deepObject nests {"a": ...} depth levels deep, with "n": null at every
// level, around a list nested as deep.
func deepObject(depth int) any {
	var inner any = []any{}
	for range depth {
		inner = []any{inner, nil}
	}
	for range depth {
		inner = map[string]any{"a": inner, "n": nil}
	}
	return inner
}

func TestDeepInput(t *testing.T) {
	const objDepth = 10000
	for _, schemaDepth := range []int{0, 100, 500} {
		t.Run(strconv.Itoa(schemaDepth), func(t *testing.T) {
			s := compile(t, deepSchema(schemaDepth))
			obj := deepObject(objDepth)
			PruneNulls(obj, s)
			Apply(obj, s)
			// The defaults and deletions reach as far as the schema does.
			m := obj.(map[string]any)
			for i := range schemaDepth {
				if _, ok := m["n"]; ok {
					t.Fatalf("level %d: non-nullable null not pruned", i)
				}
				m = m["a"].(map[string]any)
			}
			if m["d"] != "D" {
				t.Errorf("level %d: d = %v, want D", schemaDepth, m["d"])
			}
			if _, ok := m["n"]; !ok {
				t.Errorf("level %d: n pruned below the schema", schemaDepth)
			}
		})
	}
	t.Run("too deep schema", func(t *testing.T) {
		if _, err := schema.CompileJSON([]byte(deepSchema(600))); err == nil {
			t.Errorf("Compile accepted a schema nested 600 levels deep; the walks rely on its bound")
		}
	})
}

// allocSchema is a realistic spec with defaults at several levels, list
// items, additionalProperties and nullable fields.
const allocSchema = `{
 "type":"object",
 "properties":{
  "apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"type":"object"},
  "spec":{"type":"object","default":{},"properties":{
   "replicas":{"type":"integer","default":1},
   "paused":{"type":"boolean"},
   "selector":{"type":"object","additionalProperties":{"type":"string"}},
   "labels":{"type":"object","additionalProperties":{"type":"string","default":"x"}},
   "ports":{"type":"array","items":{"type":"object","properties":{
     "name":{"type":"string"},"port":{"type":"integer"},"protocol":{"type":"string","default":"TCP"}}}},
   "tags":{"type":"array","items":{"type":"string"}},
   "note":{"type":"string","nullable":true},
   "template":{"type":"object","properties":{"image":{"type":"string","default":"busybox"},
     "args":{"type":"array","items":{"type":"string"}}}}
  }},
  "status":{"type":"object","properties":{"conditions":{"type":"array","items":{"type":"object","properties":{
    "type":{"type":"string"},"status":{"type":"string","default":"Unknown"}}}}}}
 }
}`

const cleanObject = `{
 "apiVersion":"x/v1","kind":"X","metadata":{"name":"a","labels":{"k":"v"}},
 "spec":{"replicas":3,"paused":false,"selector":{"a":"b"},"labels":{"l":"m"},
  "ports":[{"name":"http","port":80,"protocol":"TCP"},{"name":"https","port":443,"protocol":"TCP"}],
  "tags":["a","b"],"note":null,"template":{"image":"nginx","args":["-v"]}},
 "status":{"conditions":[{"type":"Ready","status":"True"}]}
}`

func TestAllocs(t *testing.T) {
	s := compile(t, allocSchema)
	obj := decode(t, cleanObject)
	want := encode(obj)
	if n := testing.AllocsPerRun(100, func() { Apply(obj, s) }); n != 0 {
		t.Errorf("Apply on a clean object: %v allocs, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { PruneNulls(obj, s) }); n != 0 {
		t.Errorf("PruneNulls on a clean object: %v allocs, want 0", n)
	}
	if got := encode(obj); got != want {
		t.Errorf("a clean object changed: %s, want %s", got, want)
	}
	// Deleting needs no allocation either.
	withNulls := decode(t, `{"spec":{"paused":null,"tags":null,"selector":{"a":null}}}`)
	if n := testing.AllocsPerRun(1, func() { PruneNulls(withNulls, s) }); n != 0 {
		t.Errorf("PruneNulls deleting nulls: %v allocs, want 0", n)
	}
	if got := encode(withNulls); got != `{"spec":{"selector":{}}}` {
		t.Errorf("PruneNulls = %s", got)
	}
}

func TestConcurrentUse(t *testing.T) {
	s := compile(t, allocSchema)
	done := make(chan string)
	for range 8 {
		obj := decode(t, `{"spec":{"ports":[{"name":"a"}],"labels":{"x":null}},"status":{"conditions":[{}]}}`)
		go func() {
			PruneNulls(obj, s)
			Apply(obj, s)
			done <- encode(obj)
		}()
	}
	want := `{"spec":{"labels":{"x":"x"},"ports":[{"name":"a","protocol":"TCP"}],"replicas":1},"status":{"conditions":[{"status":"Unknown"}]}}`
	for range 8 {
		if got := <-done; got != want {
			t.Errorf("concurrent Apply = %s, want %s", got, want)
		}
	}
}

// refApply is a plain transcription of the server's defaulting walk: no
// summaries, every property visited, every key walked.
func refApply(x any, s *schema.Schema) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for k, c := range s.Properties() {
			def, ok := c.Default()
			if !ok {
				continue
			}
			if v, found := x[k]; !found || v == nil && !c.Nullable() {
				x[k] = refCopyTyped(def)
			}
		}
		a, _, _ := s.AdditionalProperties()
		for k := range x {
			if c := s.Property(k); c != nil {
				refApply(x[k], c)
			} else if a != nil {
				if x[k] == nil && !a.Nullable() {
					def, _ := a.Default()
					x[k] = refCopyTyped(def)
				}
				refApply(x[k], a)
			}
		}
	case []any:
		it := s.Items()
		for i := range x {
			if x[i] == nil && it != nil && !it.Nullable() {
				def, _ := it.Default()
				x[i] = refCopyTyped(def)
			}
			refApply(x[i], it)
		}
	}
}

// refPruneNulls is a plain transcription of the server's null pruning.
func refPruneNulls(x any, s *schema.Schema) {
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			var c *schema.Schema
			if s != nil {
				if c = s.Property(k); c == nil {
					c, _, _ = s.AdditionalProperties()
				}
			}
			hasDefault := false
			if c != nil {
				_, hasDefault = c.Default()
			}
			if v == nil && c != nil && !c.Nullable() && !hasDefault {
				delete(x, k)
			} else {
				refPruneNulls(v, c)
			}
		}
	case []any:
		var it *schema.Schema
		if s != nil {
			it = s.Items()
		}
		for _, v := range x {
			refPruneNulls(v, it)
		}
	}
}

// checkApplyProperty checks that ApplyProperty on each declared property
// of the root, one after the other, is Apply where the root's
// additionalProperties holds no default (Apply does nothing else there).
func checkApplyProperty(t *testing.T, s *schema.Schema, obj any) {
	t.Helper()
	m, ok := obj.(map[string]any)
	if !ok || m == nil || s == nil {
		return
	}
	if a, _, _ := s.AdditionalProperties(); a != nil && a.Summary()&schema.HasDefaults != 0 {
		return
	}
	want := refCopyTyped(m)
	Apply(want, s)
	for k := range s.Properties() {
		ApplyProperty(m, s, k)
	}
	ApplyProperty(m, s, "not declared")
	if !reflect.DeepEqual(m, want) {
		t.Errorf("ApplyProperty on every property = %s, Apply gives %s", encode(m), encode(want))
	}
}
