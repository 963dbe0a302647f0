package servertest

import (
	"slices"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	kjson "sigs.k8s.io/json"
)

// upstreamRuns bounds the in-process runs of upstreamReorders.
const upstreamRuns = 3000

// upstreamValidators caches the server's value validator per CRD version,
// for upstreamReorders (used from the test goroutine only).
var upstreamValidators = map[string]*upstreamValidator{}

type upstreamValidator struct {
	validator  apiservervalidation.SchemaValidator
	structural *structuralschema.Structural
}

// upstreamReorders is the last check before crdkit's order of causes counts
// as a disagreement with a server that gave the same order every time. The
// server's order follows the iteration of maps inside it, some of which
// reverse two keys in as few as one iteration in a few hundred: it takes
// the first pair of causes that crdkit reports in the other order, runs the
// server's own OpenAPI and list-type validation in this process on the
// request body, and reports whether some run gives that pair in crdkit's
// order.
func upstreamReorders(crd *apiextensionsv1.CustomResourceDefinition, version string, raw []byte, server, ours []Cause) bool {
	a, b, ok := reversedPair(server, ours)
	if !ok {
		return false
	}
	u := upstreamValidatorFor(crd, version)
	if u == nil {
		return false
	}
	var obj map[string]any
	if kjson.UnmarshalCaseSensitivePreserveInts(raw, &obj) != nil {
		return false
	}
	for range upstreamRuns {
		errs := apiservervalidation.ValidateCustomResource(nil, obj, u.validator)
		if u.structural != nil {
			errs = append(errs, listtype.ValidateListSetsAndMaps(nil, u.structural, obj)...)
		}
		i, j := -1, -1
		for k, e := range errs {
			c := Cause{e.Field, string(e.Type), e.ErrorBody()}
			if c == a && i < 0 {
				i = k
			}
			if c == b && j < 0 {
				j = k
			}
		}
		if i < 0 || j < 0 {
			return false // not both in the value validation
		}
		if j < i {
			return true
		}
	}
	return false
}

// reversedPair returns the first causes a, b that the server reports in
// that order and ours in the other.
func reversedPair(server, ours []Cause) (a, b Cause, ok bool) {
	for i, x := range server {
		for _, y := range server[i+1:] {
			xi, yi := slices.Index(ours, x), slices.Index(ours, y)
			if xi >= 0 && yi >= 0 && yi < xi {
				return x, y, true
			}
		}
	}
	return Cause{}, Cause{}, false
}

func upstreamValidatorFor(crd *apiextensionsv1.CustomResourceDefinition, version string) *upstreamValidator {
	key := crd.Name + "/" + version
	if u, ok := upstreamValidators[key]; ok {
		return u
	}
	var u *upstreamValidator
	for _, v := range crd.Spec.Versions {
		if v.Name != version || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		internal := new(apiextensions.JSONSchemaProps)
		if apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil) != nil {
			break
		}
		validator, _, err := apiservervalidation.NewSchemaValidator(internal)
		if err != nil {
			break
		}
		ss, err := structuralschema.NewStructural(internal)
		if err != nil {
			ss = nil
		}
		u = &upstreamValidator{validator: validator, structural: ss}
	}
	upstreamValidators[key] = u
	return u
}
