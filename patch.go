package crdkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/fieldmanager"
	"github.com/crdkit/crdkit/internal/handlers"
)

// PatchType is the Content-Type of a PATCH request.
type PatchType string

// The patch types. Custom resources accept JSON patches, merge patches and
// apply patches (server-side apply); the server refuses strategic merge
// patches for them with a 415.
const (
	JSONPatch           PatchType = "application/json-patch+json"
	MergePatch          PatchType = "application/merge-patch+json"
	StrategicMergePatch PatchType = "application/strategic-merge-patch+json"
	ApplyPatch          PatchType = "application/apply-patch+yaml"
)

// patchTypes are the patch types the server accepts for custom resources,
// in the order its 415 lists them.
var patchTypes = []string{string(JSONPatch), string(MergePatch), string(ApplyPatch)}

// maxJSONPatchOperations is the server's limit on the operations of one
// JSON patch.
const maxJSONPatchOperations = 10000

// maxJSONPatchCopyBytes is the server's limit on what the copy operations
// of one JSON patch may add (the generic server's JSONPatchMaxCopyBytes,
// 3 MiB): without it a few copies of a copy grow a document exponentially.
const maxJSONPatchCopyBytes = 3 << 20

// limitJSONPatchCopies sets the json-patch library's copy limit, which is
// process-wide, as the server sets it at start: to 3 MiB unless a smaller
// limit is already set.
var limitJSONPatchCopies = sync.OnceFunc(func() {
	for {
		existing := atomic.LoadInt64(&jsonpatch.AccumulatedCopySizeLimit)
		if existing > 0 && existing <= maxJSONPatchCopyBytes ||
			atomic.CompareAndSwapInt64(&jsonpatch.AccumulatedCopySizeLimit, existing, maxJSONPatchCopyBytes) {
			return
		}
	}
})

// PatchOptions are the options of a dry-run PATCH: the server's
// PatchOptions, and the parts of the URL the live object does not give.
type PatchOptions struct {
	// FieldValidation is Ignore, Warn or Strict; empty means Warn.
	FieldValidation FieldValidation
	// Force takes over fields other managers own (apply patches only; the
	// server refuses it on other patches).
	Force bool
	// Subresource is "" for the resource or "status" for /status.
	Subresource string
	// Namespace and Name are the URL's when there is no live object (an
	// apply that creates, or the 404 of a patch): Name defaults to the
	// patch's metadata.name, Namespace (for a namespaced CRD) to the
	// patch's metadata.namespace, else "default". With a live object, the
	// URL addresses it.
	Namespace, Name string
	// Convert is used as in UpdateOptions.
	Convert ConvertOptions
	// ManagedFields: the field manager (required for an apply patch), the
	// time of its entries, or managed fields left out of the result.
	ManagedFields
}

func (o PatchOptions) mode() FieldValidation {
	if o.FieldValidation == "" {
		return Warn
	}
	return o.FieldValidation
}

// Patch answers what a dry-run PATCH of the object live (as GET returns
// it, at any version the CRD serves; nil when there is none) at this
// version answers, for a patch of type pt with the body data: the object
// the server returns, its warnings, or its Status.
//
// It follows the server's patch handler (research/upstream.md §2.8), one
// step per line in patch below: the patch type (415 for strategic merge
// and anything unknown), the options (fieldManager required for apply,
// force only for apply), the body transcoded (400 for a JSON patch that is
// not JSON, a YAML apply patch that does not convert). A JSON or merge
// patch is applied to live encoded as JSON at this version (the server's
// json-patch library, its limit of 10,000 operations and its texts), and
// the result is decoded as an update's body is (pruning, defaults; strict
// errors reported on the patch, a 422); the field manager records the
// change. An apply patch is merged into live by the field manager
// (conflicts are a 409 unless Force; fields of the schema only; the
// result defaulted, not pruned); with no live object it creates one.
// Then the update's steps (resourceVersion optional: the patched object
// carries live's), or the create's for an apply that creates.
//
// Neither data nor live is modified. The result keeps
// metadata.managedFields as the server writes them (unless
// opts.ManagedFields.Omit) and leaves out uid, resourceVersion and
// creationTimestamp; Created says an apply created the object (201).
func (v *Version) Patch(pt PatchType, data []byte, live map[string]any, opts PatchOptions) Result {
	if data == nil {
		data = []byte{}
	}
	return v.patchWith(pt, data, live, opts, true)
}

// Apply is Patch with ApplyPatch: a server-side apply of the YAML or JSON
// apply configuration data over live, or creating the object when live is
// nil.
func (v *Version) Apply(data []byte, live map[string]any, opts PatchOptions) Result {
	return v.Patch(ApplyPatch, data, live, opts)
}

// patchRequest is the state a patch adds to an update.
type patchRequest struct {
	*updateRequest
	typ  PatchType
	data []byte
	opts PatchOptions
	// creating: an apply with no live object.
	creating bool
	// fastAllowed lets a merge patch take patchFast.
	fastAllowed bool
}

// patchWith is the server's patch handler, patcher and registry for one
// request, in their order; a step does nothing once an earlier one failed.
// fast allows patchFast (tests compare both paths).
func (v *Version) patchWith(pt PatchType, data []byte, live map[string]any, opts PatchOptions, fast bool) Result {
	r := &request{v: v, mode: opts.mode(), managed: opts.ManagedFields}
	u := &updateRequest{request: r, status: opts.Subresource == "status"}
	p := &patchRequest{updateRequest: u, typ: pt, data: data, opts: opts, fastAllowed: fast}
	r.warnDeprecated()       // every request to a deprecated version
	p.checkPatchType()       // 415 unless a patch type of custom resources
	p.addressLive(live)      // §2.8: the URL's object: live as the registry reads it, or none
	p.checkSubresource()     // only /status, with the status subresource
	p.validateOptions()      // ValidatePatchOptions
	p.transcode()            // validateAndTranscodePatch
	p.checkFound()           // store.Update: 404 unless an apply creates
	p.applyPatch()           // the patcher: a JSON or merge patch, or an apply
	u.checkNamespace()       // EnsureObjectNamespaceMatchesRequestNamespace
	u.checkName()            // checkName against the URL's name
	r.dedupOwnerReferences() // duplicate owner references dropped, with a warning
	p.updateOrCreate(opts)   // the registry: an update of live, or a create
	r.omitManagedFields()    // unless the options keep them
	return r.res
}

// checkPatchType refuses what the server does not accept as a patch of a
// custom resource (a 415 listing what it accepts).
func (p *patchRequest) checkPatchType() {
	if p.failed() {
		return
	}
	for _, t := range patchTypes {
		if string(p.typ) == t {
			return
		}
	}
	p.fail(apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "", runtimeschema.GroupResource{}, "",
		"the body of the request was in an unknown format - accepted media types include: "+strings.Join(patchTypes, ", "), 0, false))
}

// addressLive takes live as the registry reads it (request.readLive), or,
// with none, the URL's name and namespace from the options or the patch.
func (p *patchRequest) addressLive(live map[string]any) {
	if p.failed() {
		return
	}
	if live != nil {
		p.readLive(live)
		return
	}
	p.name, p.ns = p.opts.Name, p.opts.Namespace
	if p.name == "" || p.ns == "" {
		var md struct {
			Metadata struct {
				Name      any `json:"name"`
				Namespace any `json:"namespace"`
			} `json:"metadata"`
		}
		var doc map[string]any
		if p.typ == ApplyPatch {
			_ = yaml.Unmarshal(p.data, &doc)
			b, _ := json.Marshal(doc)
			_ = json.Unmarshal(b, &md)
		}
		if s, ok := md.Metadata.Name.(string); ok && p.name == "" {
			p.name = s
		}
		if s, ok := md.Metadata.Namespace.(string); ok && p.ns == "" {
			p.ns = s
		}
	}
	if !p.v.crd.Namespaced() {
		p.ns = ""
	} else if p.ns == "" {
		p.ns = "default"
	}
	if p.name == "" {
		p.fail(apierrors.NewBadRequest("name must be provided"))
	}
}

// checkSubresource refuses a patch of a subresource the version does not
// have: the server serves no such path.
func (p *patchRequest) checkSubresource() {
	if p.failed() {
		return
	}
	switch p.opts.Subresource {
	case "":
	case "status":
		p.checkStatusSubresource()
	default:
		p.fail(apierrors.NewNotFound(p.v.crd.groupResource(), p.name))
	}
}

// validateOptions is ValidatePatchOptions, refused with the server's 422.
func (p *patchRequest) validateOptions() {
	if p.failed() {
		return
	}
	o := &metav1.PatchOptions{FieldManager: p.opts.FieldManager, FieldValidation: string(p.opts.FieldValidation)}
	if p.opts.Force {
		o.Force = &p.opts.Force
	}
	if errs := metav1validation.ValidatePatchOptions(o, types.PatchType(p.typ)); len(errs) > 0 {
		p.fail(apierrors.NewInvalid(runtimeschema.GroupKind{Group: metav1.GroupName, Kind: "PatchOptions"}, "", errs))
	}
}

// transcode is validateAndTranscodePatch: the body must be JSON (JSON and
// merge patches) or YAML that converts to JSON (apply patches).
func (p *patchRequest) transcode() {
	if p.failed() {
		return
	}
	if p.typ == ApplyPatch {
		if _, err := yaml.ToJSON(p.data); err != nil {
			p.fail(apierrors.NewBadRequest(fmt.Sprintf("error encoding patch: %v", err)))
		}
		return
	}
	if !json.Valid(p.data) {
		p.fail(apierrors.NewBadRequest("invalid JSON patch"))
	}
}

// checkFound answers the registry's 404 for a patch of an object that does
// not exist; an apply creates it instead.
func (p *patchRequest) checkFound() {
	if p.failed() || p.old != nil {
		return
	}
	if p.typ != ApplyPatch {
		p.fail(apierrors.NewNotFound(p.v.crd.groupResource(), p.name))
		return
	}
	p.creating = true
}

// applyPatch is the patcher's applyPatch: the patch mechanism's result.
func (p *patchRequest) applyPatch() {
	if p.failed() {
		return
	}
	if p.typ == ApplyPatch {
		p.apply()
		p.checkCreatedUID()
		return
	}
	p.patchJSON()
}

// patchJSON is the JSON and merge patch mechanism: live encoded at this
// version, the patch applied to it, the result decoded as an update's body
// (its duplicate and unknown fields, and those of the patch, reported on
// the patch), then the field manager's update.
func (p *patchRequest) patchJSON() {
	if p.fastAllowed && p.patchFast() {
		return
	}
	current, err := json.Marshal(p.old)
	if err != nil {
		p.fail(apierrors.NewInternalError(err))
		return
	}
	patched, applied, err := p.patchDocument(current)
	if err != nil {
		p.fail(err)
		return
	}
	r := p.request
	r.raw, r.patched, r.appliedStrict, r.fast = patched, patched, applied, p.fastAllowed
	r.decode()            // the request codec: type meta, then the object
	r.coerce()            // root metadata, prune, non-nullable nulls, embedded resources
	r.defaultOwnVersion() // defaults of the object's own version
	r.fieldValidation()   // duplicate and unknown fields of the patch and the object
	p.manageFields()      // the field manager's update
}

// patchDocument applies the patch to the JSON document current as the
// server's patcher does (applyJSPatch), returning the patched document and
// the patch's own strict errors.
func (p *patchRequest) patchDocument(current []byte) ([]byte, []string, error) {
	strict := p.mode != Ignore
	var applied []string
	switch p.typ {
	case JSONPatch:
		if strict {
			errs, err := handlers.StrictJSONPatch(p.data)
			if err != nil {
				return nil, nil, apierrors.NewBadRequest(err.Error())
			}
			for _, e := range errs {
				applied = append(applied, e.Error())
			}
		}
		limitJSONPatchCopies()
		ops, err := jsonpatch.DecodePatch(p.data)
		if err != nil {
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
		if len(ops) > maxJSONPatchOperations {
			return nil, nil, apierrors.NewRequestEntityTooLargeError(
				fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(ops)))
		}
		patched, panicked, err := applyJSONPatchOps(ops, current)
		if panicked {
			return nil, nil, internalError(errors.New(apiserverPanicked))
		}
		if err != nil {
			return nil, nil, jsonPatchApplyError(err.Error())
		}
		return patched, applied, nil
	default: // MergePatch
		if strict {
			errs, err := kjson.UnmarshalStrict(p.data, &map[string]any{})
			if err != nil {
				return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
			}
			for _, e := range errs {
				applied = append(applied, e.Error())
			}
		}
		patched, err := jsonpatch.MergePatch(current, p.data)
		if errors.Is(err, jsonpatch.ErrBadJSONPatch) {
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
		if err != nil {
			return nil, nil, internalError(err)
		}
		return patched, applied, nil
	}
}

// apiserverPanicked is what the server's panic filter writes, as plain
// text with a 500, when a request panics.
const apiserverPanicked = "This request caused apiserver to panic. Look in the logs for details."

// applyJSONPatchOps is ops.Apply(doc), reporting the library's panics
// instead of passing them on: a test whose comparison reaches a null array
// element, an operation under a null the patch copied. The server panics
// on those too; its client sees the connection reset (HTTP/2) or the panic
// filter's 500.
func applyJSONPatchOps(ops jsonpatch.Patch, doc []byte) (out []byte, panicked bool, err error) {
	defer func() {
		if recover() != nil {
			out, panicked, err = nil, true, nil
		}
	}()
	out, err = ops.Apply(doc)
	return out, false, err
}

// jsonPatchApplyError is the patcher's answer to a JSON patch that does
// not apply: a 422 whose text leaves out the library's message.
func jsonPatchApplyError(msg string) error {
	return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", runtimeschema.GroupResource{}, "", msg, 0, false)
}

// internalError is the handler's answer to an error that is not an API
// error: a 500 of no reason with its text.
func internalError(err error) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error()}}
}

// patchInvalid is the patcher's 422 for a patched object that does not
// decode: the patched document as the value of the field "patch".
func patchInvalid(patched []byte, detail string) error {
	return apierrors.NewInvalid(runtimeschema.GroupKind{}, "", field.ErrorList{field.Invalid(field.NewPath("patch"), string(patched), detail)})
}

// apply is the apply patcher: the patch decoded from YAML, merged into
// live (an empty object when creating) by the field manager, then the
// patch decoded strictly for its duplicate fields.
func (p *patchRequest) apply() {
	var patch map[string]any
	if err := yaml.Unmarshal(p.data, &patch); err != nil {
		p.fail(apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err)))
		return
	}
	if patch == nil {
		patch = map[string]any{}
	}
	fm, err := p.v.crd.fieldManager()
	if err != nil {
		p.fail(internalError(fmt.Errorf("failed to create field manager: %v", err)))
		return
	}
	sub := fieldmanager.Main
	if p.status {
		sub = fieldmanager.Status
	}
	obj, err := fm.Apply(p.v.name, sub, p.old, patch, p.opts.FieldManager, p.opts.Force, p.managed.Now)
	if err != nil {
		var se *apierrors.StatusError
		if errors.As(err, &se) {
			p.fail(se)
		} else {
			p.fail(internalError(err))
		}
		return
	}
	p.obj = obj
	p.gvk = p.v.defaultGVK()
	warnings, err := strictApplyPatch(p.data, p.mode)
	if err != nil {
		p.fail(err)
		return
	}
	p.res.Warnings = append(p.res.Warnings, warnings...)
}

// strictApplyPatch is the apply patcher's last step: in Warn and Strict,
// the patch decoded strictly, its duplicate fields the server's 400 in
// Strict, warnings (one per line) in Warn.
func strictApplyPatch(data []byte, mode FieldValidation) ([]string, error) {
	if mode == Ignore {
		return nil, nil
	}
	if err := yaml.UnmarshalStrict(data, &map[string]any{}); err != nil {
		if mode == Strict {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("error strict decoding patch: %v", err))
		}
		return yamlWarnings(err.Error()), nil
	}
	return nil, nil
}

// yamlWarnings splits a YAML decoder's strict error into one warning per
// line as the handler does (parseYAMLWarnings); another error is one
// warning.
func yamlWarnings(msg string) []string {
	rest, ok := strings.CutPrefix(msg, "yaml: unmarshal errors:\n")
	if !ok {
		if rest, ok = strings.CutPrefix(msg, "error converting YAML to JSON: yaml: unmarshal errors:\n"); !ok {
			return []string{msg}
		}
	}
	lines := strings.Split(rest, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return lines
}

// checkCreatedUID refuses an apply that creates an object with a uid.
func (p *patchRequest) checkCreatedUID() {
	if p.failed() || !p.creating {
		return
	}
	if uid, _ := p.metadata()["uid"].(string); uid != "" {
		p.fail(apierrors.NewConflict(p.v.crd.groupResource(), p.name, fmt.Errorf("uid mismatch: the provided object specified uid %s, and no existing object was found", uid)))
	}
}

// updateOrCreate is the registry's Update: the update of live, or, for an
// apply with no live object, a create.
func (p *patchRequest) updateOrCreate(opts PatchOptions) {
	if p.failed() {
		return
	}
	r, u := p.request, p.updateRequest
	if p.creating {
		r.create = true
		r.wipeSystemFields()         // rest.WipeObjectMetaSystemFields
		r.prepareForCreate()         // strategy.PrepareForCreate: status reset, generation 1
		r.validateCreate()           // strategy.Validate
		r.validateMetaAccessor()     // rest.BeforeCreate's ValidateObjectMetaAccessor
		r.warnFinalizers()           // finalizer-name warnings
		r.storeAndRead(opts.Convert) // encode at the storage version, read back
		u.dropServerFields()         // the result leaves out what only a server fills
		r.res.Created = !r.failed()
		return
	}
	u.checkResourceVersion()     // live's (the patched object carries it unless the patch changed it)
	u.prepareForUpdate()         // generation, strategy.PrepareForUpdate
	u.restoreFromLive()          // uid, creationTimestamp, deletion timestamp and grace period
	u.validateUpdate()           // validateCommonFields, strategy.ValidateUpdate
	u.keepManagedFieldsTimes()   // IgnoreManagedFieldsTimestampsTransformer
	u.warnFinalizers()           // warnings for added finalizers (not on /status)
	r.storeAndRead(opts.Convert) // encode at the storage version, read back
	u.dropServerFields()         // the result leaves out what only a server fills
}
