package crdjson

import (
	"encoding/json"
	"testing"
)

// wrapSchema puts a schema into a minimal CRD.
func wrapSchema(s string) string {
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"as.x.io"},` +
		`"spec":{"group":"x.io","names":{"plural":"as","kind":"A"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,` +
		`"schema":{"openAPIV3Schema":` + s + `}}]}}`
}

// TestDecodeCases holds Decode to kjson.UnmarshalStrict on inputs at the
// edges of what it decodes; ok is whether it must be sure.
func TestDecodeCases(t *testing.T) {
	cases := []struct {
		name string
		js   string
		ok   bool
	}{
		{"minimal", wrapSchema(`{"type":"object"}`), true},
		{"empty required", wrapSchema(`{"type":"object","required":[]}`), true},
		{"empty properties", wrapSchema(`{"type":"object","properties":{}}`), true},
		{"empty enum", wrapSchema(`{"enum":[]}`), true},
		{"empty allOf", wrapSchema(`{"allOf":[],"anyOf":[],"oneOf":[]}`), true},
		{"preserve false", wrapSchema(`{"x-kubernetes-preserve-unknown-fields":false}`), true},
		{"zero numbers", wrapSchema(`{"minimum":-0,"maximum":0.0,"multipleOf":1e-3,"minLength":0,"maxLength":-0,"minItems":0,"maxProperties":9223372036854775807}`), true},
		{"tiny float", wrapSchema(`{"minimum":1e-400}`), true},
		{"huge float", wrapSchema(`{"minimum":1e400}`), false},
		{"float in int", wrapSchema(`{"minLength":1.0}`), false},
		{"exponent in int", wrapSchema(`{"minLength":1e3}`), false},
		{"int overflow", wrapSchema(`{"minLength":9223372036854775808}`), false},
		{"string in int", wrapSchema(`{"minLength":"1"}`), false},
		{"raw values", wrapSchema(`{"default":{"a":null,"b":[1,2.5e3,"x\n\u00e9"], "c" : { } },"example":"s","enum":[1,"a",{},[],true]}`), true},
		{"raw null", wrapSchema(`{"default":null}`), false},
		{"enum null", wrapSchema(`{"enum":[null]}`), false},
		{"raw escaped key", wrapSchema(`{"default":{"\u0061":1}}`), false},
		{"items object", wrapSchema(`{"type":"array","items":{"type":"string"}}`), true},
		{"items array", wrapSchema(`{"type":"array","items":[{"type":"string"},{}]}`), true},
		{"items empty array", wrapSchema(`{"type":"array","items":[]}`), true},
		{"items bool", wrapSchema(`{"type":"array","items":true}`), false},
		{"items unknown key", wrapSchema(`{"type":"array","items":{"typo":"string"}}`), false},
		{"additionalProperties false", wrapSchema(`{"additionalProperties":false,"additionalItems":true}`), true},
		{"additionalProperties schema", wrapSchema(`{"additionalProperties":{"type":"string"}}`), true},
		{"additionalProperties string", wrapSchema(`{"additionalProperties":"x"}`), false},
		{"definitions", wrapSchema(`{"definitions":{"a":{"type":"string"}},"patternProperties":{"^a":{}},"not":{}}`), true},
		{"dependencies", wrapSchema(`{"dependencies":{"a":["b"]}}`), false},
		{"validations", wrapSchema(`{"x-kubernetes-validations":[{"rule":"self.a","message":"m","messageExpression":"'m'","reason":"FieldValueInvalid","fieldPath":".a","optionalOldSelf":false}]}`), true},
		{"validations empty", wrapSchema(`{"x-kubernetes-validations":[]}`), true},
		{"list and map types", wrapSchema(`{"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"x-kubernetes-map-type":"atomic","x-kubernetes-int-or-string":true,"x-kubernetes-embedded-resource":false,"nullable":true}`), true},
		{"refs and ids", wrapSchema(`{"id":"i","$schema":"s","$ref":"#/r","title":"t","format":"f","pattern":"^a$","externalDocs":{"description":"d","url":"u"},"uniqueItems":true,"exclusiveMinimum":true,"exclusiveMaximum":false}`), true},
		{"escapes", wrapSchema(`{"description":"a\"b\\c\/d\b\f\n\r\t\u0000\u00e9\u2028\ud83d\ude00"}`), true},
		{"lone high surrogate", wrapSchema(`{"description":"\ud800"}`), false},
		{"lone low surrogate", wrapSchema(`{"description":"\udc00"}`), false},
		{"surrogate then letter", wrapSchema(`{"description":"\ud800\u0041"}`), false},
		{"invalid utf8", wrapSchema("{\"description\":\"\xff\"}"), false},
		{"encoded surrogate", wrapSchema("{\"description\":\"\xed\xa0\x80\"}"), false},
		{"control char", wrapSchema("{\"description\":\"a\tb\"}"), false},
		{"utf8", wrapSchema(`{"description":"héllo ✓ 😀"}`), true},
		{"escaped key", wrapSchema(`{"\u0074ype":"object"}`), false},
		{"case of key", wrapSchema(`{"Type":"object"}`), false},
		{"duplicate key", wrapSchema(`{"type":"object","type":"object"}`), false},
		{"duplicate property", wrapSchema(`{"properties":{"a":{},"a":{}}}`), false},
		{"null field", wrapSchema(`{"type":null}`), false},
		{"bool as string", wrapSchema(`{"nullable":"true"}`), false},
		{"trailing comma", wrapSchema(`{"type":"object",}`), false},
		{"trailing data", wrapSchema(`{}`) + ` {}`, false},
		{"trailing space", wrapSchema(`{}`) + " \n\t\r", true},
		{"truncated", wrapSchema(`{}`)[:40], false},
		{"not an object", `[]`, false},
		{"empty", ``, false},
		{"deep", wrapSchema(deep(250)), false},
		{"deep raw", wrapSchema(`{"default":` + deepArray(250) + `}`), false},
		{"moderately deep", wrapSchema(deep(50)), true},
		{"metadata", `{"apiVersion":"v","kind":"k","metadata":{"name":"n","generateName":"g","namespace":"ns","selfLink":"s","uid":"u","resourceVersion":"1","generation":3,"creationTimestamp":null,"labels":{"a":"b"},"annotations":{},"finalizers":[]}}`, true},
		{"creationTimestamp", `{"metadata":{"creationTimestamp":"2020-01-01T00:00:00Z"}}`, false},
		{"managedFields", `{"metadata":{"managedFields":[]}}`, false},
		{"duplicate label", `{"metadata":{"labels":{"a":"b","a":"c"}}}`, false},
		{"spec", `{"spec":{"group":"g","names":{"plural":"p","singular":"s","shortNames":[],"kind":"K","listKind":"KL","categories":["all"]},"scope":"Cluster","versions":[],"conversion":{"strategy":"None"},"preserveUnknownFields":false}}`, true},
		{"webhook", `{"spec":{"conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"]}}}}`, false},
		{"version", `{"spec":{"versions":[{"name":"v1","served":false,"storage":true,"deprecated":true,"deprecationWarning":"w","subresources":{"status":{},"scale":{"specReplicasPath":".spec.r","statusReplicasPath":".status.r","labelSelectorPath":".status.s"}},"additionalPrinterColumns":[{"name":"A","type":"string","format":"f","description":"d","priority":2147483647,"jsonPath":".a"}],"selectableFields":[{"jsonPath":".a"}]}]}}`, true},
		{"priority overflow", `{"spec":{"versions":[{"additionalPrinterColumns":[{"priority":2147483648}]}]}}`, false},
		{"status field in status subresource", `{"spec":{"versions":[{"subresources":{"status":{"a":1}}}]}}`, false},
		{"status", `{"status":{"conditions":[],"acceptedNames":{"plural":"","kind":""},"storedVersions":[],"observedGeneration":2}}`, true},
		{"status conditions", `{"status":{"conditions":[{"type":"Established","status":"True"}]}}`, false},
		{"empty object", `{}`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.ok && !json.Valid([]byte(c.js)) {
				t.Fatalf("case %s is not valid JSON", c.name)
			}
			handled, err := check([]byte(c.js))
			if err != nil {
				t.Fatalf("Decode(%s): %v", c.js, err)
			}
			if handled != c.ok {
				t.Errorf("Decode(%s) ok = %v, want %v", c.js, handled, c.ok)
			}
		})
	}
}

func deep(n int) string {
	s := `{}`
	for range n {
		s = `{"properties":{"a":` + s + `}}`
	}
	return s
}

func deepArray(n int) string {
	s := `1`
	for range n {
		s = `[` + s + `]`
	}
	return s
}
