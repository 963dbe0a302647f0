package schema

import (
	"errors"
	"fmt"
	"sort"
)

// level is where a schema node sits, which changes the structural rules.
type level int

const (
	rootLevel level = iota
	itemLevel
	fieldLevel
)

// maxDepth bounds every recursive walk over a schema, so a hostile CRD cannot
// overflow the stack. The server has no such bound; no real CRD comes close.
const maxDepth = 512

// ErrTooDeep is returned when a schema nests deeper than the walks allow.
var ErrTooDeep = errors.New("schema nesting exceeds the supported depth")

// sortedKeys returns the keys of m in order, so every walk is deterministic.
func sortedKeys(m map[string]*Props) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// BuildError reports why a schema cannot be turned into a structural schema
// at all, with the server's text (for example "OpenAPIV3Schema '$ref' is not
// supported").
func BuildError(p *Props) error {
	// The first error in property-name order: looked for in map order
	// first, as a schema usually has none.
	if buildError(p, 0, false) == nil {
		return nil
	}
	return buildError(p, 0, true)
}

// keysOf are the keys of m, in order when sorted is set, in map order
// otherwise.
func keysOf(m map[string]*Props, sorted bool) []string {
	if sorted {
		return sortedKeys(m)
	}
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func buildError(p *Props, depth int, sorted bool) error {
	if p == nil {
		return nil
	}
	if depth > maxDepth {
		return ErrTooDeep
	}
	if err := unsupportedFieldsError(p); err != nil {
		return err
	}
	// The server builds value validations first (not, then allOf, anyOf,
	// oneOf), then generics, extensions, items, properties and
	// additionalProperties; the first error wins.
	if err := valueValidationBuildError(p, depth, sorted); err != nil {
		return err
	}
	if p.XPreserveUnknownFields != nil && !*p.XPreserveUnknownFields {
		return errors.New("internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined")
	}
	if p.HasItems {
		if len(p.ItemsArray) > 0 {
			return errors.New("OpenAPIV3Schema 'items' must be a schema, but is an array")
		}
		if err := buildError(p.Items, depth+1, sorted); err != nil {
			return err
		}
	}
	for _, k := range keysOf(p.Properties, sorted) {
		if err := buildError(p.Properties[k], depth+1, sorted); err != nil {
			return err
		}
	}
	if p.AdditionalProperties != nil {
		if err := buildError(p.AdditionalProperties.Schema, depth+1, sorted); err != nil {
			return err
		}
	}
	return nil
}

func valueValidationBuildError(p *Props, depth int, sorted bool) error {
	if err := nestedBuildError(p.Not, depth+1, sorted); err != nil {
		return err
	}
	for _, group := range [][]*Props{p.AllOf, p.AnyOf, p.OneOf} {
		for _, x := range group {
			if err := nestedBuildError(x, depth+1, sorted); err != nil {
				return err
			}
		}
	}
	return nil
}

func nestedBuildError(p *Props, depth int, sorted bool) error {
	if p == nil {
		return nil
	}
	if depth > maxDepth {
		return ErrTooDeep
	}
	if err := unsupportedFieldsError(p); err != nil {
		return err
	}
	if err := valueValidationBuildError(p, depth, sorted); err != nil {
		return err
	}
	if p.XPreserveUnknownFields != nil && !*p.XPreserveUnknownFields {
		return errors.New("internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined")
	}
	if p.HasItems {
		if len(p.ItemsArray) > 0 {
			return errors.New("OpenAPIV3Schema 'items' must be a schema, but is an array")
		}
		if err := nestedBuildError(p.Items, depth+1, sorted); err != nil {
			return err
		}
	}
	for _, k := range keysOf(p.Properties, sorted) {
		if err := nestedBuildError(p.Properties[k], depth+1, sorted); err != nil {
			return err
		}
	}
	if p.AdditionalProperties != nil {
		if err := nestedBuildError(p.AdditionalProperties.Schema, depth+1, sorted); err != nil {
			return err
		}
	}
	return nil
}

func unsupportedFieldsError(p *Props) error {
	switch {
	case p.ID != "":
		return errors.New("OpenAPIV3Schema 'id' is not supported")
	case p.Schema != "":
		return errors.New("OpenAPIV3Schema 'schema' is not supported")
	case p.Ref != nil && *p.Ref != "":
		return errors.New("OpenAPIV3Schema '$ref' is not supported")
	case len(p.PatternProperties) > 0:
		return errors.New("OpenAPIV3Schema 'patternProperties' is not supported")
	case len(p.Dependencies) > 0:
		return errors.New("OpenAPIV3Schema 'dependencies' is not supported")
	case p.AdditionalItems != nil:
		return errors.New("OpenAPIV3Schema 'additionalItems' is not supported")
	case len(p.Definitions) > 0:
		return errors.New("OpenAPIV3Schema 'definitions' is not supported")
	}
	return nil
}

// ValidateStructural reports why p, which BuildError accepts, is not a
// structural schema, with the server's field paths (under base) and texts,
// sorted by their text as the server sorts them. It returns nil for a
// structural schema.
func ValidateStructural(p *Props, base *Path) ErrorList {
	if p == nil {
		return nil
	}
	var errs ErrorList
	structuralInvariants(p, rootLevel, base, &errs, 0)
	completeness(p, p, base, base, &errs, 0)
	errs.sortByText()
	return errs
}

func structuralInvariants(s *Props, lvl level, pth *Path, errs *ErrorList, depth int) {
	if s == nil || depth > maxDepth {
		return
	}
	if s.Type == "array" && s.Items == nil {
		*errs = append(*errs, required(pth.Child("items"), "must be specified"))
	}
	// Paths are built only for children that exist (the walk allocates
	// nothing for an absent one); siblings share their "properties" step.
	if s.Items != nil {
		structuralInvariants(s.Items, itemLevel, pth.Child("items"), errs, depth+1)
	}
	if len(s.Properties) > 0 {
		pp := pth.Child("properties")
		for k, c := range s.Properties { // any order: ValidateStructural sorts its errors
			structuralInvariants(c, fieldLevel, pp.Key(k), errs, depth+1)
		}
	}
	if s.AdditionalProperties != nil {
		if lvl == rootLevel {
			*errs = append(*errs, forbidden(pth.Child("additionalProperties"), "must not be used at the root"))
		}
		if s.AdditionalProperties.Schema != nil {
			structuralInvariants(s.AdditionalProperties.Schema, fieldLevel, pth.Child("additionalProperties"), errs, depth+1)
		}
	}
	preserve := s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
	if s.XIntOrString && preserve {
		*errs = append(*errs, invalid(pth.Child("x-kubernetes-preserve-unknown-fields"), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	if s.XIntOrString && s.XEmbeddedResource {
		*errs = append(*errs, invalid(pth.Child("x-kubernetes-embedded-resource"), true, "must be false if x-kubernetes-int-or-string is true"))
	}

	valueValidationInvariants(s, isIntOrStringAnyOf(s), isIntOrStringAllOf(s), lvl, pth, errs, depth)

	checkMetadata := lvl == rootLevel || s.XEmbeddedResource
	if s.XEmbeddedResource && s.Type != "object" {
		if s.Type == "" {
			*errs = append(*errs, required(pth.Child("type"), "must be object if x-kubernetes-embedded-resource is true"))
		} else {
			*errs = append(*errs, invalid(pth.Child("type"), s.Type, "must be object if x-kubernetes-embedded-resource is true"))
		}
	} else if s.Type == "" && !s.XIntOrString && !preserve {
		switch lvl {
		case rootLevel:
			*errs = append(*errs, required(pth.Child("type"), "must not be empty at the root"))
		case itemLevel:
			*errs = append(*errs, required(pth.Child("type"), "must not be empty for specified array items"))
		default:
			*errs = append(*errs, required(pth.Child("type"), "must not be empty for specified object fields"))
		}
	}
	if s.XEmbeddedResource && s.AdditionalProperties != nil {
		*errs = append(*errs, forbidden(pth.Child("additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"))
	}
	if lvl == rootLevel && s.Type != "" && s.Type != "object" {
		*errs = append(*errs, invalid(pth.Child("type"), s.Type, "must be object at the root"))
	}
	if checkMetadata {
		for _, k := range [...]string{"kind", "apiVersion"} {
			if f, ok := s.Properties[k]; ok && f.Type != "string" {
				*errs = append(*errs, invalid(pth.Child("properties").Key(k).Child("type"), f.Type, "must be string"))
			}
		}
	}
	if m, ok := s.Properties["metadata"]; ok {
		mp := pth.Child("properties").Key("metadata")
		if checkMetadata && m.Type != "object" {
			*errs = append(*errs, invalid(mp.Child("type"), m.Type, "must be object"))
		}
		if lvl == rootLevel && !rootMetadataRestrictsOnlyNames(m) {
			*errs = append(*errs, forbidden(mp, "must not specify anything other than name and generateName, but metadata is implicitly specified"))
		}
	}
	if s.XEmbeddedResource && !preserve && len(s.Properties) == 0 {
		*errs = append(*errs, required(pth.Child("properties"), "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
	}
}

// rootMetadataRestrictsOnlyNames reports whether the root metadata schema m
// specifies nothing but type, default and the name / generateName
// properties. The sub-schemas of those two are not inspected, as upstream.
func rootMetadataRestrictsOnlyNames(m *Props) bool {
	if len(m.Properties) > 0 {
		_, n := m.Properties["name"]
		_, g := m.Properties["generateName"]
		ok := (n && g && len(m.Properties) == 2) || ((n || g) && len(m.Properties) == 1)
		if !ok {
			return false
		}
	}
	return m.Items == nil && m.AdditionalProperties == nil &&
		m.Description == "" && m.Title == "" && !m.Nullable && m.ExternalDocs == nil &&
		(m.Example == nil || m.Example.V == nil) &&
		extensionsZero(m) && m.XValidations == nil && valueValidationZero(m)
}

func extensionsZero(p *Props) bool {
	return (p.XPreserveUnknownFields == nil || !*p.XPreserveUnknownFields) && !p.XEmbeddedResource &&
		!p.XIntOrString && p.XListMapKeys == nil && p.XListType == nil && p.XMapType == nil
}

// valueValidationZero reports whether the value validation the server builds
// from p is the zero value. Enum and the junctor lists are rebuilt by
// appending, so empty and absent agree; required keeps an empty list.
func valueValidationZero(p *Props) bool {
	return p.Format == "" && p.Maximum == nil && !p.ExclusiveMaximum && p.Minimum == nil &&
		!p.ExclusiveMinimum && p.MaxLength == nil && p.MinLength == nil && p.Pattern == "" &&
		p.MaxItems == nil && p.MinItems == nil && !p.UniqueItems && p.MultipleOf == nil &&
		len(p.Enum) == 0 && p.MaxProperties == nil && p.MinProperties == nil && p.Required == nil &&
		len(p.AllOf) == 0 && len(p.OneOf) == 0 && len(p.AnyOf) == 0 && p.Not == nil
}

// isBareType reports whether the nested value validation built from p is
// exactly {type: t}, the building block of the int-or-string patterns.
func isBareType(p *Props, t string) bool {
	if p == nil || p.Type != t {
		return false
	}
	ap := p.AdditionalProperties
	return valueValidationZero(p) && p.XValidations == nil && p.Items == nil && p.Properties == nil &&
		(ap == nil || (ap.Schema == nil && !ap.Allows)) &&
		p.Description == "" && p.Title == "" && (p.Default == nil || p.Default.V == nil) && !p.Nullable &&
		p.ExternalDocs == nil && (p.Example == nil || p.Example.V == nil) && extensionsZero(p)
}

func isIntOrStringPair(l []*Props) bool {
	return len(l) == 2 && isBareType(l[0], "integer") && isBareType(l[1], "string")
}

func isIntOrStringAnyOf(p *Props) bool { return isIntOrStringPair(p.AnyOf) }

func isIntOrStringAllOf(p *Props) bool {
	return len(p.AllOf) >= 1 && p.AllOf[0] != nil && isIntOrStringPair(p.AllOf[0].AnyOf)
}

func valueValidationInvariants(v *Props, skipAnyOf, skipFirstAllOfAnyOf bool, lvl level, pth *Path, errs *ErrorList, depth int) {
	if depth > maxDepth {
		return
	}
	if !skipAnyOf {
		for i, x := range v.AnyOf {
			nestedInvariants(x, false, false, lvl, pth.Child("anyOf").Index(i), errs, depth+1)
		}
	}
	for i, x := range v.AllOf {
		nestedInvariants(x, skipFirstAllOfAnyOf && i == 0, false, lvl, pth.Child("allOf").Index(i), errs, depth+1)
	}
	for i, x := range v.OneOf {
		nestedInvariants(x, false, false, lvl, pth.Child("oneOf").Index(i), errs, depth+1)
	}
	if v.Not != nil {
		nestedInvariants(v.Not, false, false, lvl, pth.Child("not"), errs, depth+1)
	}
	if v.Pattern != "" {
		if err := checkPattern(v.Pattern); err != nil {
			*errs = append(*errs, invalid(pth.Child("pattern"), v.Pattern, fmt.Sprintf("must be a valid regular expression, but isn't: %v", err)))
		}
	}
}

func nestedInvariants(v *Props, skipAnyOf, skipAllOfAnyOf bool, lvl level, pth *Path, errs *ErrorList, depth int) {
	if v == nil || depth > maxDepth {
		return
	}
	valueValidationInvariants(v, skipAnyOf, skipAllOfAnyOf, lvl, pth, errs, depth)
	if v.Items != nil {
		nestedInvariants(v.Items, false, false, lvl, pth.Child("items"), errs, depth+1)
	}
	var pp *Path
	if len(v.Properties) > 0 {
		pp = pth.Child("properties")
	}
	for k, c := range v.Properties { // any order: ValidateStructural sorts its errors
		nestedInvariants(c, false, false, fieldLevel, pp.Key(k), errs, depth+1)
	}
	if v.Type != "" {
		*errs = append(*errs, forbidden(pth.Child("type"), "must be empty to be structural"))
	}
	if ap := v.AdditionalProperties; ap != nil && (ap.Schema != nil || ap.Allows) {
		*errs = append(*errs, forbidden(pth.Child("additionalProperties"), "must be undefined to be structural"))
	}
	if v.Default != nil && v.Default.V != nil {
		*errs = append(*errs, forbidden(pth.Child("default"), "must be undefined to be structural"))
	}
	if v.Title != "" {
		*errs = append(*errs, forbidden(pth.Child("title"), "must be empty to be structural"))
	}
	if v.Description != "" {
		*errs = append(*errs, forbidden(pth.Child("description"), "must be empty to be structural"))
	}
	if v.Nullable {
		*errs = append(*errs, forbidden(pth.Child("nullable"), "must be false to be structural"))
	}
	if v.XPreserveUnknownFields != nil && *v.XPreserveUnknownFields {
		*errs = append(*errs, forbidden(pth.Child("x-kubernetes-preserve-unknown-fields"), "must be false to be structural"))
	}
	if v.XEmbeddedResource {
		*errs = append(*errs, forbidden(pth.Child("x-kubernetes-embedded-resource"), "must be false to be structural"))
	}
	if v.XIntOrString {
		*errs = append(*errs, forbidden(pth.Child("x-kubernetes-int-or-string"), "must be false to be structural"))
	}
	if len(v.XListMapKeys) > 0 {
		*errs = append(*errs, forbidden(pth.Child("x-kubernetes-list-map-keys"), "must be empty to be structural"))
	}
	if v.XListType != nil {
		*errs = append(*errs, forbidden(pth.Child("x-kubernetes-list-type"), "must be undefined to be structural"))
	}
	if v.XMapType != nil {
		*errs = append(*errs, forbidden(pth.Child("x-kubernetes-map-type"), "must be undefined to be structural"))
	}
	if len(v.XValidations) > 0 {
		*errs = append(*errs, forbidden(pth.Child("x-kubernetes-validations"), "must be empty to be structural"))
	}
	if _, ok := v.Properties["metadata"]; ok {
		*errs = append(*errs, forbidden(pth.Child("properties").Key("metadata"), "must not be specified in a nested context"))
	}
}

// completeness checks that every property and items used inside a junctor
// of v also exists in the structural schema s. Like the server, it looks only
// at the junctors of the root.
func completeness(v, s *Props, sPath, vPath *Path, errs *ErrorList, depth int) {
	if depth > maxDepth {
		return
	}
	if s == nil {
		*errs = append(*errs, required(sPath, "because it is defined in "+vPath.String()))
		return
	}
	if v.Not != nil {
		nestedCompleteness(v.Not, s, sPath, vPath.Child("not"), errs, depth+1)
	}
	for i, x := range v.AllOf {
		nestedCompleteness(x, s, sPath, vPath.Child("allOf").Index(i), errs, depth+1)
	}
	for i, x := range v.AnyOf {
		nestedCompleteness(x, s, sPath, vPath.Child("anyOf").Index(i), errs, depth+1)
	}
	for i, x := range v.OneOf {
		nestedCompleteness(x, s, sPath, vPath.Child("oneOf").Index(i), errs, depth+1)
	}
}

func nestedCompleteness(v, s *Props, sPath, vPath *Path, errs *ErrorList, depth int) {
	if v == nil || depth > maxDepth {
		return
	}
	if s == nil {
		*errs = append(*errs, required(sPath, "because it is defined in "+vPath.String()))
		return
	}
	completeness(v, s, sPath, vPath, errs, depth+1)
	if v.Items != nil {
		nestedCompleteness(v.Items, s.Items, sPath.Child("items"), vPath.Child("items"), errs, depth+1)
	}
	for k, vf := range v.Properties { // any order: ValidateStructural sorts its errors
		if sf, ok := s.Properties[k]; ok && len(s.Properties) > 0 {
			nestedCompleteness(vf, sf, sPath.Child("properties").Key(k), vPath.Child("properties").Key(k), errs, depth+1)
		} else {
			*errs = append(*errs, required(sPath.Child("properties").Key(k), "because it is defined in "+vPath.Child("properties").Key(k).String()))
		}
	}
}
