package crdjson

import apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

// props decodes a schema. items, additionalProperties and additionalItems
// are decoded upstream by their own UnmarshalJSON with a non-strict
// decoder; on the inputs that reach them here (no unknown or repeated key)
// that gives the same as decoding them in place.
func (d *decoder) props(p *apiextensionsv1.JSONSchemaProps) bool {
	if !d.open('{') {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		k, done, ok := d.key(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(k) {
		case "id":
			ok = once(&seen, 0)
			if ok {
				p.ID, ok = d.str()
			}
		case "$schema":
			ok = once(&seen, 1)
			if ok {
				var s string
				s, ok = d.str()
				p.Schema = apiextensionsv1.JSONSchemaURL(s)
			}
		case "$ref":
			ok = once(&seen, 2)
			if ok {
				p.Ref, ok = d.strPtr()
			}
		case "description":
			ok = once(&seen, 3)
			if ok {
				p.Description, ok = d.str()
			}
		case "type":
			ok = once(&seen, 4)
			if ok {
				p.Type, ok = d.word()
			}
		case "format":
			ok = once(&seen, 5)
			if ok {
				p.Format, ok = d.word()
			}
		case "title":
			ok = once(&seen, 6)
			if ok {
				p.Title, ok = d.str()
			}
		case "default":
			ok = once(&seen, 7)
			if ok {
				p.Default, ok = d.rawPtr()
			}
		case "maximum":
			ok = once(&seen, 8)
			if ok {
				p.Maximum, ok = d.floatPtr()
			}
		case "exclusiveMaximum":
			ok = once(&seen, 9)
			if ok {
				p.ExclusiveMaximum, ok = d.boolean()
			}
		case "minimum":
			ok = once(&seen, 10)
			if ok {
				p.Minimum, ok = d.floatPtr()
			}
		case "exclusiveMinimum":
			ok = once(&seen, 11)
			if ok {
				p.ExclusiveMinimum, ok = d.boolean()
			}
		case "maxLength":
			ok = once(&seen, 12)
			if ok {
				p.MaxLength, ok = d.intPtr()
			}
		case "minLength":
			ok = once(&seen, 13)
			if ok {
				p.MinLength, ok = d.intPtr()
			}
		case "pattern":
			ok = once(&seen, 14)
			if ok {
				p.Pattern, ok = d.str()
			}
		case "maxItems":
			ok = once(&seen, 15)
			if ok {
				p.MaxItems, ok = d.intPtr()
			}
		case "minItems":
			ok = once(&seen, 16)
			if ok {
				p.MinItems, ok = d.intPtr()
			}
		case "uniqueItems":
			ok = once(&seen, 17)
			if ok {
				p.UniqueItems, ok = d.boolean()
			}
		case "multipleOf":
			ok = once(&seen, 18)
			if ok {
				p.MultipleOf, ok = d.floatPtr()
			}
		case "enum":
			ok = once(&seen, 19)
			if ok {
				p.Enum, ok = d.enum()
			}
		case "maxProperties":
			ok = once(&seen, 20)
			if ok {
				p.MaxProperties, ok = d.intPtr()
			}
		case "minProperties":
			ok = once(&seen, 21)
			if ok {
				p.MinProperties, ok = d.intPtr()
			}
		case "required":
			ok = once(&seen, 22)
			if ok {
				p.Required, ok = d.strings()
			}
		case "items":
			ok = once(&seen, 23)
			if ok {
				p.Items, ok = d.propsOrArray()
			}
		case "allOf":
			ok = once(&seen, 24)
			if ok {
				p.AllOf, ok = d.propsList()
			}
		case "oneOf":
			ok = once(&seen, 25)
			if ok {
				p.OneOf, ok = d.propsList()
			}
		case "anyOf":
			ok = once(&seen, 26)
			if ok {
				p.AnyOf, ok = d.propsList()
			}
		case "not":
			ok = once(&seen, 27)
			if ok {
				p.Not = new(apiextensionsv1.JSONSchemaProps)
				ok = d.props(p.Not)
			}
		case "properties":
			ok = once(&seen, 28)
			if ok {
				p.Properties, ok = d.propsMap()
			}
		case "additionalProperties":
			ok = once(&seen, 29)
			if ok {
				p.AdditionalProperties, ok = d.propsOrBool()
			}
		case "patternProperties":
			ok = once(&seen, 30)
			if ok {
				p.PatternProperties, ok = d.propsMap()
			}
		case "additionalItems":
			ok = once(&seen, 31)
			if ok {
				p.AdditionalItems, ok = d.propsOrBool()
			}
		case "definitions":
			ok = once(&seen, 32)
			if ok {
				var m map[string]apiextensionsv1.JSONSchemaProps
				m, ok = d.propsMap()
				p.Definitions = m
			}
		case "externalDocs":
			ok = once(&seen, 33)
			if ok {
				p.ExternalDocs = new(apiextensionsv1.ExternalDocumentation)
				ok = d.externalDocs(p.ExternalDocs)
			}
		case "example":
			ok = once(&seen, 34)
			if ok {
				p.Example, ok = d.rawPtr()
			}
		case "nullable":
			ok = once(&seen, 35)
			if ok {
				p.Nullable, ok = d.boolean()
			}
		case "x-kubernetes-preserve-unknown-fields":
			ok = once(&seen, 36)
			if ok {
				var b bool
				b, ok = d.boolean()
				p.XPreserveUnknownFields = &b
			}
		case "x-kubernetes-embedded-resource":
			ok = once(&seen, 37)
			if ok {
				p.XEmbeddedResource, ok = d.boolean()
			}
		case "x-kubernetes-int-or-string":
			ok = once(&seen, 38)
			if ok {
				p.XIntOrString, ok = d.boolean()
			}
		case "x-kubernetes-list-map-keys":
			ok = once(&seen, 39)
			if ok {
				p.XListMapKeys, ok = d.strings()
			}
		case "x-kubernetes-list-type":
			ok = once(&seen, 40)
			if ok {
				var w string
				w, ok = d.word()
				p.XListType = &w
			}
		case "x-kubernetes-map-type":
			ok = once(&seen, 41)
			if ok {
				var w string
				w, ok = d.word()
				p.XMapType = &w
			}
		case "x-kubernetes-validations":
			ok = once(&seen, 42)
			if ok {
				p.XValidations, ok = d.validations()
			}
		default: // dependencies among others
			ok = false
		}
		if !ok {
			return false
		}
	}
}

func (d *decoder) floatPtr() (*float64, bool) {
	f, ok := d.float()
	if !ok {
		return nil, false
	}
	return &f, true
}

func (d *decoder) intPtr() (*int64, bool) {
	n, ok := d.integer(64)
	if !ok {
		return nil, false
	}
	return &n, true
}

func (d *decoder) enum() ([]apiextensionsv1.JSON, bool) {
	if !d.open('[') {
		return nil, false
	}
	out := []apiextensionsv1.JSON{}
	for first := true; ; first = false {
		done, ok := d.elem(first)
		if !ok {
			return nil, false
		}
		if done {
			return out, true
		}
		j, ok := d.raw()
		if !ok {
			return nil, false
		}
		out = append(out, j)
	}
}

func (d *decoder) propsList() ([]apiextensionsv1.JSONSchemaProps, bool) {
	if !d.open('[') {
		return nil, false
	}
	out := []apiextensionsv1.JSONSchemaProps{}
	for first := true; ; first = false {
		done, ok := d.elem(first)
		if !ok {
			return nil, false
		}
		if done {
			return out, true
		}
		out = append(out, apiextensionsv1.JSONSchemaProps{})
		if !d.props(&out[len(out)-1]) {
			return nil, false
		}
	}
}

func (d *decoder) propsMap() (map[string]apiextensionsv1.JSONSchemaProps, bool) {
	if !d.open('{') {
		return nil, false
	}
	out := map[string]apiextensionsv1.JSONSchemaProps{}
	for first := true; ; first = false {
		k, done, ok := d.key(first)
		if !ok {
			return nil, false
		}
		if done {
			return out, true
		}
		if _, dup := out[string(k)]; dup {
			return nil, false
		}
		var p apiextensionsv1.JSONSchemaProps
		if !d.props(&p) {
			return nil, false
		}
		out[string(k)] = p
	}
}

// propsOrArray: an object is one schema, an array a list of them.
func (d *decoder) propsOrArray() (*apiextensionsv1.JSONSchemaPropsOrArray, bool) {
	switch d.peek() {
	case '{':
		s := new(apiextensionsv1.JSONSchemaProps)
		if !d.props(s) {
			return nil, false
		}
		return &apiextensionsv1.JSONSchemaPropsOrArray{Schema: s}, true
	case '[':
		l, ok := d.propsList()
		if !ok {
			return nil, false
		}
		return &apiextensionsv1.JSONSchemaPropsOrArray{JSONSchemas: l}, true
	}
	return nil, false
}

// propsOrBool: an object is a schema that allows, else true or false.
func (d *decoder) propsOrBool() (*apiextensionsv1.JSONSchemaPropsOrBool, bool) {
	if d.peek() == '{' {
		s := new(apiextensionsv1.JSONSchemaProps)
		if !d.props(s) {
			return nil, false
		}
		return &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: s}, true
	}
	b, ok := d.boolean()
	if !ok {
		return nil, false
	}
	return &apiextensionsv1.JSONSchemaPropsOrBool{Allows: b}, true
}

func (d *decoder) externalDocs(e *apiextensionsv1.ExternalDocumentation) bool {
	if !d.open('{') {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		k, done, ok := d.key(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(k) {
		case "description":
			ok = once(&seen, 0)
			if ok {
				e.Description, ok = d.str()
			}
		case "url":
			ok = once(&seen, 1)
			if ok {
				e.URL, ok = d.str()
			}
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
}

func (d *decoder) validations() (apiextensionsv1.ValidationRules, bool) {
	if !d.open('[') {
		return nil, false
	}
	out := apiextensionsv1.ValidationRules{}
	for first := true; ; first = false {
		done, ok := d.elem(first)
		if !ok {
			return nil, false
		}
		if done {
			return out, true
		}
		out = append(out, apiextensionsv1.ValidationRule{})
		if !d.rule(&out[len(out)-1]) {
			return nil, false
		}
	}
}

func (d *decoder) rule(r *apiextensionsv1.ValidationRule) bool {
	if !d.open('{') {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		k, done, ok := d.key(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(k) {
		case "rule":
			ok = once(&seen, 0)
			if ok {
				r.Rule, ok = d.str()
			}
		case "message":
			ok = once(&seen, 1)
			if ok {
				r.Message, ok = d.str()
			}
		case "messageExpression":
			ok = once(&seen, 2)
			if ok {
				r.MessageExpression, ok = d.str()
			}
		case "reason":
			ok = once(&seen, 3)
			if ok {
				var s string
				s, ok = d.str()
				reason := apiextensionsv1.FieldValueErrorReason(s)
				r.Reason = &reason
			}
		case "fieldPath":
			ok = once(&seen, 4)
			if ok {
				r.FieldPath, ok = d.str()
			}
		case "optionalOldSelf":
			ok = once(&seen, 5)
			if ok {
				var b bool
				b, ok = d.boolean()
				r.OptionalOldSelf = &b
			}
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
}
