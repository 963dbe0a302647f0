package definition

import (
	"reflect"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/transport"

	"github.com/crdkit/crdkit/objectmeta"
	"github.com/crdkit/crdkit/prune"
	"github.com/crdkit/crdkit/rules"
	"github.com/crdkit/crdkit/schema"
)

// ValidateUpdate makes the checks the server makes when crd replaces the
// live CRD old (apis/apiextensions/validation
// ValidateCustomResourceDefinitionUpdate), on the internal forms, crd as
// PrepareForUpdate left it. Besides the checks of a create (but the
// metadata name's, which cannot change) it refuses a change of group or
// plural, and of scope or kind once old is Established; it keeps what old
// already has: a rule or messageExpression old has compiles in the
// stored-expressions environment, the per-expression CEL cost limits are
// not checked on a version whose schema is unchanged, and the checks old
// already fails (a schema for every version, valid property types,
// structural schemas, pruned defaults, atomic set items, map keys
// required and not nullable, recognized conversion review versions, a
// valid CA bundle, at most 8 selectable fields, preserveUnknownFields,
// the API-approval state) are not required of crd either. It modifies
// crd as Validate does (embedded metadata in defaults coerced), never old.
func ValidateUpdate(crd, old *apiextensions.CustomResourceDefinition) field.ErrorList {
	opts := updateOptions(crd, old)
	errs := objectmeta.ValidateUpdate(&crd.ObjectMeta, &old.ObjectMeta, false)
	fp := field.NewPath("spec")
	errs = append(errs, validateSpec(&crd.Spec, opts, fp)...)
	if opts.requireImmutableNames {
		errs = append(errs, genericvalidation.ValidateImmutableField(crd.Spec.Scope, old.Spec.Scope, fp.Child("scope"))...)
		errs = append(errs, genericvalidation.ValidateImmutableField(crd.Spec.Names.Kind, old.Spec.Names.Kind, fp.Child("names", "kind"))...)
	}
	errs = append(errs, genericvalidation.ValidateImmutableField(crd.Spec.Group, old.Spec.Group, fp.Child("group"))...)
	errs = append(errs, genericvalidation.ValidateImmutableField(crd.Spec.Names.Plural, old.Spec.Names.Plural, fp.Child("names", "plural"))...)
	return append(errs, validateRest(crd, old)...)
}

// updateOptions are the server's options for an update of old: each
// requirement old already fails is dropped. The requirements that need a
// walk of old's schemas (valid property types, structural schemas, pruned
// defaults, atomic set items, map keys) start as required and are worked
// out from old (lazy) only when crd fails one of them: what old fails can
// only lift an error crd has, so a crd without those errors needs no look
// at old's schemas.
func updateOptions(crd, old *apiextensions.CustomResourceDefinition) options {
	var once sync.Once
	var unchanged map[string]bool
	return options{
		requireRecognizedConversionReviewVersion: old.Spec.Conversion == nil || recognizedReviewVersionOrNone(old.Spec.Conversion.ConversionReviewVersions),
		requireImmutableNames:                    established(old),
		requireOpenAPISchema:                     everyVersionHasSchema(&old.Spec),
		requireValidPropertyType:                 true,
		requireStructuralSchema:                  true,
		requirePrunedDefaults:                    true,
		requireAtomicSetType:                     true,
		requireMapListKeysMapSetValidation:       true,
		live:                                     newLiveFacts(old),
		stored:                                   sync.OnceValue(func() *rules.CheckOptions { return storedExpressions(&old.Spec) }),
		unchanged: func(version string) bool {
			once.Do(func() { unchanged = unchangedSchemas(crd, old) })
			return unchanged[version]
		},
		compiler:                     rules.NewCompiler(),
		allowInvalidCABundle:         allowInvalidCABundle(old),
		allowTooManySelectableFields: tooManySelectableFieldsAllowed(crd, old),
	}
}

// liveFacts are what the live CRD's schemas fail of the server's
// requirements, each worked out on first use (from one conversion of its
// schemas). Safe for concurrent use.
type liveFacts struct {
	validType, allStructural, prunedDefaults, atomicSets, mapKeys func() bool
}

func newLiveFacts(old *apiextensions.CustomResourceDefinition) *liveFacts {
	ss := sync.OnceValue(func() schemas { return convertSchemas(&old.Spec) })
	structural := sync.OnceValue(func() []*schema.Props { return structuralSchemas(ss()) })
	return &liveFacts{
		validType:      sync.OnceValue(func() bool { return !ss().has(invalidType) }),
		allStructural:  sync.OnceValue(func() bool { return len(structural()) == countSchemas(ss()) }),
		prunedDefaults: sync.OnceValue(func() bool { return !hasUnprunedDefaults(structural()) }),
		atomicSets:     sync.OnceValue(func() bool { return !ss().has(nonAtomicSet) }),
		mapKeys:        sync.OnceValue(func() bool { return !ss().has(badMapListKeysOrSetItems) }),
	}
}

// PrepareForUpdate modifies crd as the server does before it validates an
// update over old (rest.BeforeUpdate and the CRD strategy's
// PrepareForUpdate): the status is old's, the generation old's, plus one
// when the spec changed, and the storage version is appended to
// status.storedVersions when it is not there.
func PrepareForUpdate(crd, old *apiextensions.CustomResourceDefinition) {
	crd.Status = *old.Status.DeepCopy()
	crd.Generation = old.Generation
	if !apiequality.Semantic.DeepEqual(old.Spec, crd.Spec) {
		crd.Generation = old.Generation + 1
	}
	storeStorageVersion(crd)
}

func established(crd *apiextensions.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensions.Established {
			return c.Status == apiextensions.ConditionTrue
		}
	}
	return false
}

func recognizedReviewVersionOrNone(versions []string) bool {
	if len(versions) == 0 {
		return true
	}
	for _, v := range versions {
		if contains(conversionReviewVersions, v) {
			return true
		}
	}
	return false
}

func everyVersionHasSchema(spec *apiextensions.CustomResourceDefinitionSpec) bool {
	if spec.Validation != nil && spec.Validation.OpenAPIV3Schema != nil {
		return true
	}
	for _, v := range spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			return false
		}
	}
	return true
}

// structuralSchemas are the schemas of ss that are structural.
func structuralSchemas(ss schemas) []*schema.Props {
	var out []*schema.Props
	ss.roots(func(p *schema.Props) {
		if schema.BuildError(p) == nil && len(schema.ValidateStructural(p, nil)) == 0 {
			out = append(out, p)
		}
	})
	return out
}

func countSchemas(ss schemas) int {
	n := 0
	ss.roots(func(*schema.Props) { n++ })
	return n
}

// hasUnprunedDefaults reports whether one of the structural schemas has a
// default that the server's PruneDefaults would change: the default placed
// in an object at its path from the root, its metadata coerced (invalid
// fields dropped) and the object pruned, then read back. A schema whose
// walk fails (a root default that is not an object, a value read back of
// the wrong type) counts as having none, as for the server.
func hasUnprunedDefaults(structural []*schema.Props) bool {
	for _, p := range structural {
		if !propsHas(p, hasDefault, 0) {
			continue
		}
		s, err := schema.Compile(p)
		if err != nil {
			continue
		}
		w := defaultsPruner{root: s}
		w.walk(s, nil, 0)
		if w.changed && !w.failed {
			return true
		}
	}
	return false
}

// defaultsPruner is the server's PruneDefaults, reporting whether any
// default changes.
type defaultsPruner struct {
	root            *schema.Schema
	changed, failed bool
}

func (w *defaultsPruner) walk(s *schema.Schema, steps []step, depth int) {
	if s == nil || w.failed || depth > maxWalkDepth {
		return
	}
	if def, ok := s.Default(); ok && def != nil {
		w.prune(def, steps)
	}
	if a, _, _ := s.AdditionalProperties(); a != nil {
		w.walk(a, append(steps[:len(steps):len(steps)], step{key: "*"}), depth+1)
	}
	if it := s.Items(); it != nil {
		w.walk(it, append(steps[:len(steps):len(steps)], step{index: true}), depth+1)
	}
	for k, p := range s.Properties() {
		w.walk(p, append(steps[:len(steps):len(steps)], step{key: k}), depth+1)
	}
}

func (w *defaultsPruner) prune(def any, steps []step) {
	v := schema.DeepCopyValue(def)
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].index {
			v = []any{v}
		} else {
			v = map[string]any{steps[i].key: v}
		}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		w.failed = true // the server: "object root default value must be of object type"
		return
	}
	if err, _ := objectmeta.Coerce(nil, obj, w.root, objectmeta.CoerceOptions{ResourceRoot: true, DropInvalidFields: true}); err != nil {
		w.failed = true
		return
	}
	prune.Object(obj, w.root, prune.Options{Root: true, NoPaths: true}, nil)
	var got any = obj
	for _, st := range steps {
		if st.index {
			l, ok := got.([]any)
			if !ok {
				w.failed = true
				return
			}
			if len(l) == 0 {
				got = nil
				break
			}
			got = l[0]
			continue
		}
		m, ok := got.(map[string]any)
		if !ok {
			w.failed = true
			return
		}
		if got, ok = m[st.key]; !ok {
			got = nil
			break
		}
	}
	if !reflect.DeepEqual(got, def) {
		w.changed = true
	}
}

// storedExpressions are the rules and messageExpressions anywhere in the
// schemas of spec, read from the internal form (the server's
// findPreexistingExpressions) without converting them.
func storedExpressions(spec *apiextensions.CustomResourceDefinitionSpec) *rules.CheckOptions {
	o := &rules.CheckOptions{StoredRules: map[string]bool{}, StoredMessageExpressions: map[string]bool{}}
	if spec.Validation != nil && spec.Validation.OpenAPIV3Schema != nil {
		collectExpressions(o, *spec.Validation.OpenAPIV3Schema, 0)
	}
	for i := range spec.Versions {
		if v := spec.Versions[i].Schema; v != nil && v.OpenAPIV3Schema != nil {
			collectExpressions(o, *v.OpenAPIV3Schema, 0)
		}
	}
	return o
}

// collectExpressions adds the expressions of p and below to o. Schemas are
// passed by value: the copies stay on the stack, where pointers to copies
// of map values would each move to the heap.
func collectExpressions(o *rules.CheckOptions, p apiextensions.JSONSchemaProps, depth int) {
	if depth > maxWalkDepth {
		return
	}
	for _, r := range p.XValidations {
		o.StoredRules[r.Rule] = true
		if r.MessageExpression != "" {
			o.StoredMessageExpressions[r.MessageExpression] = true
		}
	}
	d := depth + 1
	if p.Items != nil {
		if p.Items.Schema != nil {
			collectExpressions(o, *p.Items.Schema, d)
		}
		for i := range p.Items.JSONSchemas {
			collectExpressions(o, p.Items.JSONSchemas[i], d)
		}
	}
	if p.Not != nil {
		collectExpressions(o, *p.Not, d)
	}
	for _, l := range [...][]apiextensions.JSONSchemaProps{p.AllOf, p.AnyOf, p.OneOf} {
		for i := range l {
			collectExpressions(o, l[i], d)
		}
	}
	for _, m := range [...]map[string]apiextensions.JSONSchemaProps{p.Properties, p.PatternProperties, p.Definitions} {
		for _, c := range m {
			collectExpressions(o, c, d)
		}
	}
	for _, pb := range [...]*apiextensions.JSONSchemaPropsOrBool{p.AdditionalProperties, p.AdditionalItems} {
		if pb != nil && pb.Schema != nil {
			collectExpressions(o, *pb.Schema, d)
		}
	}
	for _, dep := range p.Dependencies {
		if dep.Schema != nil {
			collectExpressions(o, *dep.Schema, d)
		}
	}
}

// unchangedSchemas are the versions of crd whose schema is old's, as the
// server looks them up (the top-level schema when no version has its own).
func unchangedSchemas(crd, old *apiextensions.CustomResourceDefinition) map[string]bool {
	out := map[string]bool{}
	for _, v := range crd.Spec.Versions {
		n, ok := schemaForVersion(crd, v.Name)
		if !ok {
			continue
		}
		o, ok := schemaForVersion(old, v.Name)
		if ok && apiequality.Semantic.DeepEqual(n, o) {
			out[v.Name] = true
		}
	}
	return out
}

func schemaForVersion(crd *apiextensions.CustomResourceDefinition, name string) (*apiextensions.CustomResourceValidation, bool) {
	if !hasPerVersion(crd.Spec.Versions, func(v *apiextensions.CustomResourceDefinitionVersion) bool { return v.Schema != nil }) {
		return crd.Spec.Validation, true
	}
	if crd.Spec.Validation != nil {
		return nil, false
	}
	for _, v := range crd.Spec.Versions {
		if v.Name == name {
			return v.Schema, true
		}
	}
	return nil, false
}

// allowInvalidCABundle: old is not established yet, or its own bundle is
// invalid.
func allowInvalidCABundle(old *apiextensions.CustomResourceDefinition) bool {
	if !established(old) {
		return true
	}
	c := old.Spec.Conversion
	if c == nil || c.WebhookClientConfig == nil || len(c.WebhookClientConfig.CABundle) == 0 {
		return false
	}
	return len(validateCABundle(field.NewPath("caBundle"), c.WebhookClientConfig.CABundle)) > 0
}

func validateCABundle(fp *field.Path, ca []byte) field.ErrorList {
	if _, err := transport.TLSConfigFor(&transport.Config{TLS: transport.TLSConfig{CAData: ca}}); err != nil {
		return field.ErrorList{field.Invalid(fp, ca, err.Error())}
	}
	return nil
}

// tooManySelectableFieldsAllowed: the top level ("") and the versions
// whose selectable fields old already had over the limit and crd keeps.
func tooManySelectableFieldsAllowed(crd, old *apiextensions.CustomResourceDefinition) map[string]bool {
	out := map[string]bool{}
	if len(old.Spec.SelectableFields) > maxSelectableFields && apiequality.Semantic.DeepEqual(crd.Spec.SelectableFields, old.Spec.SelectableFields) {
		out[""] = true
	}
	oldVersions := map[string]*apiextensions.CustomResourceDefinitionVersion{}
	for i := range old.Spec.Versions {
		oldVersions[old.Spec.Versions[i].Name] = &old.Spec.Versions[i]
	}
	for _, v := range crd.Spec.Versions {
		ov, ok := oldVersions[v.Name]
		if ok && len(ov.SelectableFields) > maxSelectableFields && apiequality.Semantic.DeepEqual(v.SelectableFields, ov.SelectableFields) {
			out[v.Name] = true
		}
	}
	return out
}
