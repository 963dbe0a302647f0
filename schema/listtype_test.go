package schema

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

const listSchema = `{"type":"object","properties":{
 "tags":{"type":"array","x-kubernetes-list-type":"set","items":{}},
 "byName":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object"}},
 "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["port","protocol"],"items":{"type":"object"}},
 "nested":{"type":"array","items":{"type":"object","properties":{
   "inner":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}}}},
 "m":{"type":"object","additionalProperties":{"type":"array","x-kubernetes-list-type":"set","items":{}}},
 "atomic":{"type":"array","x-kubernetes-list-type":"atomic","items":{}}}}`

var listTypeCases = []struct {
	name, value string
	base        *Path
	want        []string
}{
	{name: "clean", value: `{"tags":["a","b"],"byName":[{"name":"a"},{"name":"b"},null],"ports":[{"port":80},{"port":80,"protocol":"UDP"}]}`},
	{
		name:  "set: each duplicated value once, at its second occurrence",
		value: `{"tags":["a","b","a","a","b"]}`,
		want:  []string{`tags[2]: Duplicate value: "a"`, `tags[4]: Duplicate value: "b"`},
	},
	{name: "set: int64 and float64 scalars differ", value: `{"tags":[1,1.5,1.0]}`},
	{
		name:  "set: compound values compare by JSON",
		value: `{"tags":[{"a":1},{"a":1.0},[1,"x"],[1,"x"],null,null]}`,
		want:  []string{`tags[1]: Duplicate value: {"a":1}`, `tags[3]: Duplicate value: [1,"x"]`, `tags[5]: Duplicate value: null`},
	},
	{
		name:  "map: one key",
		value: `{"byName":[{"name":"x"},{"name":"x","v":1},{},null,{"name":null},{"name":null}]}`,
		want: []string{
			`byName[1]: Duplicate value: {"name":"x"}`,
			`byName[3]: Duplicate value: {}`,
			`byName[5]: Duplicate value: {"name":null}`,
		},
	},
	{
		name:  "map: several keys, with those present",
		value: `{"ports":[{"port":80,"protocol":"TCP"},{"port":80,"protocol":"TCP"},{"port":80},{"port":80.0},{},null]}`,
		want: []string{
			`ports[1]: Duplicate value: {"port":80,"protocol":"TCP"}`,
			`ports[3]: Duplicate value: {"port":80}`,
			`ports[5]: Duplicate value: {}`,
		},
	},
	{
		name:  "map: an element that is not an object stops the check",
		value: `{"byName":[{"name":"x"},{"name":"x"},"s",3]}`,
		want:  []string{`byName[2]: Invalid value: "s": must be an object for an array of list-type map`},
	},
	{
		name:  "nested and under additionalProperties",
		value: `{"nested":[{"inner":["a"]},{"inner":["b","b"]}],"m":{"k.x":[1,1]}}`,
		base:  NewPath("spec"),
		want:  []string{`spec.m[k.x][1]: Duplicate value: 1`, `spec.nested[1].inner[1]: Duplicate value: "b"`},
	},
	{
		name:  "the properties of an object in sorted order, each list before its items",
		value: `{"tags":[1,1],"nested":[{"inner":["b","b"]},{"inner":["a","a"]}],"byName":[{"name":"x"},{"name":"x"}],"m":{"z":[2,2],"a":[3,3]}}`,
		want: []string{
			`byName[1]: Duplicate value: {"name":"x"}`,
			`m[a][1]: Duplicate value: 3`,
			`m[z][1]: Duplicate value: 2`,
			`nested[0].inner[1]: Duplicate value: "b"`,
			`nested[1].inner[1]: Duplicate value: "a"`,
			`tags[1]: Duplicate value: 1`,
		},
	},
	{name: "atomic lists are not checked", value: `{"atomic":[1,1]}`},
	{name: "wrong types are left to validation", value: `{"tags":"x","byName":{"name":"x"},"nested":[1,"x"]}`},
}

func TestValidateListTypes(t *testing.T) {
	s := mustCompile(t, listSchema)
	for _, c := range listTypeCases {
		t.Run(c.name, func(t *testing.T) {
			obj := decodeValue(t, c.value).(map[string]any)
			got := errorTexts(s.ValidateListTypes(obj, c.base, nil))
			want := c.want
			if want == nil {
				want = []string{}
			}
			if !slices.Equal(got, want) {
				t.Errorf("ValidateListTypes(%s) = %q, want %q", c.value, got, want)
			}
		})
	}
}

func TestValidateListTypesNotEncodable(t *testing.T) {
	s := mustCompile(t, listSchema)
	nan := math.NaN()
	cases := []struct {
		name string
		obj  map[string]any
		want []string
	}{
		{"NaN scalars are never equal", map[string]any{"tags": []any{nan, nan}}, []string{}},
		{"a compound NaN is an internal error", map[string]any{"tags": []any{"a", "a", []any{nan}}},
			[]string{`tags[2]: Invalid value: []interface {}{NaN}: internal error`}},
		{"a NaN key of several", map[string]any{"ports": []any{map[string]any{"port": nan}, map[string]any{}}},
			[]string{`ports[0]: Invalid value: map[string]interface {}{"port":NaN}: internal error`}},
	}
	for _, c := range cases {
		got := errorTexts(s.ValidateListTypes(c.obj, nil, nil))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: ValidateListTypes = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestValidateListTypesLong checks lists past the pairwise limit, which are
// checked with a map as the server does, against the pairwise check.
func TestValidateListTypesLong(t *testing.T) {
	s := mustCompile(t, listSchema)
	for _, n := range []int{maxPairwise - 1, maxPairwise, maxPairwise + 1, 200} {
		var tags, named, ports []any
		for i := range n {
			tags = append(tags, fmt.Sprint(i%(n-3)), map[string]any{"i": int64(i % (n - 5))})
			named = append(named, map[string]any{"name": int64(i % (n - 2))})
			ports = append(ports, map[string]any{"port": int64(i % (n - 4)), "protocol": "TCP"})
		}
		obj := map[string]any{"tags": tags, "byName": named, "ports": ports}
		got := errorTexts(s.ValidateListTypes(obj, nil, nil))
		if len(got) != 3+5+2+4 {
			t.Errorf("n=%d: ValidateListTypes = %d errors (%q), want 14", n, len(got), got)
		}
		for _, e := range got {
			if !strings.Contains(e, "Duplicate value") {
				t.Errorf("n=%d: unexpected %s", n, e)
			}
		}
	}
}

func TestValidateListTypesZeroAllocs(t *testing.T) {
	skipAllocsUnlessPoolsReuse(t)
	s := mustCompile(t, listSchema)
	obj := decodeValue(t, `{"tags":["a","b",1,1.5,{"a":1},{"a":2},[1],[2],null,true],"byName":[{"name":"a"},{"name":"b"},{"name":{"x":1}},{"name":{"x":2}},{}],
	 "ports":[{"port":80,"protocol":"TCP"},{"port":80},{"port":1e21},{"port":9007199254740993},{"port":9007199254740992.0}],
	 "nested":[{"inner":["a","b"]}],"m":{"k":[1,2]}}`).(map[string]any)
	if errs := s.ValidateListTypes(obj, nil, nil); len(errs) > 0 {
		t.Fatalf("ValidateListTypes = %q, want none", errorTexts(errs))
	}
	if n := testing.AllocsPerRun(20, func() { s.ValidateListTypes(obj, nil, nil) }); n != 0 {
		t.Errorf("ValidateListTypes allocates %v times, want 0", n)
	}
	for _, o := range corpusObjects(t) {
		m := o.obj.(map[string]any)
		if len(o.s.ValidateListTypes(m, nil, nil)) > 0 {
			continue
		}
		if n := testing.AllocsPerRun(10, func() { o.s.ValidateListTypes(m, nil, nil) }); n != 0 {
			t.Errorf("%s: ValidateListTypes allocates %v times, want 0", o.name, n)
		}
	}
}

func TestJSONEqual(t *testing.T) {
	cases := []struct {
		a, b any
		want bool
	}{
		{int64(1), 1.0, true},
		{int64(1), 1.5, false},
		{int64(100000000000000000), 1e17, true},
		{int64(9007199254740993), 9007199254740992.0, false},
		{int64(1152921504606847000), float64(1 << 60), true},
		{math.Copysign(0, -1), 0.0, false},
		{"a\xff", "a\xfe", true}, // both encode as "a\ufffd"
		{"a\xff", "a\ufffd", false},
		{map[string]any{"a\xff": int64(1)}, map[string]any{"a\xfe": int64(1)}, true},
		{[]any(nil), nil, true},
		{map[string]any{}, []any{}, false},
		{"<", "\u003c", true},
	}
	for _, c := range cases {
		if got := jsonEqual(c.a, c.b); got != c.want {
			t.Errorf("jsonEqual(%#v, %#v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func ExampleSchema_ValidateListTypes() {
	s, _ := CompileJSON([]byte(`{"type":"object","properties":{"tags":{"type":"array","x-kubernetes-list-type":"set",
		"items":{"type":"string"}}}}`))
	obj := map[string]any{"tags": []any{"t1", "t2", "t1"}}
	fmt.Println(s.ValidateListTypes(obj, NewPath("spec"), nil))
	// Output:
	// spec.tags[2]: Duplicate value: "t1"
}

func BenchmarkValidateListTypes(b *testing.B) {
	s := mustCompile(b, featureSchema)
	obj := decodeValue(b, featureValue).(map[string]any)
	b.ReportAllocs()
	for b.Loop() {
		s.ValidateListTypes(obj, nil, nil)
	}
}
