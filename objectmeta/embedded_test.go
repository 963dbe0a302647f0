package objectmeta

import (
	"encoding/json"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit/schema"
)

// embeddedSchema has an embedded resource as a property, under a list and
// under additionalProperties.
func embeddedSchema(t testing.TB) *schema.Schema {
	t.Helper()
	yes := true
	res := func() *schema.Props {
		return &schema.Props{Type: "object", XEmbeddedResource: true, XPreserveUnknownFields: &yes}
	}
	s, err := schema.Compile(&schema.Props{Type: "object", Properties: map[string]*schema.Props{
		"one":  res(),
		"list": {Type: "array", HasItems: true, Items: res()},
		"map":  {Type: "object", AdditionalProperties: &schema.PropsOrBool{Allows: true, Schema: res()}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCoerceAndValidate(t *testing.T) {
	s := embeddedSchema(t)
	for _, tc := range []struct {
		name      string
		in        string
		opts      CoerceOptions
		want      string // the object after Coerce
		coerceErr string
		unknown   []string
		invalid   []string // Validate's errors after Coerce
	}{{
		name: "canonical metadata",
		in:   `{"one":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","generation":null,"creationTimestamp":null}}}`,
		want: `{"one":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}}`,
	}, {
		name:    "unknown metadata under a list and a map",
		in:      `{"list":[{"apiVersion":"v1","kind":"Pod","metadata":{"x":1}}],"map":{"k":{"apiVersion":"v1","kind":"Pod","metadata":{"y":1}}}}`,
		opts:    CoerceOptions{ReturnUnknownFieldPaths: true},
		want:    `{"list":[{"apiVersion":"v1","kind":"Pod","metadata":{}}],"map":{"k":{"apiVersion":"v1","kind":"Pod","metadata":{}}}}`,
		unknown: []string{"list[0].metadata.x", "map[k].metadata.y"},
	}, {
		name:      "kind not a string",
		in:        `{"one":{"apiVersion":"v1","kind":1}}`,
		coerceErr: "one.kind: Invalid value: 1: must be a string",
	}, {
		name:    "kind not a string, dropped",
		in:      `{"one":{"apiVersion":"v1","kind":1}}`,
		opts:    CoerceOptions{DropInvalidFields: true},
		want:    `{"one":{"apiVersion":"v1"}}`,
		invalid: []string{"one.kind: Required value"},
	}, {
		name:    "bad type meta",
		in:      `{"one":{"apiVersion":"a/b/c","kind":"no_kind"}}`,
		want:    `{"one":{"apiVersion":"a/b/c","kind":"no_kind"}}`,
		invalid: []string{`one.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`, `one.kind: Invalid value: "no_kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var obj any
			if err := json.Unmarshal([]byte(tc.in), &obj); err != nil {
				t.Fatal(err)
			}
			err, unknown := Coerce(nil, obj, s, tc.opts)
			if tc.coerceErr != "" {
				if err == nil || err.Error() != tc.coerceErr {
					t.Fatalf("Coerce(%s) = %v, want %s", tc.in, err, tc.coerceErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Coerce(%s) = %v", tc.in, err)
			}
			got, _ := json.Marshal(obj)
			if string(got) != tc.want {
				t.Errorf("Coerce(%s) = %s, want %s", tc.in, got, tc.want)
			}
			if !reflect.DeepEqual(unknown, tc.unknown) {
				t.Errorf("Coerce(%s) unknown = %q, want %q", tc.in, unknown, tc.unknown)
			}
			var msgs []string
			for _, e := range Validate(nil, obj, s, ValidateOptions{}) {
				msgs = append(msgs, e.Error())
			}
			if !reflect.DeepEqual(msgs, tc.invalid) {
				t.Errorf("Validate(%s) = %q, want %q", got, msgs, tc.invalid)
			}
		})
	}
}

// FuzzEmbedded: coercion and validation never panic, and coercing a
// coerced object changes nothing.
func FuzzEmbedded(f *testing.F) {
	f.Add(`{"one":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}}}}`)
	f.Add(`{"list":[{"kind":1,"metadata":{"name":2}}],"map":{"k":{"metadata":{"finalizers":["x"],"generation":3}}}}`)
	f.Add(`{"one":{"metadata":{"ownerReferences":[{"name":"o","controller":true}],"creationTimestamp":"2024-01-02T03:04:05Z"}}}`)
	s := embeddedSchema(f)
	f.Fuzz(func(t *testing.T, js string) {
		var obj any
		if json.Unmarshal([]byte(js), &obj) != nil {
			return
		}
		for _, drop := range []bool{false, true} {
			cp := schema.DeepCopyValue(obj)
			err, _ := Coerce(field.NewPath("x"), cp, s, CoerceOptions{ReturnUnknownFieldPaths: true, DropInvalidFields: drop})
			_ = Validate(field.NewPath("x"), cp, s, ValidateOptions{ResourceRoot: true})
			if err != nil {
				continue
			}
			once, _ := json.Marshal(cp)
			if err, _ := Coerce(field.NewPath("x"), cp, s, CoerceOptions{DropInvalidFields: drop}); err != nil {
				t.Fatalf("second Coerce of %s: %v", once, err)
			}
			if twice, _ := json.Marshal(cp); string(twice) != string(once) {
				t.Fatalf("Coerce is not idempotent: %s, then %s", once, twice)
			}
		}
	})
}

// TestValidateEmbeddedSortedOrder: the server walks an object's keys in map
// order, so its errors for several embedded resources come in any order;
// crdkit's come sorted by key, the same on every call, and its first
// coercion error is that of the first key in sorted order.
func TestValidateEmbeddedSortedOrder(t *testing.T) {
	s := embeddedSchema(t)
	in := `{"map":{"e":{"kind":"K"},"a":{"kind":"K"},"c":{"kind":"K"},"b":{"kind":"K"},"d":{"kind":"K"}},` +
		`"one":{"apiVersion":"v1"},"list":[{"apiVersion":"v1"},{"kind":"K"}]}`
	want := []string{
		"list[0].kind: Required value", "list[1].apiVersion: Required value",
		"map[a].apiVersion: Required value", "map[b].apiVersion: Required value", "map[c].apiVersion: Required value",
		"map[d].apiVersion: Required value", "map[e].apiVersion: Required value",
		"one.kind: Required value",
	}
	for range 20 {
		var obj any
		if err := json.Unmarshal([]byte(in), &obj); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range Validate(nil, obj, s, ValidateOptions{}) {
			got = append(got, e.Error())
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Validate = %q, want %q", got, want)
		}
		bad := `{"map":{"e":{"kind":1},"a":{"kind":1},"c":{"kind":1}},"one":{"kind":1}}`
		if err := json.Unmarshal([]byte(bad), &obj); err != nil {
			t.Fatal(err)
		}
		if err, _ := Coerce(nil, obj, s, CoerceOptions{}); err == nil || err.Error() != "map[a].kind: Invalid value: 1: must be a string" {
			t.Fatalf("Coerce = %v, want the error of map[a]", err)
		}
	}
}
