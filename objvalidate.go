package crdkit

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/validate/content"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit/schema"
)

// validateCreate is the server's validation of a new object, in its order:
// type meta (alone when it fails), object metadata, OpenAPI value
// validation of the whole object, scale paths, embedded resources, list
// types, then the "not checked" marker where CEL rules would be skipped.
// x-kubernetes-validations rules themselves are not evaluated yet.
func (v *Version) validateCreate(obj map[string]any, meta *metav1.ObjectMeta, metaErrs field.ErrorList) field.ErrorList {
	gvk := runtimeschema.GroupVersionKind{Group: v.crd.Group(), Version: v.name, Kind: v.crd.Kind()}
	if errs := validateTypeMeta(obj, gvk); len(errs) > 0 {
		return errs
	}
	errs := metaErrs
	if meta != nil && !plainMetaValid(meta, v.crd.Namespaced()) {
		errs = genericvalidation.ValidateObjectMetaDeclaratively(context.Background(), operation.Create, meta, nil, v.crd.Namespaced(), genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"), true)
	}
	if v.schema != nil {
		errs = append(errs, toFieldErrors(v.schema.Validate(obj, nil, nil))...)
	}
	if sc := v.scaleSub; sc != nil {
		errs = append(errs, validateScale(obj, sc.SpecReplicasPath, "")...)
		errs = append(errs, validateScale(obj, sc.StatusReplicasPath, derefString(sc.LabelSelectorPath))...)
	}
	if v.schema != nil {
		errs = append(errs, validateEmbedded(nil, obj, v.schema, false, 0)...)
		errs = append(errs, toFieldErrors(v.schema.ValidateListTypes(obj, nil, nil))...)
		if v.schema.Summary()&schema.HasRules != 0 {
			if blocking(errs) {
				errs = append(errs, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
			}
		}
	}
	return errs
}

// rulesUnchecked reports whether the version has x-kubernetes-validations
// rules that the server would evaluate on obj's errors, which crdkit does
// not evaluate yet.
func (v *Version) rulesUnchecked(errs field.ErrorList) bool {
	return v.schema != nil && v.schema.Summary()&schema.HasRules != 0 && !blocking(errs)
}

func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

func toFieldErrors(in schema.ErrorList) field.ErrorList {
	out := make(field.ErrorList, len(in))
	for i, e := range in {
		out[i] = &field.Error{Type: field.ErrorType(e.Type), Field: e.Field, BadValue: e.BadValue, Detail: e.Detail}
	}
	return out
}

func validateTypeMeta(obj map[string]any, gvk runtimeschema.GroupVersionKind) field.ErrorList {
	var errs field.ErrorList
	kind, _ := obj["kind"].(string)
	av, _ := obj["apiVersion"].(string)
	if kind != gvk.Kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), kind, "must be "+gvk.Kind))
	}
	if want := gvk.Group + "/" + gvk.Version; av != want {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), av, "must be "+want))
	}
	return errs
}

// metaOf converts an object's metadata to ObjectMeta as the custom-resource
// validator does (nil and the errors when it cannot).
func metaOf(obj map[string]any) (*metav1.ObjectMeta, field.ErrorList) {
	meta := &metav1.ObjectMeta{}
	if raw := obj["metadata"]; raw != nil {
		m, ok := raw.(map[string]any)
		if !ok {
			return nil, field.ErrorList{field.Invalid(field.NewPath("metadata"), raw, fmt.Sprintf("expected map[string]interface{}, got %T", raw))}
		}
		if meta, ok := plainMetaFromMap(m); ok {
			return meta, nil
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, meta); err != nil {
			return nil, field.ErrorList{field.Invalid(field.NewPath("metadata"), raw, err.Error())}
		}
	}
	return meta, nil
}

// validateScale checks a scale subresource's replicas path (and the label
// selector path) as the server does.
func validateScale(obj map[string]any, replicasPath, selectorPath string) field.ErrorList {
	var errs field.ErrorList
	p := strings.Split(strings.TrimPrefix(replicasPath, "."), ".")
	n, _, err := unstructured.NestedInt64(obj, p...)
	switch {
	case err != nil:
		errs = append(errs, field.Invalid(field.NewPath(replicasPath), n, err.Error()))
	case n < 0:
		errs = append(errs, field.Invalid(field.NewPath(replicasPath), n, "should be a non-negative integer"))
	case n > math.MaxInt32:
		errs = append(errs, field.Invalid(field.NewPath(replicasPath), n, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32)))
	}
	if selectorPath != "" {
		s, _, err := unstructured.NestedString(obj, strings.Split(strings.TrimPrefix(selectorPath, "."), ".")...)
		if err != nil {
			errs = append(errs, field.Invalid(field.NewPath(selectorPath), s, err.Error()))
		}
	}
	return errs
}

// validateEmbedded validates every embedded resource under s (not the
// root), as the server's objectmeta validation does.
func validateEmbedded(pth *field.Path, x any, s *schema.Schema, root bool, depth int) field.ErrorList {
	if root && s == nil {
		s = emptySchema
	}
	if s == nil || depth > maxWalkDepth || (!root && s.Summary()&schema.HasEmbeddedResource == 0) {
		return nil
	}
	var errs field.ErrorList
	switch x := x.(type) {
	case map[string]any:
		if root || s.EmbeddedResource() {
			errs = append(errs, validateEmbeddedResource(pth, x)...)
		}
		addl, _, _ := s.AdditionalProperties()
		for _, k := range sortedMapKeys(x) {
			if p := s.Property(k); p != nil {
				errs = append(errs, validateEmbedded(pth.Child(k), x[k], p, false, depth+1)...)
			} else if addl != nil {
				errs = append(errs, validateEmbedded(pth.Key(k), x[k], addl, false, depth+1)...)
			}
		}
	case []any:
		for i, e := range x {
			errs = append(errs, validateEmbedded(pth.Index(i), e, s.Items(), false, depth+1)...)
		}
	}
	return errs
}

func validatePathSegment(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}

func validateEmbeddedResource(pth *field.Path, x map[string]any) field.ErrorList {
	var errs field.ErrorList
	if _, ok := x["apiVersion"]; !ok {
		errs = append(errs, field.Required(pth.Child("apiVersion"), ""))
	}
	if _, ok := x["kind"]; !ok {
		errs = append(errs, field.Required(pth.Child("kind"), ""))
	}
	keys := make([]string, 0, 3)
	for _, k := range []string{"apiVersion", "kind", "metadata"} {
		if _, ok := x[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := x[k]
		switch k {
		case "apiVersion":
			av, ok := v.(string)
			switch {
			case !ok:
				errs = append(errs, field.Invalid(pth.Child("apiVersion"), v, "must be a string"))
			case av == "":
				errs = append(errs, field.Invalid(pth.Child("apiVersion"), av, "must not be empty"))
			default:
				if _, err := runtimeschema.ParseGroupVersion(av); err != nil {
					errs = append(errs, field.Invalid(pth.Child("apiVersion"), av, err.Error()))
				}
			}
		case "kind":
			kind, ok := v.(string)
			switch {
			case !ok:
				errs = append(errs, field.Invalid(pth.Child("kind"), v, "must be a string"))
			case kind == "":
				errs = append(errs, field.Invalid(pth.Child("kind"), kind, "must not be empty"))
			default:
				if e := utilvalidation.IsDNS1035Label(strings.ToLower(kind)); len(e) > 0 {
					errs = append(errs, field.Invalid(pth.Child("kind"), kind, "may have mixed case, but should otherwise match: "+strings.Join(e, ",")))
				}
			}
		case "metadata":
			meta, _, _, err := getObjectMeta(x, false, false, "")
			if err != nil {
				errs = append(errs, field.Invalid(pth.Child("metadata"), v, err.Error()))
				continue
			}
			if meta.Name == "" {
				meta.Name = "fakename"
			}
			if plainMetaValid(meta, meta.Namespace != "") {
				continue // the check below would find nothing (fastmeta_test.go)
			}
			errs = append(errs, genericvalidation.ValidateObjectMetaDeclaratively(context.Background(), operation.Create, meta, nil, meta.Namespace != "", validatePathSegment, pth.Child("metadata"), true)...)
		}
	}
	return errs
}

// finalizerWarnings are the server's warnings for finalizer names on
// create.
func finalizerWarnings(obj map[string]any) []string {
	md, _ := obj["metadata"].(map[string]any)
	l, _ := md["finalizers"].([]any)
	seen := map[string]bool{}
	var names []string
	for _, f := range l {
		if s, ok := f.(string); ok && !seen[s] {
			seen[s] = true
			names = append(names, s)
		}
	}
	sort.Strings(names)
	var out []string
	for _, f := range names {
		for _, msg := range utilvalidation.IsQualifiedName(f) {
			out = append(out, fmt.Sprintf("metadata.finalizers: %q: %s", f, msg))
		}
		if !strings.Contains(f, "/") && !standardFinalizers[f] {
			if strings.Contains(f, ".") {
				out = append(out, fmt.Sprintf("metadata.finalizers: %q: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers", f))
			} else {
				out = append(out, fmt.Sprintf("metadata.finalizers: %q: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers", f))
			}
		}
	}
	return out
}

var standardFinalizers = map[string]bool{"orphan": true, "foregroundDeletion": true, "kubernetes": true}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
