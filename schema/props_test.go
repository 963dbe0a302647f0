package schema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// dump renders p for failure messages (pointers followed, nil kept apart
// from empty).
func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

func TestParsePropsPresence(t *testing.T) {
	empty := &Props{}
	tests := []struct {
		name string
		json string
		want *Props
	}{
		{"empty object", `{}`, &Props{}},
		{"null document", `null`, &Props{}},
		{"absent properties are nil", `{"type":"object"}`, &Props{Type: "object"}},
		{"empty properties are kept", `{"properties":{}}`, &Props{Properties: map[string]*Props{}}},
		{"null property is an empty schema", `{"properties":{"a":null}}`, &Props{Properties: map[string]*Props{"a": empty}}},
		{"null entries in patternProperties and definitions", `{"patternProperties":{"a":null},"definitions":{"d":null}}`,
			&Props{PatternProperties: map[string]*Props{"a": empty}, Definitions: map[string]*Props{"d": empty}}},
		{"null entries in junctors", `{"allOf":[null],"anyOf":[null,{}],"oneOf":[{"type":"string"},null]}`,
			&Props{AllOf: []*Props{empty}, AnyOf: []*Props{empty, empty}, OneOf: []*Props{{Type: "string"}, empty}}},
		{"null not is absent", `{"not":null}`, &Props{}},
		{"empty required is kept", `{"required":[]}`, &Props{Required: []string{}}},
		{"absent required is nil", `{"required":null}`, &Props{}},
		{"default null is absent", `{"default":null}`, &Props{}},
		{"default zero is present", `{"default":0}`, &Props{Default: &Value{int64(0)}}},
		{"default false is present", `{"default":false}`, &Props{Default: &Value{false}}},
		{"default empty object", `{"default":{}}`, &Props{Default: &Value{map[string]any{}}}},
		{"example null is absent", `{"example":null}`, &Props{}},
		{"example string", `{"example":"x"}`, &Props{Example: &Value{"x"}}},
		{"enum values decoded", `{"enum":[null,1,"a",[],{}]}`, &Props{Enum: []any{nil, int64(1), "a", []any{}, map[string]any{}}}},
		{"items object", `{"items":{"type":"string"}}`, &Props{HasItems: true, Items: &Props{Type: "string"}}},
		{"items empty object", `{"items":{}}`, &Props{HasItems: true, Items: &Props{}}},
		{"items array", `{"items":[{"type":"string"},null]}`, &Props{HasItems: true, ItemsArray: []*Props{{Type: "string"}, empty}}},
		{"items empty array", `{"items":[]}`, &Props{HasItems: true, ItemsArray: []*Props{}}},
		{"items null is absent", `{"items":null}`, &Props{}},
		// The v1 type keeps an items of any other JSON type as present but
		// empty; so does ParseProps.
		{"items boolean is present and empty", `{"items":true}`, &Props{HasItems: true}},
		{"items string is present and empty", `{"items":"x"}`, &Props{HasItems: true}},
		{"additionalProperties true", `{"additionalProperties":true}`, &Props{AdditionalProperties: &PropsOrBool{Allows: true}}},
		{"additionalProperties false", `{"additionalProperties":false}`, &Props{AdditionalProperties: &PropsOrBool{}}},
		{"additionalProperties schema allows", `{"additionalProperties":{"type":"string"}}`,
			&Props{AdditionalProperties: &PropsOrBool{Allows: true, Schema: &Props{Type: "string"}}}},
		{"additionalProperties empty schema", `{"additionalProperties":{}}`,
			&Props{AdditionalProperties: &PropsOrBool{Allows: true, Schema: &Props{}}}},
		{"additionalProperties null is absent", `{"additionalProperties":null}`, &Props{}},
		{"additionalItems false is present", `{"additionalItems":false}`, &Props{AdditionalItems: &PropsOrBool{}}},
		{"preserve-unknown-fields false is kept", `{"x-kubernetes-preserve-unknown-fields":false}`, &Props{XPreserveUnknownFields: ptr(false)}},
		{"preserve-unknown-fields true", `{"x-kubernetes-preserve-unknown-fields":true}`, &Props{XPreserveUnknownFields: ptr(true)}},
		{"empty list type is present", `{"x-kubernetes-list-type":""}`, &Props{XListType: ptr("")}},
		{"map type", `{"x-kubernetes-map-type":"atomic"}`, &Props{XMapType: ptr("atomic")}},
		{"empty list map keys are kept", `{"x-kubernetes-list-map-keys":[]}`, &Props{XListMapKeys: []string{}}},
		{"empty rules are kept", `{"x-kubernetes-validations":[]}`, &Props{XValidations: []ValidationRule{}}},
		{"rule fields", `{"x-kubernetes-validations":[{"rule":"self.a","message":"m","reason":"FieldValueForbidden","fieldPath":".a","optionalOldSelf":true}]}`,
			&Props{XValidations: []ValidationRule{{Rule: "self.a", Message: "m", Reason: ptr("FieldValueForbidden"), FieldPath: ".a", OptionalOldSelf: ptr(true)}}}},
		{"empty $ref is present", `{"$ref":""}`, &Props{Ref: ptr("")}},
		{"dependencies of each form", `{"dependencies":{"a":["b"],"c":{"type":"string"},"d":null}}`,
			&Props{Dependencies: map[string]Dependency{"a": {Property: []string{"b"}}, "c": {Schema: &Props{Type: "string"}}, "d": {}}}},
		{"numbers and bounds", `{"maximum":1.5,"exclusiveMaximum":true,"minimum":0,"maxLength":3,"minItems":0,"multipleOf":2}`,
			&Props{Maximum: ptr(1.5), ExclusiveMaximum: true, Minimum: ptr(0.0), MaxLength: ptr[int64](3), MinItems: ptr[int64](0), MultipleOf: ptr(2.0)}},
		{"nested presence", `{"properties":{"a":{"items":{"default":null,"required":[]}}}}`,
			&Props{Properties: map[string]*Props{"a": {HasItems: true, Items: &Props{Required: []string{}}}}}},
		{"externalDocs", `{"externalDocs":{"url":"u"}}`, &Props{ExternalDocs: &ExternalDocs{URL: "u"}}},
		{"externalDocs null is absent, its null fields empty", `{"externalDocs":null,"properties":{"a":{"externalDocs":{"url":null,"description":"d"}}}}`,
			&Props{Properties: map[string]*Props{"a": {ExternalDocs: &ExternalDocs{Description: "d"}}}}},
		{"null rule and null rule fields", `{"x-kubernetes-validations":[null,{"rule":"r","message":null,"reason":null,"optionalOldSelf":null}]}`,
			&Props{XValidations: []ValidationRule{{}, {Rule: "r"}}}},
		{"null dependency property", `{"dependencies":{"a":["b",null]}}`, &Props{Dependencies: map[string]Dependency{"a": {Property: []string{"b", ""}}}}},
		{"last duplicate key wins", `{"type":"string","type":"object"}`, &Props{Type: "object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseProps([]byte(tt.json))
			if err != nil {
				t.Fatalf("ParseProps(%s) error = %v", tt.json, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseProps(%s) = %s, want %s", tt.json, dump(got), dump(tt.want))
			}
		})
	}
}

func TestParsePropsErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"not JSON", `{`, "unexpected EOF"},
		{"additionalProperties number", `{"additionalProperties":1}`, "boolean or JSON schema expected"},
		{"additionalProperties string", `{"properties":{"a":{"additionalProperties":"x"}}}`, "boolean or JSON schema expected"},
		{"additionalItems array", `{"additionalItems":[]}`, "boolean or JSON schema expected"},
		{"type not a string", `{"type":1}`, "openAPIV3Schema.type: expected string, got number"},
		{"maxLength not an integer", `{"maxLength":1.5}`, `openAPIV3Schema.maxLength: strconv.ParseInt: parsing "1.5"`},
		{"items array of non-schemas", `{"items":[1]}`, "openAPIV3Schema.items[0]: a schema must be a JSON object, got number"},
		{"bad default inside items", `{"items":{"default":1e999}}`, "cannot unmarshal number 1e999"},
		{"enum out of range", `{"enum":[1e999]}`, "cannot unmarshal number 1e999"},
		// What decoding into the v1 Go types refuses (found by
		// FuzzStructuralAgrees against the server's decoder).
		{"externalDocs a string", `{"properties":{"a":{"externalDocs":""}}}`, "openAPIV3Schema.properties[a].externalDocs: expected object, got string"},
		{"externalDocs url a number", `{"externalDocs":{"url":1}}`, "openAPIV3Schema.externalDocs.url: expected string, got number"},
		{"rule not an object", `{"x-kubernetes-validations":["self.a"]}`, "openAPIV3Schema.x-kubernetes-validations: expected array of objects, got string"},
		{"rule a number", `{"x-kubernetes-validations":[{"rule":1}]}`, "openAPIV3Schema.x-kubernetes-validations[0].rule: expected string, got number"},
		{"rule reason an object", `{"x-kubernetes-validations":[{"rule":"r"},{"reason":{}}]}`, "openAPIV3Schema.x-kubernetes-validations[1].reason: expected string, got object"},
		{"rule optionalOldSelf a string", `{"x-kubernetes-validations":[{"optionalOldSelf":"true"}]}`, "openAPIV3Schema.x-kubernetes-validations[0].optionalOldSelf: expected boolean, got string"},
		{"dependency property a number", `{"dependencies":{"a":["b",1]}}`, "openAPIV3Schema.dependencies[a][1]: expected string, got number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseProps([]byte(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseProps(%s) = %s, %v, want error containing %q", tt.json, dump(got), err, tt.want)
			}
		})
	}
}
