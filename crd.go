package crdkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit/conversion"
	"github.com/crdkit/crdkit/definition"
	"github.com/crdkit/crdkit/internal/crdjson"
	"github.com/crdkit/crdkit/internal/par"
	"github.com/crdkit/crdkit/internal/verdict"
	"github.com/crdkit/crdkit/objectmeta"
	"github.com/crdkit/crdkit/printcolumns"
	"github.com/crdkit/crdkit/rules"
	"github.com/crdkit/crdkit/schema"
	"github.com/crdkit/crdkit/versionsort"
)

// crdGroupKind names CRDs in the server's error messages.
var crdGroupKind = runtimeschema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// CRD is a compiled CustomResourceDefinition: every version's schema compiled
// once, ready for any number of objects. It is immutable and safe for
// concurrent use.
type CRD struct {
	v1 *apiextensionsv1.CustomResourceDefinition // as the server stores it: defaulted; without schemas when src is set
	// src is the JSON text of a CRD from Load, decoded again for its
	// schemas when they are needed (stored).
	src []byte
	// coerceDefaults: a version has defaults and embedded resources, so
	// that stored runs the validation, which coerces the defaults.
	coerceDefaults bool
	lint           field.ErrorList
	versions       []*Version // in priority order
	byName         map[string]*Version
	warnings       []string
	order          *versionsort.Versions
	// webhook is the client of a Webhook strategy's clientConfig.url, or
	// why there is none.
	webhook    *conversion.Webhook
	webhookErr error
	// readIsIdentity: storing an object this package created at the
	// storage version and reading it back changes nothing (see storeAndRead).
	readIsIdentity bool
	// metaUntouched: no version's schema has an embedded resource under
	// root metadata (see canonicalMetaKept).
	metaUntouched bool
	// metaUndefaulted: no version's schema has a default under metadata,
	// so defaulting never changes the keys of existing root metadata.
	metaUndefaulted bool
	// fm is the field manager, built on first use (fieldManager).
	fm fieldManagers
}

// Version is one version of a CRD, with its compiled schema. It is
// immutable and safe for concurrent use.
type Version struct {
	crd        *CRD
	name       string
	served     bool
	storage    bool
	deprecated bool
	warning    *string
	schema     *schema.Schema
	columns    *printcolumns.Columns
	columnsErr error
	rules      *rules.Validator // x-kubernetes-validations; nil without rules
	// apiVersion is group/name, boxed once: conversions set it without
	// allocating.
	apiVersion any
	// sameCoercion is the first version (in spec order) whose schema is
	// this version's: coercing with either does the same.
	sameCoercion *Version

	// Facts a create needs, computed once.
	statusSubresource bool                                            // status is reset on create
	statusDefaults    bool                                            // defaults under status come back on read
	statusOwnDefault  bool                                            // status itself has a default (an absent status comes back)
	statusEmbedded    bool                                            // status holds an embedded resource
	scaleSub          *apiextensionsv1.CustomResourceSubresourceScale // scale paths to validate
	rootKeysFold      bool                                            // pruning may keep a root key other than apiVersion and kind that folds to one of them (rootKeysFold)
	scaleFields       [3][]string                                     // its spec and status replicas paths and label selector path, split into fields
	selectable        []selectableField                               // selectableFields, compiled for field selectors
}

// LoadOptions change how Load and New treat a CRD.
type LoadOptions struct {
	// AllowInvalid returns the CRD even when the server would refuse it, so
	// that tools can report on it; Lint then lists why. Versions whose schema
	// cannot be compiled have a nil Schema.
	AllowInvalid bool
	// Verdict is for crdkit's own command, whose cache of compiled CRDs
	// keeps the outcome of the CRD validation on a document: when it is
	// set and Known, the validation (definition.Validate and
	// WarningsOnCreate) is skipped and its warnings are taken from it;
	// when it is set and not Known, a CRD that passes the validation fills
	// it. Its type is internal: other programs leave it nil.
	Verdict *verdict.Verdict
}

// ErrNotCRD is returned by Load for a document that is not an
// apiextensions.k8s.io/v1 CustomResourceDefinition.
var ErrNotCRD = errors.New("not an apiextensions.k8s.io/v1 CustomResourceDefinition")

// Load decodes one CustomResourceDefinition (apiextensions.k8s.io/v1) from
// YAML or JSON and compiles it. Like the server, it decodes field names case
// sensitively and applies the v1 defaults. It refuses a CRD the server would
// refuse on create with the server's error, an *apierrors.StatusError: 400
// BadRequest for a document that does not decode into a
// CustomResourceDefinition (a field of the wrong JSON type, a default, enum
// or example number out of float64's range), 422 Invalid
// with causes for one that fails validation (unless opts.AllowInvalid is
// set). A document that is not YAML or JSON is an error of its own; one
// that is not a CRD at all gives ErrNotCRD.
func Load(data []byte, opts ...LoadOptions) (*CRD, error) {
	known := false
	for _, o := range opts {
		known = known || o.Verdict != nil && o.Verdict.Known
	}
	crd, js, warnings, err := decodeCRD(data, known)
	if err != nil {
		return nil, err
	}
	c, err := newCRD(crd, js, opts...)
	if c != nil && len(warnings) > 0 {
		// The decoder's warnings come before the handler's.
		c.warnings = append(warnings, c.warnings...)
	}
	return c, err
}

// DecodeCRD decodes one CustomResourceDefinition (apiextensions.k8s.io/v1)
// document, YAML or JSON, as the server's decoder does: field names case
// sensitively, with the decoder's warnings about unknown and duplicate
// fields (JSON text is decoded as it is, so that duplicate keys, which a
// YAML conversion would drop, are seen, and numbers keep their text; YAML
// is converted to JSON first, as kubectl does). It applies no defaults, and
// leaves the values of defaults, enums and examples as raw JSON: New and
// CreateCRD answer the server's 400 for a number there out of float64's
// range (1e400), which the server's decoder refuses. A document
// that does not decode into a CustomResourceDefinition (a field of the
// wrong JSON type) gives the server's 400 BadRequest, an
// *apierrors.StatusError; one that is not YAML or JSON an error of its own;
// one that is not a CRD at all ErrNotCRD.
func DecodeCRD(data []byte) (*apiextensionsv1.CustomResourceDefinition, []string, error) {
	crd, _, warnings, err := decodeCRD(data, false)
	return crd, warnings, err
}

// decodeCRD is DecodeCRD, returning besides the JSON text it decoded, a
// copy of its own (not sharing data's memory). known says that these bytes
// decoded before into a CRD the server accepts (LoadOptions.Verdict): JSON
// text then goes straight to the decoder, without the checks only a
// document that is not valid JSON or not a CRD fails.
func decodeCRD(data []byte, known bool) (crd *apiextensionsv1.CustomResourceDefinition, src []byte, warnings []string, err error) {
	js := bytes.TrimSpace(data)
	// Text that starts like JSON is decoded at once: the decoder checks
	// that all of it is JSON before it decodes anything, so a document it
	// decodes needs no json.Valid of its own. One it refuses may be YAML in
	// flow style: the checks below say what it is.
	decoded, tried := false, false
	if len(js) > 0 && js[0] == '{' {
		crd, warnings, err = decodeCRDJSON(js)
		if err == nil && known {
			return crd, bytes.Clone(js), warnings, nil
		}
		decoded, tried = err == nil, true
	}
	converted := false
	if !decoded && (len(js) == 0 || js[0] != '{' || !json.Valid(js)) {
		if js, err = yaml.YAMLToJSON(data); err != nil {
			return nil, nil, nil, err
		}
		js, converted, tried = bytes.TrimSpace(js), true, false
	}
	if len(js) == 0 || bytes.Equal(js, []byte("null")) {
		return nil, nil, nil, fmt.Errorf("%w: empty document", ErrNotCRD)
	}
	// Decoded strictly first (the type meta comes with it): only a
	// document that does not decode needs its type meta read on its own,
	// to tell a CRD the decoder refuses from a document that is not a CRD.
	if !tried {
		crd, warnings, err = decodeCRDJSON(js)
	}
	apiVersion, kind := "", ""
	if err == nil {
		apiVersion, kind = crd.APIVersion, crd.Kind
	} else {
		var tm struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(js, &tm); err != nil {
			return nil, nil, nil, err
		}
		apiVersion, kind = tm.APIVersion, tm.Kind
	}
	if apiVersion != "apiextensions.k8s.io/v1" || kind != "CustomResourceDefinition" {
		return nil, nil, nil, fmt.Errorf("%w: apiVersion %q, kind %q", ErrNotCRD, apiVersion, kind)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if !converted {
		js = bytes.Clone(js)
	}
	return crd, js, warnings, nil
}

// decodeCRDJSON decodes a CRD's JSON text strictly, as DecodeCRD's last
// step.
func decodeCRDJSON(js []byte) (*apiextensionsv1.CustomResourceDefinition, []string, error) {
	// The fast path answers only when it is sure of upstream's answer
	// with no strict error (so no warning).
	if crd, ok := crdjson.Decode(js); ok {
		return crd, nil, nil
	}
	crd := new(apiextensionsv1.CustomResourceDefinition)
	strict, err := kjson.UnmarshalStrict(js, crd)
	if err != nil {
		return nil, nil, crdUndecodable(err)
	}
	var warnings []string
	for _, e := range strict {
		warnings = append(warnings, e.Error())
	}
	return crd, warnings, nil
}

// crdUndecodable is what the server answers for a CRD body its decoder
// refuses: a 400 BadRequest quoting err.
func crdUndecodable(err error) error {
	return apierrors.NewBadRequest(fmt.Sprintf("CustomResourceDefinition in version %q cannot be handled as a CustomResourceDefinition: %v", "v1", err))
}

// New compiles a typed CustomResourceDefinition. It does not modify crd. See
// Load for what it refuses. The versions are checked and compiled on up to
// GOMAXPROCS goroutines; the result does not depend on their number.
func New(crd *apiextensionsv1.CustomResourceDefinition, opts ...LoadOptions) (*CRD, error) {
	return newCRD(crd.DeepCopy(), nil, opts...)
}

// newCRD is New on a CRD of its own (it modifies crd). src is the JSON text
// crd was decoded from, or nil: with it, the CRD keeps its versions'
// schemas only compiled, and Definition decodes them again from src (the
// typed form of a large CRD's schemas is megabytes of pointers that the
// collector would scan at every cycle for as long as the CRD is used).
func newCRD(crd *apiextensionsv1.CustomResourceDefinition, src []byte, opts ...LoadOptions) (*CRD, error) {
	var o LoadOptions
	for _, x := range opts {
		o.AllowInvalid = o.AllowInvalid || x.AllowInvalid
		if x.Verdict != nil {
			o.Verdict = x.Verdict
		}
	}
	cr, err := createOwnCRD(crd, o.Verdict)
	if err != nil {
		return nil, err
	}
	v1, internal := cr.v1, cr.internal
	if src == nil {
		storedSchemas(v1, internal) // else stored gives them when asked
	}
	c := &CRD{v1: v1, src: src, byName: map[string]*Version{}, warnings: cr.warnings, lint: cr.errs}
	if len(c.lint) > 0 && !o.AllowInvalid {
		return nil, newInvalid(crdGroupKind, v1.Name, c.lint)
	}
	// The versions' schemas and rules compile on all cores; the first
	// failure in version order is the one returned. Versions whose schemas
	// are the same (the versions of many kinds are: Istio's three, Gateway
	// API's two) share one compilation: what a compilation gives depends
	// on the schema alone.
	type compiled struct {
		props  *schema.Props // for the comparison of the versions' schemas, then dropped
		same   int           // the first version whose props are equal (itself if none)
		schema *schema.Schema
		rules  *rules.Validator
		err    error
	}
	comp := make([]compiled, len(v1.Spec.Versions))
	var unique []int
	// Versions whose schema is the top-level one (the server lifts
	// identical schemas there) share one conversion without a comparison.
	bySource := map[*apiextensions.JSONSchemaProps]int{}
	for i := range comp {
		cv := &comp[i]
		cv.same = i
		if iv := internalVersionSchema(internal, v1.Spec.Versions[i].Name); iv != nil {
			if j, ok := bySource[iv]; ok {
				cv.same = comp[j].same
				continue
			}
			bySource[iv] = i
			cv.props = definition.SchemaProps(iv)
			for _, j := range unique {
				if comp[j].props != nil && reflect.DeepEqual(comp[j].props, cv.props) {
					cv.same = j
					break
				}
			}
		}
		if cv.same == i {
			unique = append(unique, i)
		}
	}
	par.Each(len(unique), func(u int) {
		i := unique[u]
		name, cv := v1.Spec.Versions[i].Name, &comp[i]
		if cv.props == nil {
			return
		}
		s, err := schema.Compile(cv.props)
		if err == nil {
			cv.schema = s
		} else if !o.AllowInvalid {
			cv.err = fmt.Errorf("version %s: %w", name, err)
			return
		}
		if cv.schema != nil && cv.schema.Summary()&schema.HasRules != 0 {
			var err error
			if cv.rules, err = rules.Compile(cv.schema); err != nil && !o.AllowInvalid {
				cv.err = fmt.Errorf("version %s: %w", name, err)
			}
		}
	})
	for i := range comp {
		if j := comp[i].same; j != i {
			// An error there comes first (j < i).
			comp[i].schema, comp[i].rules = comp[j].schema, comp[j].rules
		}
	}
	sameOf := make(map[*Version]int, len(comp))
	for i, v := range v1.Spec.Versions {
		ver := &Version{crd: c, name: v.Name, served: v.Served, storage: v.Storage,
			deprecated: v.Deprecated, warning: v.DeprecationWarning, apiVersion: v1.Spec.Group + "/" + v.Name}
		if comp[i].err != nil {
			return nil, comp[i].err
		}
		ver.schema, ver.rules = comp[i].schema, comp[i].rules
		sameOf[ver] = comp[i].same
		ver.rootKeysFold = rootKeysFold(ver.schema)
		ver.columns, ver.columnsErr = printcolumns.Compile(v.AdditionalPrinterColumns)
		ver.selectable = compileSelectableFields(v.SelectableFields)
		if sr := v.Subresources; sr != nil {
			ver.statusSubresource = sr.Status != nil
			ver.scaleSub = sr.Scale
			if sc := sr.Scale; sc != nil {
				ver.scaleFields[0] = pathFields(sc.SpecReplicasPath)
				ver.scaleFields[1] = pathFields(sc.StatusReplicasPath)
				if sc.LabelSelectorPath != nil {
					ver.scaleFields[2] = pathFields(*sc.LabelSelectorPath)
				}
			}
		}
		if ver.statusSubresource && ver.schema != nil {
			st := ver.schema.Property("status")
			ver.statusDefaults = st != nil && st.Summary()&schema.HasDefaults != 0
			if st != nil {
				_, ver.statusOwnDefault = st.Default()
				ver.statusEmbedded = st.Summary()&schema.HasEmbeddedResource != 0
			}
		}
		if _, dup := c.byName[v.Name]; !dup {
			ver.sameCoercion = ver
			for _, o := range c.versions {
				if comp[sameOf[o]].props != nil && sameOf[o] == sameOf[ver] {
					ver.sameCoercion = o.sameCoercion
					break
				}
			}
			c.byName[v.Name] = ver
			c.versions = append(c.versions, ver)
		}
	}
	vs := make([]versionsort.Version, len(v1.Spec.Versions))
	for i, v := range v1.Spec.Versions {
		vs[i] = versionsort.Version{Name: v.Name, Served: v.Served, Storage: v.Storage,
			Deprecated: v.Deprecated, DeprecationWarning: v.DeprecationWarning}
	}
	c.order = versionsort.New(v1.Spec.Group, v1.Spec.Names.Kind, vs)
	if conv := v1.Spec.Conversion; conv != nil && conv.Strategy == apiextensionsv1.WebhookConverter {
		c.webhook, c.webhookErr = conversion.NewWebhook(v1, conversion.WebhookOptions{})
	}
	c.readIsIdentity = len(c.lint) == 0
	if src != nil {
		c.v1 = withoutSchemas(v1)
		// The server coerces the metadata of embedded resources in
		// defaults while it validates the CRD, and stores what that left
		// (so did this CRD's validation, if it ran): stored validates
		// again where that can change a default.
		for _, cv := range comp {
			if s := cv.schema; cv.props != nil && (s == nil || s.Summary()&schema.HasDefaults != 0 && s.Summary()&schema.HasEmbeddedResource != 0) {
				c.coerceDefaults = true
			}
		}
	}
	c.metaUntouched, c.metaUndefaulted = true, true
	for _, v := range c.versions {
		if v.schema == nil {
			continue
		}
		if md := v.schema.Property("metadata"); md != nil && md.Summary()&schema.HasEmbeddedResource != 0 {
			c.metaUntouched = false
		}
		if md := v.schema.Property("metadata"); md != nil && md.Summary()&schema.HasDefaults != 0 {
			c.metaUndefaulted = false
		}
		if v.schema != nil && defaultsHoldNull(v.schema, 0) {
			c.readIsIdentity = false
		}
	}
	sort.SliceStable(c.versions, func(i, j int) bool {
		return versionsort.Compare(c.versions[i].name, c.versions[j].name) > 0
	})
	return c, nil
}

// handleCreate does to a new CRD's metadata what the server's create
// handler does before the strategy sees it, and returns its warnings:
// system fields wiped, the namespace cleared (CRDs are cluster-scoped),
// duplicate owner references dropped.
func handleCreate(meta *metav1.ObjectMeta) []string {
	objectmeta.WipeSystemFieldsTyped(meta)
	meta.Namespace = ""
	var warnings []string
	if dups := objectmeta.DedupOwnerReferencesTyped(meta); len(dups) > 0 {
		warnings = append(warnings, objectmeta.DuplicateOwnerReferencesWarning(dups))
	}
	return warnings
}

// resetCRDManagedFields keeps of a new CRD's managed fields what the
// field manager keeps (see objectmeta.ManagedFieldsOnCreate).
func resetCRDManagedFields(crd *apiextensionsv1.CustomResourceDefinition) {
	if len(crd.ManagedFields) == 0 {
		crd.ManagedFields = nil
		return
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(crd)
	if err != nil {
		crd.ManagedFields = nil
		return
	}
	crd.ManagedFields = objectmeta.ManagedFieldsOnCreate(crd.ManagedFields, obj, func(av string) bool {
		return av == "apiextensions.k8s.io/v1" || av == "apiextensions.k8s.io/v1beta1"
	})
}

// hasAPIVersion reports whether apiVersion is group/version of a version
// the CRD defines (the versions its converter handles).
func (c *CRD) hasAPIVersion(apiVersion string) bool {
	group, version, ok := strings.Cut(apiVersion, "/")
	return ok && group == c.Group() && c.byName[version] != nil
}

// internalVersionSchema returns the schema that applies to a version: its
// own, or the top-level one the server lifts identical schemas into.
func internalVersionSchema(crd *apiextensions.CustomResourceDefinition, name string) *apiextensions.JSONSchemaProps {
	for _, v := range crd.Spec.Versions {
		if v.Name == name && v.Schema != nil {
			return v.Schema.OpenAPIV3Schema
		}
	}
	if crd.Spec.Validation != nil {
		return crd.Spec.Validation.OpenAPIV3Schema
	}
	return nil
}

// Name is metadata.name.
func (c *CRD) Name() string { return c.v1.Name }

// Group is spec.group.
func (c *CRD) Group() string { return c.v1.Spec.Group }

// Kind is spec.names.kind.
func (c *CRD) Kind() string { return c.v1.Spec.Names.Kind }

// Names is spec.names (plural, singular, kind, list kind, short names and
// categories), a copy.
func (c *CRD) Names() apiextensionsv1.CustomResourceDefinitionNames {
	return *c.v1.Spec.Names.DeepCopy()
}

// Namespaced reports whether objects of this CRD live in namespaces.
func (c *CRD) Namespaced() bool { return c.v1.Spec.Scope == apiextensionsv1.NamespaceScoped }

// Definition returns a copy of the CRD as the server would store it (v1
// defaults applied; in the schemas, numbers in defaults, enums and examples
// as the server re-encodes them, 1.0 as 1). A CRD from Load keeps its
// schemas only compiled (with its JSON text, which takes far less memory
// than their typed form): each call decodes and prepares that text again,
// a cost of the order of Load's without the compilation.
func (c *CRD) Definition() *apiextensionsv1.CustomResourceDefinition {
	if c.src == nil {
		return c.v1.DeepCopy()
	}
	return c.stored()
}

// stored is the CRD as the server would store it, schemas included: c.v1
// itself, or for a CRD from Load (whose c.v1 holds no schemas) a new copy
// decoded from its JSON text again, as Load decoded it.
func (c *CRD) stored() *apiextensionsv1.CustomResourceDefinition {
	if c.src == nil {
		return c.v1
	}
	crd, _, err := decodeCRDJSON(c.src)
	if err != nil {
		return c.v1.DeepCopy() // not reached: the same text decoded before
	}
	vd := &verdict.Verdict{Known: true} // the validation is skipped
	if c.coerceDefaults {
		vd = nil
	}
	cr, err := createOwnCRD(crd, vd)
	if err != nil {
		return c.v1.DeepCopy() // not reached, as above
	}
	storedSchemas(cr.v1, cr.internal)
	return cr.v1
}

// storedSchemas sets v1's schemas as the server stores them, from the
// internal form the strategy prepared: the values of defaults, enums and
// examples re-encoded from its internal version (1.0 as 1, 1E2 as 100),
// embedded resources in defaults coerced.
func storedSchemas(v1 *apiextensionsv1.CustomResourceDefinition, internal *apiextensions.CustomResourceDefinition) {
	stored, err := storedCRD(internal)
	if err != nil {
		return
	}
	for i := range v1.Spec.Versions {
		for _, sv := range stored.Spec.Versions {
			if sv.Name == v1.Spec.Versions[i].Name {
				v1.Spec.Versions[i].Schema = sv.Schema
			}
		}
	}
}

// withoutSchemas is a copy of crd, sharing all but its versions, whose
// schemas are left out.
func withoutSchemas(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	out := *crd
	out.Spec.Versions = slices.Clone(crd.Spec.Versions)
	for i := range out.Spec.Versions {
		out.Spec.Versions[i].Schema = nil
	}
	return &out
}

// Versions returns the versions in the server's priority order (the order
// kubectl and discovery use), served or not.
func (c *CRD) Versions() []*Version { return append([]*Version(nil), c.versions...) }

// Version returns the named version, or nil when the CRD does not define it.
func (c *CRD) Version(name string) *Version { return c.byName[name] }

// Warnings are the Warning headers the server sends when this CRD is
// created: the decoder's about the document (unknown and duplicate fields,
// from Load), the handler's about duplicate owner references, then, when
// the CRD is valid, its strategy's (unrecognized formats, set lists of
// objects or arrays; see CreateCRD).
func (c *CRD) Warnings() []string { return append([]string(nil), c.warnings...) }

// Lint returns every error the server reports when this CRD is created
// (empty for a CRD the server accepts).
func (c *CRD) Lint() field.ErrorList { return append(field.ErrorList(nil), c.lint...) }

// Lint returns every error the server reports when crd is created, as its
// 422 response's causes. It does not modify crd. CreateCRD also returns
// the warnings and the CRD the server would store.
func Lint(crd *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	return CreateCRD(crd).Errors
}

// Name is the version's name.
func (v *Version) Name() string { return v.name }

// Served reports whether the version is served.
func (v *Version) Served() bool { return v.served }

// Storage reports whether this is the storage version.
func (v *Version) Storage() bool { return v.storage }

// Deprecated reports whether the version is deprecated.
func (v *Version) Deprecated() bool { return v.deprecated }

// Schema is the version's compiled schema (nil when it has none).
func (v *Version) Schema() *schema.Schema { return v.schema }

// CRD is the definition this version belongs to.
func (v *Version) CRD() *CRD { return v.crd }

// DeprecationWarning is the warning the server sends with every request to
// this version: the CRD's own text, or the server's default for a
// deprecated version without one; "" when the version is not deprecated.
func (v *Version) DeprecationWarning() string {
	w, _ := v.crd.order.Warning(v.name)
	return w
}

// PreferredVersion is the highest-priority served version, the one kubectl
// and discovery prefer ("" when none is served).
func (c *CRD) PreferredVersion() string {
	p, _ := c.order.Preferred()
	return p
}

// StorageVersion is the version objects are stored in.
func (c *CRD) StorageVersion() string {
	s, _ := c.order.Storage()
	return s
}

// Columns are the version's compiled printer columns: the implicit Name
// column, then the CRD's additionalPrinterColumns (or the server's default
// Age column when it defines none).
func (v *Version) Columns() *printcolumns.Columns { return v.columns }

// ColumnsError is the error the server logs for a printer column whose
// JSONPath it cannot parse (it then serves the columns before it), or nil.
func (v *Version) ColumnsError() error { return v.columnsErr }

// Table returns the metav1.Table the server returns for a list of objects of
// this version (Accept: application/json;as=Table;v=v1;g=meta.k8s.io). The
// objects should be as stored, for example Result.Object of a create.
func (v *Version) Table(objs []map[string]any, opts printcolumns.TableOptions) (*metav1.Table, error) {
	return v.columns.Table(objs, opts)
}

// HasRules reports whether the version's schema has x-kubernetes-validations
// rules (CEL), which requests to it evaluate.
func (v *Version) HasRules() bool {
	return v.schema != nil && v.schema.Summary()&schema.HasRules != 0
}

// defaultsHoldNull reports whether any default in s contains a null, which
// the read path's null pruning could remove again.
func defaultsHoldNull(s *schema.Schema, depth int) bool {
	if s == nil || depth > maxWalkDepth || s.Summary()&schema.HasDefaults == 0 {
		return false
	}
	if d, ok := s.Default(); ok && holdsNull(d) {
		return true
	}
	if defaultsHoldNull(s.Items(), depth+1) {
		return true
	}
	for _, p := range s.Properties() {
		if defaultsHoldNull(p, depth+1) {
			return true
		}
	}
	a, _, _ := s.AdditionalProperties()
	return defaultsHoldNull(a, depth+1)
}

func holdsNull(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, e := range t {
			if holdsNull(e) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if holdsNull(e) {
				return true
			}
		}
	}
	return false
}

// Rules is the version's compiled x-kubernetes-validations rules, nil when
// it has none (a nil Validator accepts everything).
func (v *Version) Rules() *rules.Validator { return v.rules }
