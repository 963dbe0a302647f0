package crdkit

import (
	"errors"
	"fmt"
	"net/http"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit/definition"
	"github.com/crdkit/crdkit/internal/verdict"
	"github.com/crdkit/crdkit/objectmeta"
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
		return CRDResult{Err: err}
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
	return createCRDVerdict(crd, nil)
}

// createCRDVerdict is createCRD with the validation's outcome taken from
// vd when it is Known (the validation is skipped), else recorded in vd
// when the CRD passes (see LoadOptions.Verdict).
func createCRDVerdict(crd *apiextensionsv1.CustomResourceDefinition, vd *verdict.Verdict) (crdCreate, error) {
	return createOwnCRD(crd.DeepCopy(), vd)
}

// createOwnCRD is createCRDVerdict on a CRD of its own: it modifies v1.
func createOwnCRD(v1 *apiextensionsv1.CustomResourceDefinition, vd *verdict.Verdict) (crdCreate, error) {
	warnings := handleCreate(&v1.ObjectMeta)
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(v1)
	resetCRDManagedFields(v1)
	internal := new(apiextensionsinternal.CustomResourceDefinition)
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(v1, internal, nil); err != nil {
		// A default, enum or example holding a number out of float64's
		// range (1e400): the server's decoder converts the body to the
		// internal version and refuses it there.
		return crdCreate{}, crdUndecodable(err)
	}
	definition.PrepareForCreate(internal)
	if vd != nil && vd.Known {
		warnings = append(warnings, vd.Warnings...)
		return crdCreate{v1: v1, internal: internal, warnings: warnings}, nil
	}
	errs := definition.Validate(internal)
	if len(errs) == 0 {
		w := definition.WarningsOnCreate(internal)
		warnings = append(warnings, w...)
		if vd != nil {
			vd.Known, vd.Warnings = true, w
		}
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

// crdResource names CRDs in the storage layer's errors.
var crdResource = runtimeschema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}

// UpdateCRD returns the server's answer to a dry-run update (PUT) of crd
// over live, the CRD as the server stores it (as kubectl get crd NAME -o
// yaml prints it: defaults applied, status.storedVersions and conditions
// set). In the server's order: the decoding's v1 defaults and conversion
// (a 400 for a number past float64's range in a default, an enum or an
// example), the handler's checks of the name (live's is the URL's) and
// namespace (cleared), duplicate owner references dropped with a warning,
// the storage layer's preconditions (a
// uid, when given, must be live's; metadata.resourceVersion is required
// and must be live's), the generation, status and stored versions set as
// definition.PrepareForUpdate sets them, live's uid, creationTimestamp and
// deletion fields kept, then the validation of an update
// (definition.ValidateUpdate, after the metadata checks every update
// gets) and, when it passes, the strategy's warnings about what the update
// introduces (definition.WarningsOnUpdate). It modifies neither argument.
//
// A live CRD that is not Established (no condition in its status: a
// manifest rather than the stored object) may still change its scope and
// kind, as on the server before it establishes a CRD.
func UpdateCRD(crd, live *apiextensionsv1.CustomResourceDefinition) CRDResult {
	nv, ov := crd.DeepCopy(), live.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(ov)
	name := ov.Name
	// The body is decoded first: the v1 defaults, then the conversion to
	// the internal version, which refuses a number past float64's range.
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(nv)
	ni, oi := new(apiextensionsinternal.CustomResourceDefinition), new(apiextensionsinternal.CustomResourceDefinition)
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(nv, ni, nil); err != nil {
		return crdFailure(crdUndecodable(err)) // as createCRD
	}
	switch {
	case nv.Name == "":
		return crdFailure(apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s based on URL) was undeterminable: name must be provided", name)))
	case nv.Name != name:
		return crdFailure(apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", nv.Name, name)))
	}
	nv.Namespace = "" // cluster-scoped
	if err := crdUIDPrecondition(nv, ov); err != nil {
		return crdFailure(err)
	}
	var res CRDResult
	if dups := objectmeta.DedupOwnerReferencesTyped(&nv.ObjectMeta); len(dups) > 0 {
		res.Warnings = append(res.Warnings, objectmeta.DuplicateOwnerReferencesWarning(dups))
	}
	if err := crdResourceVersion(nv, ov); err != nil {
		res.Err = err
		return res
	}
	ni.ObjectMeta = nv.ObjectMeta // as the handler left it
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(ov, oi, nil); err != nil {
		return crdFailure(apierrors.NewInternalError(err))
	}
	definition.PrepareForUpdate(ni, oi)
	if ni.UID == "" {
		ni.UID = oi.UID
	}
	if !oi.CreationTimestamp.IsZero() {
		ni.CreationTimestamp = oi.CreationTimestamp
	}
	if oi.DeletionTimestamp != nil {
		ni.DeletionTimestamp = oi.DeletionTimestamp
	}
	if oi.DeletionGracePeriodSeconds != nil && ni.DeletionGracePeriodSeconds == nil {
		ni.DeletionGracePeriodSeconds = oi.DeletionGracePeriodSeconds
	}
	errs := objectmeta.ValidateCommonUpdate(&ni.ObjectMeta, &oi.ObjectMeta, false)
	errs = append(errs, definition.ValidateUpdate(ni, oi)...)
	if len(errs) > 0 {
		res.Errors, res.Err = errs, newInvalid(crdGroupKind, name, errs)
		return res
	}
	res.Warnings = append(res.Warnings, definition.WarningsOnUpdate(ni, oi)...)
	res.CRD, res.Err = storedCRD(ni)
	return res
}

func crdFailure(err error) CRDResult {
	return CRDResult{Err: err}
}

// crdUIDPrecondition is the storage layer's first check of an update: a
// uid in the body must be live's.
func crdUIDPrecondition(crd, live *apiextensionsv1.CustomResourceDefinition) error {
	if crd.UID == "" || crd.UID == live.UID {
		return nil
	}
	msg := fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", crd.UID, live.UID)
	return apierrors.NewConflict(crdResource, live.Name,
		fmt.Errorf("StorageError: invalid object, Code: 4, Key: /%s/%s/%s, ResourceVersion: 0, AdditionalErrorMsg: %s", crdResource.Group, crdResource.Resource, live.Name, msg))
}

// crdResourceVersion is the registry's check of an update's
// resourceVersion, after the handler's transformations: it must be given
// (CRDs allow no unconditional update) and be live's.
func crdResourceVersion(crd, live *apiextensionsv1.CustomResourceDefinition) error {
	n, err := parseResourceVersion(crd.ResourceVersion)
	if err != nil {
		return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error()}}
	}
	if n == 0 {
		gk := runtimeschema.GroupKind{Group: crdResource.Group, Kind: crdResource.Resource}
		return newInvalid(gk, live.Name, field.ErrorList{field.Invalid(field.NewPath("metadata", "resourceVersion"), n, "must be specified for an update")})
	}
	if l, err := parseResourceVersion(live.ResourceVersion); err != nil || n != l {
		return apierrors.NewConflict(crdResource, live.Name, errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	}
	return nil
}

// Installed returns crd as a server holds it once it has created and
// established it, for use as the live CRD of UpdateCRD when only the
// manifest of the installed revision is at hand: the v1 defaults,
// generation 1, the storage version stored, the names accepted, the
// NamesAccepted and Established conditions true, resourceVersion "1" when
// it has none. A CRD that this server would refuse is taken as an older
// server that accepted it holds it. A crd that already has stored versions
// (a live object, as kubectl get prints it) is returned as it is, with the
// defaults. It does not modify crd.
func Installed(crd *apiextensionsv1.CustomResourceDefinition) (*apiextensionsv1.CustomResourceDefinition, error) {
	v1 := crd.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(v1) // the defaults fill storedVersions
	if len(crd.Status.StoredVersions) > 0 {
		return v1, nil
	}
	internal := new(apiextensionsinternal.CustomResourceDefinition)
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(v1, internal, nil); err != nil {
		return nil, err
	}
	definition.PrepareForCreate(internal)
	out, err := storedCRD(internal)
	if err != nil {
		return nil, err
	}
	out.Status.AcceptedNames = out.Spec.Names
	out.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{
		{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue, Reason: "NoConflicts", Message: "no conflicts found"},
		{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue, Reason: "InitialNamesAccepted", Message: "the initial names have been accepted"},
	}
	if out.ResourceVersion == "" {
		out.ResourceVersion = "1"
	}
	return out, nil
}
