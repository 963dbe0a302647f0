package crdkit

import (
	"context"
	"fmt"
	"math"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit/objectmeta"
	"github.com/crdkit/crdkit/rules"
	"github.com/crdkit/crdkit/schema"
)

// validateCreate is the strategy's validation of a new object
// (customResourceStrategy.Validate, research/upstream.md §2.7), one group
// of checks per line in the server's order. meta is the object's metadata
// as the validator reads it, or nil with metaErrs saying why (nil with no
// metaErrs: metadata known to pass, objectmeta.ValidNew).
func (v *Version) validateCreate(obj map[string]any, meta *metav1.ObjectMeta, metaErrs field.ErrorList) field.ErrorList {
	errs := v.validateObject(obj, meta, metaErrs)
	errs = append(errs, v.validateEmbedded(obj)...)
	errs = append(errs, v.validateListTypes(obj)...)
	return append(errs, v.validateRules(obj, errs)...)
}

// validateObject is the custom-resource validator's part: type meta (alone
// when it fails), object metadata, OpenAPI value validation of the whole
// object, scale paths.
func (v *Version) validateObject(obj map[string]any, meta *metav1.ObjectMeta, metaErrs field.ErrorList) field.ErrorList {
	if errs := v.validateTypeMeta(obj); len(errs) > 0 {
		return errs
	}
	errs := metaErrs
	if meta != nil {
		errs = objectmeta.ValidateCreate(meta, v.crd.Namespaced())
	}
	errs = append(errs, v.validateValues(obj)...)
	return append(errs, v.validateScale(obj)...)
}

// validateTypeMeta checks kind and apiVersion against the version.
func (v *Version) validateTypeMeta(obj map[string]any) field.ErrorList {
	var errs field.ErrorList
	kind, _ := obj["kind"].(string)
	av, _ := obj["apiVersion"].(string)
	if want := v.crd.Kind(); kind != want {
		errs = append(errs, field.Invalid(field.NewPath("kind"), kind, "must be "+want))
	}
	if g := v.crd.Group(); len(av) != len(g)+1+len(v.name) || av[:len(g)] != g || av[len(g)] != '/' || av[len(g)+1:] != v.name {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), av, "must be "+g+"/"+v.name))
	}
	return errs
}

// validateValues is OpenAPI value validation of the whole object.
func (v *Version) validateValues(obj map[string]any) field.ErrorList {
	if v.schema == nil {
		return nil
	}
	return toFieldErrors(v.schema.Validate(obj, nil, nil))
}

// validateScale checks the scale subresource's paths: spec and status
// replicas, and the label selector.
func (v *Version) validateScale(obj map[string]any) field.ErrorList {
	sc := v.scaleSub
	if sc == nil {
		return nil
	}
	errs := scaleReplicas(obj, sc.SpecReplicasPath, v.scaleFields[0])
	errs = append(errs, scaleReplicas(obj, sc.StatusReplicasPath, v.scaleFields[1])...)
	return append(errs, v.validateLabelSelector(obj)...)
}

// pathFields splits a scale subresource's JSON path (".spec.replicas")
// into its fields, as the server does on every request.
func pathFields(p string) []string {
	return strings.Split(strings.TrimPrefix(p, "."), ".")
}

// validateLabelSelector checks that the scale subresource's label selector
// path holds a string, if anything.
func (v *Version) validateLabelSelector(obj map[string]any) field.ErrorList {
	sc := v.scaleSub
	if sc == nil || sc.LabelSelectorPath == nil || *sc.LabelSelectorPath == "" {
		return nil
	}
	p := *sc.LabelSelectorPath
	s, _, err := unstructured.NestedString(obj, v.scaleFields[2]...)
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath(p), s, err.Error())}
	}
	return nil
}

// scaleReplicas checks a replicas path: an integer from 0 to MaxInt32. The
// server names the field by the literal path (".spec.replicas").
func scaleReplicas(obj map[string]any, replicasPath string, fields []string) field.ErrorList {
	n, _, err := unstructured.NestedInt64(obj, fields...)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(field.NewPath(replicasPath), n, err.Error())}
	case n < 0:
		return field.ErrorList{field.Invalid(field.NewPath(replicasPath), n, "should be a non-negative integer")}
	case n > math.MaxInt32:
		return field.ErrorList{field.Invalid(field.NewPath(replicasPath), n, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32))}
	}
	return nil
}

// validateEmbedded checks the embedded resources' type meta and metadata.
func (v *Version) validateEmbedded(obj map[string]any) field.ErrorList {
	if v.schema == nil {
		return nil
	}
	return objectmeta.Validate(nil, obj, v.schema, objectmeta.ValidateOptions{})
}

// validateListTypes checks list-type set and map uniqueness.
func (v *Version) validateListTypes(obj map[string]any) field.ErrorList {
	if v.schema == nil {
		return nil
	}
	return toFieldErrors(v.schema.ValidateListTypes(obj, nil, nil))
}

// validateRules evaluates the x-kubernetes-validations rules with the
// server's per-request budget, only when errs holds no blocking error;
// when one exists the server says the rules were not checked.
func (v *Version) validateRules(obj map[string]any, errs field.ErrorList) field.ErrorList {
	if v.rules == nil {
		return nil
	}
	if blocking(errs) {
		return field.ErrorList{field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")}
	}
	// The budget left is not observable here: evaluate without cost
	// tracking where that provably gives the same errors.
	ruleErrs, _ := v.rules.ValidateUntracked(context.Background(), obj, nil, rules.RuntimeBudget)
	return ruleErrs
}

// blocking reports whether errs holds an error type that makes the server
// skip the CEL rules (hasBlockingErr).
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
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
	all := make([]field.Error, len(in)) // one allocation for all
	for i, e := range in {
		all[i] = field.Error{Type: field.ErrorType(e.Type), Field: e.Field, BadValue: e.BadValue, Detail: e.Detail}
		out[i] = &all[i]
	}
	return out
}

// validateUpdate is the strategy's validation of an update
// (customResourceStrategy.ValidateUpdate, research/upstream.md §2.7), one
// group of checks per line in the server's order, with ratcheting against
// old. The warnings are those of ratcheted rule failures.
func (v *Version) validateUpdate(obj, old map[string]any, meta, oldMeta *metav1.ObjectMeta, metaErrs field.ErrorList) (field.ErrorList, []string) {
	c := v.correlate(obj, old)
	errs := v.validateObjectUpdate(obj, old, meta, oldMeta, metaErrs, c)
	errs = append(errs, v.validateEmbedded(obj)...)
	errs = append(errs, v.validateListTypesUpdate(obj, old)...)
	ruleErrs, warnings := v.validateRulesUpdate(obj, old, errs)
	return append(errs, ruleErrs...), warnings
}

// validateStatusUpdate is the status strategy's validation
// (statusStrategy.ValidateUpdate, research/upstream.md §2.5): type meta,
// metadata, status alone against its schema, the status scale path, list
// types counted only when new has errors and old had none, then the rules
// on the whole object. Embedded resources are not checked.
func (v *Version) validateStatusUpdate(obj, old map[string]any, meta, oldMeta *metav1.ObjectMeta, metaErrs field.ErrorList) (field.ErrorList, []string) {
	var errs field.ErrorList
	if errs = v.validateTypeMeta(obj); len(errs) == 0 {
		errs = v.validateMetaUpdate(meta, oldMeta, metaErrs)
		if st, ok := obj["status"]; ok && v.schema != nil {
			if ss := v.schema.Property("status"); ss != nil {
				c := schema.Correlate(ss, st, old["status"])
				errs = append(errs, toFieldErrors(ss.ValidateUpdate(st, c, schema.NewPath("status"), nil))...)
			}
		}
		if sc := v.scaleSub; sc != nil {
			errs = append(errs, scaleReplicas(obj, sc.StatusReplicasPath, v.scaleFields[1])...)
			errs = append(errs, v.validateLabelSelector(obj)...)
		}
	}
	if v.schema != nil {
		if newErrs := v.schema.ValidateListTypes(obj, nil, nil); len(newErrs) > 0 && len(v.schema.ValidateListTypes(old, nil, nil)) == 0 {
			errs = append(errs, toFieldErrors(newErrs)...)
		}
	}
	ruleErrs, warnings := v.validateRulesUpdate(obj, old, errs)
	return append(errs, ruleErrs...), warnings
}

// correlate pairs obj with old for ratcheting, or nil without a schema.
func (v *Version) correlate(obj, old map[string]any) *schema.Correlated {
	if v.schema == nil {
		return nil
	}
	return schema.Correlate(v.schema, obj, old)
}

// validateObjectUpdate is the custom-resource validator's ValidateUpdate:
// type meta (alone when it fails), metadata against old, ratcheted OpenAPI
// value validation, scale paths.
func (v *Version) validateObjectUpdate(obj, old map[string]any, meta, oldMeta *metav1.ObjectMeta, metaErrs field.ErrorList, c *schema.Correlated) field.ErrorList {
	if errs := v.validateTypeMeta(obj); len(errs) > 0 {
		return errs
	}
	errs := v.validateMetaUpdate(meta, oldMeta, metaErrs)
	if v.schema != nil {
		errs = append(errs, toFieldErrors(v.schema.ValidateUpdate(obj, c, nil, nil))...)
	}
	return append(errs, v.validateScale(obj)...)
}

// validateMetaUpdate is ValidateObjectMetaDeclaratively for an update, or
// why the new metadata could not be read.
func (v *Version) validateMetaUpdate(meta, oldMeta *metav1.ObjectMeta, metaErrs field.ErrorList) field.ErrorList {
	if meta == nil {
		return metaErrs
	}
	return objectmeta.ValidateUpdate(meta, oldMeta, v.crd.Namespaced())
}

// validateListTypesUpdate checks list-type uniqueness of obj only when old
// has no such error, as the strategy ratchets them.
func (v *Version) validateListTypesUpdate(obj, old map[string]any) field.ErrorList {
	if v.schema == nil || len(v.schema.ValidateListTypes(old, nil, nil)) > 0 {
		return nil
	}
	return v.validateListTypes(obj)
}

// validateRulesUpdate evaluates the x-kubernetes-validations rules of an
// update (transition rules with old's values, ratcheting of unchanged
// values, whose failures are warnings), unless errs holds a blocking error.
func (v *Version) validateRulesUpdate(obj, old map[string]any, errs field.ErrorList) (field.ErrorList, []string) {
	if v.rules == nil {
		return nil, nil
	}
	if blocking(errs) {
		return field.ErrorList{field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")}, nil
	}
	return v.rules.ValidateUntracked(context.Background(), obj, old, rules.RuntimeBudget)
}
