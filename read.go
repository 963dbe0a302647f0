package crdkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/prune"
	"github.com/crdkit/crdkit/schema"
)

// ReadOptions change a read.
type ReadOptions struct {
	ConvertOptions
	// Key is the object's storage key, in the server's corrupt-object
	// message: the etcd key without the server's --etcd-prefix (default
	// /<group>/<plural>/[<namespace>/]<name>, what every server names).
	Key string
	// Revision is the object's etcd modification revision, in the same
	// message and as metadata.resourceVersion when not zero.
	Revision int64
}

// Read returns what a GET at this version answers for an object stored in
// etcd (as the stored JSON object, at the storage version or any other
// version the CRD defines), or the server's error: a 404 when the version
// is not served, a 500 "StorageError: corrupt object" when the stored
// object cannot be decoded or converted. It follows the storage codec's
// order, one step per line in read below (research/upstream.md §2.6).
// stored is not modified. Objects whose apiVersion or kind is not a
// string are read as their encoding/json encoding would be (ReadJSON).
func (v *Version) Read(stored map[string]any, opts ...ReadOptions) (map[string]any, error) {
	if !typeMetaDecodes(stored) {
		if raw, err := json.Marshal(stored); err == nil {
			return v.ReadJSON(raw, opts...)
		}
	}
	cp, err := normalizeValue(stored, 0)
	if err != nil {
		return nil, err
	}
	obj, _ := cp.(map[string]any)
	if obj == nil {
		return nil, errors.New("stored object is not a JSON object")
	}
	return v.readWith(nil, obj, readOptions(opts), true)
}

// ReadJSON is Read for the stored bytes (JSON, as etcd holds them).
func (v *Version) ReadJSON(stored []byte, opts ...ReadOptions) (map[string]any, error) {
	return v.readWith(stored, nil, readOptions(opts), true)
}

func readOptions(opts []ReadOptions) ReadOptions {
	var o ReadOptions
	var co []ConvertOptions
	for _, x := range opts {
		co = append(co, x.ConvertOptions)
		if x.Key != "" {
			o.Key = x.Key
		}
		if x.Revision != 0 {
			o.Revision = x.Revision
		}
	}
	o.ConvertOptions = convertOptions(co)
	return o
}

// reading is one object going through the read path; each step does
// nothing once an earlier one failed.
type reading struct {
	v    *Version
	opts ReadOptions
	raw  []byte
	obj  map[string]any
	err  error
	// fast lets decode use prune.JSON (pruned then says that obj is pruned
	// with its own version's schema, noNulls that it holds no nil) and
	// coerceTarget leave out a coercion that provably changes nothing.
	fast, pruned, noNulls bool
	// same: the conversion rewrote only the apiVersion of an object coerced
	// and defaulted with a schema equal to this version's.
	same bool
}

// readWith is the server's GET of a stored object at this version, one
// step per line; fast allows the shortcuts of reading.fast, which give the
// same results (TestReadFastCorpus, FuzzReadFast).
func (v *Version) readWith(raw []byte, obj map[string]any, opts ReadOptions, fast bool) (map[string]any, error) {
	r := &reading{v: v, opts: opts, raw: raw, obj: obj, fast: fast}
	r.served()          // the version's endpoint: 404 when not served
	r.decode()          // the storage serializer: JSON, not strict
	r.coerceStored()    // schemaCoercingDecoder (§2.2): the stored version's schema, malformed metadata dropped, generation repaired
	r.defaultStored()   // unstructuredDefaulter: the stored version's defaults
	r.convert()         // the safe converter: a copy, the versions checked, the CRD's strategy
	r.coerceTarget()    // schemaCoercingConverter: this version's schema
	r.resourceVersion() // the storage versioner: the revision
	return r.obj, r.err
}

func (r *reading) served() {
	if !r.v.served {
		r.err = &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusNotFound,
			Reason: metav1.StatusReasonNotFound, Message: "the server could not find the requested resource"}}
	}
}

// corrupt fails the read as the storage layer does with an object it
// cannot decode.
func (r *reading) corrupt(err error) {
	key := r.opts.Key
	if key == "" {
		key = r.v.crd.defaultKey(r.obj, r.raw)
	}
	se := fmt.Sprintf("StorageError: corrupt object, Code: 7, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=%d: %v", key, r.opts.Revision, err)
	r.err = apierrors.NewInternalError(errors.New(se))
}

func (r *reading) decode() {
	if r.err != nil || r.raw == nil {
		return
	}
	if r.fast && r.decodePruned() {
		return
	}
	obj, err := decodeStored(r.raw)
	if err != nil {
		r.corrupt(err)
		return
	}
	r.obj = obj
}

func (r *reading) coerceStored() {
	if r.err != nil {
		return
	}
	if _, _, err := r.v.crd.coerce(r.obj, coercion{dropInvalidMeta: true, rootMeta: true, repairGeneration: true, pruned: r.pruned, noNulls: r.noNulls}); err != nil {
		r.corrupt(err)
	}
}

// decodePruned is decode and the pruning step of coerceStored in one pass
// (prune.JSON) with the schema of the version the bytes name: the storage
// decoder gives the same map (sigs.k8s.io/json, not strict; prune.JSON
// gives up on duplicate keys and on everything that decoder would refuse
// or repair), and coerce prunes it with that schema when its kind and
// apiVersion name this CRD and that version, which is checked on the
// result. It reports false, leaving the reading as it was, otherwise.
func (r *reading) decodePruned() bool {
	c := r.v.crd
	if c.preserveUnknownFields() {
		return false
	}
	sv := c.Version(storedVersion(r.raw, c.Group()))
	if sv == nil || sv.schema == nil {
		return false
	}
	obj, _, nulls, ok := prune.JSONNulls(r.raw, sv.schema, prune.Options{Root: true, NoPaths: true}, nil)
	if !ok {
		return false
	}
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	g, name := c.Group(), sv.name
	if kind != c.Kind() || len(av) != len(g)+1+len(name) || av[:len(g)] != g || av[len(g)] != '/' || av[len(g)+1:] != name {
		return false
	}
	// prune.JSON says whether the value holds a nil (a null it kept).
	r.obj, r.pruned, r.noNulls = obj, true, !nulls
	return true
}

// storedVersion guesses the version the stored bytes name: the one after
// group in the first "apiVersion" string (the first key the server writes).
// decodePruned checks the guess.
func storedVersion(raw []byte, group string) string {
	key := []byte(`"apiVersion"`)
	i := bytes.Index(raw, key)
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(raw[i+len(key):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return ""
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) < len(group)+2 || rest[0] != '"' || string(rest[1:1+len(group)]) != group || rest[1+len(group)] != '/' {
		return ""
	}
	rest = rest[len(group)+2:]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return ""
	}
	return string(rest[:end])
}

func (r *reading) defaultStored() {
	if r.err == nil {
		r.v.crd.defaultOwnVersion(r.obj)
	}
}

func (r *reading) convert() {
	if r.err != nil {
		return
	}
	from := r.v.crd.ownVersion(r.obj)
	out, err := r.v.crd.convertInPlace(r.obj, false, r.v.name, r.opts.ConvertOptions)
	if err != nil {
		r.corrupt(err)
		return
	}
	r.obj = out
	r.same = r.fast && r.v.crd.strategy() == apiextensionsv1.NoneConverter && from != nil && from.sameCoercion == r.v.sameCoercion
}

func (r *reading) coerceTarget() {
	if r.err != nil || (r.same && r.v.targetCoercionIsIdentity()) {
		return
	}
	// With None the root metadata is as the stored coercion left it,
	// canonical: its round trip is the identity. A webhook's labels and
	// annotations are not (an empty map goes).
	rootMeta := r.v.crd.strategy() != apiextensionsv1.NoneConverter
	if _, _, err := r.v.crd.coerce(r.obj, coercion{rootMeta: rootMeta}); err != nil {
		r.corrupt(err)
	}
}

// ownVersion is the version whose schema coerce and defaultOwnVersion use
// for obj: nil when obj's kind or group is not this CRD's.
func (c *CRD) ownVersion(obj map[string]any) *Version {
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	gv, err := runtimeschema.ParseGroupVersion(av)
	if err != nil || gv.Group != c.Group() || kind != c.Kind() {
		return nil
	}
	return c.Version(gv.Version)
}

// targetCoercionIsIdentity reports whether coercing again, with the same
// schema and without the root metadata round trip, leaves every object
// unchanged that was coerced and then defaulted with it (the read path with
// strategy None between two versions of one schema). Pruning and null
// pruning are idempotent, and the defaults add nothing either removes: the
// CRD is valid, so its defaults are pruned (the server refuses those with
// unknown fields), and none holds a null. Embedded resources are coerced
// again only when a default may have added or changed one, which is
// possible only when the schema has both.
func (v *Version) targetCoercionIsIdentity() bool {
	s := v.schema
	if s == nil || !v.crd.readIsIdentity || v.crd.preserveUnknownFields() {
		return false
	}
	return s.Summary()&schema.HasEmbeddedResource == 0 || s.Summary()&schema.HasDefaults == 0
}

func (r *reading) resourceVersion() {
	if r.err != nil || r.opts.Revision == 0 {
		return
	}
	if md, ok := r.obj["metadata"].(map[string]any); ok {
		md["resourceVersion"] = strconv.FormatInt(r.opts.Revision, 10)
	}
}

// defaultKey is the server's storage key for obj, or for raw when obj
// could not be decoded.
func (c *CRD) defaultKey(obj map[string]any, raw []byte) string {
	var id struct {
		Metadata struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if obj != nil {
		id.Metadata.Name, id.Metadata.Namespace = stringAt(obj, "metadata", "name"), stringAt(obj, "metadata", "namespace")
	} else {
		_ = json.Unmarshal(raw, &id)
	}
	key := "/" + c.Group() + "/" + c.v1.Spec.Names.Plural + "/"
	if id.Metadata.Namespace != "" && c.Namespaced() {
		key += id.Metadata.Namespace + "/"
	}
	return key + id.Metadata.Name
}

// decodeStored decodes stored bytes as the storage codec does
// (unstructured's JSON scheme: a kind is required). sigs.k8s.io/json
// gives the same values in one pass; anything it refuses, or an object
// without a kind, goes through the scheme itself for its error.
func decodeStored(data []byte) (map[string]any, error) {
	var obj map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &obj); err == nil && obj != nil {
		if k, ok := obj["kind"].(string); ok && k != "" {
			return obj, nil
		}
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	return u.Object, nil
}

// read is the server's read path for a stored object, in place, one step
// per line. rootMeta false skips the root metadata round trips, for an
// object whose metadata is already canonical.
func (c *CRD) read(obj map[string]any, version string, rootMeta bool) map[string]any {
	_, _, _ = c.coerce(obj, coercion{dropInvalidMeta: true, rootMeta: rootMeta}) // storage decoder (§2.2)
	repairGeneration(obj)                                                        // generation 0 becomes 1
	c.defaultOwnVersion(obj)                                                     // defaults of the stored version
	obj["apiVersion"] = c.Group() + "/" + version                                // conversion, strategy None
	_, _, _ = c.coerce(obj, coercion{})                                          // coercion with the target schema
	return obj
}

// repairGeneration sets a zero generation to 1, as the storage decoder does.
func repairGeneration(obj map[string]any) {
	if md, ok := obj["metadata"].(map[string]any); ok {
		if g, _ := md["generation"].(int64); g == 0 {
			md["generation"] = int64(1)
		}
	}
}

// storeAndRead returns what the server answers after storing obj: converted
// to the storage version and coerced there, then read back (coerced with
// malformed metadata dropped, defaulted with the storage version's schema),
// converted to the version asked for and coerced with its schema.
func (c *CRD) storeAndRead(obj map[string]any, version string, statusDefaults bool) map[string]any {
	storage := c.StorageVersion()
	if storage == version && c.readIsIdentity && !statusDefaults {
		// The object was pruned, null-pruned, coerced and defaulted with this
		// very schema; the CRD is valid, so its defaults are pruned and hold
		// no null; only metadata changed since (and status, when it had no
		// defaults to come back): the read path's steps are identities here
		// (the server differentials check the returned objects and tables).
		return finishRead(obj)
	}
	if storage != version {
		obj["apiVersion"] = c.Group() + "/" + storage
		_, _, _ = c.coerce(obj, coercion{dropInvalidMeta: true})
	}
	return finishRead(c.read(obj, version, false))
}

// storeAndReadConverted is storeAndRead through the CRD's converter (a
// webhook): the storage codec's encoder converts the object to the storage
// version and coerces it there; its decoder reads it back (malformed
// metadata dropped, generation repaired, the storage version's defaults),
// converts it to version and coerces it with that version's schema. obj is
// modified.
func (c *CRD) storeAndReadConverted(obj map[string]any, version string, opts ConvertOptions) (map[string]any, error) {
	stored, err := c.convertInPlace(obj, false, c.StorageVersion(), opts) // the encoder's converter
	if err != nil {
		return nil, err
	}
	if _, _, err := c.coerce(stored, coercion{rootMeta: true}); err != nil { // its coercion, storage schema
		return nil, err
	}
	if _, _, err := c.coerce(stored, coercion{dropInvalidMeta: true, rootMeta: true, repairGeneration: true}); err != nil { // the decoder
		return nil, err
	}
	c.defaultOwnVersion(stored)                                // the storage version's defaults
	out, err := c.convertInPlace(stored, false, version, opts) // the decoder's converter
	if err != nil {
		return nil, err
	}
	if _, _, err := c.coerce(out, coercion{rootMeta: true}); err != nil { // its coercion, this version's schema
		return nil, err
	}
	return out, nil
}

// finishRead removes the null creationTimestamp the ObjectMeta round trip
// leaves, which the server fills in.
func finishRead(obj map[string]any) map[string]any {
	if md, ok := obj["metadata"].(map[string]any); ok {
		if ts, set := md["creationTimestamp"]; set && ts == nil {
			delete(md, "creationTimestamp")
		}
	}
	return obj
}
