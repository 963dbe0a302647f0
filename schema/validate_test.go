package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"
)

// decodeValue decodes JSON as the API server decodes a request body:
// integers as int64, other numbers as float64.
func decodeValue(t testing.TB, js string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(js))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", js, err)
	}
	return fromNumbers(v)
}

func fromNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = fromNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = fromNumbers(e)
		}
	}
	return v
}

func errorTexts(l ErrorList) []string {
	out := make([]string, len(l))
	for i, e := range l {
		out[i] = e.Error()
	}
	return out
}

// validateCases are checked by TestValidate. The expected texts are the
// server's, in its order where that does not follow map iteration, and
// crdkit's sorted order of properties where it does (the conformance module
// checks the same inputs against the server).
var validateCases = []struct {
	name, schema, value string
	base                *Path
	want                []string
}{
	{
		name:   "valid",
		schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer","maximum":10}}}}}`,
		value:  `{"spec":{"replicas":3}}`,
	},
	{
		name:   "maximum",
		schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer","minimum":0,"maximum":10}}}}}`,
		value:  `{"spec":{"replicas":15}}`,
		want:   []string{"spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10"},
	},
	{
		name:   "exclusive minimum on a float",
		schema: `{"type":"object","properties":{"r":{"type":"number","minimum":0.5,"exclusiveMinimum":true}}}`,
		value:  `{"r":0.5}`,
		want:   []string{"r: Invalid value: 0.5: r in body should be greater than 0.5"},
	},
	{
		name:   "int64 bound beyond 2^53 compares exactly",
		schema: `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740992}}}`,
		value:  `{"n":9007199254740993}`,
		want:   []string{"n: Invalid value: 9007199254740993: n in body should be less than or equal to 9007199254740992"},
	},
	{
		name:   "type shows the JSON type name",
		schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{"paused":{"type":"boolean"}}}}}`,
		value:  `{"spec":{"paused":"string"}}`,
		want:   []string{`spec.paused: Invalid value: "string": spec.paused in body must be of type boolean: "string"`},
	},
	{
		name:   "root type error has the field of base",
		schema: `{"type":"object"}`,
		value:  `"x"`,
		want:   []string{`<nil>: Invalid value: "string":  in body must be of type object: "string"`},
	},
	{
		name:   "under a base path",
		schema: `{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","properties":{"b":{"type":"string"}}}}}}`,
		value:  `{"a":[{"b":1}]}`,
		base:   NewPath("spec"),
		want:   []string{`spec.a[0].b: Invalid value: "integer": a[0].b in body must be of type string: "integer"`},
	},
	{
		name:   "integer accepts an integral float",
		schema: `{"type":"object","properties":{"n":{"type":"integer"}}}`,
		value:  `{"n":2.0}`,
	},
	{
		name:   "integer refuses a fraction",
		schema: `{"type":"object","properties":{"n":{"type":"integer"}}}`,
		value:  `{"n":2.5}`,
		want: []string{
			`n: Invalid value: "number": n in body must be of type integer: "number"`,
			`<nil>: Invalid value: "": Checked value must be of type integer (default format) in n`,
		},
	},
	{
		name:   "int32 is range-checked",
		schema: `{"type":"object","properties":{"n":{"type":"integer","format":"int32"}}}`,
		value:  `{"n":4294967296}`,
		want:   []string{`<nil>: Invalid value: "": Checked value must be of type integer with format int32 in n`},
	},
	{
		name:   "int-or-string boolean",
		schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{"maxSurge":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]}}}}}`,
		value:  `{"spec":{"maxSurge":true}}`,
		want: []string{
			`spec.maxSurge: Invalid value: "boolean": spec.maxSurge in body must be of type integer,string: "boolean"`,
			`<nil>: Invalid value: "": "spec.maxSurge" must validate at least one schema (anyOf)`,
			`spec.maxSurge: Invalid value: "boolean": spec.maxSurge in body must be of type integer: "boolean"`,
		},
	},
	{
		name:   "int-or-string null",
		schema: `{"type":"object","properties":{"p":{"x-kubernetes-int-or-string":true}}}`,
		value:  `{"p":null}`,
		want:   []string{`p: Invalid value: "null": p in body must be of type integer,string: "null"`},
	},
	{
		name:   "nullable",
		schema: `{"type":"object","properties":{"p":{"type":"string","nullable":true}}}`,
		value:  `{"p":null}`,
	},
	{
		name:   "enum",
		schema: `{"type":"object","properties":{"s":{"type":"string","enum":["Recreate","RollingUpdate"]}}}`,
		value:  `{"s":"X"}`,
		want:   []string{`s: Unsupported value: "X": supported values: "Recreate", "RollingUpdate"`},
	},
	{
		name:   "enum values other than strings are JSON-encoded",
		schema: `{"type":"object","properties":{"n":{"enum":[1,2.5,true,null,{"a":1}]}}}`,
		value:  `{"n":3}`,
		want:   []string{`n: Unsupported value: 3: supported values: "1", "2.5", "true", "null", "{\"a\":1}"`},
	},
	{
		name:   "null never matches an enum",
		schema: `{"type":"object","properties":{"s":{"type":"string","nullable":true,"enum":["a",null]}}}`,
		value:  `{"s":null}`,
		want:   []string{`s: Unsupported value: null: supported values: "a", "null"`},
	},
	{
		name:   "an integer matches a string enum value of its code point",
		schema: `{"type":"object","properties":{"s":{"enum":["A"]}}}`,
		value:  `{"s":65}`,
	},
	{
		name:   "a float matches an integer enum value after truncation",
		schema: `{"type":"object","properties":{"n":{"enum":[2]},"m":{"enum":[1.5]}}}`,
		value:  `{"n":2.5,"m":1}`,
		want:   []string{`m: Unsupported value: 1: supported values: "1.5"`},
	},
	{
		name:   "lengths count runes; too long is reported in bytes",
		schema: `{"type":"object","properties":{"s":{"type":"string","maxLength":2},"t":{"type":"string","minLength":3}}}`,
		value:  `{"s":"été","t":"éé"}`,
		want: []string{
			"s: Too long: may not be more than 2 bytes",
			`t: Invalid value: "éé": t in body should be at least 3 chars long`,
		},
	},
	{
		name:   "pattern",
		schema: `{"type":"object","properties":{"name":{"type":"string","pattern":"^[a-z0-9]+$"}}}`,
		value:  `{"name":"Bad_Name"}`,
		want:   []string{`name: Invalid value: "Bad_Name": name in body should match '^[a-z0-9]+$'`},
	},
	{
		name:   "required",
		schema: `{"type":"object","required":["spec"],"properties":{"spec":{"type":"object","required":["image"]},"status":{"type":"object","required":["x"]}}}`,
		value:  `{"status":{}}`,
		want:   []string{"status.x: Required value", "spec: Required value"},
	},
	{
		name:   "item and property counts",
		schema: `{"type":"object","properties":{"a":{"type":"array","minItems":2},"b":{"type":"array","maxItems":1},"c":{"type":"object","minProperties":1},"d":{"type":"object","maxProperties":1}}}`,
		value:  `{"a":[1],"b":[1,2,3],"c":{},"d":{"x":1,"y":2}}`,
		want: []string{
			"a: Invalid value: 1: a in body should have at least 2 items",
			"b: Too many: 3: must have at most 1 item",
			"c: Invalid value: 0: c in body should have at least 1 properties",
			"d: Too many: 2: must have at most 1 item",
		},
	},
	{
		name:   "multipleOf",
		schema: `{"type":"object","properties":{"i":{"type":"integer","multipleOf":3},"f":{"type":"number","multipleOf":0.5}}}`,
		value:  `{"i":7,"f":1.25}`,
		want: []string{
			"f: Invalid value: 1.25: f in body should be a multiple of 0.5",
			"i: Invalid value: 7: i in body should be a multiple of 3",
		},
	},
	{
		name:   "multipleOf below 1 on an integer value",
		schema: `{"type":"object","properties":{"n":{"type":"number","multipleOf":0.01}}}`,
		value:  `{"n":5}`,
		want:   []string{"n: Invalid value: 0: factor MultipleOf declared for n must be positive: 0"},
	},
	{
		name:   "oneOf, allOf and not",
		schema: `{"type":"object","properties":{"o":{"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}],"allOf":[{"required":["c"]}],"not":{"required":["d"]}}}}`,
		value:  `{"o":{"a":1,"b":2,"d":3}}`,
		want: []string{
			`<nil>: Invalid value: "": "o" must validate one and only one schema (oneOf). Found 2 valid alternatives`,
			"o.c: Required value",
			`<nil>: Invalid value: "": "o" must validate all the schemas (allOf). None validated`,
			`<nil>: Invalid value: "": "o" must not validate the schema (not)`,
		},
	},
	{
		name:   "anyOf reports the branch with most checks passed",
		schema: `{"type":"object","properties":{"s":{"anyOf":[{"maxLength":1},{"type":"string","minLength":5}]}}}`,
		value:  `{"s":"abc"}`,
		want: []string{
			`<nil>: Invalid value: "": "s" must validate at least one schema (anyOf)`,
			`s: Invalid value: "abc": s in body should be at least 5 chars long`,
		},
	},
	{
		name:   "errors with the same message are reported once",
		schema: `{"type":"object","properties":{"s":{"type":"string","maxLength":1,"allOf":[{"maxLength":1},{"maxLength":1}]}}}`,
		value:  `{"s":"abc"}`,
		want: []string{
			"s: Too long: may not be more than 1 byte",
			`<nil>: Invalid value: "": "s" must validate all the schemas (allOf). None validated`,
		},
	},
	{
		name:   "additionalProperties",
		schema: `{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}},"closed":{"type":"object","properties":{"a":{}},"additionalProperties":false}}}`,
		value:  `{"labels":{"app.kubernetes.io/name":1},"closed":{"a":1,"b":2}}`,
		want: []string{
			`closed: Invalid value: "b": closed.b in body is a forbidden property`,
			`labels.app.kubernetes.io/name: Invalid value: "integer": labels.app.kubernetes.io/name in body must be of type string: "integer"`,
		},
	},
	{
		name:   "formats",
		schema: `{"type":"object","properties":{"t":{"type":"string","format":"date-time"},"u":{"type":"string","format":"date-time"},"v":{"type":"string","format":"date-time"},"w":{"type":"string","format":"no-such-format"}}}`,
		value:  `{"t":"notadate","u":1,"v":["arrays pass"],"w":"x"}`,
		want: []string{
			`t: Invalid value: "notadate": t in body must be of type date-time: "notadate"`,
			`u: Invalid value: "int64": u in body must be of type date-time: "int64"`,
		},
	},
	{
		name:   "checks apply by the value's type",
		schema: `{"type":"object","properties":{"n":{"type":"integer","maxLength":1,"enum":[1]}}}`,
		value:  `{"n":"abc"}`,
		want: []string{
			`n: Invalid value: "string": n in body must be of type integer: "string"`,
			"n: Too long: may not be more than 1 byte",
			`n: Unsupported value: "abc": supported values: "1"`,
		},
	},
	{
		name:   "the errors of the items come before the item count",
		schema: `{"type":"object","properties":{"l":{"type":"array","maxItems":1,"items":{"type":"string","minLength":2}}}}`,
		value:  `{"l":["a","bb",3]}`,
		want: []string{
			`l[0]: Invalid value: "a": l[0] in body should be at least 2 chars long`,
			`l[2]: Invalid value: "integer": l[2] in body must be of type string: "integer"`,
			"l: Too many: 3: must have at most 1 item",
		},
	},
	{
		name:   "a string breaking minLength in an allOf",
		schema: `{"type":"object","properties":{"s":{"type":"string","allOf":[{"minLength":3}]}}}`,
		value:  `{"s":"ab"}`,
		want: []string{
			`s: Invalid value: "ab": s in body should be at least 3 chars long`,
			`<nil>: Invalid value: "": "s" must validate all the schemas (allOf). None validated`,
		},
	},
	{
		name:   "the properties of an object in sorted order, then required",
		schema: `{"type":"object","required":["z"],"properties":{"z":{},"m":{"type":"string"},"b":{"type":"string"},"k":{"type":"object","required":["x"]},"a":{"type":"integer","minimum":1},"q":{"type":"string"},"c":{"type":"string"},"d":{"type":"string"},"e":{"type":"string"}}}`,
		value:  `{"q":1,"m":1,"k":{},"e":1,"b":1,"a":0,"d":1,"c":1}`,
		want: []string{
			"a: Invalid value: 0: a in body should be greater than or equal to 1",
			`b: Invalid value: "integer": b in body must be of type string: "integer"`,
			`c: Invalid value: "integer": c in body must be of type string: "integer"`,
			`d: Invalid value: "integer": d in body must be of type string: "integer"`,
			`e: Invalid value: "integer": e in body must be of type string: "integer"`,
			"k.x: Required value",
			`m: Invalid value: "integer": m in body must be of type string: "integer"`,
			`q: Invalid value: "integer": q in body must be of type string: "integer"`,
			"z: Required value",
		},
	},
	{
		name:   "forbidden keys come before the errors of declared properties",
		schema: `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
		value:  `{"z":1,"a":1,"b":2}`,
		want: []string{
			`<nil>: Invalid value: "b": .b in body is a forbidden property`,
			`<nil>: Invalid value: "z": .z in body is a forbidden property`,
			`a: Invalid value: "integer": a in body must be of type string: "integer"`,
		},
	},
	{
		name:   "keys under additionalProperties in sorted order",
		schema: `{"type":"object","additionalProperties":{"type":"object","required":["v"],"properties":{"v":{"type":"string"}}}}`,
		value:  `{"y":{"v":1},"x":{},"w":{"v":"ok"},"b":{"v":2}}`,
		want: []string{
			`b.v: Invalid value: "integer": .b.v in body must be of type string: "integer"`,
			"x.v: Required value",
			`y.v: Invalid value: "integer": .y.v in body must be of type string: "integer"`,
		},
	},
	{
		name:   "of two properties with the same message, the first in sorted order is kept",
		schema: `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"integer","minimum":0}}},"a.b":{"type":"integer","minimum":0},"c":{"type":"string"}}}`,
		value:  `{"a.b":-2,"c":1,"a":{"b":-1}}`,
		want: []string{
			"a.b: Invalid value: -1: a.b in body should be greater than or equal to 0",
			`c: Invalid value: "integer": c in body must be of type string: "integer"`,
		},
	},
}

func TestValidate(t *testing.T) {
	for _, c := range validateCases {
		t.Run(c.name, func(t *testing.T) {
			s := mustCompile(t, c.schema)
			v := decodeValue(t, c.value)
			got := errorTexts(s.Validate(v, c.base, nil))
			want := c.want
			if want == nil {
				want = []string{}
			}
			if !slices.Equal(got, want) {
				t.Errorf("Validate(%s) = %q, want %q", c.value, got, want)
			}
			if s.Valid(v) != (len(want) == 0) {
				t.Errorf("Valid(%s) = %v, want %v", c.value, !(len(want) == 0), len(want) == 0)
			}
		})
	}
}

func TestValidateAppends(t *testing.T) {
	s := mustCompile(t, `{"type":"object","required":["a","b"]}`)
	prev := &Error{Type: ErrorTypeForbidden, Field: "z"}
	got := s.Validate(map[string]any{}, nil, ErrorList{prev})
	if len(got) != 3 || got[0] != prev {
		t.Fatalf("Validate appended to a list = %q, want the previous error then two", errorTexts(got))
	}
	if s := (*Schema)(nil); len(s.Validate("x", nil, nil)) != 0 || !s.Valid("x") {
		t.Errorf("a nil schema reports errors")
	}
}

func TestValidateOutsideTheValueModel(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{"a":{"type":"integer"},"b":{}}}`)
	got := errorTexts(s.Validate(map[string]any{"a": 3, "b": struct{}{}}, nil, nil))
	want := []string{`a: Invalid value: "": a in body must be of type integer: ""`}
	if !slices.Equal(got, want) {
		t.Errorf("Validate(int) = %q, want %q", got, want)
	}
}

// corpusObject is a corpus object with the schema of the version serving it.
type corpusObject struct {
	name string
	s    *Schema
	obj  any
}

// corpusObjects decodes every corpus object whose CRD version is in the
// corpus; nil when the corpus is absent.
func corpusObjects(t testing.TB) []corpusObject {
	dir := os.Getenv("CRDKIT_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "corpus")
	}
	docSep := regexp.MustCompile(`(?m)^---[ \t]*$`)
	docs := func(pattern string) []string {
		files, _ := filepath.Glob(filepath.Join(dir, pattern))
		var out []string
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range docSep.Split(string(raw), -1) {
				js, err := yaml.YAMLToJSON([]byte(d))
				if err != nil || len(bytes.TrimSpace(js)) == 0 || string(js) == "null" {
					continue
				}
				out = append(out, fmt.Sprintf("%s#%d\n%s", filepath.Base(f), i, js))
			}
		}
		return out
	}
	schemas := map[string]*Schema{}
	for _, d := range docs("crds/*/*.yaml") {
		_, js, _ := strings.Cut(d, "\n")
		var crd struct {
			Kind string `json:"kind"`
			Spec struct {
				Group string `json:"group"`
				Names struct {
					Kind string `json:"kind"`
				} `json:"names"`
				Versions []struct {
					Name   string `json:"name"`
					Schema struct {
						OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
					} `json:"schema"`
				} `json:"versions"`
			} `json:"spec"`
		}
		if json.Unmarshal([]byte(js), &crd) != nil || crd.Kind != "CustomResourceDefinition" {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if len(v.Schema.OpenAPIV3Schema) == 0 {
				continue
			}
			s, err := CompileJSON(v.Schema.OpenAPIV3Schema)
			if err != nil {
				t.Fatalf("%s %s: %v", crd.Spec.Names.Kind, v.Name, err)
			}
			schemas[crd.Spec.Group+"/"+v.Name+" "+crd.Spec.Names.Kind] = s
		}
	}
	var out []corpusObject
	for _, d := range docs("objects/*/*.yaml") {
		name, js, _ := strings.Cut(d, "\n")
		obj, ok := decodeValue(t, js).(map[string]any)
		if !ok {
			continue
		}
		if s := schemas[fmt.Sprintf("%v %v", obj["apiVersion"], obj["kind"])]; s != nil {
			out = append(out, corpusObject{name: name, s: s, obj: obj})
		}
	}
	if len(out) == 0 {
		t.Logf("corpus not found at %s (set CRDKIT_CORPUS): corpus objects skipped", dir)
	}
	return out
}

// featureSchema uses every check on valid values: formats (but uri and email,
// which the standard library parses with allocations), junctors,
// int-or-string, list types and deep nesting.
const featureSchema = `{"type":"object","required":["spec"],"properties":{
 "spec":{"type":"object","minProperties":1,"maxProperties":100,"properties":{
  "replicas":{"type":"integer","format":"int32","minimum":0,"maximum":10,"multipleOf":1},
  "ratio":{"type":"number","format":"float","minimum":0,"exclusiveMaximum":true,"maximum":1},
  "big":{"type":"integer","format":"int64","maximum":9223372036854774784},
  "name":{"type":"string","minLength":1,"maxLength":63,"pattern":"^[a-z0-9-]+$","format":"k8s-short-name"},
  "mode":{"type":"string","enum":["A","B"]},
  "surge":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},
  "surge2":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},
  "one":{"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}],"not":{"required":["c"]},"allOf":[{"minProperties":1}]},
  "when":{"type":"string","format":"date-time"},
  "day":{"type":"string","format":"date"},
  "dur":{"type":"string","format":"duration"},
  "dur2":{"type":"string","format":"duration"},
  "ip4":{"type":"string","format":"ipv4"},
  "ip6":{"type":"string","format":"ipv6"},
  "cidr":{"type":"string","format":"cidr"},
  "mac":{"type":"string","format":"mac"},
  "host":{"type":"string","format":"hostname"},
  "uuid":{"type":"string","format":"uuid"},
  "data":{"type":"string","format":"byte"},
  "color":{"type":"string","format":"rgbcolor"},
  "card":{"type":"string","format":"credit-card"},
  "isbn":{"type":"string","format":"isbn"},
  "oid":{"type":"string","format":"bsonobjectid"},
  "long":{"type":"string","format":"k8s-long-name"},
  "opt":{"type":"string","nullable":true},
  "labels":{"type":"object","additionalProperties":{"type":"string","maxLength":63}},
  "tags":{"type":"array","x-kubernetes-list-type":"set","maxItems":10,"items":{"type":"string"}},
  "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["port","protocol"],"minItems":1,
   "items":{"type":"object","required":["port"],"properties":{"port":{"type":"integer"},"protocol":{"type":"string"}}}},
  "containers":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
   "items":{"type":"object","properties":{"name":{"type":"string"},"env":{"type":"array","items":{"type":"object",
    "properties":{"name":{"type":"string"},"value":{"type":"string"}}}}}}},
  "deep":{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"object",
   "properties":{"d":{"type":"array","items":{"type":"array","items":{"type":"integer"}}}}}}}}}}},
  "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}`

const featureValue = `{"spec":{"replicas":3,"ratio":0.5,"big":9007199254740993,"name":"web-1","mode":"A","surge":"25%","surge2":1,
 "one":{"a":1},"when":"2024-01-02T03:04:05.123Z","day":"2024-02-29","dur":"1h30m","dur2":"3 days","ip4":"10.0.0.1","ip6":"fe80::1",
 "cidr":"10.0.0.0/8","mac":"00:1a:2b:3c:4d:5e","host":"example.com","uuid":"123e4567-e89b-12d3-a456-426614174000",
 "data":"aGVsbG8=","color":"rgb(1, 2, 3)","card":"4111 1111 1111 1111","isbn":"978-0321751041","oid":"507f1f77bcf86cd799439011",
 "long":"a.b-c.d","opt":null,"labels":{"app":"web","tier":"front"},"tags":["a","b",""],
 "ports":[{"port":80,"protocol":"TCP"},{"port":80,"protocol":"UDP"},{"port":443}],
 "containers":[{"name":"a","env":[{"name":"X","value":"1"}]},{"name":"b"}],
 "deep":{"a":{"b":{"c":{"d":[[1,2],[3]]}}}},"free":{"anything":[1,"x",{"y":null}]}}}`

// poolsReuse reports whether sync.Pool hands back what was put in it. The
// race detector makes it drop items at random, and regexp matching, which
// keeps its machines in a pool, then allocates: allocation counts are only
// checked without it.
func poolsReuse() bool {
	var p sync.Pool
	for range 200 {
		x := new(int)
		p.Put(x)
		if p.Get() != x {
			return false
		}
	}
	return true
}

func skipAllocsUnlessPoolsReuse(t *testing.T) {
	if !poolsReuse() {
		t.Skip("sync.Pool drops items (race detector): allocation counts are not meaningful")
	}
}

func TestValidateZeroAllocs(t *testing.T) {
	skipAllocsUnlessPoolsReuse(t)
	type input struct {
		name string
		s    *Schema
		obj  any
	}
	inputs := []input{{"features", mustCompile(t, featureSchema), decodeValue(t, featureValue)}}
	for _, o := range corpusObjects(t) {
		if len(o.s.Validate(o.obj, nil, nil)) == 0 {
			inputs = append(inputs, input{o.name, o.s, o.obj})
		}
	}
	for _, in := range inputs {
		if errs := in.s.Validate(in.obj, nil, nil); len(errs) > 0 {
			t.Fatalf("%s: Validate = %q, want no error", in.name, errorTexts(errs))
		}
		if n := testing.AllocsPerRun(20, func() { in.s.Validate(in.obj, nil, nil) }); n != 0 {
			t.Errorf("%s: Validate allocates %v times, want 0", in.name, n)
		}
		if n := testing.AllocsPerRun(20, func() { in.s.Valid(in.obj) }); n != 0 {
			t.Errorf("%s: Valid allocates %v times, want 0", in.name, n)
		}
	}
	t.Logf("%d valid objects", len(inputs))
}

func TestValidateCorpusValidMatchesValidate(t *testing.T) {
	for _, o := range corpusObjects(t) {
		errs := o.s.Validate(o.obj, nil, nil)
		if o.s.Valid(o.obj) != (len(errs) == 0) {
			t.Errorf("%s: Valid = %v with %d errors", o.name, !(len(errs) == 0), len(errs))
		}
	}
}

// TestValidateDeterministic runs validation with many errors under map
// iteration: the output, order included, must not change.
func TestValidateDeterministic(t *testing.T) {
	s := mustCompile(t, featureSchema)
	bad := decodeValue(t, `{"spec":{"replicas":"x","ratio":true,"name":"X","mode":"C","surge":false,"one":{"a":1,"b":1,"c":1},
	 "when":"x","labels":{"a":1,"b":2,"c":3},"tags":[1,1,2,2],"ports":[{"port":1},{"port":1}]}}`)
	first := errorTexts(s.Validate(bad, nil, nil))
	if len(first) < 10 {
		t.Fatalf("Validate = %q, want many errors", first)
	}
	for range 50 {
		if got := errorTexts(s.Validate(bad, nil, nil)); !slices.Equal(got, first) {
			t.Fatalf("Validate = %q, then %q", first, got)
		}
	}
}

func TestValidateConcurrentUse(t *testing.T) {
	s := mustCompile(t, featureSchema)
	good := decodeValue(t, featureValue)
	bad := decodeValue(t, `{"spec":{"replicas":"x","surge":false,"tags":["a","a"]}}`)
	want := errorTexts(s.Validate(bad, nil, nil))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if !s.Valid(good) || len(s.Validate(good, nil, nil)) != 0 {
					t.Error("a valid object is reported invalid")
					return
				}
				if got := errorTexts(s.Validate(bad, nil, nil)); !slices.Equal(got, want) {
					t.Errorf("Validate = %q, want %q", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestValidateDeepObject(t *testing.T) {
	// Deeper than the fixed part of the path stack.
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"n":`)
	for range 40 {
		b.WriteString(`{"type":"object","properties":{"n":`)
	}
	b.WriteString(`{"type":"integer"}`)
	for range 41 {
		b.WriteString(`}}`)
	}
	s := mustCompile(t, b.String())
	var v strings.Builder
	for range 41 {
		v.WriteString(`{"n":`)
	}
	v.WriteString(`"x"`)
	for range 41 {
		v.WriteString(`}`)
	}
	errs := s.Validate(decodeValue(t, v.String()), nil, nil)
	want := strings.Repeat("n.", 40) + "n"
	if len(errs) != 1 || errs[0].Field != want {
		t.Errorf("Validate = %q, want one error at %s", errorTexts(errs), want)
	}
}

func ExampleSchema_Validate() {
	s, _ := CompileJSON([]byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{
		"replicas":{"type":"integer","maximum":10},
		"maxSurge":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]}}}}}`))
	obj := map[string]any{"spec": map[string]any{"replicas": int64(15), "maxSurge": "25%"}}
	for _, e := range s.Validate(obj, nil, nil) {
		fmt.Println(e)
	}
	fmt.Println(s.Valid(map[string]any{"spec": map[string]any{"replicas": int64(3)}}))
	// Output:
	// spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10
	// true
}

func BenchmarkSchemaValidate(b *testing.B) {
	s := mustCompile(b, featureSchema)
	obj := decodeValue(b, featureValue)
	b.ReportAllocs()
	for b.Loop() {
		s.Validate(obj, nil, nil)
	}
}

func BenchmarkSchemaValid(b *testing.B) {
	s := mustCompile(b, featureSchema)
	obj := decodeValue(b, featureValue)
	b.ReportAllocs()
	for b.Loop() {
		s.Valid(obj)
	}
}
