package crdkit

import (
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// DeleteOptions are the options of a DELETE: the request's
// meta.k8s.io/v1 DeleteOptions (the body, or the query parameters a client
// sends instead), and how to convert for a CRD whose strategy is Webhook.
type DeleteOptions struct {
	metav1.DeleteOptions
	// Convert is used when the CRD's strategy is Webhook and the request's
	// version is not the storage version: an object the DELETE keeps (it
	// has finalizers) is stored at the storage version and read back
	// through the webhook.
	Convert ConvertOptions
}

// Delete answers what a DELETE of live at this version answers, when live
// is the object the server holds, as a GET returns it (at this version or
// any other the CRD serves; see Version.Update). It follows the server's
// delete handler and registry (research/upstream.md §11.1), one step per
// line in delete below:
//
//   - the options are checked as the handler checks them: a 422 for a
//     propagationPolicy that is not Foreground, Background or Orphan, for
//     both orphanDependents and propagationPolicy, for a dryRun other than
//     All, for ignoreStoreReadErrorWithClusterBreakingPotential with other
//     options; the unsafe delete of an unreadable object refuses an object
//     the server can read;
//   - the preconditions: a uid or a resourceVersion that is not live's is
//     the server's 409;
//   - the garbage collector's finalizers: propagationPolicy Orphan (or
//     orphanDependents true) adds "orphan", Foreground adds
//     "foregroundDeletion", Background (or orphanDependents false) removes
//     both; without either option the object's own say what stays;
//   - an object left with finalizers is not deleted: it gets
//     metadata.deletionTimestamp (now, unless it has an earlier one) and
//     metadata.deletionGracePeriodSeconds 0 (custom resources have no
//     graceful deletion: gracePeriodSeconds is checked, never used), its
//     generation goes up by one on the first DELETE, and the server
//     answers with the object as stored (Object; Code 202 when the request
//     set orphanDependents false, else 200);
//   - an object left without finalizers is deleted (Deleted): the server
//     answers 200 with a Status of success naming the object (Object holds
//     it as the server encodes it: kind Status, apiVersion v1, status
//     Success, details name, group, kind (the plural) and uid).
//
// A dry run (DryRun All) answers as the request would, except where the
// server answers otherwise: a dry-run DELETE whose options remove the
// object's last finalizer (Background on an object whose only finalizers
// are the garbage collector's) answers with an empty object of the kind
// (apiVersion and kind only), where the real request deletes it.
//
// live is read, never modified; nil answers the server's 404. The result's
// object leaves out what only a server fills (uid, resourceVersion,
// creationTimestamp, managedFields), as Update's does. Validating
// admission is not modelled.
func (v *Version) Delete(live map[string]any, opts DeleteOptions) Result {
	return v.delete(live, opts)
}

// delete is the server's delete handler and registry for one request, in
// their order; a step does nothing once an earlier one failed or the object
// is gone.
func (v *Version) delete(live map[string]any, opts DeleteOptions) Result {
	r := &request{v: v, mode: Ignore, fast: true}
	u := &updateRequest{request: r}
	d := &deleteRequest{updateRequest: u, opts: &opts.DeleteOptions}
	r.warnDeprecated()           // every request to a deprecated version
	d.validateOptions()          // handlers.DeleteResource: ValidateDeleteOptions
	d.readLive(live)             // Store.Delete: the object as the registry reads it, at this version
	d.unsafeDelete()             // ignoreStoreReadErrorWithClusterBreakingPotential: the corrupt-object deleter
	d.checkPreconditions()       // rest.BeforeDelete: uid and resourceVersion preconditions
	d.gcFinalizers()             // deletionFinalizersForGarbageCollection: orphan, foregroundDeletion
	d.markDeleting()             // markAsDeleting: finalizers pending, deletion timestamp and grace period 0
	d.deleteNow()                // no finalizer pending: deleted, the server's Status of success
	d.storeAndRead(opts.Convert) // finalizers pending: the object updated, stored and read back
	u.dropServerFields()         // the result leaves out what only a server fills
	d.setCode()                  // 202 for orphanDependents false on an object kept, else 200
	return r.res
}

// deleteRequest is the state a DELETE adds to an update's.
type deleteRequest struct {
	*updateRequest
	opts *metav1.DeleteOptions
	// keep: finalizers are pending, the object is updated, not deleted.
	keep bool
	// changed: the garbage collector's finalizers changed (the object is
	// updated even when none is left).
	changed bool
}

// readLive is updateRequest.readLive, reading only the metadata a DELETE
// looks at when live is at this version with well-formed values of it
// (as the registry's accessor reads them).
func (d *deleteRequest) readLive(live map[string]any) {
	if d.failed() || live == nil {
		d.updateRequest.readLive(live)
		return
	}
	if av, _ := live["apiVersion"].(string); av != d.v.crd.Group()+"/"+d.v.name {
		d.updateRequest.readLive(live)
		return
	}
	md, _ := live["metadata"].(map[string]any)
	meta, ok := deleteMetaFromMap(md)
	if !ok {
		d.updateRequest.readLive(live)
		return
	}
	d.old, d.oldMeta, d.name = live, meta, meta.Name
	if d.v.crd.Namespaced() {
		d.ns = meta.Namespace
		if d.ns == "" {
			d.ns = "default"
		}
	}
}

// deleteMetaFromMap reads the fields of root metadata a DELETE uses (name,
// namespace, uid, resourceVersion, generation, finalizers, the deletion
// fields) when each is absent or well-formed; ok false sends the caller to
// the full conversion.
func deleteMetaFromMap(md map[string]any) (*metav1.ObjectMeta, bool) {
	meta := new(metav1.ObjectMeta)
	for k, v := range md {
		switch k {
		case "name", "namespace", "uid", "resourceVersion":
			s, ok := v.(string)
			if !ok || !utf8.ValidString(s) {
				return nil, false
			}
			switch k {
			case "name":
				meta.Name = s
			case "namespace":
				meta.Namespace = s
			case "uid":
				meta.UID = types.UID(s)
			default:
				meta.ResourceVersion = s
			}
		case "generation":
			g, ok := v.(int64)
			if !ok {
				return nil, false
			}
			meta.Generation = g
		case "finalizers":
			l, ok := v.([]any)
			if !ok {
				return nil, false
			}
			meta.Finalizers = make([]string, len(l))
			for i, x := range l {
				s, ok := x.(string)
				if !ok || !utf8.ValidString(s) {
					return nil, false
				}
				meta.Finalizers[i] = s
			}
		case "deletionTimestamp":
			s, ok := v.(string)
			if !ok {
				return nil, false
			}
			t, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return nil, false
			}
			meta.DeletionTimestamp = &metav1.Time{Time: t.Local()}
		case "deletionGracePeriodSeconds":
			g, ok := v.(int64)
			if !ok {
				return nil, false
			}
			meta.DeletionGracePeriodSeconds = &g
		}
	}
	return meta, true
}

// storeAndRead is request.storeAndRead for the object a DELETE keeps: at
// the storage version, live (a read's output) with only its metadata
// changed reads back as it is, where the CRD's read path is the identity
// on its own output.
func (d *deleteRequest) storeAndRead(opts ConvertOptions) {
	if d.failed() || d.res.Deleted {
		return
	}
	if c := d.v.crd; c.StorageVersion() == d.v.name && c.readIsIdentity && d.old != nil {
		if av, _ := d.old["apiVersion"].(string); av == c.Group()+"/"+d.v.name {
			d.res.Object = finishRead(d.obj)
			return
		}
	}
	d.request.storeAndRead(opts)
}

// validateOptions is the delete handler's ValidateDeleteOptions, refused
// with the server's 422 on meta.k8s.io DeleteOptions.
func (d *deleteRequest) validateOptions() {
	if d.failed() {
		return
	}
	if errs := metav1validation.ValidateDeleteOptions(d.opts); len(errs) > 0 {
		d.fail(newInvalid(runtimeschema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}, "", errs))
	}
}

// unsafeDelete is the handler's unsafe path: with
// ignoreStoreReadErrorWithClusterBreakingPotential, the corrupt-object
// deleter deletes only an object the storage cannot read; live was read.
func (d *deleteRequest) unsafeDelete() {
	if d.failed() || d.opts.IgnoreStoreReadErrorWithClusterBreakingPotential == nil || !*d.opts.IgnoreStoreReadErrorWithClusterBreakingPotential {
		return
	}
	d.fail(apierrors.NewConflict(d.v.crd.groupResource(), d.name, fmt.Errorf("StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: unsafe deletion is not allowed because the object is decodable from storage", EtcdPrefix+d.storageKey())))
}

// EtcdPrefix is the etcd key prefix of kube-apiserver's default
// (--etcd-prefix), which the server's storage errors on DELETE include in
// the object's key.
const EtcdPrefix = "/registry"

// checkPreconditions is rest.BeforeDelete's early check of the
// preconditions against the object read, refused with the server's 409.
// It names the resource by the object's kind, as BeforeDelete does.
func (d *deleteRequest) checkPreconditions() {
	if d.failed() || d.opts.Preconditions == nil {
		return
	}
	p := d.opts.Preconditions
	gr := runtimeschema.GroupResource{Group: d.v.crd.Group(), Resource: d.v.crd.Kind()}
	if p.UID != nil && *p.UID != d.oldMeta.UID {
		d.fail(apierrors.NewConflict(gr, d.name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, d.oldMeta.UID)))
		return
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != d.oldMeta.ResourceVersion {
		d.fail(apierrors.NewConflict(gr, d.name, fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, d.oldMeta.ResourceVersion)))
	}
}

// The garbage collector's finalizers.
const (
	finalizerOrphan     = metav1.FinalizerOrphanDependents
	finalizerForeground = metav1.FinalizerDeleteDependents
)

// gcFinalizers sets the finalizers the garbage collector is to act on, as
// the registry's deletionFinalizersForGarbageCollection does: the options
// decide whether dependents are orphaned or deleted in the foreground, else
// the object's own finalizers do (the first of the two it holds); the new
// list is the object's without both, then "orphan" and
// "foregroundDeletion" as decided. The object keeps its own list when the
// two hold the same names.
func (d *deleteRequest) gcFinalizers() {
	if d.failed() {
		return
	}
	orphan, foreground := gcPolicy(d.opts, d.oldMeta.Finalizers)
	next, changed := GCFinalizers(d.oldMeta.Finalizers, orphan, foreground)
	d.changed = changed
	d.keep = len(next) > 0
	if !changed && !d.keep {
		return
	}
	obj, err := copyWithMetadataRoom(d.old)
	if err != nil {
		d.fail(apierrors.NewInternalError(err))
		return
	}
	d.obj = obj
	if changed {
		setFinalizers(d.metadata(), next)
	}
}

// copyWithMetadataRoom deep-copies obj (as normalizeValue), with room in
// the copy's metadata for the fields markDeleting adds (a map that grows
// past its first group costs more than the rest of the copy).
func copyWithMetadataRoom(obj map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		if md, ok := v.(map[string]any); ok && k == "metadata" {
			m := make(map[string]any, len(md)+3)
			for mk, mv := range md {
				c, err := normalizeValue(mv, 1)
				if err != nil {
					return nil, err
				}
				m[mk] = c
			}
			out[k] = m
			continue
		}
		c, err := normalizeValue(v, 0)
		if err != nil {
			return nil, err
		}
		out[k] = c
	}
	return out, nil
}

// gcPolicy is the registry's shouldOrphanDependents and
// shouldDeleteDependentsInForeground for a custom resource (whose strategy
// names no default policy).
func gcPolicy(opts *metav1.DeleteOptions, finalizers []string) (orphan, foreground bool) {
	//nolint:staticcheck // the deprecated option still decides
	if o := opts.OrphanDependents; o != nil {
		return *o, false
	}
	if p := opts.PropagationPolicy; p != nil {
		switch *p {
		case metav1.DeletePropagationOrphan:
			return true, false
		case metav1.DeletePropagationForeground:
			return false, true
		case metav1.DeletePropagationBackground:
			return false, false
		}
	}
	for _, f := range finalizers {
		switch f {
		case finalizerOrphan:
			return true, false
		case finalizerForeground:
			return false, true
		}
	}
	return false, false
}

// GCFinalizers returns the finalizers an object holds after a DELETE that
// orphans its dependents or deletes them in the foreground (as decided by
// the request's options, else the finalizers themselves): finalizers
// without "orphan" and "foregroundDeletion", then those of the two asked
// for. When the result holds the same names as finalizers, finalizers
// itself is returned and changed is false.
func GCFinalizers(finalizers []string, orphan, foreground bool) (out []string, changed bool) {
	n := 0
	hasOrphan, hasForeground := false, false
	for _, f := range finalizers {
		switch f {
		case finalizerOrphan:
			hasOrphan = true
		case finalizerForeground:
			hasForeground = true
		default:
			n++
		}
	}
	if hasOrphan == orphan && hasForeground == foreground {
		return finalizers, false
	}
	out = make([]string, 0, n+2)
	for _, f := range finalizers {
		if f != finalizerOrphan && f != finalizerForeground {
			out = append(out, f)
		}
	}
	if orphan {
		out = append(out, finalizerOrphan)
	}
	if foreground {
		out = append(out, finalizerForeground)
	}
	return out, true
}

// setFinalizers sets metadata.finalizers, removing it when empty as the
// accessor does.
func setFinalizers(md map[string]any, fs []string) {
	if len(fs) == 0 {
		delete(md, "finalizers")
		return
	}
	l := make([]any, len(fs))
	for i, f := range fs {
		l[i] = f
	}
	md["finalizers"] = l
}

// markDeleting is the registry's markAsDeleting for an object with
// finalizers pending: the generation bumped on the first DELETE, the
// deletion timestamp now unless an earlier one is set, the grace period 0.
func (d *deleteRequest) markDeleting() {
	if d.failed() || !d.keep {
		return
	}
	md := d.metadata()
	now := time.Now().UTC().Truncate(time.Second)
	ts := d.oldMeta.DeletionTimestamp
	if ts == nil && d.oldMeta.Generation > 0 {
		md["generation"] = d.oldMeta.Generation + 1
	}
	if ts == nil || ts.Time.After(now) {
		md["deletionTimestamp"] = now.Format(time.RFC3339)
	}
	md["deletionGracePeriodSeconds"] = int64(0)
}

// deleteNow deletes an object left without finalizers and answers the
// server's Status of success.
func (d *deleteRequest) deleteNow() {
	if d.failed() || d.keep {
		return
	}
	d.res.Deleted = true
	if d.changed && dryRun(d.opts.DryRun) {
		// The registry's dry run answers with the object its aborted
		// update left unread: empty, of the store's kind.
		d.res.Object = map[string]any{"apiVersion": d.v.crd.Group() + "/" + d.v.name, "kind": d.v.crd.Kind()}
		return
	}
	if d.changed && d.opts.Preconditions != nil && d.opts.Preconditions.ResourceVersion != nil {
		// The registry takes the resourceVersion precondition from the
		// object its aborted update left unread: empty, never live's.
		d.res.Deleted = false
		d.fail(apierrors.NewConflict(d.v.crd.groupResource(), d.name,
			fmt.Errorf("StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: , ResourceVersion in object meta: %s", EtcdPrefix+d.storageKey(), d.oldMeta.ResourceVersion)))
		return
	}
	details := map[string]any{"name": d.name, "group": d.v.crd.Group(), "kind": d.v.crd.v1.Spec.Names.Plural}
	if d.oldMeta.UID != "" {
		details["uid"] = string(d.oldMeta.UID)
	}
	d.res.Object = map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": metav1.StatusSuccess, "details": details}
}

// setCode sets the HTTP status code of a successful DELETE.
func (d *deleteRequest) setCode() {
	if d.failed() {
		return
	}
	d.res.Code = http.StatusOK
	//nolint:staticcheck // the deprecated option still decides
	if o := d.opts.OrphanDependents; !d.res.Deleted && o != nil && !*o {
		d.res.Code = http.StatusAccepted
	}
}

// dryRun reports whether the request's dryRun asks for a dry run.
func dryRun(v []string) bool { return len(v) > 0 }

// deleteIfFinalized is the registry's ShouldDeleteDuringUpdate: an update
// that leaves no finalizer on an object being deleted (a deletion
// timestamp, a grace period of 0 or none) deletes it, and the server
// answers with the object as the update left it, neither stored nor read
// back.
func (u *updateRequest) deleteIfFinalized() {
	if u.failed() || u.meta == nil || len(u.meta.Finalizers) > 0 || u.oldMeta.DeletionTimestamp == nil {
		return
	}
	if g := u.oldMeta.DeletionGracePeriodSeconds; g != nil && *g != 0 {
		return
	}
	u.res.Deleted = true
	u.res.Object = finishRead(u.obj)
}
