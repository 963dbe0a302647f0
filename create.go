package crdkit

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/defaulting"
	"github.com/crdkit/crdkit/prune"
	"github.com/crdkit/crdkit/schema"
)

// FieldValidation is the server's fieldValidation query parameter: what to
// do with unknown and duplicate fields.
type FieldValidation string

// The field-validation modes. The server's default is Warn.
const (
	Ignore FieldValidation = "Ignore"
	Warn   FieldValidation = "Warn"
	Strict FieldValidation = "Strict"
)

// CreateOptions are the options of a dry-run create.
type CreateOptions struct {
	// FieldValidation is Ignore, Warn or Strict; empty means Warn.
	FieldValidation FieldValidation
	// Namespace is the namespace of the request for a namespaced CRD. When
	// empty, the object's metadata.namespace is used, else "default".
	Namespace string
}

// Result is the outcome of a request: the object the server would return,
// its Warning headers, the paths pruning removed, and the error.
type Result struct {
	// Object is what the server returns (nil when Err is set), without the
	// fields only a server fills: uid, creationTimestamp, resourceVersion,
	// managedFields.
	Object map[string]any
	// Warnings are the server's Warning headers, in order.
	Warnings []string
	// Pruned are the paths of the fields pruning removed, sorted.
	Pruned []string
	// Err is nil, or an *apierrors.StatusError whose Status() is what the
	// server answers: code, reason, message and causes.
	Err error
}

// Status returns the server's Status for a failed request, or nil.
func (r *Result) Status() *metav1.Status {
	var se *apierrors.StatusError
	if errors.As(r.Err, &se) {
		st := se.Status()
		return &st
	}
	return nil
}

func (o CreateOptions) mode() FieldValidation {
	if o.FieldValidation == "" {
		return Warn
	}
	return o.FieldValidation
}

// CreateJSON answers what a dry-run create of the JSON (or YAML) document
// data at this version would answer, following the server's order of
// operations: decode (duplicate fields detected in Warn and Strict), root
// metadata round-trip, prune, drop non-nullable nulls, coerce embedded
// resources, default with the schema of the object's version, report strict
// errors as warnings or a 400, check the API version, reset system fields,
// generate a name, drop status when the status subresource is on, set the
// generation, then store and read back (storage-version pruning and
// defaults). Value validation is not applied yet.
//
// data must be JSON, as kubectl sends it (convert YAML first, for example
// with sigs.k8s.io/yaml); the server refuses anything else with a 400.
func (v *Version) CreateJSON(data []byte, opts CreateOptions) Result {
	if data == nil {
		data = []byte{}
	}
	return v.create(data, nil, opts)
}

// Create is CreateJSON for an already decoded object (the value model of
// encoding/json with integers as int64). It does not modify obj. Where the
// server refuses a body while decoding its type meta (apiVersion or kind
// not a string, no kind, an apiVersion that does not parse), its message
// quotes the body: Create answers as for obj encoded with encoding/json.
func (v *Version) Create(obj map[string]any, opts CreateOptions) Result {
	if !typeMetaDecodes(obj) {
		// The server refuses such a body while decoding its type meta, with
		// a message that quotes the body: answer for the body obj encodes to.
		if raw, err := json.Marshal(obj); err == nil {
			return v.CreateJSON(raw, opts)
		}
	}
	cp, err := normalizeValue(obj, 0)
	if err != nil {
		return Result{Err: apierrors.NewBadRequest(err.Error())}
	}
	m, _ := cp.(map[string]any)
	return v.create(nil, m, opts)
}

// create runs the create pipeline on raw JSON, or on a decoded object when
// raw is nil (CreateJSON never passes nil).
func (v *Version) create(raw []byte, obj map[string]any, opts CreateOptions) Result {
	var res Result
	mode := opts.mode()
	strict := mode != Ignore
	if w := v.DeprecationWarning(); w != "" {
		res.Warnings = append(res.Warnings, w)
	}
	var gvk runtimeschema.GroupVersionKind
	var strictErrs []string
	if raw != nil {
		var actual *runtimeschema.GroupVersionKind
		var err error
		obj, actual, strictErrs, err = v.decode(raw, strict)
		if err != nil {
			res.Err = v.decodeError(actual, raw, err)
			return res
		}
		gvk = *actual
	} else {
		// The decoder's answer for a body whose type meta decodes
		// (typeMetaDecodes): the object's own group, version and kind.
		gvk = (&unstructured.Unstructured{Object: obj}).GroupVersionKind()
	}
	pruned, unknown, err := v.crd.coerceWith(obj, strict, false, true)
	if err != nil {
		res.Err = v.decodeError(&gvk, raw, err)
		return res
	}
	res.Pruned = pruned
	for _, u := range unknown {
		strictErrs = append(strictErrs, fmt.Sprintf(`unknown field "%s"`, u))
	}
	v.crd.defaultOwnVersion(obj)
	if len(strictErrs) > 0 {
		if mode == Strict {
			res.Err = v.decodeError(&gvk, raw, errors.New("strict decoding error: "+strings.Join(strictErrs, ", ")))
			return res
		}
		if mode == Warn {
			res.Warnings = append(res.Warnings, strictErrs...)
		}
	}
	if gvk.Group != v.crd.Group() || gvk.Version != v.name {
		res.Err = apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s/%s)", gvk.GroupVersion().String(), v.crd.Group(), v.name))
		return res
	}
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		obj["metadata"] = md
	}
	wipeSystemFields(md)
	if v.crd.Namespaced() {
		ns := opts.Namespace
		objNS, _ := md["namespace"].(string)
		switch {
		case ns == "":
			ns = objNS
		case objNS != "" && objNS != ns:
			res.Err = apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
			return res
		}
		if ns == "" {
			ns = "default"
		}
		md["namespace"] = ns
	}
	if v.statusSubresource {
		delete(obj, "status")
	}
	md["generation"] = int64(1)
	if name, _ := md["name"].(string); name == "" {
		if base, _ := md["generateName"].(string); base != "" {
			md["name"] = generateName(base)
		}
	}
	meta, metaErrs := metaOf(obj)
	if errs := v.validateCreate(obj, meta, metaErrs); len(errs) > 0 {
		res.Err = apierrors.NewInvalid(objectGroupKind(obj), stringAt(obj, "metadata", "name"), errs)
		return res
	}
	if errs := validateMetaAccessor(meta, v.crd.Namespaced()); len(errs) > 0 {
		res.Err = apierrors.NewInvalid(objectGroupKind(obj), stringAt(obj, "metadata", "name"), errs)
		return res
	}
	res.Warnings = append(res.Warnings, finalizerWarnings(obj)...)
	res.Object = v.crd.storeAndRead(obj, v.name, v.statusDefaults)
	return res
}

// objectGroupKind is the group and kind an object names, which the server
// uses in its 422 message.
func objectGroupKind(obj map[string]any) runtimeschema.GroupKind {
	u := unstructured.Unstructured{Object: obj}
	return u.GroupVersionKind().GroupKind()
}

func stringAt(obj map[string]any, keys ...string) string {
	s, _, _ := unstructured.NestedString(obj, keys...)
	return s
}

// validateMetaAccessor is the object-metadata check the server makes after
// the strategy's validation passed, with path-segment name rules.
func validateMetaAccessor(meta *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	if meta == nil {
		meta = &metav1.ObjectMeta{}
	}
	if plainMetaValid(meta, namespaced) {
		return nil
	}
	return genericvalidation.ValidateObjectMetaAccessor(meta, namespaced, path.ValidatePathSegmentName, field.NewPath("metadata"))
}

// coerceWith runs the server's decode-time step (unstructuredSchemaCoercer.apply)
// on obj: root metadata round-trip, pruning and null removal with the schema
// of the object's own version, embedded-resource coercion. It returns the
// pruned paths and, when strict, the unknown-field paths in the server's
// order (metadata, pruned, embedded metadata).
//
// With rootMeta false it leaves root metadata alone, for metadata an
// earlier round trip already made canonical (the round trip is the identity
// then).
func (c *CRD) coerceWith(obj map[string]any, strict, dropInvalidMeta, rootMeta bool) (pruned, unknown []string, err error) {
	kind, kindOK := obj["kind"].(string)
	apiVersion, avOK := obj["apiVersion"].(string)
	var meta *metav1.ObjectMeta
	var foundMeta bool
	var metaUnknown []string
	if rootMeta {
		meta, foundMeta, metaUnknown, err = getObjectMeta(obj, strict, dropInvalidMeta, "metadata")
		if err != nil {
			return nil, nil, err
		}
	}
	unknown = append(unknown, metaUnknown...)
	gv, err := runtimeschema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, nil, err
	}
	if gv.Group == c.Group() && kind == c.Kind() {
		var s *schema.Schema
		if target := c.Version(gv.Version); target != nil {
			s = target.schema
		}
		if !c.preserveUnknownFields() {
			pruned = prune.Object(obj, s, prune.Options{Root: true}, nil)
			defaulting.PruneNulls(obj, s)
		}
		ferr, paths := coerceEmbedded(obj, s, strict, dropInvalidMeta)
		if ferr != nil {
			return nil, nil, ferr
		}
		if strict {
			unknown = append(unknown, pruned...)
		}
		unknown = append(unknown, paths...)
	}
	if kindOK {
		obj["kind"] = kind
	}
	if avOK {
		obj["apiVersion"] = apiVersion
	}
	if foundMeta {
		if err := setObjectMeta(obj, meta); err != nil {
			return nil, nil, err
		}
	}
	return pruned, unknown, nil
}

// typeMetaDecodes reports whether the server's decoder gets past obj's
// type meta: apiVersion a string (or null or absent) that parses as a group
// and version, and kind a non-empty string.
func typeMetaDecodes(obj map[string]any) bool {
	av, avOK := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if (!avOK && obj["apiVersion"] != nil) || kind == "" {
		return false
	}
	_, err := runtimeschema.ParseGroupVersion(av)
	return err == nil
}

// defaultGVK is the kind and version a request to this version addresses.
func (v *Version) defaultGVK() runtimeschema.GroupVersionKind {
	return runtimeschema.GroupVersionKind{Group: v.crd.Group(), Version: v.name, Kind: v.crd.Kind()}
}

// decode decodes a request body as the server's JSON serializer does: the
// type meta first (encoding/json, into apiVersion and kind), defaults from
// the request's group, version and kind, then the object itself, strictly
// (duplicate fields reported) or not.
func (v *Version) decode(data []byte, strict bool) (map[string]any, *runtimeschema.GroupVersionKind, []string, error) {
	findKind := struct {
		APIVersion string `json:"apiVersion,omitempty"`
		Kind       string `json:"kind,omitempty"`
	}{}
	if err := json.Unmarshal(data, &findKind); err != nil {
		return nil, nil, nil, fmt.Errorf("couldn't get version/kind; json parse error: %v", err)
	}
	gv, err := runtimeschema.ParseGroupVersion(findKind.APIVersion)
	if err != nil {
		return nil, nil, nil, err
	}
	actual := withDefaults(gv.WithKind(findKind.Kind), v.defaultGVK())
	var obj map[string]any
	var strictErrs []string
	if strict {
		m := map[string]any{}
		serrs, err := kjson.UnmarshalStrict(data, &m)
		if err != nil {
			return nil, &actual, nil, err
		}
		for _, e := range serrs {
			strictErrs = append(strictErrs, e.Error())
		}
		obj = m
	} else {
		u := &unstructured.Unstructured{}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(data, u); err != nil {
			return nil, &actual, nil, err
		}
		obj = u.Object
	}
	u := unstructured.Unstructured{Object: obj}
	actual = u.GroupVersionKind()
	if actual.Kind == "" {
		return nil, &actual, nil, runtime.NewMissingKindErr(string(data))
	}
	return obj, &actual, strictErrs, nil
}

// withDefaults fills what the body leaves out from the request's group,
// version and kind, as the server's serializer does.
func withDefaults(actual, def runtimeschema.GroupVersionKind) runtimeschema.GroupVersionKind {
	if actual.Kind == "" {
		actual.Kind = def.Kind
	}
	if actual.Version == "" && actual.Group == "" {
		actual.Group, actual.Version = def.Group, def.Version
	}
	if actual.Version == "" && actual.Group == def.Group {
		actual.Version = def.Version
	}
	return actual
}

// decodeError wraps a decoding failure as the create handler does.
func (v *Version) decodeError(gvk *runtimeschema.GroupVersionKind, body []byte, err error) error {
	if gvk != nil && gvk.Kind != "" {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, v.crd.Kind(), err))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", v.crd.Kind(), err, summarize(body, 30)))
}

// summarize abbreviates a request body for an error message as the server
// does: JSON objects as text, anything else in hex.
func summarize(data []byte, n int) string {
	switch {
	case len(data) == 0:
		return "<empty>"
	case data[0] == '{':
		if len(data) > n {
			return string(data[:n]) + " ..."
		}
		return string(data)
	}
	if len(data) > n {
		return hex.EncodeToString(data[:n]) + " ..."
	}
	return hex.EncodeToString(data)
}

// defaultOwnVersion applies the defaults of the object's own version, as
// the server's decoder does (nothing for objects of another group or kind,
// or of a version the CRD does not define).
func (c *CRD) defaultOwnVersion(obj map[string]any) {
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	gv, err := runtimeschema.ParseGroupVersion(av)
	if err != nil || gv.Group != c.Group() || kind != c.Kind() {
		return
	}
	if t := c.Version(gv.Version); t != nil && t.schema != nil {
		defaulting.Apply(obj, t.schema)
	}
}

// storeAndRead returns what the server answers after storing obj: converted
// to the storage version and coerced there, then read back (coerced with
// malformed metadata dropped, defaulted with the storage version's schema),
// converted to the version asked for and coerced with its schema.
func (c *CRD) storeAndRead(obj map[string]any, version string, statusDefaults bool) map[string]any {
	storage := c.StorageVersion()
	if storage == version && c.readIsIdentity && !statusDefaults {
		// The object was pruned, null-pruned, coerced and defaulted with this
		// very schema; the CRD is valid, so its defaults are pruned and hold
		// no null; only metadata changed since (and status, when it had no
		// defaults to come back): the read path's steps are identities here
		// (the server differentials check the returned objects and tables).
		return finishRead(obj)
	}
	if storage != version {
		obj["apiVersion"] = c.Group() + "/" + storage
		_, _, _ = c.coerceWith(obj, false, true, false)
	}
	return finishRead(c.read(obj, version, false))
}

// finishRead removes the null creationTimestamp the ObjectMeta round trip
// leaves, which the server fills in.
func finishRead(obj map[string]any) map[string]any {
	if md, ok := obj["metadata"].(map[string]any); ok {
		if ts, set := md["creationTimestamp"]; set && ts == nil {
			delete(md, "creationTimestamp")
		}
	}
	return obj
}

// generateName appends five random characters to base, as the server's
// name generator does (base cut to 58 characters first).
func generateName(base string) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	if len(base) > 58 {
		base = base[:58]
	}
	b := []byte(base)
	for i := 0; i < 5; i++ {
		b = append(b, alphabet[rand.IntN(len(alphabet))])
	}
	return string(b)
}

// wipeSystemFields clears what the server never takes from a request.
func wipeSystemFields(md map[string]any) {
	for _, k := range []string{"creationTimestamp", "uid", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"} {
		delete(md, k)
	}
}

func (c *CRD) preserveUnknownFields() bool { return c.v1.Spec.PreserveUnknownFields }

// normalizeValue deep-copies a decoded value into the value model: nil,
// bool, string, int64, float64, []any, map[string]any. Other Go integer and
// float types are converted; anything else is an error.
func normalizeValue(x any, depth int) (any, error) {
	if depth > maxWalkDepth {
		return nil, errors.New("object nesting exceeds 10000 levels")
	}
	switch t := x.(type) {
	case nil, bool, string, int64, float64:
		return t, nil
	case int:
		return int64(t), nil
	case int32:
		return int64(t), nil
	case float32:
		return float64(t), nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			switch e.(type) {
			case nil, bool, string, int64, float64: // most values: no call
				out[i] = e
				continue
			}
			c, err := normalizeValue(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			switch e.(type) {
			case nil, bool, string, int64, float64:
				out[k] = e
				continue
			}
			c, err := normalizeValue(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported value of type %T", x)
}

// Read returns what the server answers when an object stored in etcd (as
// the stored JSON object, at the storage version or any other version the
// CRD defines) is read at this version: coerced with malformed metadata
// dropped, defaulted with the schema of its stored version, converted
// (strategy None) and coerced with this version's schema. Request-version
// defaults are not applied on reads, as on the server. stored is not
// modified.
func (v *Version) Read(stored map[string]any) (map[string]any, error) {
	cp, err := normalizeValue(stored, 0)
	if err != nil {
		return nil, err
	}
	obj, _ := cp.(map[string]any)
	if obj == nil {
		return nil, errors.New("stored object is not a JSON object")
	}
	return v.crd.read(obj, v.name, true), nil
}

// read is the server's read path for a stored object (modified in place).
// rootMeta false skips the root metadata round trips, for an object whose
// metadata is already canonical.
func (c *CRD) read(obj map[string]any, version string, rootMeta bool) map[string]any {
	_, _, _ = c.coerceWith(obj, false, true, rootMeta)
	if md, ok := obj["metadata"].(map[string]any); ok {
		if g, _ := md["generation"].(int64); g == 0 {
			md["generation"] = int64(1)
		}
	}
	c.defaultOwnVersion(obj)
	obj["apiVersion"] = c.Group() + "/" + version
	_, _, _ = c.coerceWith(obj, false, false, false)
	return obj
}
