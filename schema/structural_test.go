package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// structuralCase is one case of testdata/structural.json. The expectations
// (buildError, errors) are the output of the server's own NewStructural and
// ValidateStructural, k8s.io/apiextensions-apiserver v0.37.2, under the path
// goldenBase; conformance/structdiff checks them against upstream and
// regenerates them with -update.
type structuralCase struct {
	Name       string          `json:"name"`
	Schema     json.RawMessage `json:"schema"`
	BuildError string          `json:"buildError"`
	Errors     []string        `json:"errors"`
}

func goldenBase() *Path {
	return NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")
}

func readStructuralCases(t testing.TB) []structuralCase {
	raw, err := os.ReadFile("testdata/structural.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []structuralCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// causes renders errors as "field | type | body", the golden file's form.
func causes(l ErrorList) []string {
	out := make([]string, len(l))
	for i, e := range l {
		out[i] = fmt.Sprintf("%s | %s | %s", e.Field, e.Type, e.Body())
	}
	return out
}

func TestStructuralGolden(t *testing.T) {
	cases := readStructuralCases(t)
	if len(cases) < 50 {
		t.Fatalf("testdata/structural.json has %d cases, want at least 50", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			p, err := ParseProps(c.Schema)
			if err != nil {
				t.Fatalf("ParseProps(%s): %v", c.Schema, err)
			}
			berr := ""
			if err := BuildError(p); err != nil {
				berr = err.Error()
			}
			if berr != c.BuildError {
				t.Fatalf("BuildError(%s) = %q, want %q", c.Schema, berr, c.BuildError)
			}
			if berr != "" {
				return
			}
			got := causes(ValidateStructural(p, goldenBase()))
			if strings.Join(got, "\n") != strings.Join(c.Errors, "\n") {
				t.Errorf("ValidateStructural(%s) =\n    %s\nwant\n    %s", c.Schema,
					strings.Join(got, "\n    "), strings.Join(c.Errors, "\n    "))
			}
		})
	}
}

// nest returns a schema nested n levels deep through the given keyword
// ("items", "properties", "allOf", "not", "additionalProperties").
func nest(keyword string, n int) string {
	var open, close string
	switch keyword {
	case "items", "not", "additionalProperties":
		open, close = `{"type":"object","`+keyword+`":`, `}`
	case "properties":
		open, close = `{"type":"object","properties":{"a":`, `}}`
	case "allOf":
		open, close = `{"allOf":[`, `]}`
	}
	return strings.Repeat(open, n) + `{"type":"string"}` + strings.Repeat(close, n)
}

func TestBuildError(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		// Upstream iterates properties in map order, so for two bad
		// properties it reports either error; crdkit takes the sorted first.
		{"sorted properties", `{"properties":{"b":{"id":"x"},"a":{"$ref":"y"}}}`, "OpenAPIV3Schema '$ref' is not supported"},
		{"sorted nested properties", `{"allOf":[{"properties":{"z":{"id":"x"},"y":{"definitions":{"d":{}}}}}]}`, "OpenAPIV3Schema 'definitions' is not supported"},
		{"items array below additionalProperties", `{"additionalProperties":{"items":[{}]}}`, "OpenAPIV3Schema 'items' must be a schema, but is an array"},
		{"bad node in an items array is not inspected", `{"properties":{"a":{"items":[]}},"allOf":[{"items":[]}]}`, ""},
		{"deep but within the bound", nest("properties", 500), ""},
		{"deep allOf within the bound", nest("allOf", 500), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseProps([]byte(tt.json))
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if err := BuildError(p); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("BuildError(%.80s) = %q, want %q", tt.json, got, tt.want)
			}
		})
	}
}

func TestBuildErrorTooDeep(t *testing.T) {
	for _, k := range []string{"items", "properties", "allOf", "not", "additionalProperties"} {
		t.Run(k, func(t *testing.T) {
			js := nest(k, 600)
			if _, err := ParseProps([]byte(js)); !errors.Is(err, ErrTooDeep) {
				t.Errorf("ParseProps(%s x 600) = %v, want %v", k, err, ErrTooDeep)
			}
			// Props built by hand can be deeper: every walk stops at the bound.
			p := new(Props)
			q := p
			for i := 0; i < 600; i++ {
				c := new(Props)
				switch k {
				case "items":
					q.Items, q.HasItems = c, true
				case "properties":
					q.Properties = map[string]*Props{"a": c}
				case "allOf":
					q.AllOf = []*Props{c}
				case "not":
					q.Not = c
				default:
					q.AdditionalProperties = &PropsOrBool{Allows: true, Schema: c}
				}
				q = c
			}
			if err := BuildError(p); !errors.Is(err, ErrTooDeep) {
				t.Errorf("BuildError(%s x 600) = %v, want %v", k, err, ErrTooDeep)
			}
			if _, err := Compile(p); !errors.Is(err, ErrTooDeep) {
				t.Errorf("Compile(%s x 600) = %v, want %v", k, err, ErrTooDeep)
			}
			_ = ValidateStructural(p, NewPath("x"))
			errs := CheckCRDSchema(p, NewPath("x"), CreateOptions)
			if !strings.Contains(errs.Error(), ErrTooDeep.Error()) {
				t.Errorf("CheckCRDSchema(%s x 600) = %.200s, want an error naming %q", k, errs.Error(), ErrTooDeep)
			}
		})
	}
}

func TestBuildErrorNil(t *testing.T) {
	if err := BuildError(nil); err != nil {
		t.Errorf("BuildError(nil) = %v, want nil", err)
	}
	if errs := ValidateStructural(nil, NewPath("x")); errs != nil {
		t.Errorf("ValidateStructural(nil) = %v, want nil", errs)
	}
}

func TestErrorText(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"required", required(NewPath("a").Child("b"), "must be specified"), "a.b: Required value: must be specified"},
		{"forbidden", forbidden(NewPath("a").Key("k"), "no"), "a[k]: Forbidden: no"},
		{"invalid string", invalid(NewPath("t"), "x\"y", "bad"), `t: Invalid value: "x\"y": bad`},
		{"invalid bool", invalid(NewPath("t"), true, "bad"), "t: Invalid value: true: bad"},
		{"invalid float", invalid(NewPath("t"), 1.5, "bad"), "t: Invalid value: 1.5: bad"},
		{"invalid list", invalid(NewPath("t"), []string{"a", "b"}, "bad"), `t: Invalid value: ["a","b"]: bad`},
		{"invalid string pointer", invalid(NewPath("t"), ptr("s"), "bad"), `t: Invalid value: "s": bad`},
		{"invalid nil", invalid(NewPath("t"), nil, "bad"), "t: Invalid value: null: bad"},
		{"not supported", notSupported(NewPath("t"), "x", []string{"a", "b"}), `t: Unsupported value: "x": supported values: "a", "b"`},
		{"not supported without values", notSupported(NewPath("t"), "x", nil), `t: Unsupported value: "x"`},
		{"no detail", &Error{Type: ErrorTypeDuplicate, Field: "f", BadValue: int64(3)}, "f: Duplicate value: 3"},
		{"too long shows no value", &Error{Type: ErrorTypeTooLong, Field: "f", BadValue: "xxx", Detail: "may not be more than 2 bytes"}, "f: Too long: may not be more than 2 bytes"},
		{"internal", &Error{Type: ErrorTypeInternal, Field: "f", Detail: "boom"}, "f: Internal error: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error(%s) = %s, want %s", tt.name, got, tt.want)
			}
			if got, want := tt.err.Body(), strings.TrimPrefix(tt.want, tt.err.Field+": "); got != want {
				t.Errorf("Body(%s) = %s, want %s", tt.name, got, want)
			}
		})
	}
}

func TestErrorListText(t *testing.T) {
	a := required(NewPath("a"), "x")
	b := forbidden(NewPath("b"), "y")
	tests := []struct {
		name string
		l    ErrorList
		want string
	}{
		{"one", ErrorList{a}, "a: Required value: x"},
		{"two", ErrorList{a, b}, "[a: Required value: x, b: Forbidden: y]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.l.Error(); got != tt.want {
				t.Errorf("ErrorList(%s).Error() = %s, want %s", tt.name, got, tt.want)
			}
		})
	}
}

func TestErrorTypeValues(t *testing.T) {
	// The values are field.ErrorType's; the facade converts by value.
	want := map[ErrorType]string{
		ErrorTypeNotFound: "FieldValueNotFound", ErrorTypeRequired: "FieldValueRequired",
		ErrorTypeDuplicate: "FieldValueDuplicate", ErrorTypeInvalid: "FieldValueInvalid",
		ErrorTypeNotSupported: "FieldValueNotSupported", ErrorTypeForbidden: "FieldValueForbidden",
		ErrorTypeTooLong: "FieldValueTooLong", ErrorTypeTooMany: "FieldValueTooMany",
		ErrorTypeInternal: "InternalError", ErrorTypeTypeInvalid: "FieldValueTypeInvalid",
	}
	for typ, s := range want {
		if string(typ) != s {
			t.Errorf("ErrorType(%s) = %s, want %s", s, string(typ), s)
		}
	}
}

func TestValidateStructuralSortedAndDeterministic(t *testing.T) {
	js := `{"properties":{"z":{},"a":{"type":"array"},"m":{"x-kubernetes-embedded-resource":true},"q":{"anyOf":[{"type":"string"}]}},"additionalProperties":true,"allOf":[{"type":"object","properties":{"y":{}}}]}`
	p, err := ParseProps([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	first := ValidateStructural(p, NewPath("r")).Error()
	for range 20 {
		got := ValidateStructural(p, NewPath("r"))
		if got.Error() != first {
			t.Fatalf("ValidateStructural(%s) = %s, want %s (the same every time)", js, got.Error(), first)
		}
		for i := 1; i < len(got); i++ {
			if got[i-1].Error() > got[i].Error() {
				t.Fatalf("ValidateStructural(%s) = %s, want sorted by text", js, got.Error())
			}
		}
	}
}
