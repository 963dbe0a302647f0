package crdkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit/fieldmanager"
	"github.com/crdkit/crdkit/internal/handlers"
	"github.com/crdkit/crdkit/printcolumns"
)

// The scale subresource (research/upstream.md §11.4). The server reads and
// writes an autoscaling/v1 Scale through the version's specReplicasPath,
// statusReplicasPath and labelSelectorPath: a GET builds the Scale from the
// object; a PUT or PATCH builds the request's Scale (the body, or the patch
// applied to the object's Scale), copies its spec.replicas (and a
// resourceVersion it names) into the object, and updates the object as a
// PUT of the whole object would (generation, status kept, ratcheted
// validation: the scale paths' own checks and the schema's), then answers
// with the Scale of the object stored.
//
// Managed fields: the handler's field manager is the Scale's. It records
// the request's manager on the Scale, whose entries are the object's that
// own spec replicas, shown at autoscaling/v1 (ScaleHandler.ToSubresource);
// the registry maps them back (ToParent): the writer owns the object's spec
// replicas path in an entry of subresource "scale" without a time, and
// earlier owners lose it. The server's converter fails on a request Scale
// that does not say apiVersion autoscaling/v1 (a PUT without type meta):
// the field manager then keeps the Scale's entries, and the owner of spec
// replicas comes back as an entry of its own, without a time. Result.Parent
// is the object so written.

// invalidSpecReplicas is what the server's Scale holds for an object
// without spec replicas, to tell "not set" from any value a client sends.
const invalidSpecReplicas = math.MinInt32

// Scale answers a GET of the scale subresource of live (as GET of the
// object returns it): the autoscaling/v1 Scale as the server encodes it,
// without the fields only a server fills (uid, resourceVersion,
// creationTimestamp), or its error: 404 for a version without the scale
// subresource, 500 for an object without spec replicas or with a replica
// count or selector of another type.
func (v *Version) Scale(live map[string]any) Result {
	s := v.newScaleRequest(live, UpdateOptions{})
	s.warnDeprecated()        // every request to a deprecated version
	s.checkScaleSubresource() // /scale exists only with the scale subresource
	s.readLive(live)          // the object as the registry reads it, at this version
	s.scaleOf(s.old, false)   // ScaleREST.Get: the Scale of the object
	return s.res
}

// UpdateScaleJSON answers a PUT of data (an autoscaling/v1 Scale) to the
// scale subresource of live: the handler decodes the Scale (apiVersion
// and kind default to autoscaling/v1 Scale; unknown and duplicate fields
// are warnings in Warn; any decoding error, and any strict error in
// Strict, is the server's 400, whose message names no field), checks its
// namespace and name against live's, then the registry sets the object's
// spec replicas (and the Scale's resourceVersion as a precondition, when it
// names one) and updates the object; the answer is the Scale of the object
// stored, or the update's error (its 422 names the object's kind); the
// object stored is Result.Parent, with the managed fields the server
// records for the write (opts.ManagedFields: the manager's name, Omit).
func (v *Version) UpdateScaleJSON(data []byte, live map[string]any, opts UpdateOptions) Result {
	s := v.newScaleRequest(live, opts)
	s.warnDeprecated()                                       // every request to a deprecated version
	s.checkScaleSubresource()                                // /scale exists only with the scale subresource
	s.validateOptions("UpdateOptions", opts.FieldValidation) // ValidateUpdateOptions
	s.decodeScale(data)                                      // the handler's decoder: a typed autoscaling/v1 Scale
	s.checkScaleMeta()                                       // EnsureObjectNamespaceMatchesRequestNamespace, checkName
	s.readLive(live)                                         // the registry reads the object
	s.checkScaleUID()                                        // the storage's precondition: the Scale's uid
	s.applyScale()                                           // scaleUpdatedObjectInfo: spec replicas (and resourceVersion) into the object
	s.updateObject(opts.Convert)                             // the object's update: Version.Update's pipeline
	s.scaleOf(s.res.Object, true)                            // the Scale of the object stored
	return s.res
}

// PatchScale answers a PATCH of the scale subresource of live with patch,
// a JSON patch (JSONPatch) or a JSON merge patch (MergePatch), applied, as the server applies it, to the
// object's Scale encoded as JSON (spec.replicas -2147483648 where the
// object has none, which the server then refuses as empty); the patched
// Scale is decoded (unknown fields are warnings in Warn, a 422 in
// Strict), checked and applied as by UpdateScaleJSON. Other patch types
// answer the server's 415. The Scale patched shows the object's managed
// fields as the server's does (the entries owning spec replicas, at
// autoscaling/v1).
func (v *Version) PatchScale(ptype PatchType, patch []byte, live map[string]any, opts UpdateOptions) Result {
	if ptype == ApplyPatch {
		return v.ApplyScale(patch, live, PatchOptions{FieldValidation: opts.FieldValidation, Convert: opts.Convert, ManagedFields: opts.ManagedFields})
	}
	pt := types.PatchType(ptype)
	s := v.newScaleRequest(live, opts)
	s.warnDeprecated()            // every request to a deprecated version
	s.checkScaleSubresource()     // /scale exists only with the scale subresource
	s.checkPatchType(pt, patch)   // the content types the handler takes; the body must be JSON
	s.readLive(live)              // the registry reads the object
	s.patchScale(pt, patch)       // jsonPatcher: the patch applied to the object's Scale, decoded
	s.checkScaleMeta()            // applyPatch: namespace and name of the patched Scale
	s.applyScale()                // scaleUpdatedObjectInfo: spec replicas (and resourceVersion) into the object
	s.updateObject(opts.Convert)  // the object's update: Version.Update's pipeline
	s.scaleOf(s.res.Object, true) // the Scale of the object stored
	return s.res
}

// ApplyScale answers what a dry-run server-side apply of the scale
// subresource of live answers, for the apply configuration data (YAML or
// JSON): the options the server refuses (422: a field manager is
// required), 404 without live, the configuration merged into the
// object's Scale (carrying the managed fields of the object's entries that
// own spec replicas) by the Scale's field manager: a 409 when another
// manager owns a field it sets (unless opts.Force), a 400 for another
// version or kind or managedFields in it, a 500 for a value the Scale's
// schema does not have. An apply that changes the Scale then fails as the
// server's fails, with its 500 (the server's field manager takes the
// changed Scale back as an unstructured object its custom-resource
// converter refuses); one that leaves it as it is (the same replicas, an
// empty configuration) is an update of the object that records the
// manager in its managed fields, as a write of /scale records it. opts
// Namespace, Name and Subresource are not used.
func (v *Version) ApplyScale(data []byte, live map[string]any, opts PatchOptions) Result {
	uo := UpdateOptions{FieldValidation: opts.FieldValidation, Convert: opts.Convert, ManagedFields: opts.ManagedFields}
	s := v.newScaleRequest(live, uo)
	s.warnDeprecated()                 // every request to a deprecated version
	s.checkScaleSubresource()          // /scale exists only with the scale subresource
	s.validateApplyOptions(opts.Force) // ValidatePatchOptions
	s.readLive(live)                   // the registry reads the object
	s.applyToScale(data, opts.Force)   // the apply patcher over the object's Scale
	s.checkScaleMeta()                 // applyPatch: namespace and name of the applied Scale
	s.applyScale()                     // scaleUpdatedObjectInfo: spec replicas into the object, the Scale's entries mapped back
	s.updateObject(opts.Convert)       // the object's update: Version.Update's pipeline
	s.scaleOf(s.res.Object, true)      // the Scale of the object stored
	return s.res
}

// scaleRequest is one request to the scale subresource.
type scaleRequest struct {
	*updateRequest
	opts      UpdateOptions
	scale     *autoscalingv1.Scale // the request's Scale
	liveName  string               // the URL's name and namespace: live's
	liveNS    string
	liveFound bool
	// applied: the Scale is an apply's, its managed fields recorded by
	// the field manager's Apply.
	applied bool
}

func (v *Version) newScaleRequest(live map[string]any, opts UpdateOptions) *scaleRequest {
	r := &request{v: v, mode: opts.mode(), fast: true, managed: opts.ManagedFields}
	s := &scaleRequest{updateRequest: &updateRequest{request: r}, opts: opts}
	if live != nil {
		md, _ := live["metadata"].(map[string]any)
		s.liveName, _ = md["name"].(string)
		if v.crd.Namespaced() {
			s.liveNS, _ = md["namespace"].(string)
			if s.liveNS == "" {
				s.liveNS = "default"
			}
		}
	}
	return s
}

// checkScaleSubresource answers 404 for a version without the scale
// subresource: the server serves no such path.
func (s *scaleRequest) checkScaleSubresource() {
	if s.failed() || s.v.scaleSub != nil {
		return
	}
	s.fail(apierrors.NewNotFound(s.v.crd.groupResource(), s.liveName))
}

// scaleDecodeError is what the handler answers for a Scale body it cannot
// decode: its error transformation asks the custom resource's type
// registry for the kind of a Scale, which it does not know.
func scaleDecodeError() error {
	return apierrors.NewBadRequest(`no kind is registered for the type v1.Scale in scheme "pkg/runtime/scheme.go:111"`)
}

// decodeScale decodes a PUT body as the scale handler's decoder does.
func (s *scaleRequest) decodeScale(data []byte) {
	if s.failed() {
		return
	}
	scale, strictErrs, err := decodeScaleJSON(data, s.mode != Ignore)
	if err != nil || len(strictErrs) > 0 && s.mode == Strict {
		s.fail(scaleDecodeError())
		return
	}
	for _, e := range strictErrs {
		s.res.Warnings = append(s.res.Warnings, e.Error())
	}
	s.scale = scale
}

// decodeScaleJSON decodes data into an autoscaling/v1 Scale: the type
// meta (read as encoding/json reads it, absent parts defaulted) must name
// autoscaling/v1 Scale; then the body, case-sensitively; with strict, the
// duplicate and unknown fields.
func decodeScaleJSON(data []byte, strict bool) (*autoscalingv1.Scale, []error, error) {
	var tm metav1.TypeMeta
	if err := json.Unmarshal(data, &tm); err != nil {
		return nil, nil, err
	}
	if tm.APIVersion != "" && tm.APIVersion != "autoscaling/v1" || tm.Kind != "" && tm.Kind != "Scale" {
		gv, kind := tm.APIVersion, tm.Kind
		if gv == "" {
			gv = "autoscaling/v1"
		}
		if kind == "" {
			kind = "Scale"
		}
		if kind == "Scale" && (gv == "apps/v1beta1" || gv == "apps/v1beta2" || gv == "extensions/v1beta1") {
			// Versions the server's Scale scheme knows, with no
			// conversion to the autoscaling/v1 Scale it decodes into.
			return nil, nil, fmt.Errorf("converting (%s.Scale) to (v1.Scale): unknown conversion", gv[strings.IndexByte(gv, '/')+1:])
		}
		return nil, nil, fmt.Errorf("no kind %q is registered for version %q in scheme \"pkg/runtime/scheme.go:111\"", kind, gv)
	}
	scale := new(autoscalingv1.Scale)
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, scale); err != nil {
		return nil, nil, err
	}
	var strictErrs []error
	if strict {
		var err error
		if strictErrs, err = kjson.UnmarshalStrict(data, new(autoscalingv1.Scale)); err != nil {
			return nil, nil, err
		}
	}
	return scale, strictErrs, nil
}

// checkScaleMeta is the handler's namespace and name checks of the Scale
// against the URL's (live's).
func (s *scaleRequest) checkScaleMeta() {
	if s.failed() {
		return
	}
	ns := s.scale.Namespace
	switch {
	case !s.v.crd.Namespaced():
		ns = ""
	case ns == "":
		ns = s.liveNS
	case ns != s.liveNS:
		s.fail(apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request"))
		return
	}
	s.scale.Namespace = ns
	switch name := s.scale.Name; {
	case name == "":
		s.fail(apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s based on URL) was undeterminable: name must be provided", s.liveName)))
	case name != s.liveName:
		s.fail(apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, s.liveName)))
	}
}

// readLive is updateRequest.readLive, remembering that live was found.
func (s *scaleRequest) readLive(live map[string]any) {
	s.updateRequest.readLive(live)
	s.liveFound = !s.failed()
}

// currentScale is the Scale the registry builds from the object it read
// (spec replicas invalidSpecReplicas where the object has none), or the
// error it answers with.
func (s *scaleRequest) currentScale() (*autoscalingv1.Scale, bool) {
	sc, err := printcolumns.Scale(s.old, *s.v.scaleSub)
	if err == nil {
		return sc, true
	}
	var se *apierrors.StatusError
	if errors.As(err, &se) && se.Status().Code == http.StatusInternalServerError {
		// No spec replicas: the Scale says so with a value no client sends.
		sc, err = printcolumns.Scale(withSpecReplicas(s.old, s.v.scaleFields[0]), *s.v.scaleSub)
		if err == nil {
			sc.Spec.Replicas = invalidSpecReplicas
			return sc, true
		}
	}
	s.fail(bareInternalError(err))
	return nil, false
}

// withSpecReplicas is a shallow copy of obj with 0 at the spec replicas
// path (objects on the way copied), for reading the rest of its Scale.
func withSpecReplicas(obj map[string]any, path []string) map[string]any {
	out := make(map[string]any, len(obj))
	for k, x := range obj {
		out[k] = x
	}
	cur := out
	for i, k := range path {
		if i == len(path)-1 {
			cur[k] = int64(0)
			break
		}
		next, _ := cur[k].(map[string]any)
		cp := make(map[string]any, len(next)+1)
		for k2, x := range next {
			cp[k2] = x
		}
		cur[k] = cp
		cur = cp
	}
	return out
}

// bareInternalError is a non-API error as the handler answers it: a 500 of
// no reason with its text.
func bareInternalError(err error) error {
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		return se
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error()}}
}

// validateApplyOptions is ValidatePatchOptions for an apply: a field
// manager is required (and valid), the field-validation mode known.
func (s *scaleRequest) validateApplyOptions(force bool) {
	if s.failed() {
		return
	}
	o := &metav1.PatchOptions{FieldManager: s.opts.ManagedFields.FieldManager, FieldValidation: string(s.opts.FieldValidation)}
	if force {
		o.Force = &force
	}
	if errs := metav1validation.ValidatePatchOptions(o, types.ApplyPatchType); len(errs) > 0 {
		s.fail(apierrors.NewInvalid(runtimeschema.GroupKind{Group: metav1.GroupName, Kind: "PatchOptions"}, "", errs))
	}
}

// scaleWithEntries is the object's Scale as a patch of /scale starts
// from: typed, with the object's managed-fields entries that own spec
// replicas (as the Scale shows them).
func (s *scaleRequest) scaleWithEntries() (*autoscalingv1.Scale, bool) {
	current, ok := s.currentScale()
	if !ok {
		return nil, false
	}
	var err error
	current.TypeMeta = metav1.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"}
	if current.ManagedFields, err = s.scaleManagedFields(); err != nil {
		s.fail(bareInternalError(err))
		return nil, false
	}
	return current, true
}

// applyToScale is the apply patcher over the object's Scale (with the
// object's entries that own spec replicas, as the Scale shows them): the
// configuration decoded from YAML, merged by the Scale's field manager,
// then decoded strictly for its duplicate fields.
func (s *scaleRequest) applyToScale(data []byte, force bool) {
	if s.failed() {
		return
	}
	current, ok := s.scaleWithEntries()
	if !ok {
		return
	}
	var patch map[string]any
	if err := yaml.Unmarshal(data, &patch); err != nil {
		s.fail(apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err)))
		return
	}
	if patch == nil {
		patch = map[string]any{}
	}
	live, err := runtime.DefaultUnstructuredConverter.ToUnstructured(current)
	if err != nil {
		s.fail(bareInternalError(err))
		return
	}
	fm, err := s.v.crd.fieldManager()
	if err != nil {
		s.fail(apierrors.NewInternalError(fmt.Errorf("failed to create field manager: %v", err)))
		return
	}
	out, err := fm.Apply(s.v.name, fieldmanager.Scale, live, patch, s.opts.ManagedFields.FieldManager, force, s.opts.ManagedFields.Now)
	if err != nil {
		s.fail(bareInternalError(err))
		return
	}
	warnings, err := strictApplyPatch(data, s.mode)
	if err != nil {
		s.fail(err)
		return
	}
	s.res.Warnings = append(s.res.Warnings, warnings...)
	scale := new(autoscalingv1.Scale)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(out, scale); err != nil {
		s.fail(bareInternalError(err))
		return
	}
	s.scale, s.applied = scale, true
}

// checkPatchType refuses the patch types the scale subresource does not
// take (strategic merge patch), then options the handler refuses
// (ValidatePatchOptions: the field manager's name, the field-validation
// mode), then a body that is not JSON.
func (s *scaleRequest) checkPatchType(pt types.PatchType, patch []byte) {
	if s.failed() {
		return
	}
	switch pt {
	case types.JSONPatchType, types.MergePatchType:
	default:
		s.fail(&apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType,
			Reason:  metav1.StatusReasonUnsupportedMediaType,
			Message: "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"}})
		return
	}
	s.validateOptions("PatchOptions", s.opts.FieldValidation) // ValidatePatchOptions
	if !s.failed() && !json.Valid(patch) {
		s.fail(apierrors.NewBadRequest("invalid JSON patch"))
	}
}

// patchScale applies the patch to the object's Scale and decodes the
// result, as the handler's jsonPatcher does.
func (s *scaleRequest) patchScale(pt types.PatchType, patch []byte) {
	if s.failed() {
		return
	}
	current, ok := s.scaleWithEntries()
	if !ok {
		return
	}
	currentJS, err := json.Marshal(current)
	if err != nil {
		s.fail(bareInternalError(err))
		return
	}
	strict := s.mode != Ignore
	var strictErrs []error
	var patched []byte
	switch pt {
	case types.JSONPatchType:
		if strict {
			errs, err := handlers.StrictJSONPatch(patch)
			if err != nil {
				s.fail(apierrors.NewBadRequest(err.Error()))
				return
			}
			strictErrs = errs
		}
		limitJSONPatchCopies()
		p, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			s.fail(apierrors.NewBadRequest(err.Error()))
			return
		}
		if len(p) > maxJSONPatchOperations {
			s.fail(apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(p))))
			return
		}
		var panicked bool
		if patched, panicked, err = applyJSONPatchOps(p, currentJS); panicked {
			s.fail(internalError(errors.New(apiserverPanicked)))
			return
		} else if err != nil {
			s.fail(apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", runtimeschema.GroupResource{}, "", err.Error(), 0, false))
			return
		}
	case types.MergePatchType:
		if strict {
			errs, err := kjson.UnmarshalStrict(patch, &map[string]any{})
			if err != nil {
				s.fail(apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err)))
				return
			}
			strictErrs = errs
		}
		if patched, err = jsonpatch.MergePatch(currentJS, patch); err != nil {
			if err == jsonpatch.ErrBadJSONPatch {
				s.fail(apierrors.NewBadRequest(err.Error()))
			} else {
				s.fail(bareInternalError(err))
			}
			return
		}
	}
	scale, decodeStrict, err := decodeScaleJSON(patched, strict)
	if err != nil {
		s.fail(newInvalid(runtimeschema.GroupKind{}, "", field.ErrorList{field.Invalid(field.NewPath("patch"), string(patched), err.Error())}))
		return
	}
	strictErrs = append(strictErrs, decodeStrict...)
	if len(strictErrs) > 0 {
		if s.mode == Strict {
			msg := "strict decoding error: "
			for i, e := range strictErrs {
				if i > 0 {
					msg += ", "
				}
				msg += e.Error()
			}
			s.fail(newInvalid(runtimeschema.GroupKind{}, "", field.ErrorList{field.Invalid(field.NewPath("patch"), string(patched), msg)}))
			return
		}
		for _, e := range strictErrs {
			s.res.Warnings = append(s.res.Warnings, e.Error())
		}
	}
	s.scale = scale
}

// scaleManagedFields are the object's managed fields as the Scale shows
// them (the server's managedfields.ScaleHandler): the entries that own the
// spec replicas path, of autoscaling/v1.
func (s *scaleRequest) scaleManagedFields() ([]metav1.ManagedFieldsEntry, error) {
	return s.scaleHandler().ToSubresource()
}

// checkScaleUID is the storage's uid precondition of a PUT: a uid in the
// Scale must be the object's.
func (s *scaleRequest) checkScaleUID() {
	if s.failed() || s.scale.UID == "" || s.scale.UID == s.oldMeta.UID {
		return
	}
	s.obj = map[string]any{"metadata": map[string]any{"uid": string(s.scale.UID)}}
	s.checkUID()
}

// applyScale is the registry's scaleUpdatedObjectInfo: the object read,
// its spec replicas set from the Scale (refused when the Scale still says
// "not set"), its resourceVersion from the Scale when it names one.
func (s *scaleRequest) applyScale() {
	if s.failed() {
		return
	}
	current, ok := s.currentScale()
	if !ok {
		return
	}
	if s.scale.Spec.Replicas == invalidSpecReplicas {
		s.fail(apierrors.NewBadRequest(fmt.Sprintf("the spec replicas field %q cannot be empty", s.v.scaleSub.SpecReplicasPath)))
		return
	}
	cp, err := normalizeValue(s.old, 0)
	if err != nil {
		s.fail(bareInternalError(err))
		return
	}
	obj := cp.(map[string]any)
	cur := obj
	path := s.v.scaleFields[0]
	for i, k := range path {
		if i == len(path)-1 {
			cur[k] = int64(s.scale.Spec.Replicas)
			break
		}
		next, ok := cur[k].(map[string]any)
		if !ok {
			if cur[k] != nil {
				s.fail(bareInternalError(fmt.Errorf("value cannot be set because %v is not a map[string]interface{}", cur[k])))
				return
			}
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	if rv := s.scale.ResourceVersion; rv != "" {
		s.metadataOf(obj)["resourceVersion"] = rv
	}
	s.obj = obj
	s.manageScaleFields(current)
}

// scaleHandler is the server's managedfields.ScaleHandler over the
// object's managed fields: the spec replicas path at this version.
func (s *scaleRequest) scaleHandler() *managedfields.ScaleHandler {
	path := fieldpath.Path{}
	for _, f := range s.v.scaleFields[0] {
		path = append(path, fieldpath.PathElement{FieldName: &f})
	}
	gv := runtimeschema.GroupVersion{Group: s.v.crd.Group(), Version: s.v.name}
	return managedfields.NewScaleHandler(s.oldMeta.ManagedFields, gv, managedfields.ResourcePathMappings{gv.String(): path})
}

// manageScaleFields records the write in the object's managed fields as
// the server does for a write of /scale: the handler's field manager
// (the scale scope's, UpdateNoErrors) records what the request's manager
// changed from the object's Scale (holding the entries ToSubresource
// gives) to the request's, then the registry's scaleUpdatedObjectInfo
// maps the Scale's entries back into the object's (ToParent): a manager
// that now sets spec.replicas through the Scale owns the spec replicas
// path (subresource scale, no time of its own), others lose it. With
// managed fields left out, the object's are kept as they were.
func (s *scaleRequest) manageScaleFields(current *autoscalingv1.Scale) {
	if s.failed() || s.opts.ManagedFields.Omit {
		return
	}
	fm, err := s.v.crd.fieldManager()
	if err != nil {
		s.fail(apierrors.NewInternalError(fmt.Errorf("failed to create field manager: %v", err)))
		return
	}
	h := s.scaleHandler()
	entries, err := h.ToSubresource()
	if err != nil {
		s.fail(bareInternalError(err))
		return
	}
	recorded := entries
	if s.applied {
		recorded = s.scale.ManagedFields
	} else if s.scale.APIVersion == "autoscaling/v1" {
		// The server's converter takes a Scale to its version only when
		// the request's names the group (the body's, or the patched
		// Scale's, apiVersion); otherwise the field manager fails and
		// UpdateNoErrors keeps the live Scale's entries.
		if recorded, err = s.recordScaleWrite(fm, current, entries); err != nil {
			s.fail(bareInternalError(err))
			return
		}
	}
	parent, err := h.ToParent(recorded)
	if err != nil {
		s.fail(bareInternalError(err))
		return
	}
	md := s.metadataOf(s.obj)
	if len(parent) == 0 {
		delete(md, "managedFields")
		return
	}
	list := make([]any, len(parent))
	for i := range parent {
		e, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&parent[i])
		if err != nil {
			s.fail(bareInternalError(err))
			return
		}
		list[i] = e
	}
	md["managedFields"] = list
}

// updateObject updates the object as Version.Update does, with the
// object's own (already decoded) fields and no field-validation warnings
// of its own; the request's warnings come first.
func (s *scaleRequest) updateObject(convert ConvertOptions) {
	if s.failed() {
		return
	}
	res := s.v.updateScaled(s.obj, s.old, UpdateOptions{FieldValidation: Ignore, Convert: convert, ManagedFields: s.opts.ManagedFields})
	parent := res.Object
	if w := s.v.DeprecationWarning(); w != "" && len(res.Warnings) > 0 {
		res.Warnings = res.Warnings[1:] // the request's own came first
	}
	res.Warnings = append(s.res.Warnings, res.Warnings...)
	res.Parent = parent
	s.res = res
}

// recordScaleWrite is the scale scope's field manager (UpdateNoErrors)
// over the Scale read (with the object's entries as the Scale shows them)
// and the request's: the Scale's entries after the write.
func (s *scaleRequest) recordScaleWrite(fm *fieldmanager.Manager, current *autoscalingv1.Scale, entries []metav1.ManagedFieldsEntry) ([]metav1.ManagedFieldsEntry, error) {
	liveScale, newScale := current.DeepCopy(), s.scale.DeepCopy()
	liveScale.ManagedFields = entries
	tm := metav1.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"}
	liveScale.TypeMeta, newScale.TypeMeta = tm, tm
	live, err := runtime.DefaultUnstructuredConverter.ToUnstructured(liveScale)
	if err != nil {
		return nil, err
	}
	upd, err := runtime.DefaultUnstructuredConverter.ToUnstructured(newScale)
	if err != nil {
		return nil, err
	}
	out, err := fm.Update(s.v.name, fieldmanager.Scale, live, upd, s.opts.ManagedFields.manager(), s.opts.ManagedFields.Now)
	if err != nil {
		return nil, err
	}
	recorded := new(autoscalingv1.Scale)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(out, recorded); err != nil {
		return nil, err
	}
	return recorded.ManagedFields, nil
}

// scaleOf sets the result to the Scale of obj, as the server encodes it;
// after an update, an object whose scale values are of another type is
// the server's 400 (after a GET, its 500).
func (s *scaleRequest) scaleOf(obj map[string]any, updated bool) {
	if s.failed() {
		return
	}
	sc, err := printcolumns.Scale(obj, *s.v.scaleSub)
	if err != nil {
		s.res.Parent = nil
		if updated {
			s.fail(apierrors.NewBadRequest(err.Error()))
		} else {
			s.fail(bareInternalError(err))
		}
		return
	}
	md := map[string]any{"name": sc.Name}
	if sc.Namespace != "" {
		md["namespace"] = sc.Namespace
	}
	spec := map[string]any{}
	if sc.Spec.Replicas != 0 {
		spec["replicas"] = int64(sc.Spec.Replicas)
	}
	status := map[string]any{"replicas": int64(sc.Status.Replicas)}
	if sc.Status.Selector != "" {
		status["selector"] = sc.Status.Selector
	}
	s.res.Object = map[string]any{"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": md, "spec": spec, "status": status}
}
