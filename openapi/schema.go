package openapi

import (
	"reflect"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/kube-openapi/pkg/validation/spec"
	kjson "sigs.k8s.io/json"
)

// maxDepth bounds the schema walks; the server refuses deeper CRDs long before.
const maxDepth = 10000

// fromCRDSchema converts a CRD's schema as the server's structural schema sees it
// (NewStructural followed by ToKubeOpenAPI): the spine keeps properties, items and
// additionalProperties; junctor branches keep only value validations, their own
// properties and items, and the generic fields of the int-or-string pattern.
func fromCRDSchema(p *apiextensionsv1.JSONSchemaProps, nested bool, depth int) *spec.Schema {
	if p == nil {
		return nil
	}
	s := &spec.Schema{}
	if depth > maxDepth {
		return s
	}
	if p.Items != nil && p.Items.Schema != nil {
		s.Items = &spec.SchemaOrArray{Schema: fromCRDSchema(p.Items.Schema, nested, depth+1)}
	}
	if p.Properties != nil {
		s.Properties = make(map[string]spec.Schema, len(p.Properties))
		for k := range p.Properties {
			v := p.Properties[k]
			s.Properties[k] = *fromCRDSchema(&v, nested, depth+1)
		}
	}
	if !nested && p.AdditionalProperties != nil {
		ap := &spec.SchemaOrBool{Allows: p.AdditionalProperties.Allows}
		if p.AdditionalProperties.Schema != nil {
			ap.Allows = true
			ap.Schema = fromCRDSchema(p.AdditionalProperties.Schema, false, depth+1)
		}
		s.AdditionalProperties = ap
	}

	// generic fields
	if p.Type != "" {
		s.Type = spec.StringOrArray{p.Type}
	}
	s.Nullable = p.Nullable
	s.Description = p.Description
	s.Title = p.Title
	s.Default = rawJSON(p.Default)
	if p.ExternalDocs != nil {
		s.ExternalDocs = &spec.ExternalDocumentation{Description: p.ExternalDocs.Description, URL: p.ExternalDocs.URL}
	}
	s.Example = rawJSON(p.Example)

	// extensions
	if p.XPreserveUnknownFields != nil && *p.XPreserveUnknownFields {
		s.AddExtension("x-kubernetes-preserve-unknown-fields", true)
	}
	if p.XEmbeddedResource {
		s.AddExtension("x-kubernetes-embedded-resource", true)
	}
	if p.XIntOrString {
		s.AddExtension("x-kubernetes-int-or-string", true)
	}
	if len(p.XListMapKeys) > 0 {
		s.AddExtension("x-kubernetes-list-map-keys", p.XListMapKeys)
	}
	if p.XListType != nil {
		s.AddExtension("x-kubernetes-list-type", *p.XListType)
	}
	if p.XMapType != nil {
		s.AddExtension("x-kubernetes-map-type", *p.XMapType)
	}
	if len(p.XValidations) > 0 {
		s.AddExtension("x-kubernetes-validations", p.XValidations)
	}

	// value validations
	s.Format = p.Format
	s.Maximum = p.Maximum
	s.ExclusiveMaximum = p.ExclusiveMaximum
	s.Minimum = p.Minimum
	s.ExclusiveMinimum = p.ExclusiveMinimum
	s.MaxLength = p.MaxLength
	s.MinLength = p.MinLength
	s.Pattern = p.Pattern
	s.MaxItems = p.MaxItems
	s.MinItems = p.MinItems
	s.UniqueItems = p.UniqueItems
	s.MultipleOf = p.MultipleOf
	if p.Enum != nil {
		s.Enum = make([]any, 0, len(p.Enum))
		for i := range p.Enum {
			s.Enum = append(s.Enum, rawJSON(&p.Enum[i]))
		}
	}
	s.MaxProperties = p.MaxProperties
	s.MinProperties = p.MinProperties
	s.Required = p.Required
	for i := range p.AllOf {
		s.AllOf = append(s.AllOf, *fromCRDSchema(&p.AllOf[i], true, depth+1))
	}
	for i := range p.AnyOf {
		s.AnyOf = append(s.AnyOf, *fromCRDSchema(&p.AnyOf[i], true, depth+1))
	}
	for i := range p.OneOf {
		s.OneOf = append(s.OneOf, *fromCRDSchema(&p.OneOf[i], true, depth+1))
	}
	if p.Not != nil {
		s.Not = fromCRDSchema(p.Not, true, depth+1)
	}
	if !nested {
		unfold(s)
	}
	return s
}

// rawJSON decodes a default, example or enum member as the server's
// conversion to its internal CRD types does: a number written without a
// fraction or exponent that fits in int64 becomes an int64, any other number
// a float64. Marshalled, an int64 keeps every digit (9007199254740993 stays
// 9007199254740993, where a float64 would print 9007199254740992).
func rawJSON(j *apiextensionsv1.JSON) any {
	if j == nil || len(j.Raw) == 0 {
		return nil
	}
	var v any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(j.Raw, &v); err != nil {
		return nil
	}
	return v
}

var (
	intBranch    = spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"integer"}}}
	stringBranch = spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"string"}}}
)

func isIntOrStringPattern(xs []spec.Schema) bool {
	return len(xs) == 2 && reflect.DeepEqual(xs[0], intBranch) && reflect.DeepEqual(xs[1], stringBranch)
}

// unfold spells out x-kubernetes-int-or-string as the junctors the server publishes.
func unfold(s *spec.Schema) {
	if b, _ := s.Extensions.GetBool("x-kubernetes-int-or-string"); !b {
		return
	}
	if isIntOrStringPattern(s.AnyOf) || (len(s.AllOf) >= 1 && isIntOrStringPattern(s.AllOf[0].AnyOf)) {
		return
	}
	if s.AnyOf == nil {
		s.AnyOf = []spec.Schema{intBranch, stringBranch}
		return
	}
	s.AllOf = append([]spec.Schema{{SchemaProps: spec.SchemaProps{AnyOf: []spec.Schema{intBranch, stringBranch}}}}, s.AllOf...)
}

// toV2 rewrites a schema for OpenAPI v2 as the server does: junctors go; nullable
// fields lose their type and structure and leave their parent's required list;
// preserve-unknown-fields nodes lose their structure; untyped arrays and
// preserve-unknown objects lose their type. It mutates s.
func toV2(s *spec.Schema, depth int) {
	if s == nil || depth > maxDepth {
		return
	}
	s.AllOf, s.OneOf, s.AnyOf, s.Not = nil, nil, nil, nil
	preserve, _ := s.Extensions.GetBool("x-kubernetes-preserve-unknown-fields")
	if s.Nullable {
		s.Type = nil
		s.Nullable = false
		s.Items = nil
		s.Properties = nil
	}
	if preserve {
		s.Items = nil
		s.Properties = nil
	}
	if s.Items == nil && s.Type.Contains("array") {
		s.Type = nil
	}
	if preserve && s.Type.Contains("object") {
		s.Type = nil
	}
	for f, fs := range s.Properties {
		if fs.Nullable {
			s.Required = filterOut(s.Required, f)
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil && s.AdditionalProperties.Schema.Nullable {
		s.Required = nil
	}
	if s.Items != nil {
		toV2(s.Items.Schema, depth+1)
	}
	for k, v := range s.Properties {
		toV2(&v, depth+1)
		s.Properties[k] = v
	}
	if s.AdditionalProperties != nil {
		toV2(s.AdditionalProperties.Schema, depth+1)
	}
}

func filterOut(ss []string, x string) []string {
	var out []string
	found := false
	for _, s := range ss {
		if s == x {
			found = true
			continue
		}
		out = append(out, s)
	}
	if !found {
		return ss
	}
	return out
}

// pruneDefaults removes every default, as the server does for its v2 document. It mutates s.
func pruneDefaults(s *spec.Schema, depth int) {
	if s == nil || depth > maxDepth {
		return
	}
	s.Default = nil
	for k, v := range s.Properties {
		pruneDefaults(&v, depth+1)
		s.Properties[k] = v
	}
	if s.Items != nil {
		pruneDefaults(s.Items.Schema, depth+1)
	}
	if s.AdditionalProperties != nil {
		pruneDefaults(s.AdditionalProperties.Schema, depth+1)
	}
	for _, xs := range [][]spec.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range xs {
			pruneDefaults(&xs[i], depth+1)
		}
	}
	pruneDefaults(s.Not, depth+1)
}

// wrapRefs moves a $ref that has siblings into a one-element allOf, as the
// server's v3 builder does. It mutates s.
func wrapRefs(s *spec.Schema, depth int) {
	if s == nil || depth > maxDepth {
		return
	}
	if s.Ref.String() != "" && !reflect.DeepEqual(*s, spec.Schema{SchemaProps: spec.SchemaProps{Ref: s.Ref}}) {
		ref := spec.Schema{SchemaProps: spec.SchemaProps{Ref: s.Ref}}
		s.Ref = spec.Ref{}
		s.AllOf = []spec.Schema{ref}
	}
	for k, v := range s.Properties {
		wrapRefs(&v, depth+1)
		s.Properties[k] = v
	}
	if s.Items != nil {
		wrapRefs(s.Items.Schema, depth+1)
		for i := range s.Items.Schemas {
			wrapRefs(&s.Items.Schemas[i], depth+1)
		}
	}
	if s.AdditionalProperties != nil {
		wrapRefs(s.AdditionalProperties.Schema, depth+1)
	}
	for _, xs := range [][]spec.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range xs {
			wrapRefs(&xs[i], depth+1)
		}
	}
	wrapRefs(s.Not, depth+1)
}
