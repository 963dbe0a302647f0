package crdkit

import (
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
// as the validator reads it, or nil with metaErrs saying why.
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
	if want := v.crd.Group() + "/" + v.name; av != want {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), av, "must be "+want))
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
	errs := scaleReplicas(obj, sc.SpecReplicasPath)
	errs = append(errs, scaleReplicas(obj, sc.StatusReplicasPath)...)
	if sc.LabelSelectorPath != nil && *sc.LabelSelectorPath != "" {
		p := *sc.LabelSelectorPath
		s, _, err := unstructured.NestedString(obj, strings.Split(strings.TrimPrefix(p, "."), ".")...)
		if err != nil {
			errs = append(errs, field.Invalid(field.NewPath(p), s, err.Error()))
		}
	}
	return errs
}

// scaleReplicas checks a replicas path: an integer from 0 to MaxInt32. The
// server names the field by the literal path (".spec.replicas").
func scaleReplicas(obj map[string]any, replicasPath string) field.ErrorList {
	p := strings.Split(strings.TrimPrefix(replicasPath, "."), ".")
	n, _, err := unstructured.NestedInt64(obj, p...)
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
	ruleErrs, _ := v.rules.Validate(obj, rules.RuntimeBudget)
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
	for i, e := range in {
		out[i] = &field.Error{Type: field.ErrorType(e.Type), Field: e.Field, BadValue: e.BadValue, Detail: e.Detail}
	}
	return out
}
