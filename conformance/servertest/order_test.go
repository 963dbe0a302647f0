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

// upstreamValidators caches the server's value validator per CRD object and
// version, for upstreamReorders (used from the test goroutine only). The key
// is the object, not the CRD's name: the ratcheting test compares updates
// under tightened copies of a corpus CRD, with the same name, before the
// update test compares them under the CRD itself.
var upstreamValidators = map[validatorKey]*upstreamValidator{}

type validatorKey struct {
	crd     *apiextensionsv1.CustomResourceDefinition
	version string
}

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
	if found, both := u.reorders(obj, a, b, upstreamRuns); found || !both {
		return found
	}
	// The order follows the iteration of the schema's properties maps, whose
	// layout is fixed for a compiled schema (one server process): an
	// iteration only rotates it, so some orders never come from one
	// validator. Validators compiled again lay their maps out anew.
	for range upstreamRebuilds {
		if u = newUpstreamValidator(crd, version); u == nil {
			return false
		}
		if found, _ := u.reorders(obj, a, b, upstreamRebuildRuns); found {
			return true
		}
	}
	return false
}

// upstreamRebuilds bounds the validators upstreamReorders compiles again,
// upstreamRebuildRuns the runs of each.
const upstreamRebuilds, upstreamRebuildRuns = 40, 100

// reorders runs u on obj up to runs times and reports whether some run
// gives b before a, and whether both are causes of the value validation.
func (u *upstreamValidator) reorders(obj map[string]any, a, b Cause, runs int) (found, both bool) {
	for range runs {
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
			return false, false // not both in the value validation
		}
		if j < i {
			return true, true
		}
	}
	return false, true
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
	key := validatorKey{crd, version}
	if u, ok := upstreamValidators[key]; ok {
		return u
	}
	u := newUpstreamValidator(crd, version)
	upstreamValidators[key] = u
	return u
}

// newUpstreamValidator compiles the server's value validator of a CRD
// version (nil if it has no schema or the server cannot compile it).
func newUpstreamValidator(crd *apiextensionsv1.CustomResourceDefinition, version string) *upstreamValidator {
	for _, v := range crd.Spec.Versions {
		if v.Name != version || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		internal := new(apiextensions.JSONSchemaProps)
		if apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil) != nil {
			return nil
		}
		validator, _, err := apiservervalidation.NewSchemaValidator(internal)
		if err != nil {
			return nil
		}
		ss, err := structuralschema.NewStructural(internal)
		if err != nil {
			ss = nil
		}
		return &upstreamValidator{validator: validator, structural: ss}
	}
	return nil
}
