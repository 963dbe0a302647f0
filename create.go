package crdkit

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/crdkit/crdkit/defaulting"
	"github.com/crdkit/crdkit/fieldmanager"
	"github.com/crdkit/crdkit/objectmeta"
)

// CreateJSON answers what a dry-run create (POST) of the JSON document data
// at this version answers: the object the server returns, its warnings, or
// its Status. It follows the server's order of operations, one step per
// line in create below (research/upstream.md §2.3): decode, coerce (root
// metadata, pruning, non-nullable nulls, embedded resources), defaults of
// the object's version, field validation, the API-version check, system
// fields, the request namespace, status reset and generation, name
// generation, the strategy's validation (type meta, metadata, OpenAPI
// values, scale, embedded resources, list types), the metadata accessor
// check, finalizer warnings, then storage and read back.
//
// data must be JSON, as kubectl sends it (convert YAML first, for example
// with sigs.k8s.io/yaml); the server refuses anything else with a 400.
func (v *Version) CreateJSON(data []byte, opts CreateOptions) Result {
	if data == nil {
		data = []byte{}
	}
	return v.create(data, nil, opts)
}

// Create is CreateJSON for an already decoded object (the value model of
// encoding/json with integers as int64). It does not modify obj. Where the
// server refuses a body while decoding its type meta (apiVersion or kind
// not a string, no kind, an apiVersion that does not parse), its message
// quotes the body: Create answers as for obj encoded with encoding/json.
func (v *Version) Create(obj map[string]any, opts CreateOptions) Result {
	if !typeMetaDecodes(obj) {
		if raw, err := json.Marshal(obj); err == nil {
			return v.CreateJSON(raw, opts)
		}
	}
	cp, err := normalizeValue(obj, 0)
	if err != nil {
		return Result{Err: apierrors.NewBadRequest(err.Error())}
	}
	m, _ := cp.(map[string]any)
	return v.create(nil, m, opts)
}

// create is the server's create handler, registry and strategy for one
// request, in their order; a step does nothing once an earlier one failed.
// raw is the body, or nil for an already decoded obj.
func (v *Version) create(raw []byte, obj map[string]any, opts CreateOptions) Result {
	return v.createWith(raw, obj, opts, true)
}

// createWith is create; fast turns on the shortcuts of request.fast
// (tests compare both paths).
func (v *Version) createWith(raw []byte, obj map[string]any, opts CreateOptions, fast bool) Result {
	r := &request{v: v, mode: opts.mode(), raw: raw, obj: obj, fast: fast, create: true, managed: opts.ManagedFields}
	r.warnDeprecated()                                       // every request to a deprecated version
	r.validateOptions("CreateOptions", opts.FieldValidation) // §2.3.1: ValidateCreateOptions
	r.decode()                                               // §2.3.3: type meta, then the body (duplicates in Warn and Strict)
	r.coerce()                                               // §2.2: root metadata, prune, non-nullable nulls, embedded resources
	r.defaultOwnVersion()                                    // §2.3.5: defaults of the object's own version
	r.fieldValidation()                                      // §2.3.6: unknown and duplicate fields: a 400 or warnings
	r.checkAPIVersion()                                      // §2.3.7
	r.wipeSystemFields()                                     // §2.3.8: rest.WipeObjectMetaSystemFields
	r.checkNamespace(opts.Namespace)                         // §2.3.8: the namespace of the request (none for cluster-scoped)
	r.dedupOwnerReferences()                                 // §2.3.9: duplicate owner references dropped, with a warning
	r.manageFields(nil, fieldmanager.Main)                   // §2.3.9: the field manager (UpdateNoErrors over an empty object)
	r.prepareForCreate()                                     // §2.3.11: strategy.PrepareForCreate: status reset, generation 1
	r.generateName()                                         // §2.3.11: name generation
	r.validateCreate()                                       // §2.3.11, §2.7: strategy.Validate
	r.validateMetaAccessor()                                 // §2.3.11: rest.BeforeCreate's ValidateObjectMetaAccessor
	r.warnFinalizers()                                       // §2.3.11: finalizer-name warnings
	r.storeAndRead(opts.Convert)                             // §2.3.13-14: encode at the storage version, read back
	r.omitManagedFields()                                    // unless the options keep them
	r.res.Created = !r.failed()
	return r.res
}

// wipeSystemFields clears what the server never takes from a request.
func (r *request) wipeSystemFields() {
	if r.failed() {
		return
	}
	md := r.metadata()
	if r.mdKeys.known {
		// Delete only what is there.
		for _, f := range [...]struct {
			key  objectmeta.Keys
			name string
		}{{objectmeta.KeyCreationTimestamp, "creationTimestamp"}, {objectmeta.KeyUID, "uid"}, {objectmeta.KeySelfLink, "selfLink"},
			{objectmeta.KeyDeletionTimestamp, "deletionTimestamp"}, {objectmeta.KeyDeletionGracePeriodSeconds, "deletionGracePeriodSeconds"}} {
			if r.mdKeys.keys&f.key != 0 {
				delete(md, f.name)
			}
		}
		r.mdKeys.keys &^= objectmeta.KeyCreationTimestamp | objectmeta.KeyUID | objectmeta.KeySelfLink |
			objectmeta.KeyDeletionTimestamp | objectmeta.KeyDeletionGracePeriodSeconds
		return
	}
	objectmeta.WipeSystemFields(md)
}

// checkNamespace sets a namespaced object's namespace from the request
// (ns, else the object's own, else "default"), refusing an object that
// names another; a cluster-scoped object's namespace is cleared.
func (r *request) checkNamespace(ns string) {
	if r.failed() {
		return
	}
	md := r.metadata()
	if !r.v.crd.Namespaced() {
		delete(md, "namespace")
		return
	}
	objNS, isString := md["namespace"].(string)
	switch {
	case ns == "":
		ns = objNS
	case objNS != "" && objNS != ns:
		r.fail(apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request"))
		return
	}
	switch {
	case ns == "":
		md["namespace"] = "default" // a constant: no new box
	case !isString || ns != objNS:
		md["namespace"] = ns
	}
}

// dedupOwnerReferences drops owner references that repeat an earlier one,
// as the handler does before the field manager, and says so in a warning.
func (r *request) dedupOwnerReferences() {
	if r.failed() {
		return
	}
	if r.mdKeys.lacks(objectmeta.KeyOwnerReferences) {
		return
	}
	if dups := objectmeta.DedupOwnerReferences(r.metadata()); len(dups) > 0 {
		r.res.Warnings = append(r.res.Warnings, objectmeta.DuplicateOwnerReferencesWarning(dups))
	}
}

// resetManagedFields drops the request's managed fields unless the field
// manager keeps them (it then adds its own entry, which the result leaves
// out with the other fields only a server fills).
func (r *request) resetManagedFields() {
	if r.failed() {
		return
	}
	if r.mdKeys.lacks(objectmeta.KeyManagedFields) {
		return
	}
	md := r.metadata()
	if r.fast && r.mdKeys.known && r.managed.Omit && objectmeta.ValidManagedFields(md["managedFields"]) &&
		(r.v.crd.strategy() == apiextensionsv1.NoneConverter || r.v.crd.StorageVersion() == r.v.name) {
		// Kept or dropped, the entries give validation nothing to find,
		// the result leaves them out and no conversion webhook sees the
		// object: what the field manager would keep does not matter.
		return
	}
	objectmeta.ResetManagedFields(md, r.obj, r.v.crd.hasAPIVersion)
	if _, ok := md["managedFields"]; !ok {
		r.mdKeys.keys &^= objectmeta.KeyManagedFields
	}
}

// prepareForCreate is the strategy's PrepareForCreate: status dropped when
// the status subresource is on, generation 1.
func (r *request) prepareForCreate() {
	if r.failed() {
		return
	}
	if r.v.statusSubresource {
		delete(r.obj, "status")
	}
	r.metadata()["generation"] = int64(1)
}

// generateName fills an empty name from generateName, as the server's name
// generator does: the base cut to 58 characters, then five random
// characters.
func (r *request) generateName() {
	if r.failed() {
		return
	}
	if r.mdKeys.lacks(objectmeta.KeyGenerateName) || r.mdKeys.known && r.mdKeys.keys&objectmeta.KeyName != 0 {
		return // no generateName, or a name (kept metadata's strings are not empty)
	}
	md := r.metadata()
	if name, _ := md["name"].(string); name != "" {
		return
	}
	base, _ := md["generateName"].(string)
	if base == "" {
		return
	}
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	if len(base) > 58 {
		base = base[:58]
	}
	b := []byte(base)
	for i := 0; i < 5; i++ {
		b = append(b, alphabet[rand.IntN(len(alphabet))])
	}
	md["name"] = string(b)
}

// validateCreate is the strategy's validation of the new object (see
// Version.validateCreate), refused with the server's 422.
func (r *request) validateCreate() {
	if r.failed() {
		return
	}
	if md, ok := r.obj["metadata"].(map[string]any); ok && r.fast && r.validNew(md) {
		// Both metadata checks pass (here and in validateMetaAccessor):
		// no ObjectMeta to read.
		r.metaValid = true
		r.invalid(r.v.validateCreate(r.obj, nil, nil))
		return
	}
	r.meta, r.metaErrs = objectmeta.FromUnstructured(r.obj)
	r.invalid(r.v.validateCreate(r.obj, r.meta, r.metaErrs))
}

// validNew is objectmeta.ValidNew of the root metadata md; for metadata
// coerce kept, whose other keys the steps since left alone, it looks only
// at what they set (objectmeta.ValidNewKept).
func (r *request) validNew(md map[string]any) bool {
	if k := r.mdKeys; k.known && k.newChecked {
		return objectmeta.ValidNewKept(md, k.keys, k.rest, r.v.crd.Namespaced())
	}
	return objectmeta.ValidNew(md, r.v.crd.Namespaced())
}

// validateMetaAccessor is the metadata check rest.BeforeCreate makes once
// the strategy's validation passed.
func (r *request) validateMetaAccessor() {
	if r.failed() {
		return
	}
	if r.metaValid {
		return
	}
	r.invalid(objectmeta.ValidateAccessor(r.meta, r.v.crd.Namespaced()))
}

// warnFinalizers adds the server's warnings about finalizer names.
func (r *request) warnFinalizers() {
	if r.failed() {
		return
	}
	if r.mdKeys.lacks(objectmeta.KeyFinalizers) {
		return
	}
	r.res.Warnings = append(r.res.Warnings, objectmeta.FinalizerWarnings(r.obj)...)
}

// storeAndRead sets the response object: the object stored at the storage
// version and read back at this one.
func (r *request) storeAndRead(opts ConvertOptions) {
	if r.failed() || r.res.Deleted {
		return
	}
	c := r.v.crd
	if c.strategy() != apiextensionsv1.NoneConverter && c.StorageVersion() != r.v.name {
		// The webhook sees what the server stores: a uid and a creation
		// time (FillObjectMetaSystemFields), left out of the result again.
		md := r.metadata()
		if uid, _ := md["uid"].(string); uid == "" { // an update has live's
			md["uid"] = string(uuid.NewUUID())
		}
		if md["creationTimestamp"] == nil {
			md["creationTimestamp"] = time.Now().UTC().Format(time.RFC3339)
		}
		obj, err := c.storeAndReadConverted(r.obj, r.v.name, convertOptions([]ConvertOptions{opts}))
		if err != nil {
			// The codec's error, which the handler answers as a 500 of no
			// reason.
			r.fail(&apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure,
				Code: http.StatusInternalServerError, Message: err.Error()}})
			return
		}
		if md, ok := obj["metadata"].(map[string]any); ok {
			delete(md, "uid")
			delete(md, "creationTimestamp")
		}
		r.res.Object = obj
		return
	}
	if r.fast && r.create && r.v.statusDefaults && c.StorageVersion() == r.v.name && c.readIsIdentity {
		// PrepareForCreate dropped status; everything else is as the
		// create's coercion and defaults left it, so the read back's
		// coercions are identities as in storeAndRead, and of its defaults
		// only the status comes back: nothing under an absent status
		// without a default of its own, else that default and the defaults
		// below it, which the coercion after them keeps as they are (the
		// CRD's defaults are pruned and hold no null) when status has no
		// embedded resource.
		switch {
		case !r.v.statusOwnDefault:
			r.res.Object = finishRead(r.obj)
			return
		case !r.v.statusEmbedded:
			// The object is of this version (checkAPIVersion), and only
			// its status changed since its defaults were applied.
			defaulting.ApplyProperty(r.obj, r.v.schema, "status")
			r.res.Object = finishRead(r.obj)
			return
		}
	}
	r.res.Object = c.storeAndRead(r.obj, r.v.name, r.v.statusDefaults)
}

// normalizeValue deep-copies a decoded value into the value model: nil,
// bool, string, int64, float64, []any, map[string]any. Other Go integer and
// float types are converted; anything else is an error.
func normalizeValue(x any, depth int) (any, error) {
	if depth > maxWalkDepth {
		return nil, fmt.Errorf("object nesting exceeds %d levels", maxWalkDepth)
	}
	switch t := x.(type) {
	case nil, bool, string, int64, float64:
		return t, nil
	case int:
		return int64(t), nil
	case int32:
		return int64(t), nil
	case float32:
		return float64(t), nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			switch e.(type) {
			case nil, bool, string, int64, float64: // most values: no call
				out[i] = e
				continue
			}
			c, err := normalizeValue(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			switch e.(type) {
			case nil, bool, string, int64, float64:
				out[k] = e
				continue
			}
			c, err := normalizeValue(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported value of type %T", x)
}
