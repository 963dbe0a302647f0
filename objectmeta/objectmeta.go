package objectmeta

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/operation"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

// GetOptions are the server's GetObjectMetaWithOptions options.
type GetOptions struct {
	// ReturnUnknownFieldPaths decodes strictly and returns the paths of
	// unknown metadata fields (the request decoder in Warn and Strict).
	ReturnUnknownFieldPaths bool
	// DropMalformedFields drops fields that do not decode, one by one,
	// instead of failing (the storage decoder).
	DropMalformedFields bool
	// Prefix is the path the unknown-field paths start with ("metadata"
	// at the root of an object).
	Prefix string
}

// Get reads obj["metadata"] into an ObjectMeta as the server does: through
// JSON, strictly when unknown fields are to be reported, dropping malformed
// fields when asked. found is false when there is no metadata key.
// Plain metadata takes a direct conversion with the same result.
func Get(obj map[string]any, opts GetOptions) (meta *metav1.ObjectMeta, found bool, unknown []string, err error) {
	md, ok := obj["metadata"]
	if !ok {
		return nil, false, nil, nil
	}
	if m, ok := md.(map[string]any); ok {
		if meta, ok := plainMetaFromMap(m); ok {
			return meta, true, nil, nil
		}
	}
	return getJSON(md, opts)
}

// getJSON is Get's general case, the server's own: md to JSON and back
// into ObjectMeta.
func getJSON(md any, opts GetOptions) (meta *metav1.ObjectMeta, found bool, unknown []string, err error) {
	meta = new(metav1.ObjectMeta)
	raw, err := utiljson.Marshal(md)
	if err != nil {
		return nil, false, nil, err
	}
	var uerr error
	if opts.ReturnUnknownFieldPaths {
		var serrs []error
		serrs, uerr = kjson.UnmarshalStrict(raw, meta)
		if uerr == nil {
			return meta, true, fieldPathErrors(serrs, opts.Prefix), nil
		}
	} else if uerr = utiljson.Unmarshal(raw, meta); uerr == nil {
		return meta, true, nil, nil
	}
	if !opts.DropMalformedFields {
		return nil, true, nil, uerr
	}
	m, ok := md.(map[string]any)
	if !ok {
		return nil, false, nil, fmt.Errorf("invalid metadata: expected object, got %T", md)
	}
	acc, probe := new(metav1.ObjectMeta), new(metav1.ObjectMeta)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		one, err := utiljson.Marshal(map[string]any{k: m[k]})
		if err != nil || utiljson.Unmarshal(one, probe) != nil {
			continue
		}
		if opts.ReturnUnknownFieldPaths {
			serrs, _ := kjson.UnmarshalStrict(one, acc)
			unknown = append(unknown, fieldPathErrors(serrs, opts.Prefix)...)
		} else {
			_ = utiljson.Unmarshal(one, acc)
		}
	}
	return acc, true, unknown, nil
}

func fieldPathErrors(errs []error, prefix string) []string {
	var out []string
	for _, e := range errs {
		if fe, ok := e.(kjson.FieldError); ok {
			out = append(out, prefix+"."+fe.FieldPath())
		}
	}
	return out
}

// Set writes meta into obj["metadata"] in the unstructured form the server
// produces (unknown fields gone, empty fields omitted), modifying obj. A nil
// meta removes the key.
func Set(obj map[string]any, meta *metav1.ObjectMeta) error {
	if meta == nil {
		delete(obj, "metadata")
		return nil
	}
	if m, ok := plainMetaToMap(meta); ok {
		obj["metadata"] = m
		return nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(meta)
	if err != nil {
		return err
	}
	obj["metadata"] = m
	return nil
}

// FromUnstructured converts an object's metadata to ObjectMeta as the
// custom-resource validator does (runtime.DefaultUnstructuredConverter),
// returning nil and the server's field errors when it cannot. An object
// without metadata gives an empty ObjectMeta.
func FromUnstructured(obj map[string]any) (*metav1.ObjectMeta, field.ErrorList) {
	raw := obj["metadata"]
	if raw == nil {
		return &metav1.ObjectMeta{}, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, field.ErrorList{field.Invalid(field.NewPath("metadata"), raw, fmt.Sprintf("expected map[string]interface{}, got %T", raw))}
	}
	if meta, ok := plainMetaFromMap(m); ok {
		return meta, nil
	}
	meta := &metav1.ObjectMeta{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, meta); err != nil {
		return nil, field.ErrorList{field.Invalid(field.NewPath("metadata"), raw, err.Error())}
	}
	return meta, nil
}

// ValidateCreate is the custom-resource validator's check of a new object's
// metadata: ValidateObjectMetaDeclaratively for a create, with DNS-subdomain
// names, under "metadata".
func ValidateCreate(meta *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	if plainMetaValid(meta, namespaced) {
		return nil
	}
	return genericvalidation.ValidateObjectMetaDeclaratively(context.Background(), operation.Create, meta, nil, namespaced, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"), true)
}

// ValidateAccessor is the check rest.BeforeCreate makes after the
// strategy's validation passed: ValidateObjectMetaAccessor with
// path-segment name rules. A nil meta is checked as empty.
func ValidateAccessor(meta *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	if meta == nil {
		meta = &metav1.ObjectMeta{}
	}
	if plainMetaValid(meta, namespaced) {
		return nil
	}
	return genericvalidation.ValidateObjectMetaAccessor(meta, namespaced, path.ValidatePathSegmentName, field.NewPath("metadata"))
}

// ValidateCommonUpdate is the check every update gets before the strategy's
// (rest.ValidateUpdate's validateCommonFields): ValidateObjectMetaAccessor
// with path-segment names, then ValidateObjectMetaAccessorUpdate against
// the old metadata. Nil metas are checked as empty.
func ValidateCommonUpdate(meta, old *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	if meta == nil {
		meta = &metav1.ObjectMeta{}
	}
	if old == nil {
		old = &metav1.ObjectMeta{}
	}
	if plainUpdateValid(meta, old, namespaced) {
		return nil
	}
	errs := genericvalidation.ValidateObjectMetaAccessor(meta, namespaced, path.ValidatePathSegmentName, field.NewPath("metadata"))
	return append(errs, genericvalidation.ValidateObjectMetaAccessorUpdate(meta, old, field.NewPath("metadata"))...)
}

// ValidateUpdate is the custom-resource validator's check of an updated
// object's metadata: ValidateObjectMetaDeclaratively for an update, under
// "metadata".
func ValidateUpdate(meta, old *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	if meta != nil && old != nil && plainUpdateValid(meta, old, namespaced) {
		return nil
	}
	return genericvalidation.ValidateObjectMetaDeclaratively(context.Background(), operation.Update, meta, old, namespaced, nil, field.NewPath("metadata"), true)
}
