package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// parseDuplicates is ParseProps for JSON in which a key repeats in an
// object. The server decodes such a schema into apiextensions.k8s.io/v1
// JSONSchemaProps with a case-sensitive fork of encoding/json, which does
// not keep the last occurrence: it decodes every occurrence, in order, into
// the same Go value. A struct, or a pointer to one, merges the occurrences
// field by field; a map keeps the keys of each; a slice decodes element i
// into its old element i (a null element leaves it as it was); a null
// leaves a string or a bool as it was and clears a pointer, slice or map;
// a type error in any occurrence fails the decode. parseDuplicates gets the
// same result by the same means: it decodes into v1Props, a copy of the v1
// types' shapes, with encoding/json, whose decoding algorithm the fork
// keeps. encoding/json also matches keys that differ in case, so the keys
// that are not the v1 field names, which the server ignores, are dropped
// first. The result, written back as JSON, has no repeated keys (outside
// default, example and enum values, which are decoded as any, where the
// last occurrence wins on both sides).
func parseDuplicates(data []byte) (*Props, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	tree, err := orderedDecode(d)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	writeFiltered(&b, tree, aSchema)
	var p v1Props
	if err := json.Unmarshal(b.Bytes(), &p); err != nil {
		return nil, decodeError(err)
	}
	out, err := json.Marshal(&p)
	if err != nil {
		return nil, err
	}
	return parseProps(out, false)
}

// decodeError words encoding/json's errors about v1Props as ParseProps
// words its own.
func decodeError(err error) error {
	te, ok := err.(*json.UnmarshalTypeError)
	if !ok {
		return fmt.Errorf("openAPIV3Schema: %v", err)
	}
	want := "object"
	switch te.Type.Kind() {
	case reflect.String:
		want = "string"
	case reflect.Bool:
		want = "boolean"
	case reflect.Float64:
		want = "number"
	case reflect.Int64:
		want = "integer"
	case reflect.Slice:
		want = "array"
	}
	if te.Field == "" {
		return fmt.Errorf("openAPIV3Schema: expected %s, got %s", want, te.Value)
	}
	return fmt.Errorf("openAPIV3Schema.%s: expected %s, got %s", te.Field, want, te.Value)
}

// pair is a key of a JSON object and its value, in document order.
type pair struct {
	key string
	val any
}

// object is a JSON object with its keys in order, repeated ones included.
type object []pair

// orderedDecode reads one JSON value: objects as object, arrays as []any,
// numbers as json.Number. The input decoded as any before, so its nesting
// is within encoding/json's bound.
func orderedDecode(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		var o object
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := orderedDecode(d)
			if err != nil {
				return nil, err
			}
			o = append(o, pair{k.(string), v})
		}
		_, err := d.Token() // '}'
		return o, err
	case json.Delim('['):
		a := []any{}
		for d.More() {
			v, err := orderedDecode(d)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := d.Token() // ']'
		return a, err
	}
	return tok, nil
}

// v1Kind is what a JSON value stands for in the v1 types, for writeFiltered.
type v1Kind int

const (
	asIs      v1Kind = iota // any value: every key kept
	aSchema                 // JSONSchemaProps
	schemas                 // []JSONSchemaProps
	schemaMap               // map[string]JSONSchemaProps (and the dependencies)
	items                   // JSONSchemaPropsOrArray
	docs                    // ExternalDocumentation
	rules                   // []ValidationRule
	aRule                   // ValidationRule
)

// schemaKey says what a JSONSchemaProps key holds; false for a key the v1
// type does not have.
func schemaKey(k string) (v1Kind, bool) {
	switch k {
	case "items":
		return items, true
	case "allOf", "oneOf", "anyOf":
		return schemas, true
	case "not", "additionalProperties", "additionalItems":
		return aSchema, true
	case "properties", "patternProperties", "definitions", "dependencies":
		return schemaMap, true
	case "externalDocs":
		return docs, true
	case "x-kubernetes-validations":
		return rules, true
	case "id", "$schema", "$ref", "description", "type", "format", "title", "default", "maximum",
		"exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern",
		"maxItems", "minItems", "uniqueItems", "multipleOf", "enum", "maxProperties",
		"minProperties", "required", "example", "nullable", "x-kubernetes-preserve-unknown-fields",
		"x-kubernetes-embedded-resource", "x-kubernetes-int-or-string",
		"x-kubernetes-list-map-keys", "x-kubernetes-list-type", "x-kubernetes-map-type":
		return asIs, true
	}
	return asIs, false
}

// writeFiltered writes v as JSON, repeated keys included, dropping from
// the objects that stand for a v1 struct the keys it does not have. A
// value of another shape than its kind's (a list of property names under
// dependencies, a value of the wrong type) is written as it is, and the
// decode takes it as the server's does.
func writeFiltered(b *bytes.Buffer, v any, k v1Kind) {
	switch t := v.(type) {
	case object:
		b.WriteByte('{')
		n := 0
		for _, p := range t {
			sub := asIs
			switch k {
			case aSchema, items:
				var known bool
				if sub, known = schemaKey(p.key); !known {
					continue
				}
			case schemaMap:
				sub = aSchema
			case docs:
				if p.key != "description" && p.key != "url" {
					continue
				}
			case aRule:
				switch p.key {
				case "rule", "message", "messageExpression", "reason", "fieldPath", "optionalOldSelf":
				default:
					continue
				}
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			writeString(b, p.key)
			b.WriteByte(':')
			writeFiltered(b, p.val, sub)
		}
		b.WriteByte('}')
	case []any:
		sub := asIs
		switch k {
		case schemas, items:
			sub = aSchema
		case rules:
			sub = aRule
		}
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			writeFiltered(b, e, sub)
		}
		b.WriteByte(']')
	case string:
		writeString(b, t)
	case json.Number:
		b.WriteString(string(t))
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nil:
		b.WriteString("null")
	}
}

func writeString(b *bytes.Buffer, s string) {
	js, _ := json.Marshal(s) // a string always encodes
	b.Write(js)
}

// v1Props has the Go shapes of apiextensions.k8s.io/v1 JSONSchemaProps,
// field for field, so that encoding/json decodes repeated keys into it as
// the server's decoder does. Written back with encoding/json, nil stays
// null (which ParseProps reads as absent) and empty stays empty.
type v1Props struct {
	ID                     string                    `json:"id"`
	Schema                 string                    `json:"$schema"`
	Ref                    *string                   `json:"$ref"`
	Description            string                    `json:"description"`
	Type                   string                    `json:"type"`
	Format                 string                    `json:"format"`
	Title                  string                    `json:"title"`
	Default                *v1Raw                    `json:"default"`
	Maximum                *float64                  `json:"maximum"`
	ExclusiveMaximum       bool                      `json:"exclusiveMaximum"`
	Minimum                *float64                  `json:"minimum"`
	ExclusiveMinimum       bool                      `json:"exclusiveMinimum"`
	MaxLength              *int64                    `json:"maxLength"`
	MinLength              *int64                    `json:"minLength"`
	Pattern                string                    `json:"pattern"`
	MaxItems               *int64                    `json:"maxItems"`
	MinItems               *int64                    `json:"minItems"`
	UniqueItems            bool                      `json:"uniqueItems"`
	MultipleOf             *float64                  `json:"multipleOf"`
	Enum                   []v1Raw                   `json:"enum"`
	MaxProperties          *int64                    `json:"maxProperties"`
	MinProperties          *int64                    `json:"minProperties"`
	Required               []string                  `json:"required"`
	Items                  *v1PropsOrArray           `json:"items"`
	AllOf                  []v1Props                 `json:"allOf"`
	OneOf                  []v1Props                 `json:"oneOf"`
	AnyOf                  []v1Props                 `json:"anyOf"`
	Not                    *v1Props                  `json:"not"`
	Properties             map[string]v1Props        `json:"properties"`
	AdditionalProperties   *v1PropsOrBool            `json:"additionalProperties"`
	PatternProperties      map[string]v1Props        `json:"patternProperties"`
	Dependencies           map[string]v1PropsOrNames `json:"dependencies"`
	AdditionalItems        *v1PropsOrBool            `json:"additionalItems"`
	Definitions            map[string]v1Props        `json:"definitions"`
	ExternalDocs           *v1Docs                   `json:"externalDocs"`
	Example                *v1Raw                    `json:"example"`
	Nullable               bool                      `json:"nullable"`
	XPreserveUnknownFields *bool                     `json:"x-kubernetes-preserve-unknown-fields"`
	XEmbeddedResource      bool                      `json:"x-kubernetes-embedded-resource"`
	XIntOrString           bool                      `json:"x-kubernetes-int-or-string"`
	XListMapKeys           []string                  `json:"x-kubernetes-list-map-keys"`
	XListType              *string                   `json:"x-kubernetes-list-type"`
	XMapType               *string                   `json:"x-kubernetes-map-type"`
	XValidations           []v1Rule                  `json:"x-kubernetes-validations"`
}

type v1Docs struct {
	Description string `json:"description"`
	URL         string `json:"url"`
}

type v1Rule struct {
	Rule              string  `json:"rule"`
	Message           string  `json:"message"`
	MessageExpression string  `json:"messageExpression"`
	Reason            *string `json:"reason"`
	FieldPath         string  `json:"fieldPath"`
	OptionalOldSelf   *bool   `json:"optionalOldSelf"`
}

// v1Raw is the v1 JSON type: the bytes of a value; a null leaves them as
// they were.
type v1Raw []byte

func (r *v1Raw) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && string(data) != "null" {
		*r = append((*r)[:0], data...)
	}
	return nil
}

func (r v1Raw) MarshalJSON() ([]byte, error) {
	if r == nil {
		return []byte("null"), nil
	}
	return r, nil
}

// v1PropsOrArray is the v1 items: a schema, a list of schemas, or (any
// other value) present and empty. Every occurrence replaces the last.
type v1PropsOrArray struct {
	Schema  *v1Props
	Schemas []v1Props
}

func (s *v1PropsOrArray) UnmarshalJSON(data []byte) error {
	var nw v1PropsOrArray
	if len(data) > 1 && data[0] == '{' {
		nw.Schema = new(v1Props)
		if err := json.Unmarshal(data, nw.Schema); err != nil {
			return err
		}
	}
	if len(data) > 1 && data[0] == '[' {
		if err := json.Unmarshal(data, &nw.Schemas); err != nil {
			return err
		}
	}
	*s = nw
	return nil
}

func (s v1PropsOrArray) MarshalJSON() ([]byte, error) {
	switch {
	case s.Schema != nil:
		return json.Marshal(s.Schema)
	case s.Schemas != nil:
		return json.Marshal(s.Schemas)
	}
	return []byte("true"), nil // present and empty, as ParseProps reads it
}

// v1PropsOrBool is the v1 additionalProperties and additionalItems.
type v1PropsOrBool struct {
	Allows bool
	Schema *v1Props
}

func (s *v1PropsOrBool) UnmarshalJSON(data []byte) error {
	var nw v1PropsOrBool
	switch {
	case len(data) == 0:
	case data[0] == '{':
		nw.Schema = new(v1Props)
		if err := json.Unmarshal(data, nw.Schema); err != nil {
			return err
		}
		nw.Allows = true
	case string(data) == "true":
		nw.Allows = true
	case string(data) == "false":
	default:
		return fmt.Errorf("boolean or JSON schema expected")
	}
	*s = nw
	return nil
}

func (s v1PropsOrBool) MarshalJSON() ([]byte, error) {
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	return json.Marshal(s.Allows)
}

// v1PropsOrNames is a v1 dependency: a schema, a list of property names,
// or (any other value) empty.
type v1PropsOrNames struct {
	Schema *v1Props
	Names  []string
}

func (s *v1PropsOrNames) UnmarshalJSON(data []byte) error {
	var nw v1PropsOrNames
	if len(data) > 1 && data[0] == '{' {
		nw.Schema = new(v1Props)
		if err := json.Unmarshal(data, nw.Schema); err != nil {
			return err
		}
	}
	if len(data) > 1 && data[0] == '[' {
		if err := json.Unmarshal(data, &nw.Names); err != nil {
			return err
		}
	}
	*s = nw
	return nil
}

func (s v1PropsOrNames) MarshalJSON() ([]byte, error) {
	switch {
	case s.Schema != nil:
		return json.Marshal(s.Schema)
	case s.Names != nil:
		return json.Marshal(s.Names)
	}
	return []byte("true"), nil // neither, as ParseProps reads it
}

// countKeys counts the keys of the objects in valid JSON: the colons
// outside strings.
func countKeys(data []byte) int {
	n := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case ':':
			n++
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		}
	}
	return n
}
