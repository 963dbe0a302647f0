package structdiff

import (
	"math/rand/v2"
	"slices"
)

// schemaGen generates random openAPIV3Schemas as JSON-ready values. The
// schemas are built to sit near the boundary of the structural rules: most
// nodes are typed correctly, and each rule is broken now and then (a missing
// type, a keyword inside a junctor, a junctor naming a property the outer
// schema lacks, an unsupported keyword, a bad pattern), so that both verdicts
// and every error text come up.
type schemaGen struct {
	r     *rand.Rand
	nodes int // nodes left to generate
}

func newSchemaGen(seed uint64) *schemaGen {
	return &schemaGen{r: rand.New(rand.NewPCG(seed, 0x5eed))}
}

func (g *schemaGen) p(prob float64) bool { return g.r.Float64() < prob }

func (g *schemaGen) pick(l ...string) string { return l[g.r.IntN(len(l))] }

var propNames = []string{"a", "b", "spec", "status", "metadata", "kind", "apiVersion", "name", "generateName", "labels", "x.y", "p[0]", ""}

// root generates a whole openAPIV3Schema.
func (g *schemaGen) root() map[string]any {
	g.nodes = 8 + g.r.IntN(40)
	s := g.node(0, true)
	if g.p(0.8) {
		s["type"] = "object"
	}
	if g.p(0.5) && s["properties"] == nil && s["x-kubernetes-preserve-unknown-fields"] == nil {
		s["properties"] = g.properties(1, 1+g.r.IntN(4))
	}
	g.junctors(s, 0, 0.4)
	return s
}

func (g *schemaGen) properties(depth, n int) map[string]any {
	props := map[string]any{}
	for range n {
		name := propNames[g.r.IntN(len(propNames))]
		if g.p(0.3) {
			name = g.pick("a", "b", "c", "d")
		}
		props[name] = g.node(depth, false)
	}
	return props
}

// node generates a structural-looking node.
func (g *schemaGen) node(depth int, isRoot bool) map[string]any {
	g.nodes--
	s := map[string]any{}
	typ := g.pick("object", "object", "object", "array", "array", "string", "string", "integer", "number", "boolean", "", "")
	if g.p(0.02) {
		typ = g.pick("null", "foo")
	}
	if typ != "" {
		s["type"] = typ
	}
	deep := depth >= 6 || g.nodes <= 0
	switch typ {
	case "object":
		switch {
		case deep:
		case g.p(0.6):
			s["properties"] = g.properties(depth+1, g.r.IntN(4))
		case g.p(0.5):
			s["additionalProperties"] = g.node(depth+1, false)
		case g.p(0.3):
			s["additionalProperties"] = g.p(0.7)
		}
		if g.p(0.05) && !deep {
			s["additionalProperties"] = g.node(depth+1, false)
		}
	case "array":
		switch {
		case g.p(0.85) && !deep:
			s["items"] = g.node(depth+1, false)
		case g.p(0.3):
			s["items"] = []any{}
		case g.p(0.2):
			s["items"] = []any{map[string]any{"type": "string"}}
		}
	}
	g.extensions(s)
	g.generics(s)
	g.valueValidations(s)
	g.unsupported(s, 0.01)
	if !deep && !isRoot {
		g.junctors(s, depth, 0.08)
	}
	return s
}

func (g *schemaGen) extensions(s map[string]any) {
	if g.p(0.1) {
		s["x-kubernetes-preserve-unknown-fields"] = true
	}
	if g.p(0.005) {
		s["x-kubernetes-preserve-unknown-fields"] = false
	}
	if g.p(0.06) {
		s["x-kubernetes-int-or-string"] = true
		delete(s, "type")
		switch {
		case g.p(0.3):
			s["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
		case g.p(0.3):
			s["allOf"] = []any{map[string]any{"anyOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}}, map[string]any{"pattern": "^[0-9]+$"}}
		}
	}
	if g.p(0.05) {
		s["x-kubernetes-embedded-resource"] = true
		if g.p(0.6) && s["properties"] == nil {
			s["properties"] = map[string]any{
				"apiVersion": map[string]any{"type": g.pick("string", "string", "integer")},
				"kind":       map[string]any{"type": "string"},
				"metadata":   map[string]any{"type": g.pick("object", "object", "string")},
			}
		}
	}
	if g.p(0.04) {
		s["x-kubernetes-list-type"] = g.pick("atomic", "set", "map")
	}
	if g.p(0.02) {
		s["x-kubernetes-list-map-keys"] = g.listOf("name", "port")
	}
	if g.p(0.02) {
		s["x-kubernetes-map-type"] = g.pick("atomic", "granular")
	}
	if g.p(0.03) {
		s["x-kubernetes-validations"] = g.rules()
	}
}

func (g *schemaGen) rules() []any {
	if g.p(0.2) {
		return []any{}
	}
	return []any{map[string]any{"rule": "self.a == 1", "message": "m"}}
}

func (g *schemaGen) listOf(l ...string) []any {
	out := []any{}
	for _, x := range l {
		if g.p(0.6) {
			out = append(out, x)
		}
	}
	return out
}

func (g *schemaGen) generics(s map[string]any) {
	if g.p(0.15) {
		s["description"] = g.pick("a description", "")
	}
	if g.p(0.04) {
		s["title"] = "T"
	}
	if g.p(0.08) {
		s["nullable"] = g.p(0.7)
	}
	if g.p(0.08) {
		s["default"] = g.value()
	}
	if g.p(0.03) {
		s["example"] = g.value()
	}
	if g.p(0.02) {
		s["externalDocs"] = map[string]any{"url": "https://example.com"}
	}
}

func (g *schemaGen) value() any {
	switch g.r.IntN(6) {
	case 0:
		return nil
	case 1:
		return map[string]any{}
	case 2:
		return "x"
	case 3:
		return 1
	case 4:
		return []any{}
	}
	return map[string]any{"name": "n"}
}

func (g *schemaGen) valueValidations(s map[string]any) {
	if g.p(0.08) {
		s["pattern"] = g.pick("^[a-z]+$", "abc", "a(b", "[z-a]", "\\", "(?i)x", "a{2,1}", "")
	}
	if g.p(0.05) {
		s["enum"] = []any{"a", 1, nil}[:g.r.IntN(4)]
	}
	if g.p(0.08) {
		s["required"] = g.listOf("a", "b", "name")
	}
	if g.p(0.05) {
		s["minimum"] = 1
	}
	if g.p(0.03) {
		s["maxLength"] = 10
	}
	if g.p(0.03) {
		s["format"] = g.pick("date-time", "int32", "")
	}
	if g.p(0.02) {
		s["uniqueItems"] = true
	}
	if g.p(0.02) {
		s["maxProperties"] = 3
	}
}

// unsupported adds, with probability prob, one keyword NewStructural refuses
// (or an empty form of one that it accepts).
func (g *schemaGen) unsupported(s map[string]any, prob float64) {
	if !g.p(prob) {
		return
	}
	switch g.r.IntN(10) {
	case 0:
		s["id"] = "x"
	case 1:
		s["$schema"] = "http://json-schema.org/draft-04/schema#"
	case 2:
		s["$ref"] = g.pick("#/definitions/a", "")
	case 3:
		s["patternProperties"] = g.pick2(map[string]any{}, map[string]any{"^a": map[string]any{}})
	case 4:
		s["dependencies"] = g.pick2(map[string]any{}, map[string]any{"a": []any{"b"}})
	case 5:
		s["additionalItems"] = g.p(0.5)
	case 6:
		s["definitions"] = g.pick2(map[string]any{}, map[string]any{"a": map[string]any{}})
	case 7:
		s["items"] = []any{map[string]any{}}
	case 8:
		s["x-kubernetes-preserve-unknown-fields"] = false
	default:
		s["items"] = nil
	}
}

func (g *schemaGen) pick2(a, b any) any {
	if g.p(0.5) {
		return a
	}
	return b
}

// junctors adds allOf, anyOf, oneOf and not to s, with probability prob
// each, shaped after s so that completeness mostly holds.
func (g *schemaGen) junctors(s map[string]any, depth int, prob float64) {
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if !g.p(prob) {
			continue
		}
		n := 1 + g.r.IntN(3)
		var l []any
		if cur, ok := s[k].([]any); ok {
			l = cur
		}
		for range n {
			l = append(l, g.nested(s, depth+1))
		}
		s[k] = l
	}
	if g.p(prob / 2) {
		s["not"] = g.nested(s, depth+1)
	}
}

// nested generates a value validation for a node shaped like outer (which
// may be nil): mostly its properties and items, now and then a forbidden
// keyword or a property outer lacks.
func (g *schemaGen) nested(outer map[string]any, depth int) map[string]any {
	g.nodes--
	v := map[string]any{}
	deep := depth >= 8 || g.nodes <= -20
	if props, ok := outer["properties"].(map[string]any); ok && !deep && g.p(0.6) {
		names := make([]string, 0, len(props))
		for k := range props {
			names = append(names, k)
		}
		slices.Sort(names)
		vp := map[string]any{}
		for _, k := range names {
			if g.p(0.5) {
				sub, _ := props[k].(map[string]any)
				vp[k] = g.nested(sub, depth+1)
			}
		}
		if g.p(0.1) {
			vp[g.pick("zz", "metadata", "a")] = g.nested(nil, depth+1)
		}
		v["properties"] = vp
	} else if g.p(0.08) && !deep {
		v["properties"] = map[string]any{g.pick("q", "metadata"): g.nested(nil, depth+1)}
	}
	if items, ok := outer["items"].(map[string]any); ok && !deep && g.p(0.5) {
		v["items"] = g.nested(items, depth+1)
	} else if g.p(0.04) && !deep {
		v["items"] = g.nested(nil, depth+1)
	}
	if g.p(0.3) {
		g.valueValidations(v)
	}
	if g.p(0.12) {
		// a forbidden keyword
		switch g.r.IntN(14) {
		case 0:
			v["type"] = g.pick("string", "integer", "object")
		case 1:
			v["description"] = "d"
		case 2:
			v["title"] = "t"
		case 3:
			v["default"] = g.value()
		case 4:
			v["nullable"] = g.p(0.7)
		case 5:
			v["additionalProperties"] = g.pick2(true, false)
		case 6:
			v["additionalProperties"] = map[string]any{}
		case 7:
			v["x-kubernetes-preserve-unknown-fields"] = true
		case 8:
			v["x-kubernetes-embedded-resource"] = g.p(0.8)
		case 9:
			v["x-kubernetes-int-or-string"] = g.p(0.8)
		case 10:
			v["x-kubernetes-list-type"] = "atomic"
		case 11:
			v["x-kubernetes-list-map-keys"] = g.listOf("k")
		case 12:
			v["x-kubernetes-map-type"] = "granular"
		default:
			v["x-kubernetes-validations"] = g.rules()
		}
	}
	g.unsupported(v, 0.01)
	if !deep && g.p(0.1) {
		g.junctors(v, depth, 0.3)
	}
	return v
}
