package crdkit

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit/defaulting"
	"github.com/crdkit/crdkit/prune"
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
// resources, default with this version's schema, report strict errors as
// warnings or a 400, check the API version, reset system fields and status,
// set the generation. Value validation is not applied yet.
func (v *Version) CreateJSON(data []byte, opts CreateOptions) Result {
	mode := opts.mode()
	js := bytes.TrimSpace(data)
	if len(js) > 0 && js[0] != '{' {
		y, err := yaml.YAMLToJSON(data)
		if err != nil {
			return Result{Err: apierrors.NewBadRequest(err.Error())}
		}
		js = y
	}
	var obj map[string]any
	var strictErrs []string
	if mode == Ignore {
		if err := kjson.UnmarshalCaseSensitivePreserveInts(js, &obj); err != nil {
			return Result{Err: v.decodeError(nil, err)}
		}
	} else {
		serrs, err := kjson.UnmarshalStrict(js, &obj)
		if err != nil {
			return Result{Err: v.decodeError(nil, err)}
		}
		for _, e := range serrs {
			strictErrs = append(strictErrs, e.Error())
		}
	}
	if obj == nil {
		return Result{Err: v.decodeError(nil, errors.New("Object 'Kind' is missing in 'null'"))}
	}
	return v.create(obj, mode, strictErrs, opts)
}

// Create is CreateJSON for an already decoded object (the value model of
// encoding/json with integers as int64). It does not modify obj.
func (v *Version) Create(obj map[string]any, opts CreateOptions) Result {
	cp, err := normalizeValue(obj, 0)
	if err != nil {
		return Result{Err: apierrors.NewBadRequest(err.Error())}
	}
	m, _ := cp.(map[string]any)
	return v.create(m, opts.mode(), nil, opts)
}

func (v *Version) create(obj map[string]any, mode FieldValidation, strictErrs []string, opts CreateOptions) Result {
	var res Result
	gvk, err := typeMeta(obj)
	if err != nil {
		res.Err = v.decodeError(nil, err)
		return res
	}
	pruned, unknown, err := v.coerce(obj, mode != Ignore, false)
	if err != nil {
		res.Err = v.decodeError(&gvk, err)
		return res
	}
	res.Pruned = pruned
	for _, u := range unknown {
		strictErrs = append(strictErrs, fmt.Sprintf(`unknown field "%s"`, u))
	}
	if target := v.crd.Version(gvk.Version); target != nil && target.schema != nil && gvk.Group == v.crd.Group() && gvk.Kind == v.crd.Kind() {
		defaulting.Apply(obj, target.schema)
	}
	if len(strictErrs) > 0 {
		if mode == Strict {
			res.Err = v.decodeError(&gvk, errors.New("strict decoding error: "+strings.Join(strictErrs, ", ")))
			return res
		}
		res.Warnings = append(res.Warnings, strictErrs...)
	}
	if gvk.Group != v.crd.Group() || gvk.Version != v.name {
		res.Err = apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s/%s)", gvk.GroupVersion().String(), v.crd.Group(), v.name))
		return res
	}
	wipeSystemFields(obj)
	if v.crd.Namespaced() {
		md, _ := obj["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
			obj["metadata"] = md
		}
		ns := opts.Namespace
		if objNS, _ := md["namespace"].(string); ns == "" {
			ns = objNS
		} else if objNS != "" && objNS != ns {
			res.Err = apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
			return res
		}
		if ns == "" {
			ns = "default"
		}
		md["namespace"] = ns
	}
	if v.hasStatusSubresource() {
		delete(obj, "status")
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		md["generation"] = int64(1)
	}
	res.Object = obj
	return res
}

// coerce runs the server's decode-time step (unstructuredSchemaCoercer.apply)
// on obj: root metadata round-trip, pruning and null removal with the schema
// of the object's own version, embedded-resource coercion. It returns the
// pruned paths and, when strict, the unknown-field paths in the server's
// order (metadata, pruned, embedded metadata).
func (v *Version) coerce(obj map[string]any, strict, dropInvalidMeta bool) (pruned, unknown []string, err error) {
	kind, kindOK := obj["kind"].(string)
	apiVersion, avOK := obj["apiVersion"].(string)
	meta, foundMeta, metaUnknown, err := getObjectMeta(obj, strict, dropInvalidMeta, "metadata")
	if err != nil {
		return nil, nil, err
	}
	unknown = append(unknown, metaUnknown...)
	gv, err := runtimeschema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, nil, err
	}
	if gv.Group == v.crd.Group() && kind == v.crd.Kind() {
		target := v.crd.Version(gv.Version)
		var s = v.schema
		if target != nil {
			s = target.schema
		} else {
			s = nil
		}
		if !v.crd.preserveUnknownFields() {
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

// typeMeta reads apiVersion and kind as the server's unstructured decoder
// does.
func typeMeta(obj map[string]any) (runtimeschema.GroupVersionKind, error) {
	var gvk runtimeschema.GroupVersionKind
	kind, ok := obj["kind"].(string)
	if !ok || kind == "" {
		return gvk, errors.New("Object 'Kind' is missing in object")
	}
	av, ok := obj["apiVersion"].(string)
	if !ok || av == "" {
		return gvk, errors.New("Object 'apiVersion' is missing in object")
	}
	gv, err := runtimeschema.ParseGroupVersion(av)
	if err != nil {
		return gvk, err
	}
	return gv.WithKind(kind), nil
}

// decodeError wraps a decoding failure as the create handler does.
func (v *Version) decodeError(gvk *runtimeschema.GroupVersionKind, err error) error {
	if gvk != nil && gvk.Kind != "" {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, v.crd.Kind(), err))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v", v.crd.Kind(), err))
}

// wipeSystemFields clears what the server never takes from a request.
func wipeSystemFields(obj map[string]any) {
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		return
	}
	for _, k := range []string{"creationTimestamp", "uid", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"} {
		delete(md, k)
	}
}

func (v *Version) hasStatusSubresource() bool {
	for _, ver := range v.crd.v1.Spec.Versions {
		if ver.Name == v.name {
			return ver.Subresources != nil && ver.Subresources.Status != nil
		}
	}
	return false
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
