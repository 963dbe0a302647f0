package definition

import (
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit/internal/par"
	"github.com/crdkit/crdkit/rules"
	"github.com/crdkit/crdkit/schema"
)

// Validate makes the checks the server makes when a CRD is created
// (apis/apiextensions/validation ValidateCustomResourceDefinition), on the
// internal form the server validates, after the strategy's preparation
// (status reset, generation 1, the storage version stored). The errors are
// those of the 422 response's causes, in the server's order where its order
// does not follow Go map iteration. Like the server, it coerces the
// metadata of embedded resources in crd's schema defaults in place; it
// modifies nothing else.
func Validate(crd *apiextensions.CustomResourceDefinition) field.ErrorList {
	nameFn := func(name string, prefix bool) []string {
		ret := genericvalidation.NameIsDNSSubdomain(name, prefix)
		if name != crd.Spec.Names.Plural+"."+crd.Spec.Group {
			ret = append(ret, `must be spec.names.plural+"."+spec.group`)
		}
		return ret
	}
	errs := genericvalidation.ValidateObjectMeta(&crd.ObjectMeta, false, nameFn, field.NewPath("metadata"))
	opts := createOptions
	opts.compiler = rules.NewCompiler()
	errs = append(errs, validateSpec(&crd.Spec, opts, field.NewPath("spec"))...)
	return append(errs, validateRest(crd, nil)...)
}

// validateRest are the checks after the spec's: status, stored versions,
// API approval and preserveUnknownFields (old is nil on create).
func validateRest(crd, old *apiextensions.CustomResourceDefinition) field.ErrorList {
	errs := validateNames(&crd.Status.AcceptedNames, field.NewPath("status", "acceptedNames"))
	errs = append(errs, validateStoredVersions(crd.Status.StoredVersions, crd.Spec.Versions, field.NewPath("status", "storedVersions"))...)
	errs = append(errs, validateAPIApproval(crd, old)...)
	if old != nil && old.Spec.PreserveUnknownFields != nil && *old.Spec.PreserveUnknownFields {
		return errs // kept for the objects already stored
	}
	if p := crd.Spec.PreserveUnknownFields; p != nil && *p {
		errs = append(errs, field.Invalid(field.NewPath("spec", "preserveUnknownFields"), p, "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"))
	}
	return errs
}

// options are the server's validationOptions: what a create requires, and
// what an update relaxes for what the live CRD already has (see
// updateOptions).
type options struct {
	requireRecognizedConversionReviewVersion bool
	requireImmutableNames                    bool
	requireOpenAPISchema                     bool
	requireValidPropertyType                 bool
	requireStructuralSchema                  bool
	requirePrunedDefaults                    bool
	requireAtomicSetType                     bool
	requireMapListKeysMapSetValidation       bool
	// compiler is shared by the checks of one CRD.
	compiler *rules.Compiler
	// live, on an update, are the live CRD's facts that relax the
	// requirements above marked true until they are consulted: structural
	// schemas (unless the new CRD needs them anyway), valid property
	// types, atomic sets and map keys (when the strict check finds an
	// error), pruned defaults (when a default is not pruned).
	live *liveFacts
	// stored are the expressions of the live CRD (nil on create), collected
	// on first use: only a new CRD with rules needs them.
	stored func() *rules.CheckOptions
	// unchanged reports whether an update keeps the schema of a version
	// (nil on create); worked out only when a per-expression cost limit is
	// exceeded, the one check it lifts.
	unchanged func(version string) bool
	// version is the version whose schema is checked.
	version              string
	allowInvalidCABundle bool
	// allowTooManySelectableFields holds the versions ("" for the top
	// level) whose selectable fields may exceed the limit.
	allowTooManySelectableFields map[string]bool
}

// createOptions require everything; a CA bundle is not checked on create
// (the CRD is not established yet).
var createOptions = options{
	requireRecognizedConversionReviewVersion: true,
	requireOpenAPISchema:                     true,
	requireValidPropertyType:                 true,
	requireStructuralSchema:                  true,
	requirePrunedDefaults:                    true,
	requireAtomicSetType:                     true,
	requireMapListKeysMapSetValidation:       true,
	allowInvalidCABundle:                     true,
}

// forVersion is opts for the schema of version name.
func (o options) forVersion(name string) options {
	o.version = name
	return o
}

func (o options) schemaOptions() schema.CRDOptions {
	return schema.CRDOptions{
		AllowDefaults:                      true,
		RequireValidPropertyType:           o.requireValidPropertyType,
		RequireAtomicSetType:               o.requireAtomicSetType,
		RequireMapListKeysMapSetValidation: o.requireMapListKeysMapSetValidation,
	}
}

// checkCRDSchema is schema.CheckCRDSchema under opts: on an update, with
// every requirement first, then, when that finds errors, again with the
// requirements the live CRD relaxes (which can only lift errors).
func checkCRDSchema(p *schema.Props, pth *schema.Path, opts options) schema.ErrorList {
	strict := opts.schemaOptions()
	errs := schema.CheckCRDSchema(p, pth, strict)
	if len(errs) == 0 || opts.live == nil {
		return errs
	}
	relaxed := strict
	relaxed.RequireValidPropertyType = strict.RequireValidPropertyType && opts.live.validType()
	relaxed.RequireAtomicSetType = strict.RequireAtomicSetType && opts.live.atomicSets()
	relaxed.RequireMapListKeysMapSetValidation = strict.RequireMapListKeysMapSetValidation && opts.live.mapKeys()
	if relaxed == strict {
		return errs
	}
	return schema.CheckCRDSchema(p, pth, relaxed)
}

func (o options) ruleOptions() rules.CheckOptions {
	var r rules.CheckOptions
	if o.stored != nil {
		r = *o.stored()
	}
	return r
}

// dropExpressionCosts removes the errors of per-expression cost limits when
// the update keeps the schema of opts.version: the server does not make
// that check then (the schema's total is still checked, and nothing else
// depends on it).
func dropExpressionCosts(errs field.ErrorList, opts options) field.ErrorList {
	isCost := func(e *field.Error) bool {
		return e.Type == field.ErrorTypeForbidden && (strings.HasPrefix(e.Detail, "estimated rule cost exceeds budget") ||
			strings.HasPrefix(e.Detail, "estimated messageExpression cost exceeds budget"))
	}
	if opts.unchanged == nil || !slices.ContainsFunc(errs, isCost) || !opts.unchanged(opts.version) {
		return errs
	}
	return slices.DeleteFunc(errs, isCost)
}

func validateSpec(spec *apiextensions.CustomResourceDefinitionSpec, opts options, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Group == "" {
		errs = append(errs, field.Required(fp.Child("group"), ""))
	} else if e := utilvalidation.IsDNS1123Subdomain(spec.Group); len(e) > 0 {
		errs = append(errs, field.Invalid(fp.Child("group"), spec.Group, strings.Join(e, ",")))
	} else if len(strings.Split(spec.Group, ".")) < 2 {
		errs = append(errs, field.Invalid(fp.Child("group"), spec.Group, "should be a domain with at least one dot"))
	}
	errs = append(errs, enumString(fp.Child("scope"), string(spec.Scope), []string{"Cluster", "Namespaced"})...)

	ss := convertSchemas(spec)
	pruning := spec.PreserveUnknownFields == nil || !*spec.PreserveUnknownFields
	if pruning {
		opts.requireStructuralSchema = true // pruning needs a structural schema
	}
	if spec.Validation == nil || spec.Validation.OpenAPIV3Schema == nil {
		for i, v := range spec.Versions {
			missing := v.Schema == nil || v.Schema.OpenAPIV3Schema == nil
			switch {
			case opts.requireOpenAPISchema && missing:
				errs = append(errs, field.Required(fp.Child("versions").Index(i).Child("schema").Child("openAPIV3Schema"), ""))
			case !opts.requireOpenAPISchema && pruning && v.Served && missing:
				errs = append(errs, field.Required(fp.Child("versions").Index(i).Child("schema", "openAPIV3Schema"), "because otherwise all fields are pruned"))
			}
		}
	}
	if ss.defaults {
		opts.requireStructuralSchema = true
		if spec.PreserveUnknownFields == nil || *spec.PreserveUnknownFields {
			errs = append(errs, field.Invalid(fp.Child("preserveUnknownFields"), true, "must be false in order to use defaults in the schema"))
		}
	}
	if ss.extensions {
		opts.requireStructuralSchema = true
	}
	if !pruning && opts.live != nil && !ss.defaults && !ss.extensions {
		opts.requireStructuralSchema = opts.live.allStructural()
	}

	// The versions' schemas (CEL rules compiled and costed) are checked on
	// all cores, the errors kept in version order.
	schemaErrs := make([]field.ErrorList, len(spec.Versions))
	par.Each(len(spec.Versions), func(i int) {
		v := &spec.Versions[i]
		schemaErrs[i] = validateSchema(v.Schema, ss.versions[i], ss.compile[i], hasStatus(subresourcesFor(spec, v.Name)), opts.forVersion(v.Name), fp.Child("versions").Index(i).Child("schema"))
	})
	storage := 0
	seen := map[string]bool{}
	unique := true
	for i := range spec.Versions {
		v := &spec.Versions[i]
		if v.Storage {
			storage++
		}
		if seen[v.Name] {
			unique = false
		}
		seen[v.Name] = true
		vp := fp.Child("versions").Index(i)
		if e := utilvalidation.IsDNS1035Label(v.Name); len(e) > 0 {
			errs = append(errs, field.Invalid(vp.Child("name"), v.Name, strings.Join(e, ",")))
		}
		errs = append(errs, validateVersion(v, ss.versions[i], opts, vp, schemaErrs[i])...)
	}

	if spec.Validation != nil && hasPerVersion(spec.Versions, func(v *apiextensions.CustomResourceDefinitionVersion) bool { return v.Schema != nil }) {
		errs = append(errs, field.Forbidden(fp.Child("validation"), "top-level and per-version schemas are mutually exclusive"))
	}
	if spec.Subresources != nil && hasPerVersion(spec.Versions, func(v *apiextensions.CustomResourceDefinitionVersion) bool { return v.Subresources != nil }) {
		errs = append(errs, field.Forbidden(fp.Child("subresources"), "top-level and per-version subresources are mutually exclusive"))
	}
	if len(spec.AdditionalPrinterColumns) > 0 && hasPerVersion(spec.Versions, func(v *apiextensions.CustomResourceDefinitionVersion) bool {
		return len(v.AdditionalPrinterColumns) > 0
	}) {
		errs = append(errs, field.Forbidden(fp.Child("additionalPrinterColumns"), "top-level and per-version additionalPrinterColumns are mutually exclusive"))
	}
	// A v1 CRD never trips the "identical per-version" checks: the
	// conversion to the internal form lifts identical values to the top.

	if !unique {
		errs = append(errs, field.Invalid(fp.Child("versions"), spec.Versions, "must contain unique version names"))
	}
	if storage != 1 {
		errs = append(errs, field.Invalid(fp.Child("versions"), spec.Versions, "must have exactly one version marked as storage version"))
	}
	if spec.Version != "" {
		if e := utilvalidation.IsDNS1035Label(spec.Version); len(e) > 0 {
			errs = append(errs, field.Invalid(fp.Child("version"), spec.Version, strings.Join(e, ",")))
		}
		if len(spec.Versions) >= 1 && spec.Versions[0].Name != spec.Version {
			errs = append(errs, field.Invalid(fp.Child("version"), spec.Version, "must match the first version in spec.versions"))
		}
	}
	for _, n := range []struct{ name, value string }{
		{"plural", spec.Names.Plural}, {"singular", spec.Names.Singular},
		{"kind", spec.Names.Kind}, {"listKind", spec.Names.ListKind},
	} {
		if n.value == "" {
			errs = append(errs, field.Required(fp.Child("names", n.name), ""))
		}
	}
	errs = append(errs, validateNames(&spec.Names, fp.Child("names"))...)
	errs = append(errs, validateSchema(spec.Validation, ss.top, ss.topCompile, hasAnyStatus(spec), opts.forVersion(spec.Version), fp.Child("validation"))...)
	errs = append(errs, validateSubresources(spec.Subresources, fp.Child("subresources"))...)
	for i := range spec.AdditionalPrinterColumns {
		errs = append(errs, validateColumn(&spec.AdditionalPrinterColumns[i], fp.Child("additionalPrinterColumns").Index(i))...)
	}
	if len(spec.SelectableFields) > 0 {
		if spec.Validation == nil {
			errs = append(errs, field.Invalid(fp.Child("selectableFields"), "", "may only be set when validations.schema is included"))
		} else {
			errs = append(errs, validateSelectableFields(spec.SelectableFields, ss.top, fp, opts.allowTooManySelectableFields[""])...)
		}
	}
	if c := spec.Conversion; c != nil && c.Strategy != apiextensions.NoneConverter && (spec.PreserveUnknownFields == nil || *spec.PreserveUnknownFields) {
		errs = append(errs, field.Invalid(fp.Child("conversion").Child("strategy"), c.Strategy, "must be None if spec.preserveUnknownFields is true"))
	}
	errs = append(errs, validateConversion(spec.Conversion, opts, fp.Child("conversion"))...)
	return errs
}

// validateVersion checks one version; schemaErrs are its schema's errors
// (validateSchema's).
func validateVersion(v *apiextensions.CustomResourceDefinitionVersion, p *schema.Props, opts options, fp *field.Path, schemaErrs field.ErrorList) field.ErrorList {
	var errs field.ErrorList
	for _, e := range deprecationWarningErrors(v.Deprecated, v.DeprecationWarning) {
		errs = append(errs, field.Invalid(fp.Child("deprecationWarning"), v.DeprecationWarning, e))
	}
	errs = append(errs, schemaErrs...)
	errs = append(errs, validateSubresources(v.Subresources, fp.Child("subresources"))...)
	for i := range v.AdditionalPrinterColumns {
		errs = append(errs, validateColumn(&v.AdditionalPrinterColumns[i], fp.Child("additionalPrinterColumns").Index(i))...)
	}
	if len(v.SelectableFields) > 0 {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			errs = append(errs, field.Invalid(fp.Child("selectableFields"), "", "may only be set when `version.schema.openAPIV3Schema` is not included"))
		} else {
			errs = append(errs, validateSelectableFields(v.SelectableFields, p, fp, opts.allowTooManySelectableFields[v.Name])...)
		}
	}
	return errs
}

const maxSelectableFields = 8

// validateSelectableFields checks selectable fields against the schema they
// select from. base is the version path (or spec for lifted fields);
// allowTooMany lifts the limit (an update that keeps fields over it).
func validateSelectableFields(fields []apiextensions.SelectableField, p *schema.Props, base *field.Path, allowTooMany bool) field.ErrorList {
	var errs field.ErrorList
	if err := schema.BuildError(p); err != nil {
		errs = append(errs, field.Invalid(base.Child("schema.openAPIV3Schema"), "", err.Error()))
		p = nil
	}
	fp := base.Child("selectableFields")
	seen := map[string]bool{}
	for i, f := range fields {
		ip := fp.Index(i).Child("jsonPath")
		if f.JSONPath == "" {
			errs = append(errs, field.Required(ip, ""))
			continue
		}
		if p == nil {
			// The server dereferences the missing schema here and answers 500.
			errs = append(errs, field.InternalError(ip, fmt.Errorf("schema could not be built")))
			continue
		}
		pth, node, err := schema.ResolveFieldPath(p, f.JSONPath, false)
		if err != nil {
			errs = append(errs, field.Invalid(ip, f.JSONPath, fmt.Sprintf("is an invalid path: %v", err)))
			continue
		}
		if pth.Root() == "metadata" {
			errs = append(errs, field.Invalid(ip, f.JSONPath, "must not point to fields in metadata"))
		}
		if node == nil || (node.Type != "string" && node.Type != "boolean" && node.Type != "integer") {
			errs = append(errs, field.Invalid(ip, f.JSONPath, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."))
		}
		if seen[pth.String()] {
			errs = append(errs, field.Duplicate(ip, f.JSONPath))
		}
		seen[pth.String()] = true
	}
	if len(seen) > maxSelectableFields && !allowTooMany {
		errs = append(errs, field.TooMany(fp, len(seen), maxSelectableFields))
	}
	return errs
}

func deprecationWarningErrors(deprecated bool, w *string) []string {
	if !deprecated && w != nil {
		return []string{"can only be set for deprecated versions"}
	}
	if w == nil {
		return nil
	}
	var out []string
	if len(*w) > 256 {
		out = append(out, "must be <= 256 characters long")
	}
	if len(*w) == 0 {
		out = append(out, "must not be an empty string")
	}
	for i, r := range *w {
		if !unicode.IsPrint(r) {
			out = append(out, fmt.Sprintf("must only contain printable UTF-8 characters; non-printable character found at index %d", i))
			break
		}
		if unicode.IsControl(r) {
			out = append(out, fmt.Sprintf("must only contain printable UTF-8 characters; control character found at index %d", i))
			break
		}
	}
	if !utf8.ValidString(*w) {
		out = append(out, "must only contain printable UTF-8 characters")
	}
	return out
}

// allowedAtRoot are the internal JSONSchemaProps fields a root schema may
// set when the status subresource is on; the server lists them in its text.
var allowedAtRoot = []string{"Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum", "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems", "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example", "XPreserveUnknownFields", "XValidations"}

// validateSchema checks one openAPIV3Schema; p is its conversion, compile
// says whether p has a default or a rule (the schema is compiled only for
// those checks).
func validateSchema(v *apiextensions.CustomResourceValidation, p *schema.Props, compile bool, statusEnabled bool, opts options, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	if v == nil || v.OpenAPIV3Schema == nil {
		return errs
	}
	in := v.OpenAPIV3Schema
	sp := fp.Child("openAPIV3Schema")
	if statusEnabled {
		rv := reflect.ValueOf(in).Elem()
		for i := 0; i < rv.NumField(); i++ {
			if rv.Field(i).IsZero() {
				continue
			}
			name := rv.Type().Field(i).Name
			if name == "Type" {
				if in.Type != "object" {
					errs = append(errs, field.Invalid(fp.Child("openAPIV3Schema.type"), in.Type, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`))
					break
				}
				continue
			}
			if !contains(allowedAtRoot, name) {
				errs = append(errs, field.Invalid(fp.Child("openAPIV3Schema"), *in, fmt.Sprintf(`only %v fields are allowed at the root of the schema if the status subresource is enabled`, allowedAtRoot)))
				break
			}
		}
	}
	if in.Nullable {
		errs = append(errs, field.Forbidden(fp.Child("openAPIV3Schema.nullable"), `nullable cannot be true at the root`))
	}
	var initErrs field.ErrorList
	var celSchema *schema.Schema
	switch {
	case !opts.requireStructuralSchema:
		// Kept for a live CRD that is not structural: no structural,
		// defaults or CEL checks.
	case schema.BuildError(p) != nil:
		initErrs = append(initErrs, field.Invalid(sp, "", schema.BuildError(p).Error()))
	default:
		if se := schema.ValidateStructural(p, schema.NewPath(sp.String())); len(se) > 0 {
			errs = append(errs, toFieldErrors(se)...)
		} else if !compile {
			// No default to check, no rule to compile: what Compile
			// returns would not be used.
		} else if s, err := schema.Compile(p); err == nil {
			derrs := validateDefaults(s, p, sp, opts.requirePrunedDefaults, opts.live, opts.compiler)
			errs = append(errs, derrs...)
			if len(derrs) == 0 {
				celSchema = s
			}
		}
	}
	errs = append(errs, toFieldErrors(checkCRDSchema(p, schema.NewPath(sp.String()), opts))...)
	if celSchema != nil && celSchema.Summary()&schema.HasRules != 0 {
		// The rules' CEL side: compilation, types and costs, on a structural
		// schema with valid defaults, skipping nodes with other errors.
		errs = append(errs, dropExpressionCosts(opts.compiler.Check(celSchema, sp, errs, opts.ruleOptions()), opts)...)
	}
	if len(errs) == 0 {
		errs = append(errs, initErrs...)
	}
	return errs
}

func validateSubresources(s *apiextensions.CustomResourceSubresources, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s == nil || s.Scale == nil {
		return errs
	}
	check := func(p string, name, prefix, detail string) {
		pp := fp.Child("scale." + name)
		if e := simpleJSONPath(p, pp); len(e) > 0 {
			errs = append(errs, e...)
		} else if !strings.HasPrefix(p, prefix) {
			errs = append(errs, field.Invalid(pp, p, detail))
		}
	}
	if s.Scale.SpecReplicasPath == "" {
		errs = append(errs, field.Required(fp.Child("scale.specReplicasPath"), ""))
	} else {
		check(s.Scale.SpecReplicasPath, "specReplicasPath", ".spec.", "should be a json path under .spec")
	}
	if s.Scale.StatusReplicasPath == "" {
		errs = append(errs, field.Required(fp.Child("scale.statusReplicasPath"), ""))
	} else {
		check(s.Scale.StatusReplicasPath, "statusReplicasPath", ".status.", "should be a json path under .status")
	}
	if l := s.Scale.LabelSelectorPath; l != nil && *l != "" {
		pp := fp.Child("scale.labelSelectorPath")
		if e := simpleJSONPath(*l, pp); len(e) > 0 {
			errs = append(errs, e...)
		} else if !strings.HasPrefix(*l, ".spec.") && !strings.HasPrefix(*l, ".status.") {
			errs = append(errs, field.Invalid(pp, l, "should be a json path under either .spec or .status"))
		}
	}
	return errs
}

func simpleJSONPath(s string, fp *field.Path) field.ErrorList {
	switch {
	case s == "":
		return field.ErrorList{field.Invalid(fp, s, "must not be empty")}
	case s[0] != '.':
		return field.ErrorList{field.Invalid(fp, s, "must be a simple json path starting with .")}
	}
	return nil
}

var (
	columnTypes   = []string{"boolean", "date", "integer", "number", "string"}
	columnFormats = []string{"byte", "date", "date-time", "double", "float", "int32", "int64", "password"}
)

func validateColumn(c *apiextensions.CustomResourceColumnDefinition, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.Name == "" {
		errs = append(errs, field.Required(fp.Child("name"), ""))
	}
	typesText := "must be one of " + strings.Join(columnTypes, ",")
	if c.Type == "" {
		errs = append(errs, field.Required(fp.Child("type"), typesText))
	} else if !contains(columnTypes, c.Type) {
		errs = append(errs, field.Invalid(fp.Child("type"), c.Type, typesText))
	}
	if c.Format != "" && !contains(columnFormats, c.Format) {
		errs = append(errs, field.Invalid(fp.Child("format"), c.Format, "must be one of "+strings.Join(columnFormats, ",")))
	}
	if c.JSONPath == "" {
		errs = append(errs, field.Required(fp.Child("JSONPath"), ""))
	} else {
		errs = append(errs, simpleJSONPath(c.JSONPath, fp.Child("JSONPath"))...)
	}
	return errs
}

var conversionReviewVersions = []string{"v1", "v1beta1"}

func validateConversion(c *apiextensions.CustomResourceConversion, opts options, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c == nil {
		return errs
	}
	errs = append(errs, enumString(fp.Child("strategy"), string(c.Strategy), []string{"None", "Webhook"})...)
	if c.Strategy != apiextensions.WebhookConverter {
		if c.WebhookClientConfig != nil {
			errs = append(errs, field.Forbidden(fp.Child("webhookClientConfig"), "should not be set when strategy is not set to Webhook"))
		}
		if len(c.ConversionReviewVersions) > 0 {
			errs = append(errs, field.Forbidden(fp.Child("conversionReviewVersions"), "should not be set when strategy is not set to Webhook"))
		}
		return errs
	}
	if cc := c.WebhookClientConfig; cc == nil {
		errs = append(errs, field.Required(fp.Child("webhookClientConfig"), "required when strategy is set to Webhook"))
	} else {
		cp := fp.Child("webhookClientConfig")
		switch {
		case (cc.URL == nil) == (cc.Service == nil):
			errs = append(errs, field.Required(cp, "exactly one of url or service is required"))
		case cc.URL != nil:
			errs = append(errs, validateWebhookURL(cp.Child("url"), *cc.URL)...)
		default:
			errs = append(errs, validateWebhookService(cp.Child("service"), cc.Service)...)
		}
		if len(cc.CABundle) > 0 && !opts.allowInvalidCABundle {
			errs = append(errs, validateCABundle(cp.Child("caBundle"), cc.CABundle)...)
		}
	}
	vp := fp.Child("conversionReviewVersions")
	if len(c.ConversionReviewVersions) == 0 {
		return append(errs, field.Required(vp, ""))
	}
	seen := map[string]bool{}
	accepted := false
	for i, v := range c.ConversionReviewVersions {
		if seen[v] {
			errs = append(errs, field.Invalid(vp.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, e := range utilvalidation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(vp.Index(i), v, e))
		}
		accepted = accepted || contains(conversionReviewVersions, v)
	}
	if opts.requireRecognizedConversionReviewVersion && !accepted {
		errs = append(errs, field.Invalid(vp, c.ConversionReviewVersions, "must include at least one of "+strings.Join(conversionReviewVersions, ", ")))
	}
	return errs
}

func validateWebhookURL(fp *field.Path, raw string) field.ErrorList {
	const form = "; desired format: https://host[/path]"
	u, err := url.Parse(raw)
	if err != nil {
		return field.ErrorList{field.Required(fp, "url must be a valid URL: "+err.Error()+form)}
	}
	var errs field.ErrorList
	if u.Scheme != "https" {
		errs = append(errs, field.Invalid(fp, u.Scheme, "'https' is the only allowed URL scheme"+form))
	}
	if u.Host == "" {
		errs = append(errs, field.Invalid(fp, u.Host, "host must be specified"+form))
	}
	if u.User != nil {
		errs = append(errs, field.Invalid(fp, u.User.String(), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		errs = append(errs, field.Invalid(fp, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		errs = append(errs, field.Invalid(fp, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}

func validateWebhookService(fp *field.Path, s *apiextensions.ServiceReference) field.ErrorList {
	var errs field.ErrorList
	// The server passes name and namespace to its service check in swapped
	// order, so a missing name is reported as a missing namespace and the
	// other way round.
	if s.Namespace == "" {
		errs = append(errs, field.Required(fp.Child("name"), ""))
	}
	if s.Name == "" {
		errs = append(errs, field.Required(fp.Child("namespace"), ""))
	}
	if e := utilvalidation.IsValidPortNum(int(s.Port)); e != nil {
		errs = append(errs, field.Invalid(fp.Child("port"), s.Port, "port is not valid: "+strings.Join(e, ", ")))
	}
	if s.Path == nil || *s.Path == "/" || *s.Path == "" {
		return errs
	}
	p := *s.Path
	if p == "//" {
		return append(errs, field.Invalid(fp.Child("path"), p, "segment[0] may not be empty"))
	}
	if !strings.HasPrefix(p, "/") {
		errs = append(errs, field.Invalid(fp.Child("path"), p, "must start with a '/'"))
	}
	check := strings.TrimSuffix(p[1:], "/")
	for i, step := range strings.Split(check, "/") {
		if step == "" {
			errs = append(errs, field.Invalid(fp.Child("path"), p, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, f := range utilvalidation.IsDNS1123Subdomain(step) {
			errs = append(errs, field.Invalid(fp.Child("path"), p, fmt.Sprintf("segment[%d]: %v", i, f)))
		}
	}
	return errs
}

func validateNames(n *apiextensions.CustomResourceDefinitionNames, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	label := func(name, v string, mixed bool) {
		if v == "" {
			return
		}
		check := v
		if mixed {
			check = strings.ToLower(v)
		}
		if e := utilvalidation.IsDNS1035Label(check); len(e) > 0 {
			d := strings.Join(e, ",")
			if mixed {
				d = "may have mixed case, but should otherwise match: " + d
			}
			errs = append(errs, field.Invalid(fp.Child(name), v, d))
		}
	}
	label("plural", n.Plural, false)
	label("singular", n.Singular, false)
	label("kind", n.Kind, true)
	label("listKind", n.ListKind, true)
	for i, s := range n.ShortNames {
		if e := utilvalidation.IsDNS1035Label(s); len(e) > 0 {
			errs = append(errs, field.Invalid(fp.Child("shortNames").Index(i), s, strings.Join(e, ",")))
		}
	}
	if n.Kind != "" && n.Kind == n.ListKind {
		errs = append(errs, field.Invalid(fp.Child("listKind"), n.ListKind, "kind and listKind may not be the same"))
	}
	for i, c := range n.Categories {
		if e := utilvalidation.IsDNS1035Label(c); len(e) > 0 {
			errs = append(errs, field.Invalid(fp.Child("categories").Index(i), c, strings.Join(e, ",")))
		}
	}
	return errs
}

func validateStoredVersions(stored []string, versions []apiextensions.CustomResourceDefinitionVersion, fp *field.Path) field.ErrorList {
	if len(stored) == 0 {
		return field.ErrorList{field.Invalid(fp, stored, "must have at least one stored version")}
	}
	var errs field.ErrorList
	left := map[string]int{}
	for i, v := range stored {
		left[v] = i
	}
	for _, v := range versions {
		_, ok := left[v.Name]
		if v.Storage && !ok {
			errs = append(errs, field.Invalid(fp, stored, "must have the storage version "+v.Name))
		}
		delete(left, v.Name)
	}
	names := make([]string, 0, len(left))
	for v := range left {
		names = append(names, v)
	}
	sort.Strings(names)
	for _, v := range names {
		errs = append(errs, field.Invalid(fp.Index(left[v]), v, fmt.Sprintf("missing from spec.versions; %[1]s was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in %[1]s and removes %[1]s from status.storedVersions", v)))
	}
	return errs
}

const approvalAnnotation = "api-approved.kubernetes.io"

// approvalState is the state of a CRD's API-approval annotation, with the
// error the server reports for it ("" when it passes).
type approvalState int

const (
	approvalInvalid approvalState = iota
	approved
	approvalBypassed
	approvalMissing
)

func apiApproval(annotations map[string]string) approvalState {
	a := annotations[approvalAnnotation]
	u, err := url.ParseRequestURI(a)
	switch {
	case a == "":
		return approvalMissing
	case strings.HasPrefix(a, "unapproved"):
		return approvalBypassed
	case err == nil && u != nil && u.Host != "" && u.Scheme != "":
		return approved
	}
	return approvalInvalid
}

// validateAPIApproval requires the approval annotation of a CRD in a
// protected group (k8s.io, kubernetes.io); an update that keeps the state
// of old's annotation is never refused for it.
func validateAPIApproval(crd, old *apiextensions.CustomResourceDefinition) field.ErrorList {
	g := crd.Spec.Group
	if !(g == "k8s.io" || strings.HasSuffix(g, ".k8s.io") || g == "kubernetes.io" || strings.HasSuffix(g, ".kubernetes.io")) {
		return nil
	}
	state := apiApproval(crd.Annotations)
	if old != nil && apiApproval(old.Annotations) == state {
		return nil
	}
	fp := field.NewPath("metadata", "annotations").Key(approvalAnnotation)
	switch state {
	case approved, approvalBypassed:
		return nil
	case approvalMissing:
		return field.ErrorList{field.Required(fp, fmt.Sprintf("protected groups must have approval annotation %q, see https://github.com/kubernetes/enhancements/pull/1111", approvalAnnotation))}
	}
	return field.ErrorList{field.Invalid(fp, crd.Annotations[approvalAnnotation], fmt.Sprintf("protected groups must have approval annotation %q with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111", approvalAnnotation))}
}

func enumString(fp *field.Path, v string, accepted []string) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(fp, "")}
	}
	if contains(accepted, v) {
		return nil
	}
	return field.ErrorList{field.NotSupported(fp, v, accepted)}
}

func subresourcesFor(spec *apiextensions.CustomResourceDefinitionSpec, name string) *apiextensions.CustomResourceSubresources {
	if !hasPerVersion(spec.Versions, func(v *apiextensions.CustomResourceDefinitionVersion) bool { return v.Subresources != nil }) {
		return spec.Subresources
	}
	for _, v := range spec.Versions {
		if v.Name == name {
			return v.Subresources
		}
	}
	return nil
}

func hasStatus(s *apiextensions.CustomResourceSubresources) bool { return s != nil && s.Status != nil }

func hasAnyStatus(spec *apiextensions.CustomResourceDefinitionSpec) bool {
	if hasStatus(spec.Subresources) {
		return true
	}
	for _, v := range spec.Versions {
		if hasStatus(v.Subresources) {
			return true
		}
	}
	return false
}

func hasPerVersion(vs []apiextensions.CustomResourceDefinitionVersion, pred func(*apiextensions.CustomResourceDefinitionVersion) bool) bool {
	for i := range vs {
		if pred(&vs[i]) {
			return true
		}
	}
	return false
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// toFieldErrors converts schema errors into the server's field errors.
func toFieldErrors(in schema.ErrorList) field.ErrorList {
	if len(in) == 0 {
		return nil
	}
	out := make(field.ErrorList, len(in))
	for i, e := range in {
		out[i] = &field.Error{Type: field.ErrorType(e.Type), Field: e.Field, BadValue: e.BadValue, Detail: e.Detail}
	}
	return out
}

// maxWalkDepth bounds the package's recursive walks over schemas.
const maxWalkDepth = 10000
