package schema

import (
	"regexp"
	"strings"
)

// CRDOptions selects the CRD-time schema checks. The server turns all of
// them on when a CRD is created; on update it relaxes those the old CRD
// already broke.
type CRDOptions struct {
	AllowDefaults                      bool
	RequireValidPropertyType           bool
	RequireAtomicSetType               bool
	RequireMapListKeysMapSetValidation bool
}

// CreateOptions are the options the server uses when a CRD is created.
var CreateOptions = CRDOptions{
	AllowDefaults:                      true,
	RequireValidPropertyType:           true,
	RequireAtomicSetType:               true,
	RequireMapListKeysMapSetValidation: true,
}

// openAPITypes are the types a CRD schema may name, sorted as the server
// lists them.
var openAPITypes = []string{"array", "boolean", "integer", "number", "object", "string"}

// supportedRuleReasons are the reasons an x-kubernetes-validations rule may
// carry, sorted.
var supportedRuleReasons = []string{"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"}

// checker carries what the server's standard validator carries down the
// schema: whether defaults are allowed (and why not), and whether the walk is
// inside the metadata, kind or apiVersion of a resource.
type checker struct {
	opts               CRDOptions
	allowDefaults      bool
	noDefaultsReason   string
	insideResourceMeta bool
	uncorrelatablePath *Path
	sorted             bool // properties and definitions walked in name order
}

func (c checker) withForbiddenDefaults(reason string) checker {
	c.allowDefaults = false
	c.noDefaultsReason = reason
	return c
}

func (c checker) withForbidOldSelf(p *Path) checker {
	if c.uncorrelatablePath == nil {
		c.uncorrelatablePath = p
	}
	return c
}

// CheckCRDSchema runs the checks the server makes on every node of a CRD
// version's openAPIV3Schema (ValidateCustomResourceDefinitionOpenAPISchema),
// other than compiling CEL rules, with paths under base. It does not include
// the structural checks (ValidateStructural) nor the status-subresource root
// checks, which the caller combines as the server does.
func CheckCRDSchema(p *Props, base *Path, opts CRDOptions) ErrorList {
	// The errors come in property-name order: the walk goes in map order
	// first, as a schema usually has none, and again in order when it
	// finds one.
	var errs ErrorList
	c := checker{opts: opts, allowDefaults: opts.AllowDefaults}
	c.check(p, base, true, &errs, 0)
	if len(errs) == 0 {
		return nil
	}
	errs = errs[:0]
	c.sorted = true
	c.check(p, base, true, &errs, 0)
	return errs
}

var metaFields = map[string]bool{"metadata": true, "kind": true, "apiVersion": true}

func mapIsCorrelatable(t *string) bool {
	return t == nil || *t == "granular" || *t == "atomic"
}

func (c checker) check(s *Props, pth *Path, isRoot bool, errs *ErrorList, depth int) {
	if s == nil {
		return
	}
	if depth > maxDepth {
		*errs = append(*errs, invalid(pth, "", ErrTooDeep.Error()))
		return
	}
	c.standard(s, pth, errs)
	if s.UniqueItems {
		*errs = append(*errs, forbidden(pth.Child("uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}
	if ap := s.AdditionalProperties; ap != nil {
		if len(s.Properties) != 0 && (!ap.Allows || ap.Schema != nil) {
			*errs = append(*errs, forbidden(pth.Child("additionalProperties"), "additionalProperties and properties are mutual exclusive"))
		}
		sub := c
		if c.insideResourceMeta {
			sub = c.withForbiddenDefaults("inside additionalProperties applying to object metadata")
		}
		sub.check(ap.Schema, pth.Child("additionalProperties"), false, errs, depth+1)
	}
	var pp *Path // shared by the properties' paths
	if len(s.Properties) > 0 {
		pp = pth.Child("properties")
	}
	for _, k := range keysOf(s.Properties, c.sorted) {
		sub := c
		if !mapIsCorrelatable(s.XMapType) {
			sub = sub.withForbidOldSelf(pth)
		}
		if (isRoot || s.XEmbeddedResource) && metaFields[k] {
			sub.insideResourceMeta = true
			if isRoot {
				sub = sub.withForbiddenDefaults("in top-level " + k)
			}
		}
		sub.check(s.Properties[k], pp.Key(k), false, errs, depth+1)
	}
	if s.Not != nil {
		c.check(s.Not, pth.Child("not"), false, errs, depth+1)
	}
	for i, x := range s.AllOf {
		c.check(x, pth.Child("allOf").Index(i), false, errs, depth+1)
	}
	for i, x := range s.OneOf {
		c.check(x, pth.Child("oneOf").Index(i), false, errs, depth+1)
	}
	for i, x := range s.AnyOf {
		c.check(x, pth.Child("anyOf").Index(i), false, errs, depth+1)
	}
	for _, k := range keysOf(s.Definitions, c.sorted) {
		c.check(s.Definitions[k], pth.Child("definitions").Key(k), false, errs, depth+1)
	}
	if s.HasItems {
		sub := c
		if s.XListType == nil || *s.XListType != "map" {
			sub = sub.withForbidOldSelf(pth)
		}
		if s.Items != nil {
			sub.check(s.Items, pth.Child("items"), false, errs, depth+1)
		}
		for i, x := range s.ItemsArray {
			sub.check(x, pth.Child("items").Index(i), false, errs, depth+1)
		}
	}
	if s.Dependencies != nil {
		ks := make([]string, 0, len(s.Dependencies))
		for k := range s.Dependencies {
			ks = append(ks, k)
		}
		sortStrings(ks)
		for _, k := range ks {
			c.check(s.Dependencies[k].Schema, pth.Child("dependencies").Key(k), false, errs, depth+1)
		}
	}
	if s.XPreserveUnknownFields != nil && !*s.XPreserveUnknownFields {
		*errs = append(*errs, invalid(pth.Child("x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"))
	}
	if s.XMapType != nil && s.Type != "object" {
		if s.Type == "" {
			*errs = append(*errs, required(pth.Child("type"), "must be object if x-kubernetes-map-type is specified"))
		} else {
			*errs = append(*errs, invalid(pth.Child("type"), s.Type, "must be object if x-kubernetes-map-type is specified"))
		}
	}
	if s.XMapType != nil && *s.XMapType != "atomic" && *s.XMapType != "granular" {
		*errs = append(*errs, notSupported(pth.Child("x-kubernetes-map-type"), *s.XMapType, []string{"atomic", "granular"}))
	}
	if s.XListType != nil && s.Type != "array" {
		if s.Type == "" {
			*errs = append(*errs, required(pth.Child("type"), "must be array if x-kubernetes-list-type is specified"))
		} else {
			*errs = append(*errs, invalid(pth.Child("type"), s.Type, "must be array if x-kubernetes-list-type is specified"))
		}
	} else if c.opts.RequireAtomicSetType && s.XListType != nil && *s.XListType == "set" && s.Items != nil {
		is := s.Items
		switch is.Type {
		case "array":
			if is.XListType != nil && *is.XListType != "atomic" {
				*errs = append(*errs, invalid(pth.Child("items").Child("x-kubernetes-list-type"), is.XListType, "must be atomic as item of a list with x-kubernetes-list-type=set"))
			}
		case "object":
			if is.XMapType == nil || *is.XMapType != "atomic" {
				// The server reports the item's list type here, not its map type.
				*errs = append(*errs, invalid(pth.Child("items").Child("x-kubernetes-map-type"), is.XListType, "must be atomic as item of a list with x-kubernetes-list-type=set"))
			}
		}
	}
	if s.XListType != nil && *s.XListType != "atomic" && *s.XListType != "set" && *s.XListType != "map" {
		*errs = append(*errs, notSupported(pth.Child("x-kubernetes-list-type"), *s.XListType, []string{"atomic", "set", "map"}))
	}
	if len(s.XListMapKeys) > 0 {
		if s.XListType == nil {
			*errs = append(*errs, required(pth.Child("x-kubernetes-list-type"), "must be map if x-kubernetes-list-map-keys is non-empty"))
		} else if *s.XListType != "map" {
			*errs = append(*errs, invalid(pth.Child("x-kubernetes-list-type"), *s.XListType, "must be map if x-kubernetes-list-map-keys is non-empty"))
		}
	}
	if s.XListType != nil && *s.XListType == "map" {
		c.checkMapList(s, pth, errs)
	}
	if c.opts.RequireMapListKeysMapSetValidation {
		checkMapListKeysMapSet(s, pth, errs)
	}
	checkRules(s, pth, errs)
}

func (c checker) standard(s *Props, pth *Path, errs *ErrorList) {
	if c.opts.RequireValidPropertyType && s.Type != "" && !contains(openAPITypes, s.Type) {
		*errs = append(*errs, notSupported(pth.Child("type"), s.Type, openAPITypes))
	}
	if s.Default != nil && !c.allowDefaults {
		d := "must not be set"
		if c.noDefaultsReason != "" {
			d += " " + c.noDefaultsReason
		}
		*errs = append(*errs, forbidden(pth.Child("default"), d))
	}
	if s.ID != "" {
		*errs = append(*errs, forbidden(pth.Child("id"), "id is not supported"))
	}
	if s.AdditionalItems != nil {
		*errs = append(*errs, forbidden(pth.Child("additionalItems"), "additionalItems is not supported"))
	}
	if len(s.PatternProperties) != 0 {
		*errs = append(*errs, forbidden(pth.Child("patternProperties"), "patternProperties is not supported"))
	}
	if len(s.Definitions) != 0 {
		*errs = append(*errs, forbidden(pth.Child("definitions"), "definitions is not supported"))
	}
	if s.Dependencies != nil {
		*errs = append(*errs, forbidden(pth.Child("dependencies"), "dependencies is not supported"))
	}
	if s.Ref != nil {
		*errs = append(*errs, forbidden(pth.Child("$ref"), "$ref is not supported"))
	}
	if s.Type == "null" {
		*errs = append(*errs, forbidden(pth.Child("type"), "type cannot be set to null, use nullable as an alternative"))
	}
	if len(s.ItemsArray) != 0 {
		*errs = append(*errs, forbidden(pth.Child("items"), "items must be a schema object and not an array"))
	}
	if c.insideResourceMeta && s.XEmbeddedResource {
		*errs = append(*errs, forbidden(pth.Child("x-kubernetes-embedded-resource"), "must not be used inside of resource meta"))
	}
}

func (c checker) checkMapList(s *Props, pth *Path, errs *ErrorList) {
	if len(s.XListMapKeys) == 0 {
		*errs = append(*errs, required(pth.Child("x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"))
	}
	if !s.HasItems {
		*errs = append(*errs, required(pth.Child("items"), "must have a schema if x-kubernetes-list-type is map"))
		return
	}
	if s.Items == nil {
		*errs = append(*errs, invalid(pth.Child("items"), itemsValue(s), "must only have a single schema if x-kubernetes-list-type is map"))
		return
	}
	if s.Items.Type != "object" {
		*errs = append(*errs, invalid(pth.Child("items").Child("type"), s.Items.Type, "must be object if parent array's x-kubernetes-list-type is map"))
		return
	}
	seen := map[string]bool{}
	for _, k := range s.XListMapKeys {
		if f, ok := s.Items.Properties[k]; ok {
			if f.Type == "array" || f.Type == "object" {
				// The server shows the items' type as the value, not the key's.
				*errs = append(*errs, invalid(pth.Child("items").Child("properties").Key(k).Child("type"), s.Items.Type, "must be a scalar type if parent array's x-kubernetes-list-type is map"))
			}
		} else {
			*errs = append(*errs, invalid(pth.Child("x-kubernetes-list-map-keys"), s.XListMapKeys, "entries must all be names of item properties"))
		}
		if seen[k] {
			*errs = append(*errs, invalid(pth.Child("x-kubernetes-list-map-keys"), s.XListMapKeys, "must not contain duplicate entries"))
		}
		seen[k] = true
	}
}

// itemsValue is the value the server shows for an items array: the internal
// JSONSchemaPropsOrArray struct, which has no JSON names of its own.
func itemsValue(s *Props) any {
	if s.ItemsOrigin != nil {
		return s.ItemsOrigin.V
	}
	return map[string]any{"Schema": nil, "JSONSchemas": s.ItemsArray}
}

func checkMapListKeysMapSet(s *Props, pth *Path, errs *ErrorList) {
	if s.Items == nil || s.XListType == nil || (*s.XListType != "set" && *s.XListType != "map") {
		return
	}
	if s.Items.Nullable {
		*errs = append(*errs, forbidden(pth.Child("items").Child("nullable"), "cannot be nullable when x-kubernetes-list-type is "+*s.XListType))
	}
	if *s.XListType != "map" {
		return
	}
	req := make(map[string]bool, len(s.Items.Required))
	for _, r := range s.Items.Required {
		req[r] = true
	}
	for _, k := range s.XListMapKeys {
		f, ok := s.Items.Properties[k]
		if !ok {
			continue
		}
		kp := pth.Child("items").Child("properties").Key(k)
		if !req[k] && f.Default == nil {
			*errs = append(*errs, required(kp.Child("default"), "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"))
		}
		if f.Nullable {
			*errs = append(*errs, forbidden(kp.Child("nullable"), "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
		}
	}
}

var newlines = regexp.MustCompile(`[\n\r]+`)

func checkRules(s *Props, pth *Path, errs *ErrorList) {
	buildable := -1 // BuildError(s) == nil, computed once when needed
	for i, r := range s.XValidations {
		rp := pth.Child("x-kubernetes-validations").Index(i)
		rule := strings.TrimSpace(r.Rule)
		msg := strings.TrimSpace(r.Message)
		switch {
		case rule == "":
			*errs = append(*errs, required(rp.Child("rule"), "rule is not specified"))
		case r.Message != "" && msg == "":
			*errs = append(*errs, invalid(rp.Child("message"), r.Message, "must be non-empty if specified"))
		case newlines.MatchString(msg):
			*errs = append(*errs, invalid(rp.Child("message"), r.Message, "must not contain line breaks"))
		case newlines.MatchString(rule) && msg == "":
			*errs = append(*errs, required(rp.Child("message"), "message must be specified if rule contains line breaks"))
		}
		if r.MessageExpression != "" && strings.TrimSpace(r.MessageExpression) == "" {
			*errs = append(*errs, required(rp.Child("messageExpression"), "messageExpression must be non-empty if specified"))
		}
		if r.Reason != nil && !contains(supportedRuleReasons, *r.Reason) {
			*errs = append(*errs, notSupported(rp.Child("reason"), *r.Reason, supportedRuleReasons))
		}
		if r.FieldPath != "" && strings.TrimSpace(r.FieldPath) == "" {
			*errs = append(*errs, invalid(rp.Child("fieldPath"), r.FieldPath, "must be non-empty if specified"))
		}
		if newlines.MatchString(r.FieldPath) {
			*errs = append(*errs, invalid(rp.Child("fieldPath"), r.FieldPath, "must not contain line breaks"))
		}
		if r.FieldPath != "" && buildable < 0 {
			buildable = 0
			if BuildError(s) == nil {
				buildable = 1
			}
		}
		if r.FieldPath != "" && buildable == 1 {
			if _, err := FieldPath(s, r.FieldPath); err != nil {
				*errs = append(*errs, invalid(rp.Child("fieldPath"), r.FieldPath, "must be a valid path"))
			}
		}
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
