package prunediff

import (
	"fmt"
	"math/rand/v2"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// objGen generates objects for a structural schema: mostly what the schema
// describes, with unknown fields at every depth, nulls, wrong types, free-form
// subtrees under preserve-unknown-fields and embedded resources with extra
// fields in their metadata.
type objGen struct {
	r      *rand.Rand
	nodes  int // budget of values left
	noise  float64
	unkKey []string
}

func newObjGen(seed uint64, noise float64) *objGen {
	noise = min(max(noise, 0), 0.9)
	return &objGen{
		r:     rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		nodes: 400,
		noise: noise,
		unkKey: []string{"unknown", "extra", "apiVersion", "kind", "metadata", "status", "spec",
			"", "a.b", "x", "items", "0"},
	}
}

func (g *objGen) chance(p float64) bool { return g.r.Float64() < p }

// root generates a whole custom object.
func (g *objGen) root(s *structuralschema.Structural, apiVersion, kind string) any {
	if g.chance(g.noise / 4) {
		return g.value(s, 0) // not even a map, sometimes
	}
	m, _ := g.object(s, 0).(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	m["apiVersion"] = apiVersion
	m["kind"] = kind
	m["metadata"] = g.metadata()
	return m
}

func (g *objGen) metadata() map[string]any {
	md := map[string]any{"name": fmt.Sprintf("obj-%d", g.r.IntN(1000))}
	if g.chance(0.5) {
		md["labels"] = map[string]any{"app": "x"}
	}
	if g.chance(g.noise) {
		md["unknownMeta"] = g.free(2)
	}
	return md
}

func (g *objGen) scalar() any {
	switch g.r.IntN(5) {
	case 0:
		return nil
	case 1:
		return g.r.IntN(2) == 0
	case 2:
		return int64(g.r.IntN(100))
	case 3:
		return g.r.Float64() * 10
	}
	return fmt.Sprintf("s%d", g.r.IntN(100))
}

// free generates a value no schema describes.
func (g *objGen) free(depth int) any {
	g.nodes--
	if depth <= 0 || g.nodes <= 0 {
		return g.scalar()
	}
	switch g.r.IntN(4) {
	case 0:
		m := map[string]any{}
		for range g.r.IntN(4) {
			m[g.key()] = g.free(depth - 1)
		}
		return m
	case 1:
		l := []any{}
		for range g.r.IntN(4) {
			l = append(l, g.free(depth-1))
		}
		return l
	}
	return g.scalar()
}

func (g *objGen) key() string { return g.unkKey[g.r.IntN(len(g.unkKey))] }

// value generates a value for s; s may be nil.
func (g *objGen) value(s *structuralschema.Structural, depth int) any {
	g.nodes--
	switch {
	case g.nodes <= 0 || depth > 12:
		return g.scalar()
	case g.chance(g.noise / 6):
		return nil
	case g.chance(g.noise / 6):
		return g.free(3) // most likely the wrong type
	case s == nil:
		return g.free(3)
	}
	switch {
	case s.Type == "object" || (s.Type == "" && (len(s.Properties) > 0 || s.AdditionalProperties != nil)):
		return g.object(s, depth)
	case s.Type == "array" || (s.Type == "" && s.Items != nil):
		l := []any{}
		for range g.r.IntN(4) {
			l = append(l, g.value(s.Items, depth+1))
		}
		return l
	case s.XIntOrString:
		if g.chance(0.5) {
			return int64(g.r.IntN(10))
		}
		return "50%"
	case s.Type == "string":
		return fmt.Sprintf("v%d", g.r.IntN(10))
	case s.Type == "integer":
		return int64(g.r.IntN(10))
	case s.Type == "number":
		return float64(g.r.IntN(10)) + 0.5
	case s.Type == "boolean":
		return g.chance(0.5)
	}
	return g.free(3)
}

func (g *objGen) object(s *structuralschema.Structural, depth int) any {
	m := map[string]any{}
	if s == nil {
		return m
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if g.chance(0.7) {
			p := s.Properties[k]
			m[k] = g.value(&p, depth+1)
		}
	}
	if s.AdditionalProperties != nil {
		for i := range g.r.IntN(3) {
			m[fmt.Sprintf("k%d", i)] = g.value(s.AdditionalProperties.Structural, depth+1)
		}
	}
	if s.XEmbeddedResource {
		m["apiVersion"] = "v1"
		m["kind"] = "Embedded"
		m["metadata"] = g.metadata()
	}
	if s.XPreserveUnknownFields && g.chance(0.7) {
		m["preserved"] = g.free(3)
	}
	for i := 0; i < 3 && g.chance(g.noise); i++ {
		m[g.key()] = g.free(2)
	}
	return m
}

// sprinkle adds unknown keys, nulls and wrong types to a valid object, at
// every depth, without any schema.
func (g *objGen) sprinkle(v any, depth int) any {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if depth == 0 && (k == "apiVersion" || k == "kind") {
				continue
			}
			switch {
			case g.chance(g.noise / 8):
				v[k] = nil
			case g.chance(g.noise / 8):
				v[k] = g.free(2)
			default:
				v[k] = g.sprinkle(v[k], depth+1)
			}
		}
		if g.chance(g.noise) {
			v[g.key()+"Unknown"] = g.free(2)
		}
		if g.chance(g.noise / 2) {
			v[g.key()] = g.free(2)
		}
	case []any:
		for i := range v {
			v[i] = g.sprinkle(v[i], depth+1)
		}
	}
	return v
}

// schemaGen generates random v1 schemas that both implementations can build:
// properties, items, additionalProperties as a schema or a boolean (also next
// to properties, which a structural schema forbids but pruning accepts),
// preserve-unknown-fields and embedded resources, nested.
type schemaGen struct{ r *rand.Rand }

func (g schemaGen) chance(p float64) bool { return g.r.Float64() < p }

func (g schemaGen) schema(depth int) *apiextensionsv1.JSONSchemaProps {
	s := &apiextensionsv1.JSONSchemaProps{}
	t := true
	if g.chance(0.2) {
		s.XPreserveUnknownFields = &t
	}
	if g.chance(0.1) {
		s.XEmbeddedResource = true
	}
	if depth > 4 {
		s.Type = []string{"string", "integer", ""}[g.r.IntN(3)]
		return s
	}
	switch g.r.IntN(6) {
	case 0, 1, 2:
		s.Type = "object"
		if g.chance(0.2) {
			s.Type = ""
		}
		names := []string{"a", "b", "spec", "metadata", "kind", "apiVersion", "", "items"}
		for _, n := range names {
			if g.chance(0.35) {
				if s.Properties == nil {
					s.Properties = map[string]apiextensionsv1.JSONSchemaProps{}
				}
				s.Properties[n] = *g.schema(depth + 1)
			}
		}
		switch g.r.IntN(6) {
		case 0:
			s.AdditionalProperties = &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: g.schema(depth + 1)}
		case 1:
			s.AdditionalProperties = &apiextensionsv1.JSONSchemaPropsOrBool{Allows: g.chance(0.5)}
		}
	case 3, 4:
		s.Type = "array"
		if g.chance(0.2) {
			s.Type = ""
		}
		if g.chance(0.85) {
			s.Items = &apiextensionsv1.JSONSchemaPropsOrArray{Schema: g.schema(depth + 1)}
		}
	default:
		s.Type = []string{"string", "integer", "number", "boolean", ""}[g.r.IntN(5)]
		if g.chance(0.1) {
			s.XIntOrString = true
			s.Type = ""
		}
	}
	return s
}
