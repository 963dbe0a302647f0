package crdkit

import (
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit/definition"
)

// CRDResult is the server's answer to a dry-run create or update of a
// CustomResourceDefinition.
type CRDResult struct {
	// CRD is what the server would store and return (v1 defaults,
	// generation and status set by its strategy), nil when it refuses. The
	// fields only a server fills are left as they were: uid,
	// creationTimestamp and resourceVersion (an update keeps live's uid and
	// creationTimestamp), managedFields (as the field manager keeps them on
	// create, as sent on update).
	CRD *apiextensionsv1.CustomResourceDefinition
	// Errors are the causes of the server's 422 Invalid, empty when it
	// accepts (or refuses for another reason: see Err).
	Errors field.ErrorList
	// Warnings are the server's Warning headers, in order.
	Warnings []string
	// Err is nil, or an *apierrors.StatusError whose Status() is what the
	// server answers: code, reason, message and causes.
	Err error
}

// CreateCRD returns the server's answer to a dry-run create of crd (POST
// to customresourcedefinitions, as the registry handles it): the
// handler's metadata steps (system fields wiped, the namespace cleared,
// duplicate owner references dropped with a warning), the v1 defaults, the
// strategy's PrepareForCreate (status reset, generation 1, the storage
// version stored), its validation (definition.Validate), then, for a valid
// CRD, its warnings (definition.WarningsOnCreate). It does not modify crd.
// The warnings of decoding a document are Load's (see CRD.Warnings).
func CreateCRD(crd *apiextensionsv1.CustomResourceDefinition) CRDResult {
	cr, err := createCRD(crd)
	if err != nil {
		return CRDResult{Err: err, Errors: field.ErrorList{field.InternalError(nil, err)}}
	}
	res := CRDResult{Errors: cr.errs, Warnings: cr.warnings}
	if len(cr.errs) > 0 {
		res.Err = newInvalid(crdGroupKind, cr.v1.Name, cr.errs)
		return res
	}
	res.CRD, res.Err = storedCRD(cr.internal)
	return res
}

// crdCreate is a CRD as the server's create path has it once validated.
type crdCreate struct {
	v1       *apiextensionsv1.CustomResourceDefinition // defaulted; status as sent
	internal *apiextensionsinternal.CustomResourceDefinition
	errs     field.ErrorList
	warnings []string
}

func createCRD(crd *apiextensionsv1.CustomResourceDefinition) (crdCreate, error) {
	v1 := crd.DeepCopy()
	warnings := handleCreate(&v1.ObjectMeta)
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(v1)
	resetCRDManagedFields(v1)
	internal := new(apiextensionsinternal.CustomResourceDefinition)
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(v1, internal, nil); err != nil {
		return crdCreate{}, err
	}
	definition.PrepareForCreate(internal)
	errs := definition.Validate(internal)
	if len(errs) == 0 {
		warnings = append(warnings, definition.WarningsOnCreate(internal)...)
	}
	return crdCreate{v1: v1, internal: internal, errs: errs, warnings: warnings}, nil
}

// storedCRD is the v1 form of a CRD the server's strategy prepared.
func storedCRD(internal *apiextensionsinternal.CustomResourceDefinition) (*apiextensionsv1.CustomResourceDefinition, error) {
	out := new(apiextensionsv1.CustomResourceDefinition)
	if err := apiextensionsv1.Convert_apiextensions_CustomResourceDefinition_To_v1_CustomResourceDefinition(internal, out, nil); err != nil {
		return nil, err
	}
	out.APIVersion, out.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
	return out, nil
}
