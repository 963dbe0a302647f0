package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Props is an OpenAPI v3 schema as a CustomResourceDefinition spells it: the
// JSON of a version's openAPIV3Schema, field for field. It is the input to the
// structural checks and to Compile. Presence matters where the server's checks
// look at it: nil and empty slices and maps are kept apart, and so are absent
// and false pointers.
//
// Numbers in default, example and enum are int64 for integers that fit and
// float64 otherwise, as the server's conversion to its internal types gives
// them.
type Props struct {
	ID               string
	Schema           string // $schema
	Ref              *string
	Description      string
	Type             string
	Format           string
	Title            string
	Default          *Value
	Maximum          *float64
	Minimum          *float64
	ExclusiveMaximum bool
	ExclusiveMinimum bool
	UniqueItems      bool
	HasItems         bool // items was present at all
	Nullable         bool
	// The booleans are side by side (a Props fits in 512 bytes, the
	// largest objects Go's allocator types without a header word).
	XEmbeddedResource bool
	XIntOrString      bool
	MaxLength         *int64
	MinLength         *int64
	Pattern           string
	MaxItems          *int64
	MinItems          *int64
	MultipleOf        *float64
	Enum              []any
	MaxProperties     *int64
	MinProperties     *int64
	Required          []string
	Items             *Props   // items given as one schema
	ItemsArray        []*Props // items given as an array (never structural)
	// ItemsOrigin, when set, holds the value error messages show for items
	// not given as one schema (the facade sets it to the server's own type
	// so texts match byte for byte).
	ItemsOrigin            *Value
	AllOf                  []*Props
	OneOf                  []*Props
	AnyOf                  []*Props
	Not                    *Props
	Properties             map[string]*Props
	AdditionalProperties   *PropsOrBool
	PatternProperties      map[string]*Props
	Dependencies           map[string]Dependency
	AdditionalItems        *PropsOrBool
	Definitions            map[string]*Props
	ExternalDocs           *ExternalDocs
	Example                *Value
	XPreserveUnknownFields *bool
	XListMapKeys           []string
	XListType              *string
	XMapType               *string
	XValidations           []ValidationRule
}

// Value wraps a decoded JSON value whose presence matters (default, example).
type Value struct{ V any }

// PropsOrBool is additionalProperties (or additionalItems): a schema, or a
// boolean. A schema implies Allows.
type PropsOrBool struct {
	Allows bool
	Schema *Props
}

// Dependency is one entry of the unsupported dependencies keyword.
type Dependency struct {
	Schema   *Props
	Property []string
}

// ExternalDocs is the externalDocs keyword.
type ExternalDocs struct {
	Description string `json:"description,omitempty"`
	URL         string `json:"url,omitempty"`
}

// ValidationRule is one x-kubernetes-validations entry.
type ValidationRule struct {
	Rule              string  `json:"rule"`
	Message           string  `json:"message,omitempty"`
	MessageExpression string  `json:"messageExpression,omitempty"`
	Reason            *string `json:"reason,omitempty"`
	FieldPath         string  `json:"fieldPath,omitempty"`
	OptionalOldSelf   *bool   `json:"optionalOldSelf,omitempty"`
}

// UnmarshalJSON decodes the openAPIV3Schema JSON of a CRD version with the
// presence rules of apiextensions.k8s.io/v1 (see ParseProps).
func (p *Props) UnmarshalJSON(data []byte) error {
	q, err := ParseProps(data)
	if err != nil {
		return err
	}
	if q == nil {
		q = new(Props)
	}
	*p = *q
	return nil
}

// ParseProps decodes the JSON of an openAPIV3Schema in one pass. Keys are
// case sensitive, as the server reads them; unknown keys are ignored; a key
// that repeats in an object is decoded as the server decodes it (see
// parseDuplicates: struct fields merge, a null clears only what a Go
// pointer, slice or map holds); a value of another JSON type than the
// v1 field's is an error, as when the server decodes a CRD (except an items
// or a dependency that is neither a schema nor a list, which the v1 types
// ignore). Numbers in default, example and enum become int64 when they are
// integers that fit, float64 otherwise, as the server's conversion to its
// internal types gives them. A JSON null gives a nil *Props. Schemas nested
// deeper than the supported depth are refused with ErrTooDeep.
func ParseProps(data []byte) (*Props, error) {
	return parseProps(data, true)
}

// parseProps is ParseProps; with dups false it does not look for repeated
// keys (data is parseDuplicates' own output).
func parseProps(data []byte, dups bool) (*Props, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("invalid character after top-level value")
	}
	if v == nil {
		return new(Props), nil // as a null decodes into the v1 type
	}
	keys := 0
	if err := checkNumbers(v, &keys); err != nil {
		return nil, err
	}
	if dups && keys != countKeys(data) {
		// A key repeats in an object, which decoding into any resolved
		// by keeping its last value; the server's decoder does not.
		return parseDuplicates(data)
	}
	return propsFrom(v, "", 0)
}

// checkNumbers adds the keys of v's objects to *keys. Numbers that do not
// fit a float64 are refused where the server decodes them (numeric fields,
// default, example, enum: numberError), not under keys it ignores.
func checkNumbers(v any, keys *int) error {
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			if err := checkNumbers(e, keys); err != nil {
				return err
			}
		}
	case map[string]any:
		*keys += len(t)
		for _, e := range t {
			if err := checkNumbers(e, keys); err != nil {
				return err
			}
		}
	}
	return nil
}

// numberError is the refusal of a number that does not fit a float64, as
// decoding into the server's types refuses it.
func numberError(n json.Number) error {
	return fmt.Errorf("json: cannot unmarshal number %s into a float64", string(n))
}

// propsFrom builds Props from a decoded JSON value (numbers as
// json.Number). at names the place for error messages.
func propsFrom(v any, at string, depth int) (*Props, error) {
	if v == nil {
		return nil, nil
	}
	if depth > maxDepth {
		return nil, ErrTooDeep
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a schema must be a JSON object, got %s", where(at), jsonKind(v))
	}
	p := new(Props)
	var err error
	str := func(k string, dst *string) {
		if x, ok := m[k]; ok && x != nil && err == nil {
			if *dst, ok = x.(string); !ok {
				err = typeError(at, k, "string", x)
			}
		}
	}
	strPtr := func(k string, dst **string) {
		if x, ok := m[k]; ok && x != nil && err == nil {
			s, ok := x.(string)
			if !ok {
				err = typeError(at, k, "string", x)
				return
			}
			*dst = &s
		}
	}
	boolean := func(k string, dst *bool) {
		if x, ok := m[k]; ok && x != nil && err == nil {
			if *dst, ok = x.(bool); !ok {
				err = typeError(at, k, "boolean", x)
			}
		}
	}
	boolPtr := func(k string, dst **bool) {
		if x, ok := m[k]; ok && x != nil && err == nil {
			b, ok := x.(bool)
			if !ok {
				err = typeError(at, k, "boolean", x)
				return
			}
			*dst = &b
		}
	}
	float := func(k string, dst **float64) {
		if x, ok := m[k]; ok && x != nil && err == nil {
			n, ok := x.(json.Number)
			if !ok {
				err = typeError(at, k, "number", x)
				return
			}
			f, e := n.Float64()
			if e != nil {
				err = numberError(n)
				return
			}
			*dst = &f
		}
	}
	integer := func(k string, dst **int64) {
		if x, ok := m[k]; ok && x != nil && err == nil {
			n, ok := x.(json.Number)
			if !ok {
				err = typeError(at, k, "integer", x)
				return
			}
			if _, e := n.Float64(); e != nil {
				err = numberError(n)
				return
			}
			i, e := n.Int64()
			if e != nil {
				err = fmt.Errorf("%s.%s: %v", where(at), k, e)
				return
			}
			*dst = &i
		}
	}
	strs := func(k string, dst *[]string) {
		if x, ok := m[k]; ok && x != nil && err == nil {
			l, ok := x.([]any)
			if !ok {
				err = typeError(at, k, "array", x)
				return
			}
			out := make([]string, 0, len(l))
			for _, e := range l {
				s, ok := e.(string)
				if !ok && e != nil {
					err = typeError(at, k, "array of strings", e)
					return
				}
				out = append(out, s)
			}
			*dst = out
		}
	}
	value := func(k string, dst **Value) {
		if x, ok := m[k]; ok && x != nil && err == nil {
			if err = checkValueNumbers(x); err == nil {
				*dst = &Value{V: plainValue(x)}
			}
		}
	}
	str("id", &p.ID)
	str("$schema", &p.Schema)
	strPtr("$ref", &p.Ref)
	str("description", &p.Description)
	str("type", &p.Type)
	str("format", &p.Format)
	str("title", &p.Title)
	value("default", &p.Default)
	float("maximum", &p.Maximum)
	boolean("exclusiveMaximum", &p.ExclusiveMaximum)
	float("minimum", &p.Minimum)
	boolean("exclusiveMinimum", &p.ExclusiveMinimum)
	integer("maxLength", &p.MaxLength)
	integer("minLength", &p.MinLength)
	str("pattern", &p.Pattern)
	integer("maxItems", &p.MaxItems)
	integer("minItems", &p.MinItems)
	boolean("uniqueItems", &p.UniqueItems)
	float("multipleOf", &p.MultipleOf)
	integer("maxProperties", &p.MaxProperties)
	integer("minProperties", &p.MinProperties)
	strs("required", &p.Required)
	boolean("nullable", &p.Nullable)
	value("example", &p.Example)
	boolPtr("x-kubernetes-preserve-unknown-fields", &p.XPreserveUnknownFields)
	boolean("x-kubernetes-embedded-resource", &p.XEmbeddedResource)
	boolean("x-kubernetes-int-or-string", &p.XIntOrString)
	strs("x-kubernetes-list-map-keys", &p.XListMapKeys)
	strPtr("x-kubernetes-list-type", &p.XListType)
	strPtr("x-kubernetes-map-type", &p.XMapType)
	if err != nil {
		return nil, err
	}
	if x, ok := m["enum"]; ok && x != nil {
		l, ok := x.([]any)
		if !ok {
			return nil, typeError(at, "enum", "array", x)
		}
		for _, e := range l {
			if err := checkValueNumbers(e); err != nil {
				return nil, err
			}
			p.Enum = append(p.Enum, plainValue(e))
		}
	}
	if x, ok := m["items"]; ok && x != nil {
		p.HasItems = true
		switch t := x.(type) {
		case map[string]any:
			if p.Items, err = propsFrom(t, at+".items", depth+1); err != nil {
				return nil, err
			}
		case []any:
			if p.ItemsArray, err = propsList(t, at+".items", depth); err != nil {
				return nil, err
			}
		default:
			// The v1 type ignores an items value that is neither a schema
			// nor a list: present, but empty.
		}
	}
	for _, l := range []struct {
		k   string
		dst *[]*Props
	}{{"allOf", &p.AllOf}, {"oneOf", &p.OneOf}, {"anyOf", &p.AnyOf}} {
		if x, ok := m[l.k]; ok && x != nil {
			a, ok := x.([]any)
			if !ok {
				return nil, typeError(at, l.k, "array", x)
			}
			if *l.dst, err = propsList(a, at+"."+l.k, depth); err != nil {
				return nil, err
			}
		}
	}
	if p.Not, err = propsFrom(m["not"], at+".not", depth+1); err != nil {
		return nil, err
	}
	for _, mp := range []struct {
		k   string
		dst *map[string]*Props
	}{{"properties", &p.Properties}, {"patternProperties", &p.PatternProperties}, {"definitions", &p.Definitions}} {
		if x, ok := m[mp.k]; ok && x != nil {
			o, ok := x.(map[string]any)
			if !ok {
				return nil, typeError(at, mp.k, "object", x)
			}
			out := make(map[string]*Props, len(o))
			for k, e := range o {
				c, err := propsFrom(e, at+"."+mp.k+"["+k+"]", depth+1)
				if err != nil {
					return nil, err
				}
				if c == nil {
					c = new(Props)
				}
				out[k] = c
			}
			*mp.dst = out
		}
	}
	if p.AdditionalProperties, err = propsOrBoolFrom(m["additionalProperties"], at+".additionalProperties", depth); err != nil {
		return nil, err
	}
	if p.AdditionalItems, err = propsOrBoolFrom(m["additionalItems"], at+".additionalItems", depth); err != nil {
		return nil, err
	}
	if x, ok := m["dependencies"]; ok && x != nil {
		o, ok := x.(map[string]any)
		if !ok {
			return nil, typeError(at, "dependencies", "object", x)
		}
		p.Dependencies = make(map[string]Dependency, len(o))
		for k, e := range o {
			var dep Dependency
			switch t := e.(type) {
			case map[string]any:
				if dep.Schema, err = propsFrom(t, at+".dependencies["+k+"]", depth+1); err != nil {
					return nil, err
				}
			case []any:
				dep.Property = make([]string, 0, len(t)) // [] is kept, as the v1 type keeps it
				for i, e := range t {
					s, ok := e.(string)
					if !ok && e != nil {
						return nil, fmt.Errorf("%s.dependencies[%s][%d]: expected string, got %s", where(at), k, i, jsonKind(e))
					}
					dep.Property = append(dep.Property, s)
				}
			}
			p.Dependencies[k] = dep
		}
	}
	if x, ok := m["externalDocs"]; ok && x != nil {
		d, ok := x.(map[string]any)
		if !ok {
			return nil, typeError(at, "externalDocs", "object", x)
		}
		p.ExternalDocs = &ExternalDocs{}
		if err := fields(d, at+".externalDocs", []jsonField{{"description", &p.ExternalDocs.Description}, {"url", &p.ExternalDocs.URL}}); err != nil {
			return nil, err
		}
	}
	if x, ok := m["x-kubernetes-validations"]; ok && x != nil {
		l, ok := x.([]any)
		if !ok {
			return nil, typeError(at, "x-kubernetes-validations", "array", x)
		}
		p.XValidations = make([]ValidationRule, 0, len(l))
		for i, e := range l {
			var vr ValidationRule
			if e != nil {
				r, ok := e.(map[string]any)
				if !ok {
					return nil, typeError(at, "x-kubernetes-validations", "array of objects", e)
				}
				if err := fields(r, fmt.Sprintf("%s.x-kubernetes-validations[%d]", at, i), []jsonField{
					{"rule", &vr.Rule}, {"message", &vr.Message}, {"messageExpression", &vr.MessageExpression},
					{"reason", &vr.Reason}, {"fieldPath", &vr.FieldPath}, {"optionalOldSelf", &vr.OptionalOldSelf},
				}); err != nil {
					return nil, err
				}
			}
			p.XValidations = append(p.XValidations, vr)
		}
	}
	return p, nil
}

// jsonField is a key of a JSON object and where its value goes: a *string,
// **string or **bool.
type jsonField struct {
	key string
	dst any
}

// fields decodes the keys of a JSON object into their destinations, in
// order, as decoding into a Go struct does: a null leaves the destination
// unset, a value of another type is an error.
func fields(o map[string]any, at string, fs []jsonField) error {
	for _, f := range fs {
		k, d := f.key, f.dst
		x, ok := o[k]
		if !ok || x == nil {
			continue
		}
		var good bool
		switch d := d.(type) {
		case *string:
			*d, good = x.(string)
		case **string:
			if s, ok := x.(string); ok {
				*d, good = &s, true
			}
		case **bool:
			if b, ok := x.(bool); ok {
				*d, good = &b, true
			}
		}
		if !good {
			want := "string"
			if _, ok := d.(**bool); ok {
				want = "boolean"
			}
			return typeError(at, k, want, x)
		}
	}
	return nil
}

func propsList(l []any, at string, depth int) ([]*Props, error) {
	out := make([]*Props, len(l))
	for i, e := range l {
		c, err := propsFrom(e, fmt.Sprintf("%s[%d]", at, i), depth+1)
		if err != nil {
			return nil, err
		}
		if c == nil {
			c = new(Props)
		}
		out[i] = c
	}
	return out, nil
}

func propsOrBoolFrom(x any, at string, depth int) (*PropsOrBool, error) {
	switch t := x.(type) {
	case nil:
		return nil, nil
	case bool:
		return &PropsOrBool{Allows: t}, nil
	case map[string]any:
		s, err := propsFrom(t, at, depth+1)
		if err != nil {
			return nil, err
		}
		return &PropsOrBool{Allows: true, Schema: s}, nil
	}
	return nil, fmt.Errorf("%s: boolean or JSON schema expected", where(at))
}

// checkValueNumbers refuses a value (a default, an example, an enum
// member) holding a number that does not fit a float64.
func checkValueNumbers(v any) error {
	switch t := v.(type) {
	case json.Number:
		if _, err := t.Float64(); err != nil {
			return numberError(t)
		}
	case []any:
		for _, e := range t {
			if err := checkValueNumbers(e); err != nil {
				return err
			}
		}
	case map[string]any:
		for _, e := range t {
			if err := checkValueNumbers(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// plainValue converts json.Number values to int64 (integers that fit) or
// float64, recursively.
func plainValue(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case []any:
		for i, e := range t {
			t[i] = plainValue(e)
		}
	case map[string]any:
		for k, e := range t {
			t[k] = plainValue(e)
		}
	}
	return v
}

func where(at string) string {
	if at == "" {
		return "openAPIV3Schema"
	}
	return "openAPIV3Schema" + at
}

func typeError(at, key, want string, got any) error {
	return fmt.Errorf("%s.%s: expected %s, got %s", where(at), key, want, jsonKind(got))
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}
