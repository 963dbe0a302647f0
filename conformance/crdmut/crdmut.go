// Package crdmut makes invalid CustomResourceDefinitions from valid ones:
// seeded mutations of schema nodes and CRD fields, and hand-written cases
// from the Kubernetes documentation. Both the upstream-package differential
// (lintdiff) and the real-server test (servertest) use it.
package crdmut

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
)

// nodeRef is a schema node inside a decoded CRD, with its path for the case
// description.
type nodeRef struct {
	m    map[string]any
	path string
	root bool
}

func collectNodes(n map[string]any, path string, root bool, out *[]nodeRef, depth int) {
	if depth > 30 {
		return
	}
	*out = append(*out, nodeRef{n, path, root})
	if props, ok := n["properties"].(map[string]any); ok {
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if c, ok := props[k].(map[string]any); ok {
				collectNodes(c, path+".properties."+k, false, out, depth+1)
			}
		}
	}
	if it, ok := n["items"].(map[string]any); ok {
		collectNodes(it, path+".items", false, out, depth+1)
	}
	if ap, ok := n["additionalProperties"].(map[string]any); ok {
		collectNodes(ap, path+".additionalProperties", false, out, depth+1)
	}
	for _, j := range []string{"allOf", "anyOf", "oneOf"} {
		if l, ok := n[j].([]any); ok {
			for i, x := range l {
				if c, ok := x.(map[string]any); ok {
					collectNodes(c, fmt.Sprintf("%s.%s[%d]", path, j, i), false, out, depth+1)
				}
			}
		}
	}
}

var nodeMutations = []struct {
	name string
	f    func(rng *rand.Rand, n nodeRef)
}{
	{"drop type", func(_ *rand.Rand, n nodeRef) { delete(n.m, "type") }},
	{"bad type", func(rng *rand.Rand, n nodeRef) {
		n.m["type"] = []string{"strin", "null", "object", "array", "integer", "Object"}[rng.IntN(6)]
	}},
	{"ref", func(_ *rand.Rand, n nodeRef) { n.m["$ref"] = "#/definitions/x" }},
	{"id", func(_ *rand.Rand, n nodeRef) { n.m["id"] = "x" }},
	{"uniqueItems", func(_ *rand.Rand, n nodeRef) { n.m["uniqueItems"] = true }},
	{"additionalProperties false", func(_ *rand.Rand, n nodeRef) { n.m["additionalProperties"] = false }},
	{"additionalProperties schema", func(_ *rand.Rand, n nodeRef) {
		n.m["additionalProperties"] = map[string]any{"type": "string"}
	}},
	{"additionalProperties true", func(_ *rand.Rand, n nodeRef) { n.m["additionalProperties"] = true }},
	{"preserve false", func(_ *rand.Rand, n nodeRef) { n.m["x-kubernetes-preserve-unknown-fields"] = false }},
	{"preserve true", func(_ *rand.Rand, n nodeRef) { n.m["x-kubernetes-preserve-unknown-fields"] = true }},
	{"int-or-string", func(_ *rand.Rand, n nodeRef) { n.m["x-kubernetes-int-or-string"] = true }},
	{"embedded", func(_ *rand.Rand, n nodeRef) { n.m["x-kubernetes-embedded-resource"] = true }},
	{"nullable", func(_ *rand.Rand, n nodeRef) { n.m["nullable"] = true }},
	{"bad pattern", func(_ *rand.Rand, n nodeRef) { n.m["pattern"] = "a(b" }},
	{"list-type bogus", func(_ *rand.Rand, n nodeRef) { n.m["x-kubernetes-list-type"] = "bogus" }},
	{"list-type set", func(_ *rand.Rand, n nodeRef) { n.m["x-kubernetes-list-type"] = "set" }},
	{"list-type map", func(_ *rand.Rand, n nodeRef) { n.m["x-kubernetes-list-type"] = "map" }},
	{"list-map-keys", func(_ *rand.Rand, n nodeRef) { n.m["x-kubernetes-list-map-keys"] = []string{"name", "name"} }},
	{"map-type", func(rng *rand.Rand, n nodeRef) {
		n.m["x-kubernetes-map-type"] = []string{"atomic", "granular", "bogus"}[rng.IntN(3)]
	}},
	{"items array", func(_ *rand.Rand, n nodeRef) { n.m["items"] = []any{map[string]any{"type": "string"}} }},
	{"items removed", func(_ *rand.Rand, n nodeRef) { delete(n.m, "items") }},
	{"anyOf with type", func(_ *rand.Rand, n nodeRef) {
		n.m["anyOf"] = []any{map[string]any{"type": "string", "description": "d"}, map[string]any{"properties": map[string]any{"zz": map[string]any{"minimum": 1}}}}
	}},
	{"allOf with default", func(_ *rand.Rand, n nodeRef) {
		n.m["allOf"] = []any{map[string]any{"default": "x", "nullable": true, "title": "t"}}
	}},
	{"oneOf with metadata", func(_ *rand.Rand, n nodeRef) {
		n.m["oneOf"] = []any{map[string]any{"properties": map[string]any{"metadata": map[string]any{}}, "x-kubernetes-list-type": "atomic"}}
	}},
	{"not with extensions", func(_ *rand.Rand, n nodeRef) {
		n.m["not"] = map[string]any{"x-kubernetes-preserve-unknown-fields": true, "x-kubernetes-embedded-resource": true, "x-kubernetes-int-or-string": true, "x-kubernetes-map-type": "atomic", "x-kubernetes-list-map-keys": []string{"a"}, "items": map[string]any{"type": "string"}}
	}},
	{"int-or-string anyOf", func(_ *rand.Rand, n nodeRef) {
		n.m["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
		n.m["x-kubernetes-int-or-string"] = true
		delete(n.m, "type")
	}},
	{"rule problems", func(rng *rand.Rand, n nodeRef) {
		rules := []any{
			map[string]any{"rule": " "},
			map[string]any{"rule": "self.x == 1", "message": "  "},
			map[string]any{"rule": "a\nb"},
			map[string]any{"rule": "true", "message": "a\nb"},
			map[string]any{"rule": "true", "reason": "Bogus"},
			map[string]any{"rule": "true", "fieldPath": " "},
			map[string]any{"rule": "true", "fieldPath": ".nope"},
			map[string]any{"rule": "true", "messageExpression": "  "},
		}
		n.m["x-kubernetes-validations"] = []any{rules[rng.IntN(len(rules))]}
	}},
	{"default", func(rng *rand.Rand, n nodeRef) {
		defaults := []any{"text", int64(5), 2.5, true, []any{"a"}, map[string]any{"zz": 1}, map[string]any{}, nil}
		n.m["default"] = defaults[rng.IntN(len(defaults))]
	}},
	{"default unknown field", func(_ *rand.Rand, n nodeRef) {
		if _, ok := n.m["properties"]; ok {
			n.m["default"] = map[string]any{"crdkitUnknown": "x"}
		}
	}},
	{"definitions", func(_ *rand.Rand, n nodeRef) {
		n.m["definitions"] = map[string]any{"a": map[string]any{"type": "string"}}
	}},
	{"patternProperties", func(_ *rand.Rand, n nodeRef) {
		n.m["patternProperties"] = map[string]any{"^a": map[string]any{"type": "string"}}
	}},
	{"dependencies", func(_ *rand.Rand, n nodeRef) { n.m["dependencies"] = map[string]any{"a": []string{"b"}} }},
	{"additionalItems", func(_ *rand.Rand, n nodeRef) { n.m["additionalItems"] = false }},
	{"metadata property", func(rng *rand.Rand, n nodeRef) {
		props, _ := n.m["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			n.m["properties"] = props
		}
		md := []any{
			map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
			map[string]any{"type": "object", "properties": map[string]any{"labels": map[string]any{"type": "object"}}},
			map[string]any{"type": "string"},
			map[string]any{"type": "object", "description": "x"},
			map[string]any{"type": "object", "default": map[string]any{}},
		}
		props["metadata"] = md[rng.IntN(len(md))]
	}},
	{"kind not string", func(_ *rand.Rand, n nodeRef) {
		props, _ := n.m["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			n.m["properties"] = props
		}
		props["kind"] = map[string]any{"type": "integer"}
		props["apiVersion"] = map[string]any{}
	}},
}

var crdMutations = []struct {
	name string
	f    func(rng *rand.Rand, crd map[string]any)
}{
	{"name mismatch", func(_ *rand.Rand, c map[string]any) { c["metadata"].(map[string]any)["name"] = "wrong.example.com" }},
	{"group without dot", func(_ *rand.Rand, c map[string]any) { spec(c)["group"] = "nodot" }},
	{"scope bogus", func(_ *rand.Rand, c map[string]any) { spec(c)["scope"] = "Everywhere" }},
	{"kind lowercase-bad", func(_ *rand.Rand, c map[string]any) { names(c)["kind"] = "Bad_Kind" }},
	{"listKind equals kind", func(_ *rand.Rand, c map[string]any) { names(c)["listKind"] = names(c)["kind"] }},
	{"shortName bad", func(_ *rand.Rand, c map[string]any) { names(c)["shortNames"] = []string{"OK", "a.b"} }},
	{"no storage", func(_ *rand.Rand, c map[string]any) {
		for _, v := range versions(c) {
			v.(map[string]any)["storage"] = false
		}
	}},
	{"two storage", func(_ *rand.Rand, c map[string]any) {
		vs := versions(c)
		v0 := vs[0].(map[string]any)
		cp := map[string]any{}
		for k, v := range v0 {
			cp[k] = v
		}
		cp["name"] = "v99"
		cp["storage"] = true
		v0["storage"] = true
		spec(c)["versions"] = append(vs, cp)
	}},
	{"duplicate version", func(_ *rand.Rand, c map[string]any) {
		vs := versions(c)
		spec(c)["versions"] = append(vs, vs[0])
	}},
	{"bad version name", func(_ *rand.Rand, c map[string]any) { versions(c)[0].(map[string]any)["name"] = "V1_bad" }},
	{"no schema", func(_ *rand.Rand, c map[string]any) { delete(versions(c)[0].(map[string]any), "schema") }},
	{"deprecationWarning", func(rng *rand.Rand, c map[string]any) {
		v := versions(c)[0].(map[string]any)
		v["deprecated"] = rng.IntN(2) == 0
		v["deprecationWarning"] = []string{"", "bad\x01char", "ok"}[rng.IntN(3)]
	}},
	{"status root fields", func(_ *rand.Rand, c map[string]any) {
		v := versions(c)[0].(map[string]any)
		v["subresources"] = map[string]any{"status": map[string]any{}}
		if s, ok := v["schema"].(map[string]any); ok {
			if root, ok := s["openAPIV3Schema"].(map[string]any); ok {
				root["x-kubernetes-map-type"] = "atomic"
			}
		}
	}},
	{"nullable root", func(_ *rand.Rand, c map[string]any) {
		if s, ok := versions(c)[0].(map[string]any)["schema"].(map[string]any); ok {
			if root, ok := s["openAPIV3Schema"].(map[string]any); ok {
				root["nullable"] = true
			}
		}
	}},
	{"scale paths", func(rng *rand.Rand, c map[string]any) {
		v := versions(c)[0].(map[string]any)
		v["subresources"] = map[string]any{"scale": map[string]any{
			"specReplicasPath":   []string{"", "spec.replicas", ".status.x", ".spec.replicas"}[rng.IntN(4)],
			"statusReplicasPath": []string{"", "x", ".spec.x", ".status.replicas"}[rng.IntN(4)],
			"labelSelectorPath":  []string{"", "x", ".metadata.x", ".status.s"}[rng.IntN(4)],
		}}
	}},
	{"printer columns", func(rng *rand.Rand, c map[string]any) {
		v := versions(c)[0].(map[string]any)
		v["additionalPrinterColumns"] = []any{map[string]any{
			"name":     []string{"", "A"}[rng.IntN(2)],
			"type":     []string{"", "str", "string"}[rng.IntN(3)],
			"format":   []string{"", "bogus", "int32"}[rng.IntN(3)],
			"jsonPath": []string{"", "spec", ".spec"}[rng.IntN(3)],
		}}
	}},
	{"conversion", func(rng *rand.Rand, c map[string]any) {
		conv := []map[string]any{
			{"strategy": "Bogus"},
			{"strategy": "Webhook"},
			{"strategy": "Webhook", "webhook": map[string]any{"conversionReviewVersions": []string{"v2", "v2"}, "clientConfig": map[string]any{"url": "http://u:p@host?q=1#f"}}},
			{"strategy": "Webhook", "webhook": map[string]any{"conversionReviewVersions": []string{"v1"}, "clientConfig": map[string]any{"service": map[string]any{"name": "", "namespace": "ns", "port": 70000, "path": "a//b/"}}}},
			{"strategy": "None", "webhook": map[string]any{"conversionReviewVersions": []string{"v1"}}},
		}
		spec(c)["conversion"] = conv[rng.IntN(len(conv))]
	}},
	{"preserveUnknownFields", func(_ *rand.Rand, c map[string]any) { spec(c)["preserveUnknownFields"] = true }},
	{"protected group", func(_ *rand.Rand, c map[string]any) {
		spec(c)["group"] = "foo.k8s.io"
		c["metadata"].(map[string]any)["name"] = names(c)["plural"].(string) + ".foo.k8s.io"
	}},
}

func spec(c map[string]any) map[string]any  { return c["spec"].(map[string]any) }
func names(c map[string]any) map[string]any { return spec(c)["names"].(map[string]any) }
func versions(c map[string]any) []any       { return spec(c)["versions"].([]any) }

// Mutate applies k random mutations to a decoded CRD and describes them.
func Mutate(rng *rand.Rand, crd map[string]any, k int) string {
	var desc []string
	for j := 0; j < k; j++ {
		if rng.IntN(4) == 0 {
			m := crdMutations[rng.IntN(len(crdMutations))]
			m.f(rng, crd)
			desc = append(desc, m.name)
			continue
		}
		var nodes []nodeRef
		for i, v := range versions(crd) {
			vm, _ := v.(map[string]any)
			s, _ := vm["schema"].(map[string]any)
			root, _ := s["openAPIV3Schema"].(map[string]any)
			if root != nil {
				collectNodes(root, fmt.Sprintf("versions[%d]", i), true, &nodes, 0)
			}
		}
		if len(nodes) == 0 {
			continue
		}
		n := nodes[rng.IntN(len(nodes))]
		m := nodeMutations[rng.IntN(len(nodeMutations))]
		m.f(rng, n)
		desc = append(desc, m.name+" at "+n.path)
	}
	return fmt.Sprint(desc)
}

// Case is a named CRD document.
type Case struct{ Name, JSON string }

const crdHead = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"crontabs.stable.example.com"},"spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"crontabs","singular":"crontab","kind":"CronTab","shortNames":["ct"]},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":`
const crdTail = `}}]}}`

// Handwritten are the seed documentation's non-structural examples and other
// fixed cases.
var Handwritten = []Case{
	{"seed non-structural example 1", crdHead + `{"properties":{"foo":{"pattern":"abc"},"metadata":{"type":"object","properties":{"name":{"type":"string","pattern":"^a"},"finalizers":{"type":"array","items":{"type":"string","pattern":"my-finalizer"}}}}},"anyOf":[{"properties":{"bar":{"type":"integer","minimum":42}},"required":["bar"],"description":"foo bar object"}]}` + crdTail},
	{"seed non-structural example 2", crdHead + `{"type":"object","properties":{"spec":{"type":"object","properties":{"foo":{"type":"string","pattern":"abc"},"bar":{"type":"integer"}}}},"anyOf":[{"properties":{"spec":{"properties":{"bar":{"minimum":42}},"required":["bar"]}}},{"properties":{"spec":{"properties":{"baz":{"type":"string"}}}}}]}` + crdTail},
	{"seed non-structural example 3", crdHead + `{"type":"object","properties":{"metadata":{"type":"object","properties":{"name":{"type":"string"},"labels":{"type":"object"}}},"spec":{"type":"object","properties":{"x":{"type":"array"}}}},"allOf":[{"properties":{"spec":{"properties":{"y":{"type":"string"}}}}}]}` + crdTail},
	{"structural crontab", crdHead + `{"type":"object","properties":{"spec":{"type":"object","properties":{"cronSpec":{"type":"string"},"image":{"type":"string"},"replicas":{"type":"integer"}}}}}` + crdTail},
	{"int-or-string allOf pattern", crdHead + `{"type":"object","properties":{"spec":{"type":"object","properties":{"port":{"x-kubernetes-int-or-string":true,"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"pattern":"^a"}]}}}}}` + crdTail},
	{"embedded resource without properties", crdHead + `{"type":"object","properties":{"spec":{"type":"object","properties":{"t":{"type":"object","x-kubernetes-embedded-resource":true,"additionalProperties":{"type":"string"}}}}}}` + crdTail},
	{"map list without keys", crdHead + `{"type":"object","properties":{"spec":{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name","port","name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string","nullable":true},"port":{"type":"object"}}}}}}}}` + crdTail},
	{"set of objects", crdHead + `{"type":"object","properties":{"spec":{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"object","nullable":true}},"m":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}}}}}}` + crdTail},
	{"rules with field paths", crdHead + `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"true","fieldPath":".a"},{"rule":"true","fieldPath":"['a']"},{"rule":"true","fieldPath":".m['k']"},{"rule":"true","fieldPath":"a"},{"rule":"true","fieldPath":"[a]"},{"rule":"true","fieldPath":".b"}],"properties":{"a":{"type":"string"},"m":{"type":"object","additionalProperties":{"type":"string"}}}}}}` + crdTail},
	{"defaults in metadata", crdHead + `{"type":"object","properties":{"metadata":{"type":"object","default":{}},"kind":{"type":"string","default":"x"},"spec":{"type":"object","properties":{"e":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,"properties":{"metadata":{"type":"object","additionalProperties":{"type":"string","default":"a"},"x-kubernetes-embedded-resource":true}}}}}}}` + crdTail},
	{"embedded default with unknown fields, in its metadata too", crdHead + `{"type":"object","properties":{"spec":{"type":"object","properties":{"template":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"object"}},"default":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","bogus":1,"labels":{"a":"b"}},"extra":1}}}}}}` + crdTail},
	{"empty schema", crdHead + `{}` + crdTail},
	{"root array", crdHead + `{"type":"array","items":{"type":"string"},"additionalProperties":true}` + crdTail},
}

// Gap reports why a server cause (rendered "field | type | message") is out of crdkit's current scope, or "".
// Each gap names the issue that closes it.
func Gap(c string) string {
	// Nothing is out of scope today: CEL rules, their costs and the rules
	// on defaults are compared too. New gaps go here with the issue that
	// closes them.
	_ = c
	return ""
}

// LargeIntegers are integers a float64 cannot hold exactly (±(2^53+1),
// ±(2^63-1), -2^63), their exactly representable neighbours ±(2^53-1), and
// two past int64 (2^63, 2^64-1), which the server decodes as float64. They
// are json.Numbers, so a marshalled CRD carries them as written.
var LargeIntegers = []json.Number{
	"9007199254740993", "-9007199254740993",
	"9007199254740991", "-9007199254740991",
	"9223372036854775807", "-9223372036854775807", "-9223372036854775808",
	"9223372036854775808", "18446744073709551615",
}

// largeInt64 are the members of LargeIntegers that fit in int64: the ones an
// integer field accepts as a default.
var largeInt64 = LargeIntegers[:7]

func pickNumber(rng *rand.Rand, from []json.Number) json.Number { return from[rng.IntN(len(from))] }

// numberEnum returns v with up to two more members of from, without repeats.
func numberEnum(rng *rand.Rand, v json.Number, from []json.Number) []any {
	out := []any{v}
	seen := map[json.Number]bool{v: true}
	for i := rng.IntN(3); i > 0; i-- {
		if w := pickNumber(rng, from); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// largeIntSchema is a schema of the given type whose default, enum and
// example are large integers, with large bounds the default keeps to. The
// server takes a bound as a float64: an integer field's bound must be at
// most 2^53 in magnitude (a float64 integer the validator accepts), and a
// maximum of 2^63 or more refuses every int64 (its conversion to int64
// overflows), so the bounds are chosen by the default.
func largeIntSchema(rng *rand.Rand, typ string) map[string]any {
	from := largeInt64
	if typ == "number" {
		from = LargeIntegers
	}
	v := pickNumber(rng, from)
	s := map[string]any{"type": typ, "default": v, "enum": numberEnum(rng, v, from), "example": pickNumber(rng, LargeIntegers)}
	if rng.IntN(3) > 0 {
		switch {
		case typ == "integer" && (v == "9007199254740991" || v == "-9007199254740991"):
			s["maximum"], s["minimum"] = json.Number("9007199254740993"), json.Number("-9007199254740993")
		case typ == "integer":
			// no bound of an integer field admits v
		case v == "9223372036854775808":
			s["maximum"], s["minimum"] = json.Number("9223372036854775807"), json.Number("-9223372036854775808")
		case v == "18446744073709551615":
			s["maximum"], s["minimum"] = json.Number("18446744073709551615"), json.Number("-9223372036854775807")
		default:
			s["maximum"], s["minimum"] = json.Number("9223372036854774784"), json.Number("-9223372036854775808")
		}
	}
	if _, ok := s["minimum"]; ok && !strings.HasPrefix(string(v), "-") && rng.IntN(2) == 0 {
		s["exclusiveMinimum"] = true
	}
	if typ == "integer" && rng.IntN(3) == 0 {
		s["format"] = "int64"
	}
	if v == "-9223372036854775808" && rng.IntN(2) == 0 {
		s["multipleOf"] = json.Number("9007199254740993") // 2^53 as a float64, which divides -2^63
	}
	return s
}

// NumberMutations add or change schema nodes so that defaults, enums,
// examples and bounds hold LargeIntegers, at every kind of node the
// documents treat differently (plain, nested in an object or array default,
// int-or-string, nullable, under preserve-unknown-fields).
var NumberMutations = []struct {
	Name string
	f    func(rng *rand.Rand, n nodeRef) bool
}{
	{"large integer property", func(rng *rand.Rand, n nodeRef) bool {
		s := largeIntSchema(rng, "integer")
		return addProperty(n, "crdkitInt", s)
	}},
	{"large number property", func(rng *rand.Rand, n nodeRef) bool {
		s := largeIntSchema(rng, "number")
		return addProperty(n, "crdkitNum", s)
	}},
	{"large integers in an object default", func(rng *rand.Rand, n nodeRef) bool {
		a, b := pickNumber(rng, largeInt64), pickNumber(rng, LargeIntegers)
		return addProperty(n, "crdkitObj", map[string]any{
			"type": "object",
			"properties": map[string]any{
				"i": map[string]any{"type": "integer"},
				"n": map[string]any{"type": "number"},
				"m": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "integer"}},
			},
			"default": map[string]any{"i": a, "n": b, "m": map[string]any{"k": pickNumber(rng, largeInt64)}},
			"example": map[string]any{"i": b},
		})
	}},
	{"large integers in an array default", func(rng *rand.Rand, n nodeRef) bool {
		v := pickNumber(rng, largeInt64)
		return addProperty(n, "crdkitList", map[string]any{
			"type":    "array",
			"items":   map[string]any{"type": "integer", "enum": numberEnum(rng, v, largeInt64)},
			"default": []any{v},
			"enum":    []any{[]any{v}, []any{v, v}},
		})
	}},
	{"large int-or-string", func(rng *rand.Rand, n nodeRef) bool {
		v := pickNumber(rng, largeInt64)
		return addProperty(n, "crdkitIntOrString", map[string]any{
			"x-kubernetes-int-or-string": true, "default": v, "enum": append(numberEnum(rng, v, largeInt64), "s"),
			"example": pickNumber(rng, LargeIntegers),
		})
	}},
	{"large integers under a nullable object", func(rng *rand.Rand, n nodeRef) bool {
		s := largeIntSchema(rng, "integer")
		s["nullable"] = true
		return addProperty(n, "crdkitNullable", map[string]any{
			"type": "object", "nullable": true, "required": []any{"a"},
			"properties": map[string]any{"a": s, "b": map[string]any{"type": "integer", "nullable": true, "enum": []any{pickNumber(rng, largeInt64), nil}}},
		})
	}},
	{"large integers under preserve-unknown-fields", func(rng *rand.Rand, n nodeRef) bool {
		s := largeIntSchema(rng, "integer")
		return addProperty(n, "crdkitFree", map[string]any{
			"type": "object", "x-kubernetes-preserve-unknown-fields": true,
			"properties": map[string]any{"a": s},
			"default":    map[string]any{"a": s["default"], "zz": pickNumber(rng, LargeIntegers)},
		})
	}},
	{"large integers on a numeric node", func(rng *rand.Rand, n nodeRef) bool {
		typ, _ := n.m["type"].(string)
		if (typ != "integer" && typ != "number") || inJunctor(n) {
			return false
		}
		s := largeIntSchema(rng, typ)
		delete(n.m, "format")
		delete(n.m, "maximum")
		delete(n.m, "minimum")
		delete(n.m, "exclusiveMaximum")
		delete(n.m, "exclusiveMinimum")
		delete(n.m, "multipleOf")
		for k, v := range s {
			n.m[k] = v
		}
		return true
	}},
}

// addProperty adds a property to a node that already has properties; it
// reports whether it could.
func addProperty(n nodeRef, name string, s map[string]any) bool {
	props, ok := n.m["properties"].(map[string]any)
	if !ok || inJunctor(n) {
		return false
	}
	props[name] = s
	return true
}

// inJunctor reports whether n is inside an allOf, anyOf or oneOf, where a
// structural schema has neither types nor defaults.
func inJunctor(n nodeRef) bool { return strings.Contains(n.path, "Of[") }

// MutateNumbers applies k NumberMutations to random schema nodes of a
// decoded CRD (decode it with json.Decoder.UseNumber so the other numbers
// stay as written too) and describes them. A mutation that does not fit
// the chosen node is tried on others, up to a bound.
func MutateNumbers(rng *rand.Rand, crd map[string]any, k int) string {
	var nodes []nodeRef
	for i, v := range versions(crd) {
		vm, _ := v.(map[string]any)
		s, _ := vm["schema"].(map[string]any)
		root, _ := s["openAPIV3Schema"].(map[string]any)
		if root != nil {
			collectNodes(root, fmt.Sprintf("versions[%d]", i), true, &nodes, 0)
		}
	}
	var desc []string
	for j := 0; j < k && len(nodes) > 0; j++ {
		m := NumberMutations[rng.IntN(len(NumberMutations))]
		for try := 0; try < 20; try++ {
			n := nodes[rng.IntN(len(nodes))]
			if m.f(rng, n) {
				desc = append(desc, m.Name+" at "+n.path)
				break
			}
		}
	}
	return fmt.Sprint(desc)
}

// Regroup moves a decoded CRD to another API group (and renames it to match).
func Regroup(crd map[string]any, group string) {
	spec(crd)["group"] = group
	crd["metadata"] = map[string]any{"name": fmt.Sprint(names(crd)["plural"]) + "." + group}
}

// warningFormats are formats the server recognizes on some types and not on
// others, and formats it never recognizes.
var warningFormats = []string{"foo", "int32", "int64", "float", "double", "date-time", "datetime", "date", "uuid",
	"k8s-short-name", "k8s-long-name", "byte", "email", "Date", "url", "ip", "duration", "password", "quantity"}

// warningTypes are the types the added properties take.
var warningTypes = []string{"string", "integer", "number", "boolean", "object", "array", ""}

// MutateWarnings applies k random changes of what the server's CRD strategy
// warns about (formats on existing nodes and on added properties of any
// type, set lists of objects, arrays or scalars added to object nodes) and
// describes them. Most results stay valid CRDs.
func MutateWarnings(rng *rand.Rand, crd map[string]any, k int) string {
	var desc []string
	for j := 0; j < k; j++ {
		var nodes []nodeRef
		for i, v := range versions(crd) {
			vm, _ := v.(map[string]any)
			s, _ := vm["schema"].(map[string]any)
			root, _ := s["openAPIV3Schema"].(map[string]any)
			if root != nil {
				collectNodes(root, fmt.Sprintf("versions[%d]", i), true, &nodes, 0)
			}
		}
		if len(nodes) == 0 {
			continue
		}
		n := nodes[rng.IntN(len(nodes))]
		props, _ := n.m["properties"].(map[string]any)
		switch c := rng.IntN(3); {
		case c == 0 || props == nil || n.root:
			if n.root {
				continue // formats at the root are refused with the status subresource
			}
			f := warningFormats[rng.IntN(len(warningFormats))]
			n.m["format"] = f
			desc = append(desc, fmt.Sprintf("format %q at %s", f, n.path))
		case c == 1:
			t := warningTypes[rng.IntN(len(warningTypes))]
			f := warningFormats[rng.IntN(len(warningFormats))]
			p := map[string]any{"format": f}
			if t != "" {
				p["type"] = t
			} else {
				p["x-kubernetes-int-or-string"] = true
			}
			if t == "array" {
				p["items"] = map[string]any{"type": "string"}
			}
			name := fmt.Sprintf("crdkitFormat%d", j)
			props[name] = p
			desc = append(desc, fmt.Sprintf("property %s {type %q, format %q} at %s", name, t, f, n.path))
		default:
			items := []map[string]any{
				{"type": "object", "x-kubernetes-map-type": "atomic", "properties": map[string]any{"a": map[string]any{"type": "string"}}},
				{"type": "array", "items": map[string]any{"type": "string"}},
				{"type": "array", "x-kubernetes-list-type": "atomic", "items": map[string]any{"type": "integer"}},
				{"type": "string"},
				{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
			}
			it := items[rng.IntN(len(items))]
			name := fmt.Sprintf("crdkitSet%d", j)
			props[name] = map[string]any{"type": "array", "x-kubernetes-list-type": "set", "items": it}
			desc = append(desc, fmt.Sprintf("set %s of %v at %s", name, it["type"], n.path))
		}
	}
	return fmt.Sprint(desc)
}
