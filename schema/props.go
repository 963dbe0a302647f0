package schema

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Props is an OpenAPI v3 schema as a CustomResourceDefinition spells it: the
// JSON of a version's openAPIV3Schema, field for field. It is the input to the
// structural checks and to Compile. Presence matters where the server's checks
// look at it: nil and empty slices and maps are kept apart, and so are absent
// and false pointers.
//
// Numbers in default, example and enum are decoded as encoding/json decodes
// into interface values (float64), as the server's conversion does.
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
	ExclusiveMaximum bool
	Minimum          *float64
	ExclusiveMinimum bool
	MaxLength        *int64
	MinLength        *int64
	Pattern          string
	MaxItems         *int64
	MinItems         *int64
	UniqueItems      bool
	MultipleOf       *float64
	Enum             []any
	MaxProperties    *int64
	MinProperties    *int64
	Required         []string
	Items            *Props   // items given as one schema
	ItemsArray       []*Props // items given as an array (never structural)
	HasItems         bool     // items was present at all
	// ItemsOrigin, when set, is the value error messages show for items (the
	// facade sets it to the server's own type so texts match byte for byte).
	ItemsOrigin          any
	AllOf                []*Props
	OneOf                []*Props
	AnyOf                []*Props
	Not                  *Props
	Properties           map[string]*Props
	AdditionalProperties *PropsOrBool
	PatternProperties    map[string]*Props
	Dependencies         map[string]Dependency
	AdditionalItems      *PropsOrBool
	Definitions          map[string]*Props
	ExternalDocs         *ExternalDocs
	Example              *Value
	Nullable             bool

	XPreserveUnknownFields *bool
	XEmbeddedResource      bool
	XIntOrString           bool
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

// propsJSON is the wire shape of Props.
type propsJSON struct {
	ID                     string                     `json:"id,omitempty"`
	Schema                 string                     `json:"$schema,omitempty"`
	Ref                    *string                    `json:"$ref,omitempty"`
	Description            string                     `json:"description,omitempty"`
	Type                   string                     `json:"type,omitempty"`
	Format                 string                     `json:"format,omitempty"`
	Title                  string                     `json:"title,omitempty"`
	Default                json.RawMessage            `json:"default,omitempty"`
	Maximum                *float64                   `json:"maximum,omitempty"`
	ExclusiveMaximum       bool                       `json:"exclusiveMaximum,omitempty"`
	Minimum                *float64                   `json:"minimum,omitempty"`
	ExclusiveMinimum       bool                       `json:"exclusiveMinimum,omitempty"`
	MaxLength              *int64                     `json:"maxLength,omitempty"`
	MinLength              *int64                     `json:"minLength,omitempty"`
	Pattern                string                     `json:"pattern,omitempty"`
	MaxItems               *int64                     `json:"maxItems,omitempty"`
	MinItems               *int64                     `json:"minItems,omitempty"`
	UniqueItems            bool                       `json:"uniqueItems,omitempty"`
	MultipleOf             *float64                   `json:"multipleOf,omitempty"`
	Enum                   []json.RawMessage          `json:"enum,omitempty"`
	MaxProperties          *int64                     `json:"maxProperties,omitempty"`
	MinProperties          *int64                     `json:"minProperties,omitempty"`
	Required               []string                   `json:"required,omitempty"`
	Items                  json.RawMessage            `json:"items,omitempty"`
	AllOf                  []*Props                   `json:"allOf,omitempty"`
	OneOf                  []*Props                   `json:"oneOf,omitempty"`
	AnyOf                  []*Props                   `json:"anyOf,omitempty"`
	Not                    *Props                     `json:"not,omitempty"`
	Properties             map[string]*Props          `json:"properties,omitempty"`
	AdditionalProperties   json.RawMessage            `json:"additionalProperties,omitempty"`
	PatternProperties      map[string]*Props          `json:"patternProperties,omitempty"`
	Dependencies           map[string]json.RawMessage `json:"dependencies,omitempty"`
	AdditionalItems        json.RawMessage            `json:"additionalItems,omitempty"`
	Definitions            map[string]*Props          `json:"definitions,omitempty"`
	ExternalDocs           *ExternalDocs              `json:"externalDocs,omitempty"`
	Example                json.RawMessage            `json:"example,omitempty"`
	Nullable               bool                       `json:"nullable,omitempty"`
	XPreserveUnknownFields *bool                      `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	XEmbeddedResource      bool                       `json:"x-kubernetes-embedded-resource,omitempty"`
	XIntOrString           bool                       `json:"x-kubernetes-int-or-string,omitempty"`
	XListMapKeys           []string                   `json:"x-kubernetes-list-map-keys,omitempty"`
	XListType              *string                    `json:"x-kubernetes-list-type,omitempty"`
	XMapType               *string                    `json:"x-kubernetes-map-type,omitempty"`
	XValidations           []ValidationRule           `json:"x-kubernetes-validations,omitempty"`
}

var nullLiteral = []byte("null")

func isNull(b []byte) bool { return len(b) == 0 || bytes.Equal(b, nullLiteral) }

// decodeAny decodes a JSON value as the server's v1-to-internal conversion
// does: numbers become float64, null becomes nil.
func decodeAny(b []byte) (any, error) {
	if isNull(b) {
		return nil, nil
	}
	var v any
	err := json.Unmarshal(b, &v)
	return v, err
}

// UnmarshalJSON decodes the openAPIV3Schema JSON of a CRD version with the
// same presence rules as apiextensions.k8s.io/v1.
func (p *Props) UnmarshalJSON(data []byte) error {
	var w propsJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*p = Props{
		ID: w.ID, Schema: w.Schema, Ref: w.Ref, Description: w.Description, Type: w.Type,
		Format: w.Format, Title: w.Title, Maximum: w.Maximum, ExclusiveMaximum: w.ExclusiveMaximum,
		Minimum: w.Minimum, ExclusiveMinimum: w.ExclusiveMinimum, MaxLength: w.MaxLength,
		MinLength: w.MinLength, Pattern: w.Pattern, MaxItems: w.MaxItems, MinItems: w.MinItems,
		UniqueItems: w.UniqueItems, MultipleOf: w.MultipleOf, MaxProperties: w.MaxProperties,
		MinProperties: w.MinProperties, Required: w.Required, AllOf: w.AllOf, OneOf: w.OneOf,
		AnyOf: w.AnyOf, Not: w.Not, Properties: w.Properties, PatternProperties: w.PatternProperties,
		Definitions: w.Definitions, ExternalDocs: w.ExternalDocs, Nullable: w.Nullable,
		XPreserveUnknownFields: w.XPreserveUnknownFields, XEmbeddedResource: w.XEmbeddedResource,
		XIntOrString: w.XIntOrString, XListMapKeys: w.XListMapKeys, XListType: w.XListType,
		XMapType: w.XMapType, XValidations: w.XValidations,
	}
	// A null schema inside a map or list is an empty schema in the v1 types.
	fillNil(p.AllOf)
	fillNil(p.OneOf)
	fillNil(p.AnyOf)
	fillNilMap(p.Properties)
	fillNilMap(p.PatternProperties)
	fillNilMap(p.Definitions)
	// A JSON null for a pointer field leaves it absent, as in the v1 types.
	if !isNull(w.Default) {
		v, err := decodeAny(w.Default)
		if err != nil {
			return err
		}
		p.Default = &Value{v}
	}
	if !isNull(w.Example) {
		v, err := decodeAny(w.Example)
		if err != nil {
			return err
		}
		p.Example = &Value{v}
	}
	for _, e := range w.Enum {
		v, err := decodeAny(e)
		if err != nil {
			return err
		}
		p.Enum = append(p.Enum, v)
	}
	if !isNull(w.Items) {
		p.HasItems = true
		switch w.Items[0] {
		case '{':
			p.Items = new(Props)
			if err := json.Unmarshal(w.Items, p.Items); err != nil {
				return err
			}
		case '[':
			if err := json.Unmarshal(w.Items, &p.ItemsArray); err != nil {
				return err
			}
			fillNil(p.ItemsArray)
			if p.ItemsArray == nil {
				p.ItemsArray = []*Props{}
			}
		}
	}
	var err error
	if p.AdditionalProperties, err = decodePropsOrBool(w.AdditionalProperties); err != nil {
		return err
	}
	if p.AdditionalItems, err = decodePropsOrBool(w.AdditionalItems); err != nil {
		return err
	}
	if w.Dependencies != nil {
		p.Dependencies = make(map[string]Dependency, len(w.Dependencies))
		for k, raw := range w.Dependencies {
			var d Dependency
			if len(raw) > 1 {
				switch raw[0] {
				case '{':
					d.Schema = new(Props)
					if err := json.Unmarshal(raw, d.Schema); err != nil {
						return err
					}
				case '[':
					if err := json.Unmarshal(raw, &d.Property); err != nil {
						return err
					}
				}
			}
			p.Dependencies[k] = d
		}
	}
	return nil
}

func decodePropsOrBool(raw []byte) (*PropsOrBool, error) {
	if isNull(raw) {
		return nil, nil
	}
	switch {
	case raw[0] == '{':
		s := new(Props)
		if err := json.Unmarshal(raw, s); err != nil {
			return nil, err
		}
		return &PropsOrBool{Allows: true, Schema: s}, nil
	case string(raw) == "true":
		return &PropsOrBool{Allows: true}, nil
	case string(raw) == "false":
		return &PropsOrBool{}, nil
	}
	return nil, errors.New("boolean or JSON schema expected")
}

// ParseProps decodes the JSON of an openAPIV3Schema.
func ParseProps(data []byte) (*Props, error) {
	p := new(Props)
	if err := json.Unmarshal(data, p); err != nil {
		return nil, err
	}
	return p, nil
}

func fillNil(l []*Props) {
	for i, x := range l {
		if x == nil {
			l[i] = new(Props)
		}
	}
}

func fillNilMap(m map[string]*Props) {
	for k, x := range m {
		if x == nil {
			m[k] = new(Props)
		}
	}
}
