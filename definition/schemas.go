package definition

import (
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"

	"github.com/crdkit/crdkit/schema"
)

// schemas are the schemas of a CRD spec, converted to schema.Props once:
// the top-level one and each version's (nil where there is none). The
// checks walk these rather than the internal type, whose maps hold large
// structs by value.
type schemas struct {
	top      *schema.Props
	versions []*schema.Props
	// defaults and extensions: a node of a schema (at most maxWalkDepth
	// deep) has a default, Kubernetes extensions (has(hasDefault),
	// has(hasKubernetesExtensions), worked out during the conversion).
	defaults, extensions bool
	// topCompile and compile (per version) say whether the schema has a
	// default or a rule at any depth: without, its compiled schema is of
	// no use to the checks.
	topCompile bool
	compile    []bool
}

func convertSchemas(spec *apiextensions.CustomResourceDefinitionSpec) schemas {
	var s schemas
	add := func(in *apiextensions.JSONSchemaProps) (*schema.Props, bool) {
		var f propsFacts
		p := f.convert(in, 0)
		s.defaults = s.defaults || f.defaults
		s.extensions = s.extensions || f.extensions
		return p, f.defaultsOrRules
	}
	if spec.Validation != nil {
		s.top, s.topCompile = add(spec.Validation.OpenAPIV3Schema)
	}
	s.versions = make([]*schema.Props, len(spec.Versions))
	s.compile = make([]bool, len(spec.Versions))
	for i := range spec.Versions {
		if v := spec.Versions[i].Schema; v != nil {
			s.versions[i], s.compile[i] = add(v.OpenAPIV3Schema)
		}
	}
	return s
}

// roots calls f on each schema (top level first), nil ones left out.
func (s schemas) roots(f func(*schema.Props)) {
	if s.top != nil {
		f(s.top)
	}
	for _, p := range s.versions {
		if p != nil {
			f(p)
		}
	}
}

// has reports whether pred holds for a node of any schema (the server's
// HasSchemaWith with SchemaHas).
func (s schemas) has(pred func(*schema.Props) bool) bool {
	found := false
	s.roots(func(p *schema.Props) { found = found || propsHas(p, pred, 0) })
	return found
}

// propsHas reports whether pred holds for p or a node below it, walking
// every keyword that holds a schema, as the server's SchemaHas does.
func propsHas(p *schema.Props, pred func(*schema.Props) bool, depth int) bool {
	if p == nil || depth > maxWalkDepth {
		return false
	}
	if pred(p) {
		return true
	}
	d := depth + 1
	if propsHas(p.Items, pred, d) || propsHas(p.Not, pred, d) {
		return true
	}
	for _, l := range [...][]*schema.Props{p.ItemsArray, p.AllOf, p.AnyOf, p.OneOf} {
		for _, c := range l {
			if propsHas(c, pred, d) {
				return true
			}
		}
	}
	for _, m := range [...]map[string]*schema.Props{p.Properties, p.PatternProperties, p.Definitions} {
		for _, c := range m {
			if propsHas(c, pred, d) {
				return true
			}
		}
	}
	for _, pb := range [...]*schema.PropsOrBool{p.AdditionalProperties, p.AdditionalItems} {
		if pb != nil && propsHas(pb.Schema, pred, d) {
			return true
		}
	}
	for _, dep := range p.Dependencies {
		if propsHas(dep.Schema, pred, d) {
			return true
		}
	}
	return false
}

func hasDefault(p *schema.Props) bool { return p.Default != nil }

func hasKubernetesExtensions(p *schema.Props) bool {
	return p.XEmbeddedResource || p.XPreserveUnknownFields != nil || p.XIntOrString ||
		len(p.XListMapKeys) > 0 || p.XListType != nil || len(p.XValidations) > 0
}

func invalidType(p *schema.Props) bool {
	return p.Type != "" && !contains(openAPITypes, p.Type)
}

var openAPITypes = []string{"array", "boolean", "integer", "number", "object", "string"}

// nonAtomicSet: a set list whose items are lists other than atomic, or
// objects other than atomic maps.
func nonAtomicSet(p *schema.Props) bool {
	if p.XListType == nil || *p.XListType != "set" || p.Items == nil {
		return false
	}
	is := p.Items
	switch is.Type {
	case "array":
		return is.XListType != nil && *is.XListType != "atomic"
	case "object":
		return is.XMapType == nil || *is.XMapType != "atomic"
	}
	return false
}

// badMapListKeysOrSetItems: nullable items of a set or map list, or a map
// key that is neither required nor defaulted, or nullable.
func badMapListKeysOrSetItems(p *schema.Props) bool {
	if p.Items == nil || p.XListType == nil || (*p.XListType != "set" && *p.XListType != "map") {
		return false
	}
	is := p.Items
	if is.Nullable {
		return true
	}
	if *p.XListType != "map" {
		return false
	}
	for _, k := range p.XListMapKeys {
		c, ok := is.Properties[k]
		if !ok {
			continue
		}
		if (!contains(is.Required, k) && c.Default == nil) || c.Nullable {
			return true
		}
	}
	return false
}
