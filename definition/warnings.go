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
	f := warningFactsOf(&crd.Spec)
	var w []string
	for _, s := range f.formats {
		w = appendOnce(w, formatWarning(s))
	}
	for _, s := range f.setList() {
		w = appendOnce(w, s)
	}
	return w
}

// WarningsOnUpdate returns the warnings the server's CRD strategy sends
// when crd replaces old and passes validation (WarningsOnUpdate): the
// warnings of WarningsOnCreate about formats and set lists that old does
// not already have.
func WarningsOnUpdate(crd, old *apiextensions.CustomResourceDefinition) []string {
	of, nf := warningFactsOf(&old.Spec), warningFactsOf(&crd.Spec)
	oldFormats := map[string]bool{}
	for _, s := range of.formats {
		oldFormats[s] = true
	}
	var w []string
	for _, s := range nf.formats {
		if !oldFormats[s] {
			w = appendOnce(w, formatWarning(s))
		}
	}
	for _, s := range nf.setList() {
		if !of.sets[s] {
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

// warningFacts are what the warnings are made of, gathered in one walk
// of a spec's schemas: the top-level schema, then each version's, each
// walked as the server's SchemaHas walks one (the node, then items, allOf,
// anyOf, oneOf, not, properties, additionalProperties, patternProperties,
// additionalItems, definitions, dependencies), map keys in sorted order.
type warningFacts struct {
	// formats: the formats the server does not recognize on their
	// nodes' types, in walk order, with repeats.
	formats []string
	// sets: the warnings about set lists of objects or arrays.
	sets map[string]bool
}

func warningFactsOf(spec *apiextensions.CustomResourceDefinitionSpec) *warningFacts {
	f := &warningFacts{}
	if spec.Validation != nil {
		f.walk(spec.Validation.OpenAPIV3Schema, 0)
	}
	for i := range spec.Versions {
		if v := spec.Versions[i].Schema; v != nil {
			f.walk(v.OpenAPIV3Schema, 0)
		}
	}
	return f
}

// setList is the sorted set list warnings.
func (f *warningFacts) setList() []string {
	out := make([]string, 0, len(f.sets))
	for s := range f.sets {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// walk visits s and the nodes below it. It is a method rather than a walk
// with a callback so that the copies of map values it visits stay on the
// stack.
func (f *warningFacts) walk(s *apiextensions.JSONSchemaProps, depth int) {
	if s == nil || depth > maxWalkDepth {
		return
	}
	if !schema.FormatRecognized(s.Type, s.Format) {
		f.formats = append(f.formats, s.Format)
	}
	if s.XListType != nil && *s.XListType == "set" && s.Items != nil && s.Items.Schema != nil {
		switch t := s.Items.Schema.Type; t {
		case "object", "array":
			if f.sets == nil {
				f.sets = map[string]bool{}
			}
			f.sets[fmt.Sprintf("x-kubernetes-list-type: set for items of type %q is not supported by server-side apply or CEL validation rules", t)] = true
		}
	}
	d := depth + 1
	if s.Items != nil {
		f.walk(s.Items.Schema, d)
		for i := range s.Items.JSONSchemas {
			f.walk(&s.Items.JSONSchemas[i], d)
		}
	}
	for _, l := range [...][]apiextensions.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range l {
			f.walk(&l[i], d)
		}
	}
	f.walk(s.Not, d)
	f.walkMap(s.Properties, d)
	if s.AdditionalProperties != nil {
		f.walk(s.AdditionalProperties.Schema, d)
	}
	f.walkMap(s.PatternProperties, d)
	if s.AdditionalItems != nil {
		f.walk(s.AdditionalItems.Schema, d)
	}
	f.walkMap(s.Definitions, d)
	for _, k := range sortedKeys(s.Dependencies) {
		f.walk(s.Dependencies[k].Schema, d)
	}
}

func (f *warningFacts) walkMap(m map[string]apiextensions.JSONSchemaProps, depth int) {
	for _, k := range sortedKeys(m) {
		p := m[k]
		f.walk(&p, depth)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
