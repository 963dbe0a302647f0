package crdkit

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/defaulting"
	"github.com/crdkit/crdkit/objectmeta"
	"github.com/crdkit/crdkit/prune"
	"github.com/crdkit/crdkit/schema"
)

// request is one request going through a pipeline: the steps below are
// the ones the write pipelines share, in the server's order. Each step does
// nothing once an earlier one failed.
type request struct {
	v    *Version
	mode FieldValidation
	raw  []byte         // the body; nil when obj came decoded
	obj  map[string]any // the object, from decode on
	gvk  runtimeschema.GroupVersionKind
	// strictErrs are the duplicate and unknown fields, in the server's
	// order (duplicates, metadata, pruned, embedded metadata).
	strictErrs []string
	meta       *metav1.ObjectMeta // root metadata as the validator reads it
	metaErrs   field.ErrorList    // why meta could not be read
	metaValid  bool               // metadata passes both checks of a new object (objectmeta.ValidNew); meta is then nil
	res        Result
	// fast lets decode use prune.JSON (pruned then says that obj is pruned
	// already, with the paths in prePruned, and nulls that it holds a nil)
	// and coerce skip null pruning on an object without null, coerce keeps
	// canonical metadata; on a create, validation checks valid metadata on
	// the map and the read back is left out where it is the identity
	// (tests compare both paths).
	fast, pruned, nulls bool
	prePruned           []string
	// create: the request is a create (PrepareForCreate dropped status
	// under a status subresource).
	create bool
	// mdKeys: the root metadata's keys, when coerce kept it as it was.
	mdKeys metaKeys
	// managed: what to do with metadata.managedFields.
	managed ManagedFields
	// patched is the patched document of a JSON or merge patch (raw is
	// it too): decoding errors and strict errors are then reported on the
	// patch, as the patcher does, after appliedStrict, the patch's own.
	patched       []byte
	appliedStrict []string
	// patchFast: obj is a merge patch's result made on decoded values
	// (patchRequest.patchFast); where the answer would quote the patched
	// document, patchSlow is set and the request fails, to be redone on
	// the server's path.
	patchFast, patchSlow bool
}

func (r *request) failed() bool { return r.res.Err != nil }

func (r *request) fail(err error) { r.res.Err = err }

// invalid refuses the request with the server's 422 when errs is not empty.
func (r *request) invalid(errs field.ErrorList) {
	if len(errs) > 0 {
		r.fail(newInvalid(objectGroupKind(r.obj), stringAt(r.obj, "metadata", "name"), errs))
	}
}

// metadata returns obj["metadata"], made an empty map when it is not one.
func (r *request) metadata() map[string]any {
	md, _ := r.obj["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		r.obj["metadata"] = md
	}
	return md
}

// warnDeprecated adds the version's deprecation warning.
func (r *request) warnDeprecated() {
	if w := r.v.DeprecationWarning(); w != "" {
		r.res.Warnings = append(r.res.Warnings, w)
	}
}

// decode decodes the body as the server's serializer does (strictly in
// Warn and Strict); for an already decoded object it takes the group,
// version and kind the object names.
func (r *request) decode() {
	if r.failed() {
		return
	}
	if r.raw == nil {
		// The decoder's answer for a body whose type meta decodes
		// (typeMetaDecodes): the object's own group, version and kind.
		r.gvk = (&unstructured.Unstructured{Object: r.obj}).GroupVersionKind()
		return
	}
	if r.fast && r.decodePruned() {
		return
	}
	obj, actual, strictErrs, err := r.v.decode(r.raw, r.mode != Ignore)
	if err != nil {
		r.decodeFailed(actual, err)
		return
	}
	r.obj, r.gvk, r.strictErrs = obj, *actual, strictErrs
}

// decodePruned is decode and the pruning step of coerce in one pass
// (prune.JSON), for a body that names exactly this version's group,
// version and kind (the type meta the server's decoder reads first, and
// the schema coerce prunes with, are then this version's). It reports
// false, leaving the request as it was, when prune.JSON gives up or the
// body names anything else: decode then takes the server's path.
//
// Duplicate keys make prune.JSON give up, so the strict decoder would
// report none; the type meta decodes (encoding/json, which matches the
// struct's field names case-insensitively) to the body's own apiVersion
// and kind unless a top-level key other than those two folds to one of
// them, which decodePruned refuses.
func (r *request) decodePruned() bool {
	c := r.v.crd
	if c.preserveUnknownFields() {
		return false
	}
	obj, pruned, nulls, ok := prune.JSONNulls(r.raw, r.v.schema, prune.Options{Root: true}, nil)
	if !ok {
		return false
	}
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	g, name := c.Group(), r.v.name
	if kind != c.Kind() || len(av) != len(g)+1+len(name) || av[:len(g)] != g || av[len(g)] != '/' || av[len(g)+1:] != name {
		return false
	}
	if r.v.rootKeysFold {
		for k := range obj {
			if k != "apiVersion" && k != "kind" && foldsToTypeMeta(k) {
				return false
			}
		}
	}
	for _, p := range pruned {
		if foldsToTypeMeta(p) {
			return false
		}
	}
	r.obj, r.gvk = obj, r.v.defaultGVK()
	r.pruned, r.prePruned, r.nulls = true, pruned, nulls
	return true
}

// rootKeysFold reports whether pruning with s (the root schema of a
// version) may keep a root key other than apiVersion and kind that
// foldsToTypeMeta: a declared property that does, or any key at all under
// additionalProperties or x-kubernetes-preserve-unknown-fields (or without a
// schema). Otherwise decodePruned need not look at the keys it kept.
func rootKeysFold(s *schema.Schema) bool {
	if s == nil || s.PreserveUnknownFields() {
		return true
	}
	if _, _, set := s.AdditionalProperties(); set {
		return true
	}
	for k := range s.Properties() {
		if k != "apiVersion" && k != "kind" && foldsToTypeMeta(k) {
			return true
		}
	}
	return false
}

// foldsToTypeMeta reports whether encoding/json could decode key into the
// apiVersion or kind field of the type meta struct.
func foldsToTypeMeta(key string) bool {
	return strings.EqualFold(key, "apiVersion") || strings.EqualFold(key, "kind")
}

// coerce is the decoder's schema coercion (unstructuredSchemaCoercer.apply)
// with the schema of the object's own version.
func (r *request) coerce() {
	if r.failed() {
		return
	}
	// A decoded value holds a nil only where the body has the literal null
	// (prune.JSON says whether it kept one): without one, dropping
	// non-nullable nulls has nothing to do.
	noNulls := r.fast && r.raw != nil && (r.pruned && !r.nulls || !r.pruned && !bytes.Contains(r.raw, []byte("null")))
	how := coercion{strict: r.mode != Ignore, rootMeta: true, pruned: r.pruned, prePruned: r.prePruned, noNulls: noNulls, keepCanonicalMeta: r.fast, checkNew: r.fast && r.create}
	if r.pruned {
		how.own = r.v // decodePruned checked the type meta
	}
	pruned, unknown, keys, err := r.v.crd.coerceKeys(r.obj, how)
	if err != nil {
		r.decodeFailed(&r.gvk, err)
		return
	}
	r.mdKeys = keys
	r.res.Pruned = pruned
	for _, u := range unknown {
		r.strictErrs = append(r.strictErrs, fmt.Sprintf(`unknown field "%s"`, u))
	}
}

// defaultOwnVersion applies the defaults of the object's own version, as
// the versioning decoder does (even when strict errors are pending).
func (r *request) defaultOwnVersion() {
	if r.failed() {
		return
	}
	if r.pruned {
		defaulting.Apply(r.obj, r.v.schema) // decodePruned checked the type meta
		return
	}
	r.v.crd.defaultOwnVersion(r.obj)
}

// fieldValidation reports duplicate and unknown fields as the handler
// does: a 400 in Strict, Warning headers in Warn, nothing in Ignore.
func (r *request) fieldValidation() {
	if r.failed() || len(r.strictErrs) == 0 && len(r.appliedStrict) == 0 {
		return
	}
	if r.patched != nil || r.patchFast {
		if r.patchFast && r.mode == Strict {
			r.patchSlow = true
			r.fail(errPatchSlow)
			return
		}
		errs := append(r.appliedStrict[:len(r.appliedStrict):len(r.appliedStrict)], r.strictErrs...)
		switch r.mode {
		case Strict:
			r.fail(patchInvalid(r.patched, "strict decoding error: "+strings.Join(errs, ", ")))
		case Warn:
			r.res.Warnings = append(r.res.Warnings, errs...)
		}
		return
	}
	switch r.mode {
	case Strict:
		r.fail(r.v.decodeError(&r.gvk, r.raw, errors.New("strict decoding error: "+strings.Join(r.strictErrs, ", "))))
	case Warn:
		r.res.Warnings = append(r.res.Warnings, r.strictErrs...)
	}
}

// checkAPIVersion refuses an object of another group or version than the
// request's.
func (r *request) checkAPIVersion() {
	if r.failed() {
		return
	}
	if r.gvk.Group != r.v.crd.Group() || r.gvk.Version != r.v.name {
		r.fail(apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s/%s)", r.gvk.GroupVersion().String(), r.v.crd.Group(), r.v.name)))
	}
}

// objectGroupKind is the group and kind an object names, which the server
// uses in its 422 message.
func objectGroupKind(obj map[string]any) runtimeschema.GroupKind {
	u := unstructured.Unstructured{Object: obj}
	return u.GroupVersionKind().GroupKind()
}

func stringAt(obj map[string]any, keys ...string) string {
	s, _, _ := unstructured.NestedString(obj, keys...)
	return s
}

// coercion selects the variant of the decoder's schema coercion.
type coercion struct {
	// strict returns the paths of unknown fields (request decoding in Warn
	// and Strict).
	strict bool
	// dropInvalidMeta drops malformed metadata instead of failing
	// (storage decoding).
	dropInvalidMeta bool
	// rootMeta round-trips root metadata through ObjectMeta; false for
	// metadata an earlier round trip made canonical (it is the identity).
	rootMeta bool
	// repairGeneration sets a zero generation to 1 (storage decoding).
	repairGeneration bool
	// pruned says that the object was pruned with its own version's schema
	// while it was decoded, removing prePruned.
	pruned    bool
	prePruned []string
	// noNulls says that obj holds no nil value (its body has no null), so
	// that null pruning can be left out.
	noNulls bool
	// keepCanonicalMeta leaves canonical root metadata as it is instead of
	// round-tripping it (canonicalMetaKept).
	keepCanonicalMeta bool
	// checkNew also checks kept root metadata as a new object's
	// (objectmeta.CanonicalKeysNew), for validNew.
	checkNew bool
	// own, when set, is the version obj's apiVersion names, of this CRD's
	// group, and obj's kind is the CRD's (decodePruned checked both), so
	// that apiVersion needs no parsing.
	own *Version
}

// coerce runs the server's decode-time step (unstructuredSchemaCoercer.apply)
// on obj, in place: root metadata round trip, pruning and null removal with
// the schema of the object's own version, embedded-resource coercion. It
// returns the pruned paths and, when strict, the unknown-field paths in the
// server's order (metadata, pruned, embedded metadata).
func (c *CRD) coerce(obj map[string]any, how coercion) (pruned, unknown []string, err error) {
	pruned, unknown, _, err = c.coerceKeys(obj, how)
	return pruned, unknown, err
}

// coerceKeys is coerce that also returns the keys of root metadata it kept
// as it was (canonicalMetaKept).
func (c *CRD) coerceKeys(obj map[string]any, how coercion) (pruned, unknown []string, mdKeys metaKeys, err error) {
	kind, kindOK := obj["kind"].(string)
	apiVersion, avOK := obj["apiVersion"].(string)
	var meta *metav1.ObjectMeta
	var foundMeta bool
	// kept: the round trip (Get, then Set below) would give the metadata
	// back unchanged, with a generation, and the steps between leave it
	// alone.
	kept := false
	if how.rootMeta && how.keepCanonicalMeta {
		if mdKeys, kept = c.canonicalMetaKept(obj, how); kept {
			mdKeys.known = c.metaUndefaulted
		}
	}
	if how.rootMeta && !kept {
		var metaUnknown []string
		meta, foundMeta, metaUnknown, err = objectmeta.Get(obj, objectmeta.GetOptions{
			ReturnUnknownFieldPaths: how.strict, DropMalformedFields: how.dropInvalidMeta, Prefix: "metadata"})
		if err != nil {
			return nil, nil, metaKeys{}, err
		}
		unknown = append(unknown, metaUnknown...)
	}
	var gv runtimeschema.GroupVersion
	if how.own != nil {
		gv = runtimeschema.GroupVersion{Group: c.Group(), Version: how.own.name}
	} else if gv, err = runtimeschema.ParseGroupVersion(apiVersion); err != nil {
		return nil, nil, metaKeys{}, err
	}
	if gv.Group == c.Group() && kind == c.Kind() {
		var s *schema.Schema
		if how.own != nil {
			s = how.own.schema
		} else if target := c.Version(gv.Version); target != nil {
			s = target.schema
		}
		if !c.preserveUnknownFields() {
			if how.pruned {
				pruned = how.prePruned
			} else {
				pruned = prune.Object(obj, s, prune.Options{Root: true}, nil)
			}
			if !how.noNulls {
				defaulting.PruneNulls(obj, s)
			}
		}
		ferr, paths := objectmeta.Coerce(nil, obj, s, objectmeta.CoerceOptions{
			ReturnUnknownFieldPaths: how.strict, DropInvalidFields: how.dropInvalidMeta})
		if ferr != nil {
			return nil, nil, metaKeys{}, ferr
		}
		if how.strict {
			unknown = append(unknown, pruned...)
		}
		unknown = append(unknown, paths...)
		if how.repairGeneration && !kept {
			if meta == nil {
				// The server dereferences the missing metadata here.
				return nil, nil, metaKeys{}, errors.New("stored object without metadata")
			}
			if meta.Generation == 0 {
				meta.Generation = 1
			}
		}
	}
	// The server puts back what it read first; a key still holding the same
	// string needs no new box.
	if cur, ok := obj["kind"].(string); kindOK && (!ok || cur != kind) {
		obj["kind"] = kind
	}
	if cur, ok := obj["apiVersion"].(string); avOK && (!ok || cur != apiVersion) {
		obj["apiVersion"] = apiVersion
	}
	if foundMeta {
		if err := objectmeta.Set(obj, meta); err != nil {
			return nil, nil, metaKeys{}, err
		}
	}
	return pruned, unknown, mdKeys, nil
}

func (c *CRD) preserveUnknownFields() bool { return c.v1.Spec.PreserveUnknownFields }

// canonicalMetaKept reports that coerce may leave obj's root metadata as it
// is: it is canonical (objectmeta.Canonical: Get then Set give it back), it
// holds no null for null pruning to remove, pruning leaves root metadata to
// the metadata code, no schema of the CRD has an embedded resource under
// metadata for the embedded coercion to change (c.metaUntouched), and a
// generation to repair is there already.
// It returns the keys the metadata holds (known left for the caller).
func (c *CRD) canonicalMetaKept(obj map[string]any, how coercion) (metaKeys, bool) {
	md, ok := obj["metadata"].(map[string]any)
	if !ok || !c.metaUntouched {
		return metaKeys{}, false
	}
	var k metaKeys
	if how.checkNew {
		k.keys, k.rest, ok = objectmeta.CanonicalKeysNew(md)
		k.newChecked = true
	} else {
		k.keys, ok = objectmeta.CanonicalKeys(md)
	}
	if !ok || how.repairGeneration && k.keys&objectmeta.KeyGeneration == 0 {
		return metaKeys{}, false
	}
	return k, true
}

// metaKeys are the keys of a request's root metadata as coerce kept it.
// known says they stay true until the steps change them: the CRD's schemas
// default nothing under metadata. The steps that read them (lacks) only look
// at keys no step before them adds: the system fields, generateName,
// ownerReferences, managedFields (which only the field manager's steps
// change: they clear the bit or forget the keys) and finalizers, and name
// before name generation.
type metaKeys struct {
	keys  objectmeta.Keys
	known bool
	// newChecked: rest is CanonicalKeysNew's, for objectmeta.ValidNewKept.
	newChecked, rest bool
}

// lacks reports that root metadata certainly has none of keys.
func (m metaKeys) lacks(keys objectmeta.Keys) bool { return m.known && m.keys&keys == 0 }

// defaultOwnVersion applies the defaults of the object's own version, as
// the server's decoder does (nothing for objects of another group or kind,
// or of a version the CRD does not define).
func (c *CRD) defaultOwnVersion(obj map[string]any) {
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	gv, err := runtimeschema.ParseGroupVersion(av)
	if err != nil || gv.Group != c.Group() || kind != c.Kind() {
		return
	}
	if t := c.Version(gv.Version); t != nil && t.schema != nil {
		defaulting.Apply(obj, t.schema)
	}
}

// typeMetaDecodes reports whether the server's decoder gets past obj's
// type meta: apiVersion a string (or null or absent) that parses as a group
// and version, and kind a non-empty string.
func typeMetaDecodes(obj map[string]any) bool {
	av, avOK := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if (!avOK && obj["apiVersion"] != nil) || kind == "" {
		return false
	}
	_, err := runtimeschema.ParseGroupVersion(av)
	return err == nil
}

// defaultGVK is the kind and version a request to this version addresses.
func (v *Version) defaultGVK() runtimeschema.GroupVersionKind {
	return runtimeschema.GroupVersionKind{Group: v.crd.Group(), Version: v.name, Kind: v.crd.Kind()}
}

// decode decodes a request body as the server's JSON serializer does: the
// type meta first (encoding/json, into apiVersion and kind), defaults from
// the request's group, version and kind, then the object itself, strictly
// (duplicate fields reported) or not.
func (v *Version) decode(data []byte, strict bool) (map[string]any, *runtimeschema.GroupVersionKind, []string, error) {
	findKind := struct {
		APIVersion string `json:"apiVersion,omitempty"`
		Kind       string `json:"kind,omitempty"`
	}{}
	if err := json.Unmarshal(data, &findKind); err != nil {
		return nil, nil, nil, fmt.Errorf("couldn't get version/kind; json parse error: %v", err)
	}
	gv, err := runtimeschema.ParseGroupVersion(findKind.APIVersion)
	if err != nil {
		return nil, nil, nil, err
	}
	actual := withDefaults(gv.WithKind(findKind.Kind), v.defaultGVK())
	var obj map[string]any
	var strictErrs []string
	if strict {
		m := map[string]any{}
		serrs, err := kjson.UnmarshalStrict(data, &m)
		if err != nil {
			return nil, &actual, nil, err
		}
		for _, e := range serrs {
			strictErrs = append(strictErrs, e.Error())
		}
		obj = m
	} else {
		u := &unstructured.Unstructured{}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(data, u); err != nil {
			return nil, &actual, nil, err
		}
		obj = u.Object
	}
	u := unstructured.Unstructured{Object: obj}
	actual = u.GroupVersionKind()
	if actual.Kind == "" {
		return nil, &actual, nil, runtime.NewMissingKindErr(string(data))
	}
	return obj, &actual, strictErrs, nil
}

// withDefaults fills what the body leaves out from the request's group,
// version and kind, as the server's serializer does.
func withDefaults(actual, def runtimeschema.GroupVersionKind) runtimeschema.GroupVersionKind {
	if actual.Kind == "" {
		actual.Kind = def.Kind
	}
	if actual.Version == "" && actual.Group == "" {
		actual.Group, actual.Version = def.Group, def.Version
	}
	if actual.Version == "" && actual.Group == def.Group {
		actual.Version = def.Version
	}
	return actual
}

// decodeFailed fails the request with a decoding error as the handler
// reports it: a 400 (decodeError), or for a patched document the
// patcher's 422 on the patch.
func (r *request) decodeFailed(gvk *runtimeschema.GroupVersionKind, err error) {
	if r.patchFast {
		r.patchSlow = true
		r.fail(errPatchSlow)
		return
	}
	if r.patched != nil {
		r.fail(patchInvalid(r.patched, err.Error()))
		return
	}
	r.fail(r.v.decodeError(gvk, r.raw, err))
}

// decodeError wraps a decoding failure as the create handler does.
func (v *Version) decodeError(gvk *runtimeschema.GroupVersionKind, body []byte, err error) error {
	if gvk != nil && gvk.Kind != "" {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, v.crd.Kind(), err))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", v.crd.Kind(), err, summarize(body, 30)))
}

// summarize abbreviates a request body for an error message as the server
// does: JSON objects as text, anything else in hex.
func summarize(data []byte, n int) string {
	switch {
	case len(data) == 0:
		return "<empty>"
	case data[0] == '{':
		if len(data) > n {
			return string(data[:n]) + " ..."
		}
		return string(data)
	}
	if len(data) > n {
		return hex.EncodeToString(data[:n]) + " ..."
	}
	return hex.EncodeToString(data)
}

// maxWalkDepth bounds the facade's own recursive walks. Decoding already
// refuses JSON nested deeper than 10000 levels.
const maxWalkDepth = 10000

// newInvalid is apierrors.NewInvalid, byte for byte, in linear time:
// apimachinery builds the message by repeated string concatenation, which
// takes seconds for the tens of thousands of causes a hostile object can
// produce. The message is written once, and the causes' messages are cut
// from it (each cause's text, "field: message", is in it once).
func newInvalid(gk runtimeschema.GroupKind, name string, errs field.ErrorList) *apierrors.StatusError {
	causes := make([]metav1.StatusCause, len(errs))
	size := len(gk.Kind) + len(gk.Group) + len(name) + 20
	for _, e := range errs {
		size += len(e.Field) + len(e.Detail) + 48
	}
	var small [1024]byte
	b := small[:0]
	if size > len(small) {
		b = make([]byte, 0, size)
	}
	// gk.String(), the quoted name.
	b = append(b, gk.Kind...)
	if gk.Group != "" {
		b = append(b, '.')
		b = append(b, gk.Group...)
	}
	b = append(b, ' ')
	b = strconv.AppendQuote(b, name)
	b = append(b, " is invalid"...)
	if len(errs) == 0 {
		return statusInvalid(gk, name, string(b), causes)
	}
	// The server's message lists e.Error() ("field: body") of each cause
	// once, in order. Each text is written to b; one already there is
	// taken back out, and the cause's body is the end of the text kept.
	// Few causes are compared with the texts before them, many looked up
	// in a set.
	b = append(b, ": ["...)
	open := len(b)
	type span struct{ lo, hi int }
	var bodyBuf [16]span
	bodies := bodyBuf[:0] // where each cause's body is in b
	if len(errs) > len(bodyBuf) {
		bodies = make([]span, 0, len(errs))
	}
	var endsBuf [32]int
	ends := endsBuf[:0] // where each text kept ends in b
	var seen map[string]int
	for i, e := range errs {
		causes[i] = metav1.StatusCause{Type: metav1.CauseType(e.Type), Field: e.Field}
		lo := len(b)
		if len(ends) > 0 {
			b = append(b, ", "...)
		}
		from := len(b)
		b = append(b, e.Field...)
		b = append(b, ": "...)
		body := len(b)
		b = appendErrorBody(b, e)
		text := b[from:]
		end := -1 // where the same text kept before ends
		if seen == nil && len(ends) < len(endsBuf) {
			prev := open
			for _, x := range ends {
				if string(b[prev:x]) == string(text) {
					end = x
					break
				}
				prev = x + len(", ")
			}
		} else {
			if seen == nil {
				seen = make(map[string]int, 2*len(ends))
				prev := open
				for _, x := range ends {
					seen[string(b[prev:x])] = x
					prev = x + len(", ")
				}
			}
			if x, dup := seen[string(text)]; dup {
				end = x
			} else {
				seen[string(text)] = len(b)
			}
		}
		if end >= 0 {
			bodies = append(bodies, span{end - (len(b) - body), end})
			b = b[:lo]
			continue
		}
		bodies = append(bodies, span{body, len(b)})
		ends = append(ends, len(b))
	}
	shift := 0
	if len(ends) == 1 {
		// One text, without the brackets.
		b = append(b[:open-1], b[open:]...)
		shift = 1
	} else {
		b = append(b, ']')
	}
	msg := string(b)
	for i, sp := range bodies {
		causes[i].Message = msg[sp.lo-shift : sp.hi-shift]
	}
	return statusInvalid(gk, name, msg, causes)
}

// invalidStatus is the status error newInvalid returns and its details, in
// one allocation.
type invalidStatus struct {
	err     apierrors.StatusError
	details metav1.StatusDetails
}

func statusInvalid(gk runtimeschema.GroupKind, name, msg string, causes []metav1.StatusCause) *apierrors.StatusError {
	s := &invalidStatus{details: metav1.StatusDetails{Group: gk.Group, Kind: gk.Kind, Name: name, Causes: causes}}
	s.err.ErrStatus = metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnprocessableEntity,
		Reason:  metav1.StatusReasonInvalid,
		Details: &s.details,
		Message: msg,
	}
	return &s.err
}
