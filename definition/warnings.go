package definition

import (
	"fmt"
	"sort"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"

	"github.com/crdkit/crdkit/schema"
)

// WarningsOnCreate returns the warnings the server's CRD strategy sends
// when crd is created and passes validation (customresourcedefinition
// strategy WarningsOnCreate): `unrecognized format "f"` for every format
// the server does not recognize on its node's type (schema.FormatRecognized),
// then one warning per kind of x-kubernetes-list-type set whose items are
// objects or arrays. Warnings the server would repeat are given once, as
// its warning recorder sends them.
//
// The server lists formats in the order of its schema walk, whose
// properties follow Go map iteration; here properties are walked in name
// order, so two different unrecognized formats may come in another order
// than a given response of the server.
func WarningsOnCreate(crd *apiextensions.CustomResourceDefinition) []string {
	var w []string
	for _, f := range unrecognizedFormats(&crd.Spec) {
		w = appendOnce(w, formatWarning(f))
	}
	for _, s := range setListWarnings(&crd.Spec) {
		w = appendOnce(w, s)
	}
	return w
}

// WarningsOnUpdate returns the warnings the server's CRD strategy sends
// when crd replaces old and passes validation (WarningsOnUpdate): the
// warnings of WarningsOnCreate about formats and set lists that old does
// not already have.
func WarningsOnUpdate(crd, old *apiextensions.CustomResourceDefinition) []string {
	oldFormats := map[string]bool{}
	for _, f := range unrecognizedFormats(&old.Spec) {
		oldFormats[f] = true
	}
	var w []string
	for _, f := range unrecognizedFormats(&crd.Spec) {
		if !oldFormats[f] {
			w = appendOnce(w, formatWarning(f))
		}
	}
	oldSets := map[string]bool{}
	for _, s := range setListWarnings(&old.Spec) {
		oldSets[s] = true
	}
	for _, s := range setListWarnings(&crd.Spec) {
		if !oldSets[s] {
			w = appendOnce(w, s)
		}
	}
	return w
}

func formatWarning(f string) string { return fmt.Sprintf("unrecognized format %q", f) }

func appendOnce(l []string, s string) []string {
	for _, x := range l {
		if x == s {
			return l
		}
	}
	return append(l, s)
}

// unrecognizedFormats lists the formats of every schema node of spec that
// the server does not recognize, in walk order, with repeats.
func unrecognizedFormats(spec *apiextensions.CustomResourceDefinitionSpec) []string {
	var out []string
	eachSchema(spec, func(s *apiextensions.JSONSchemaProps) {
		if !schema.FormatRecognized(s.Type, s.Format) {
			out = append(out, s.Format)
		}
	})
	return out
}

// setListWarnings are the sorted, distinct warnings about set lists of
// objects or arrays in spec's schemas.
func setListWarnings(spec *apiextensions.CustomResourceDefinitionSpec) []string {
	seen := map[string]bool{}
	eachSchema(spec, func(s *apiextensions.JSONSchemaProps) {
		if s.XListType == nil || *s.XListType != "set" || s.Items == nil || s.Items.Schema == nil {
			return
		}
		switch t := s.Items.Schema.Type; t {
		case "object", "array":
			seen[fmt.Sprintf("x-kubernetes-list-type: set for items of type %q is not supported by server-side apply or CEL validation rules", t)] = true
		}
	})
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// eachSchema calls f on every schema node of spec: the top-level schema,
// then each version's, each walked as the server's SchemaHas walks one
// (the node, then items, allOf, anyOf, oneOf, not, properties,
// additionalProperties, patternProperties, additionalItems, definitions,
// dependencies), map keys in sorted order.
func eachSchema(spec *apiextensions.CustomResourceDefinitionSpec, f func(*apiextensions.JSONSchemaProps)) {
	if spec.Validation != nil {
		walkSchema(spec.Validation.OpenAPIV3Schema, f, 0)
	}
	for i := range spec.Versions {
		if v := spec.Versions[i].Schema; v != nil {
			walkSchema(v.OpenAPIV3Schema, f, 0)
		}
	}
}

// schemaHas reports whether pred holds for a node of s (the server's
// SchemaHas).
func schemaHas(s *apiextensions.JSONSchemaProps, pred func(*apiextensions.JSONSchemaProps) bool) bool {
	found := false
	walkSchema(s, func(n *apiextensions.JSONSchemaProps) {
		found = found || pred(n)
	}, 0)
	return found
}

// specHasSchemaWith reports whether pred holds for a node of any schema of
// spec (the server's HasSchemaWith with SchemaHas).
func specHasSchemaWith(spec *apiextensions.CustomResourceDefinitionSpec, pred func(*apiextensions.JSONSchemaProps) bool) bool {
	found := false
	eachSchema(spec, func(n *apiextensions.JSONSchemaProps) {
		found = found || pred(n)
	})
	return found
}

func walkSchema(s *apiextensions.JSONSchemaProps, f func(*apiextensions.JSONSchemaProps), depth int) {
	if s == nil || depth > maxWalkDepth {
		return
	}
	f(s)
	d := depth + 1
	if s.Items != nil {
		walkSchema(s.Items.Schema, f, d)
		for i := range s.Items.JSONSchemas {
			walkSchema(&s.Items.JSONSchemas[i], f, d)
		}
	}
	for _, l := range [...][]apiextensions.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range l {
			walkSchema(&l[i], f, d)
		}
	}
	walkSchema(s.Not, f, d)
	walkMap(s.Properties, f, d)
	if s.AdditionalProperties != nil {
		walkSchema(s.AdditionalProperties.Schema, f, d)
	}
	walkMap(s.PatternProperties, f, d)
	if s.AdditionalItems != nil {
		walkSchema(s.AdditionalItems.Schema, f, d)
	}
	walkMap(s.Definitions, f, d)
	keys := make([]string, 0, len(s.Dependencies))
	for k := range s.Dependencies {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		walkSchema(s.Dependencies[k].Schema, f, d)
	}
}

func walkMap(m map[string]apiextensions.JSONSchemaProps, f func(*apiextensions.JSONSchemaProps), depth int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := m[k]
		walkSchema(&p, f, depth)
	}
}
