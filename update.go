package crdkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit/objectmeta"
)

// UpdateOptions are the options of a dry-run update.
type UpdateOptions struct {
	// FieldValidation is Ignore, Warn or Strict; empty means Warn.
	FieldValidation FieldValidation
	// Convert is used when the CRD's strategy is Webhook and the request's
	// version is not the storage version: the updated object is converted
	// to the storage version and back through the webhook, as the server
	// stores and reads it. The live object is converted by the read path
	// with None.
	Convert ConvertOptions
	// ManagedFields: the field manager's name, the time of its entries,
	// or managed fields left out of the result.
	ManagedFields
}

func (o UpdateOptions) mode() FieldValidation {
	if o.FieldValidation == "" {
		return Warn
	}
	return o.FieldValidation
}

// UpdateJSON answers what a dry-run update (PUT) of the JSON document data
// at this version answers, when live is the object the server holds, as a
// GET returns it (at this version or any other the CRD serves; see below):
// the object the server returns, its warnings, or its Status. The request
// addresses live: its name and, for a namespaced CRD, its namespace.
//
// It follows the server's order of operations, one step per line in update
// below (research/upstream.md §2.4): decode, coerce and request-version
// defaults as for a create; field validation; the API-version check; the
// request namespace and name; owner references; the uid precondition and
// the resourceVersion checks (required, and equal to live's); generation
// kept from live and bumped when anything outside metadata changes; status
// kept from live when the status subresource is on; uid, timestamps and
// grace period restored; the strategy's validation with ratcheting (errors
// on values left unchanged from live are dropped, transition rules see
// live's values); warnings for added finalizers; storage and read back.
// The result keeps metadata.generation and leaves out what only a server
// fills (uid, resourceVersion, creationTimestamp, managedFields).
//
// live is read, never modified, and must be in the value model (integers
// as int64). A live object at another version is first converted to this
// one by the read path, which is exact when live is at the storage version.
// Mutating admission and the field manager's managed fields are not
// modelled.
func (v *Version) UpdateJSON(data []byte, live map[string]any, opts UpdateOptions) Result {
	if data == nil {
		data = []byte{}
	}
	return v.update(data, nil, live, opts, false)
}

// Update is UpdateJSON for an already decoded object. It modifies neither
// obj nor live.
func (v *Version) Update(obj, live map[string]any, opts UpdateOptions) Result {
	return v.updateDecoded(obj, live, opts, false)
}

// UpdateStatusJSON answers what a dry-run update of the status subresource
// (PUT to /status) answers: everything but status is taken from live
// (research/upstream.md §2.5), the generation is live's, only status is
// validated against the schema, and there are no finalizer warnings. A
// version without the status subresource answers 404, as the server has
// no such URL.
func (v *Version) UpdateStatusJSON(data []byte, live map[string]any, opts UpdateOptions) Result {
	if data == nil {
		data = []byte{}
	}
	return v.update(data, nil, live, opts, true)
}

// UpdateStatus is UpdateStatusJSON for an already decoded object. It
// modifies neither obj nor live.
func (v *Version) UpdateStatus(obj, live map[string]any, opts UpdateOptions) Result {
	return v.updateDecoded(obj, live, opts, true)
}

func (v *Version) updateDecoded(obj, live map[string]any, opts UpdateOptions, status bool) Result {
	if !typeMetaDecodes(obj) {
		if raw, err := json.Marshal(obj); err == nil {
			return v.update(raw, nil, live, opts, status)
		}
	}
	cp, err := normalizeValue(obj, 0)
	if err != nil {
		return Result{Err: apierrors.NewBadRequest(err.Error())}
	}
	m, _ := cp.(map[string]any)
	return v.update(nil, m, live, opts, status)
}

// update is the server's update handler, registry and strategy (the status
// strategy when status is set) for one request, in their order; a step does
// nothing once an earlier one failed.
func (v *Version) update(raw []byte, obj, live map[string]any, opts UpdateOptions, status bool) Result {
	return v.updateWith(raw, obj, live, opts, status, true)
}

// updateWith is update with or without the fast steps (request.fast), so
// that tests can compare the two.
func (v *Version) updateWith(raw []byte, obj, live map[string]any, opts UpdateOptions, status, fast bool) Result {
	r := &request{v: v, mode: opts.mode(), raw: raw, obj: obj, fast: fast, managed: opts.ManagedFields}
	return v.updateRun(&updateRequest{request: r, status: status}, live, opts)
}

// updateScaled is the registry's update of the object a write of /scale
// changed: the handler's field manager ran on the Scale (the object's
// managed fields are already what it recorded), so the object's update
// runs no field manager and no timestamp transformer of its own.
func (v *Version) updateScaled(obj, live map[string]any, opts UpdateOptions) Result {
	r := &request{v: v, mode: opts.mode(), obj: obj, fast: true, managed: opts.ManagedFields}
	return v.updateRun(&updateRequest{request: r, scaled: true}, live, opts)
}

// updateRun runs the update's steps for u.
func (v *Version) updateRun(u *updateRequest, live map[string]any, opts UpdateOptions) Result {
	r := u.request
	r.warnDeprecated()                                       // every request to a deprecated version
	r.validateOptions("UpdateOptions", opts.FieldValidation) // ValidateUpdateOptions
	u.readLive(live)                                         // §2.4: the live object as the registry reads it, at this version
	u.checkStatusSubresource()                               // /status exists only with the status subresource
	r.decode()                                               // §2.3.3: type meta, then the body (duplicates in Warn and Strict)
	r.coerce()                                               // §2.2: root metadata, prune, non-nullable nulls, embedded resources
	r.defaultOwnVersion()                                    // §2.3.5: defaults of the object's own version
	r.fieldValidation()                                      // §2.3.6: unknown and duplicate fields: a 400 or warnings
	r.checkAPIVersion()                                      // §2.3.7
	u.checkNamespace()                                       // §2.4: EnsureObjectNamespaceMatchesRequestNamespace (the URL's)
	u.checkName()                                            // §2.4: checkName against the URL's name
	r.dedupOwnerReferences()                                 // §2.4: duplicate owner references dropped, with a warning
	u.manageFields()                                         // §2.4: the field manager (UpdateNoErrors over live)
	u.checkUID()                                             // §2.4: the storage layer's uid precondition
	u.checkResourceVersion()                                 // §2.4: required, and live's
	u.prepareForUpdate()                                     // §2.4-2.5: generation, strategy.PrepareForUpdate
	u.restoreFromLive()                                      // §2.4: uid, creationTimestamp, deletion timestamp and grace period
	u.validateUpdate()                                       // §2.4, §2.7: validateCommonFields, strategy.ValidateUpdate
	u.keepManagedFieldsTimes()                               // §2.4: IgnoreManagedFieldsTimestampsTransformer
	u.warnFinalizers()                                       // §2.4: warnings for added finalizers (not on /status)
	u.deleteIfFinalized()                                    // §11.2: ShouldDeleteDuringUpdate: no finalizer left on an object being deleted
	r.storeAndRead(opts.Convert)                             // §2.3.13-14: encode at the storage version, read back
	u.dropServerFields()                                     // the result leaves out what only a server fills
	return r.res
}

// updateRequest is the state an update adds to a request.
type updateRequest struct {
	*request
	status  bool           // PUT to /status
	scaled  bool           // the object's update after a write of /scale
	old     map[string]any // live at this version, never modified
	oldMeta *metav1.ObjectMeta
	name    string // the name on the URL
	ns      string // the namespace on the URL ("" for cluster-scoped)
}

// checkStatusSubresource refuses a status update of a version without the
// status subresource: the server serves no such path.
func (u *updateRequest) checkStatusSubresource() {
	if u.failed() || !u.status || u.v.statusSubresource {
		return
	}
	u.fail(apierrors.NewNotFound(u.v.crd.groupResource(), u.name))
}

// readLive takes live as the registry reads it at this version: as it is
// when it is at this version, else converted by the read path.
func (u *updateRequest) readLive(live map[string]any) {
	if u.failed() {
		return
	}
	if live == nil {
		u.fail(apierrors.NewNotFound(u.v.crd.groupResource(), ""))
		return
	}
	old := live
	if av, _ := live["apiVersion"].(string); av != u.v.crd.Group()+"/"+u.v.name {
		cp, err := normalizeValue(live, 0)
		m, _ := cp.(map[string]any)
		if err != nil || m == nil {
			u.fail(apierrors.NewInternalError(fmt.Errorf("live object: %v", err)))
			return
		}
		old = u.v.crd.read(m, u.v.name, true)
	}
	u.old = old
	u.oldMeta, _ = objectmeta.FromUnstructured(old)
	if u.oldMeta == nil {
		u.oldMeta = &metav1.ObjectMeta{}
	}
	u.name = u.oldMeta.Name
	if u.v.crd.Namespaced() {
		u.ns = u.oldMeta.Namespace
		if u.ns == "" {
			u.ns = "default"
		}
	}
}

// checkNamespace refuses an object that names another namespace than the
// URL's; an object without one takes the URL's. Cluster-scoped objects
// have none.
func (u *updateRequest) checkNamespace() {
	if u.failed() {
		return
	}
	md := u.metadata()
	if !u.v.crd.Namespaced() {
		delete(md, "namespace")
		return
	}
	objNS, _ := md["namespace"].(string)
	switch {
	case objNS == "":
		md["namespace"] = u.ns
	case objNS != u.ns:
		u.fail(apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request"))
	}
}

// checkName is the update handler's checkName: the body must name the
// object of the URL.
func (u *updateRequest) checkName() {
	if u.failed() {
		return
	}
	name, _ := u.metadata()["name"].(string)
	switch {
	case name == "":
		u.fail(apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s based on URL) was undeterminable: name must be provided", u.name)))
	case name != u.name:
		u.fail(apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, u.name)))
	}
}

// checkUID is the storage layer's precondition: a uid in the body must be
// live's.
func (u *updateRequest) checkUID() {
	if u.failed() {
		return
	}
	uid, _ := u.metadata()["uid"].(string)
	if uid == "" || uid == string(u.oldMeta.UID) {
		return
	}
	msg := fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", uid, u.oldMeta.UID)
	u.fail(apierrors.NewConflict(u.v.crd.groupResource(), u.name,
		fmt.Errorf("StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: %s", u.storageKey(), msg)))
}

// storageKey is the object's etcd key without the server's prefix
// (kube-apiserver's default prefix is /registry).
func (u *updateRequest) storageKey() string {
	key := "/" + u.v.crd.Group() + "/" + u.v.crd.v1.Spec.Names.Plural
	if u.v.crd.Namespaced() {
		key += "/" + u.ns
	}
	return key + "/" + u.name
}

// checkResourceVersion requires the body's resourceVersion and refuses one
// that is not live's, as the registry's GuaranteedUpdate does (custom
// resources do not allow unconditional updates).
func (u *updateRequest) checkResourceVersion() {
	if u.failed() {
		return
	}
	rv, _ := u.metadata()["resourceVersion"].(string)
	n, err := parseResourceVersion(rv)
	if err != nil {
		// Not an API error: the handler answers a bare 500 with its text.
		u.fail(&apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error()}})
		return
	}
	if n == 0 {
		gk := runtimeschema.GroupKind{Group: u.v.crd.Group(), Kind: u.v.crd.v1.Spec.Names.Plural}
		u.fail(newInvalid(gk, u.name, field.ErrorList{field.Invalid(field.NewPath("metadata", "resourceVersion"), n, "must be specified for an update")}))
		return
	}
	live, err := parseResourceVersion(u.oldMeta.ResourceVersion)
	if err != nil || n != live {
		u.fail(apierrors.NewConflict(u.v.crd.groupResource(), u.name, errors.New("the object has been modified; please apply your changes to the latest version and try again")))
	}
}

// parseResourceVersion reads a resourceVersion as the storage versioner
// does: empty is 0, anything else an unsigned integer.
func parseResourceVersion(rv string) (uint64, error) {
	if rv == "" {
		return 0, nil
	}
	return strconv.ParseUint(rv, 10, 64)
}

// prepareForUpdate keeps live's generation, then runs the strategy's
// PrepareForUpdate: for a PUT, status taken from live when the status
// subresource is on, and the generation bumped when anything outside
// metadata changed; for /status, everything but status (and the managed
// fields) taken from live.
func (u *updateRequest) prepareForUpdate() {
	if u.failed() {
		return
	}
	gen := u.oldMeta.Generation
	if u.status {
		md := u.metadata()
		mf, hasMF := md["managedFields"]
		st, hasStatus := u.obj["status"]
		cp, _ := normalizeValue(u.old, 0)
		u.obj = cp.(map[string]any)
		md = u.metadata()
		delete(md, "managedFields")
		if hasMF {
			md["managedFields"] = mf
		}
		delete(u.obj, "status")
		if hasStatus {
			u.obj["status"] = st
		}
		setGeneration(md, gen)
		return
	}
	setGeneration(u.metadata(), gen)
	if u.v.statusSubresource {
		oldStatus, oldHas := u.old["status"]
		switch _, newHas := u.obj["status"]; {
		case oldHas:
			cp, _ := normalizeValue(oldStatus, 0)
			u.obj["status"] = cp
		case newHas:
			delete(u.obj, "status")
		}
	}
	if !equalOutsideMetadata(u.obj, u.old) {
		setGeneration(u.metadata(), gen+1)
	}
}

func (u *updateRequest) metadataOf(obj map[string]any) map[string]any {
	md, _ := obj["metadata"].(map[string]any)
	return md
}

// setGeneration sets metadata.generation as the accessor does (0 removes it).
func setGeneration(md map[string]any, gen int64) {
	if gen == 0 {
		delete(md, "generation")
		return
	}
	md["generation"] = gen
}

// equalOutsideMetadata is the strategy's comparison of everything but
// metadata (apiequality.Semantic.DeepEqual on shallow copies).
func equalOutsideMetadata(a, b map[string]any) bool {
	n := 0
	for k, av := range a {
		if k == "metadata" {
			continue
		}
		n++
		bv, ok := b[k]
		if !ok || !semanticEqual(av, bv) {
			return false
		}
	}
	for k := range b {
		if k != "metadata" {
			n--
		}
	}
	return n == 0
}

// semanticEqual is apiequality.Semantic.DeepEqual on the value model.
func semanticEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !semanticEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !semanticEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// restoreFromLive restores what an update cannot change: the uid when the
// body has none, the creation timestamp, the deletion timestamp and the
// grace period.
func (u *updateRequest) restoreFromLive() {
	if u.failed() {
		return
	}
	md, om := u.metadata(), u.metadataOf(u.old)
	if uid, _ := md["uid"].(string); uid == "" {
		if ou, ok := om["uid"]; ok {
			md["uid"] = ou
		}
	}
	if ts, ok := om["creationTimestamp"]; ok && ts != nil {
		md["creationTimestamp"] = ts
	}
	if ts, ok := om["deletionTimestamp"]; ok && ts != nil {
		md["deletionTimestamp"] = ts
	}
	if gp, ok := om["deletionGracePeriodSeconds"]; ok && gp != nil && md["deletionGracePeriodSeconds"] == nil {
		md["deletionGracePeriodSeconds"] = gp
	}
}

// validateUpdate is the registry's update validation, refused with the
// server's 422: validateCommonFields, then the strategy's ValidateUpdate.
func (u *updateRequest) validateUpdate() {
	if u.failed() {
		return
	}
	u.meta, u.metaErrs = objectmeta.FromUnstructured(u.obj)
	errs := objectmeta.ValidateCommonUpdate(u.meta, u.oldMeta, u.v.crd.Namespaced())
	var strategyErrs field.ErrorList
	var warnings []string
	if u.status {
		strategyErrs, warnings = u.v.validateStatusUpdate(u.obj, u.old, u.meta, u.oldMeta, u.metaErrs)
	} else {
		strategyErrs, warnings = u.v.validateUpdate(u.obj, u.old, u.meta, u.oldMeta, u.metaErrs)
	}
	// The rules' warnings are sent even when the update is refused.
	u.res.Warnings = append(u.res.Warnings, warnings...)
	u.invalid(append(errs, strategyErrs...))
}

// warnFinalizers adds the warnings about finalizers the update adds.
func (u *updateRequest) warnFinalizers() {
	if u.failed() || u.status {
		return
	}
	u.res.Warnings = append(u.res.Warnings, objectmeta.FinalizerWarningsOnUpdate(u.obj, u.old)...)
}

// dropServerFields removes from the result what Result leaves out: the
// fields only a server fills, which an update takes from live.
func (u *updateRequest) dropServerFields() {
	if u.failed() {
		return
	}
	if md, ok := u.res.Object["metadata"].(map[string]any); ok {
		for _, k := range [...]string{"uid", "resourceVersion", "creationTimestamp"} {
			delete(md, k)
		}
		if u.managed.Omit {
			delete(md, "managedFields")
		}
	}
}

// groupResource is the CRD's group and plural, as the server names the
// resource in NotFound and Conflict errors.
func (c *CRD) groupResource() runtimeschema.GroupResource {
	return runtimeschema.GroupResource{Group: c.Group(), Resource: c.v1.Spec.Names.Plural}
}
