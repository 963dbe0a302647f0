package crfake

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	sigsjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
)

// Client is a controller-runtime client.WithWatch: the kinds of its CRDs
// are served with the server's semantics (crdkit), every other kind by
// controller-runtime's fake client. It is safe for concurrent use; writes
// are serialised, as etcd serialises them.
type Client struct {
	scheme    *runtime.Scheme
	mapper    meta.RESTMapper
	delegate  client.WithWatch
	clock     func() time.Time
	resources map[schema.GroupKind]*resource

	mu      sync.Mutex
	rv      int64
	history []event // the latest events, in order, for watches from a resourceVersion
	// historyDropped: events older than history's first were dropped.
	historyDropped bool
	watchers       map[*watcher]struct{}
}

var _ client.WithWatch = (*Client)(nil)

// nsName is an object's key within its resource: namespace ("" for a
// cluster-scoped CRD) and name.
type nsName struct{ ns, name string }

// entry is an object as etcd holds it: at the storage version, without
// resourceVersion, and the revision that wrote it.
type entry struct {
	obj map[string]any
	rv  int64

	// reads caches the object as a GET at each version answers it (the
	// entry never changes once stored); callers never modify them.
	mu    sync.Mutex
	reads map[*crdkit.Version]*snapshot
	// lastV and last are the latest read, which a list finds here
	// without a lookup in reads.
	lastV *crdkit.Version
	last  *snapshot
}

// resource is one CRD's objects. target compiles its CRD on first use:
// lazy.crd is read only by code given r by target.
type resource struct {
	lazy       *lazyCRD
	gk         schema.GroupKind
	gr         schema.GroupResource
	namespaced bool
	objs       map[nsName]*entry
	// order is objs' keys in storage key order (namespace/name, as
	// strings), the order of a list, so that a list need not sort.
	order []storageKeyed
}

// storageKeyed is a key of objs and its storage key, k.ns+"/"+k.name (the
// server compares objects' namespace and name so for a list's order).
type storageKeyed struct {
	k nsName
	s string
}

func compareStorageKeys(a storageKeyed, s string) int { return strings.Compare(a.s, s) }

// addKey records a new key of objs in order.
func (r *resource) addKey(k nsName) {
	s := k.ns + "/" + k.name
	i, found := slices.BinarySearchFunc(r.order, s, compareStorageKeys)
	if !found {
		r.order = slices.Insert(r.order, i, storageKeyed{k, s})
	}
}

// dropKey forgets a key deleted from objs.
func (r *resource) dropKey(k nsName) {
	if i, ok := slices.BinarySearchFunc(r.order, k.ns+"/"+k.name, compareStorageKeys); ok {
		r.order = slices.Delete(r.order, i, i+1)
	}
}

// keysIn returns, in order, the keys of namespace ns and maybe others
// (every key when ns is "" or the resource is cluster-scoped): the keys
// whose storage key starts with ns+"/", which are contiguous and include
// every key of ns.
func (r *resource) keysIn(ns string) []storageKeyed {
	if ns == "" || !r.namespaced {
		return r.order
	}
	p := ns + "/"
	i, _ := slices.BinarySearchFunc(r.order, p, compareStorageKeys)
	j := i
	for j < len(r.order) && strings.HasPrefix(r.order[j].s, p) {
		j++
	}
	return r.order[i:j]
}

// event is a write as a watch sees it: the object after the write (for a
// deletion, the object as it was, at the deletion's revision) and before.
type event struct {
	typ      watch.EventType
	r        *resource
	obj, old *entry
}

// defaultFieldManager is the manager the server records for a request
// without fieldManager: the client's user agent up to its first "/", which
// client-go makes the program's name.
var defaultFieldManager = func() string {
	name := filepath.Base(os.Args[0])
	if len(name) > 128 {
		name = name[:128]
	}
	return name
}()

func (c *Client) now() time.Time { return c.clock() }

// gvkFor returns the object's kind: an unstructured object's own, else the
// scheme's.
func (c *Client) gvkFor(obj runtime.Object) (schema.GroupVersionKind, error) {
	if u, ok := obj.(runtime.Unstructured); ok {
		gvk := u.GetObjectKind().GroupVersionKind()
		if gvk.Kind == "" {
			return gvk, runtime.NewMissingKindErr(fmt.Sprintf("%v", u.UnstructuredContent()))
		}
		return gvk, nil
	}
	return apiutil.GVKForObject(obj, c.scheme)
}

// isNil reports a nil interface or a nil pointer in one.
func isNil(obj any) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

func (c *Client) isCustom(obj runtime.Object) bool {
	if isNil(obj) {
		return false
	}
	gvk, err := c.gvkFor(obj)
	if err != nil {
		return false
	}
	_, ok := c.resources[gvk.GroupKind()]
	return ok
}

var errNilObject = errors.New("crfake: the object is nil")

// The errors client-go's REST client gives, before sending anything, for a
// request without a namespace to a namespaced resource.
var (
	errEmptyNamespaceCreate = errors.New("an empty namespace may not be set during creation")
	errEmptyNamespaceNamed  = errors.New("an empty namespace may not be set when a resource name is provided")
)

// checkNamespace returns client-go's error for a request without a
// namespace to a namespaced resource: a create, or a GET, PUT or DELETE of
// a named object.
func (r *resource) checkNamespace(ns string, create bool) error {
	if ns != "" || !r.namespaced {
		return nil
	}
	if create {
		return errEmptyNamespaceCreate
	}
	return errEmptyNamespaceNamed
}

// target returns the resource and version serving gvk, nil when no CRD
// defines its kind, or the RESTMapper's error for a version not served.
func (c *Client) target(gvk schema.GroupVersionKind) (*resource, *crdkit.Version, error) {
	r := c.resources[gvk.GroupKind()]
	if r == nil {
		return nil, nil, nil
	}
	if !slices.Contains(served(r.lazy.head), gvk.Version) {
		return nil, nil, &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
	}
	crd, err := r.lazy.compiled()
	if err != nil {
		return nil, nil, err
	}
	v := crd.Version(gvk.Version)
	if v == nil || !v.Served() {
		return nil, nil, &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
	}
	return r, v, nil
}

// objTarget is target for an object.
func (c *Client) objTarget(obj runtime.Object) (*resource, *crdkit.Version, schema.GroupVersionKind, error) {
	if isNil(obj) {
		return nil, nil, schema.GroupVersionKind{}, errNilObject
	}
	gvk, err := c.gvkFor(obj)
	if err != nil {
		return nil, nil, gvk, err
	}
	r, v, err := c.target(gvk)
	return r, v, gvk, err
}

// encode returns obj as the REST client sends it: JSON, with its apiVersion
// and kind.
func (c *Client) encode(obj runtime.Object, gvk schema.GroupVersionKind) ([]byte, error) {
	if _, ok := obj.(runtime.Unstructured); ok {
		return json.Marshal(obj)
	}
	cp := obj.DeepCopyObject()
	cp.GetObjectKind().SetGroupVersionKind(gvk)
	return json.Marshal(cp)
}

// decodeInto sets into to the server's answer m, as the REST client
// decodes it: an unstructured object keeps the kind it was asked for, a
// typed object is reset first and left without apiVersion and kind.
func decodeInto(m map[string]any, into runtime.Object) error {
	return decodeKeepKind(m, into, false)
}

// decodeKeepKind is decodeInto; keep leaves a typed object's apiVersion and
// kind as the answer sets them, as controller-runtime's unstructured client
// does (it serves a request whose main object is unstructured).
func decodeKeepKind(m map[string]any, into runtime.Object, keep bool) error {
	// Unstructured objects take a copy of the answer's values, which is
	// what decoding its JSON would give them.
	switch u := into.(type) {
	case *unstructured.Unstructured:
		if u == nil {
			return errNilObject
		}
		gvk := u.GroupVersionKind()
		u.Object = copyJSON(m)
		if !gvk.Empty() {
			u.SetGroupVersionKind(gvk)
		}
		return nil
	case *unstructured.UnstructuredList:
		if u == nil {
			return errNilObject
		}
		gvk := u.GroupVersionKind()
		u.Object = map[string]any{}
		u.Items = nil
		for k, v := range m {
			if k == "items" {
				items, _ := v.([]any)
				u.Items = make([]unstructured.Unstructured, 0, len(items))
				for _, it := range items {
					im, _ := it.(map[string]any)
					u.Items = append(u.Items, unstructured.Unstructured{Object: copyJSON(im)})
				}
				continue
			}
			u.Object[k] = copyJSONValue(v)
		}
		if !gvk.Empty() {
			u.SetGroupVersionKind(gvk)
		}
		return nil
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if u, ok := into.(runtime.Unstructured); ok {
		gvk := u.GetObjectKind().GroupVersionKind()
		if err := json.Unmarshal(data, into); err != nil {
			return err
		}
		if !gvk.Empty() {
			u.GetObjectKind().SetGroupVersionKind(gvk)
		}
		return nil
	}
	rv := reflect.ValueOf(into)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("crfake: cannot decode into %T", into)
	}
	rv.Elem().Set(reflect.Zero(rv.Elem().Type()))
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, into); err != nil {
		return err
	}
	if !keep {
		into.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	}
	return nil
}

func metadata(obj map[string]any) map[string]any {
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		obj["metadata"] = md
	}
	return md
}

// key returns the store key of the object a request addresses.
func (r *resource) key(ns, name string) nsName {
	if !r.namespaced {
		ns = ""
	}
	return nsName{ns, name}
}

// read returns the stored object as a GET at v answers it.
func read(v *crdkit.Version, e *entry) (map[string]any, error) {
	sn, err := readSnapshot(v, e)
	if err != nil {
		return nil, err
	}
	return sn.obj, nil
}

// readSnapshot is read, with the plan that copies the answer.
func readSnapshot(v *crdkit.Version, e *entry) (*snapshot, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.lastV == v {
		return e.last, nil
	}
	if sn, ok := e.reads[v]; ok {
		e.lastV, e.last = v, sn
		return sn, nil
	}
	got, err := v.Read(e.obj, crdkit.ReadOptions{Revision: e.rv})
	if err != nil {
		return nil, err
	}
	if e.reads == nil {
		e.reads = map[*crdkit.Version]*snapshot{}
	}
	sn := newSnapshot(got)
	e.reads[v] = sn
	e.lastV, e.last = v, sn
	return sn, nil
}

// readLive returns the live object at v, nil when there is none.
func (c *Client) readLive(r *resource, v *crdkit.Version, k nsName) (*entry, map[string]any, error) {
	e := r.objs[k]
	if e == nil {
		return nil, nil, nil
	}
	live, err := read(v, e)
	return e, live, err
}

// put stores obj (the answer of a write at any version) at the storage
// version, after restoring the fields only a server fills from old, and
// sends the watch event. An object equal to old but for managed fields'
// times is not written: the server keeps the revision and sends no event.
func (c *Client) put(r *resource, k nsName, obj map[string]any, old *entry, dryRun bool) (*entry, error) {
	md := metadata(obj)
	delete(md, "resourceVersion")
	if old != nil {
		omd := metadata(old.obj)
		for _, f := range [...]string{"uid", "creationTimestamp", "managedFields"} {
			if _, ok := md[f]; !ok {
				if x, ok := omd[f]; ok {
					md[f] = x
				}
			}
		}
	}
	if dryRun {
		rv := int64(0)
		if old != nil {
			rv = old.rv
		}
		return &entry{obj: obj, rv: rv}, nil
	}
	stored, err := r.lazy.crd.Convert(obj, r.lazy.crd.StorageVersion())
	if err != nil {
		return nil, err
	}
	delete(metadata(stored), "resourceVersion")
	if old != nil && sameIgnoringTimes(stored, old.obj) {
		return old, nil
	}
	c.rv++
	e := &entry{obj: stored, rv: c.rv}
	if _, ok := r.objs[k]; !ok {
		r.addKey(k)
	}
	r.objs[k] = e
	typ := watch.Modified
	if old == nil {
		typ = watch.Added
	}
	c.emit(event{typ: typ, r: r, obj: e, old: old})
	return e, nil
}

// remove deletes the object from storage and sends its DELETED event: the
// object as it was last (last, when the write that deleted it changed it)
// at the deletion's revision.
func (c *Client) remove(r *resource, k nsName, old *entry, last map[string]any) error {
	obj := old.obj
	if last != nil {
		md := metadata(last)
		delete(md, "resourceVersion")
		omd := metadata(old.obj)
		for _, f := range [...]string{"uid", "creationTimestamp", "managedFields"} {
			if _, ok := md[f]; !ok {
				if x, ok := omd[f]; ok {
					md[f] = x
				}
			}
		}
		stored, err := r.lazy.crd.Convert(last, r.lazy.crd.StorageVersion())
		if err != nil {
			return err
		}
		delete(metadata(stored), "resourceVersion")
		obj = stored
	}
	delete(r.objs, k)
	r.dropKey(k)
	c.rv++
	c.emit(event{typ: watch.Deleted, r: r, obj: &entry{obj: obj, rv: c.rv}, old: old})
	return nil
}

// sameIgnoringTimes reports whether a and b are equal but for the times of
// their managed fields entries (the server ignores an update that changes
// nothing else). Equal is reflect.DeepEqual's (jsonEqual), after dropping
// "time" from each object in metadata.managedFields.
func sameIgnoringTimes(a, b map[string]any) bool {
	return sameWith(a, b, "metadata", func(av, bv any) bool {
		return sameMapsWith(av, bv, func(amd, bmd map[string]any) bool {
			return sameWith(amd, bmd, "managedFields", sameEntriesIgnoringTimes)
		})
	})
}

// sameEntriesIgnoringTimes compares two managedFields values, each entry
// that is an object but for its "time".
func sameEntriesIgnoringTimes(av, bv any) bool {
	amf, aok := av.([]any)
	bmf, bok := bv.([]any)
	switch {
	case !aok && !bok:
		return jsonEqual(av, bv)
	case aok != bok || len(amf) != len(bmf):
		return false
	}
	for i := range amf {
		ae, aok := amf[i].(map[string]any)
		be, bok := bmf[i].(map[string]any)
		switch {
		case !aok && !bok:
			if !jsonEqual(amf[i], bmf[i]) {
				return false
			}
		case aok != bok || !sameExcept(ae, be, "time"):
			return false
		}
	}
	return true
}

// sameWith reports whether a and b have the same keys and equal values,
// the values of key compared by same (the others by jsonEqual).
func sameWith(a, b map[string]any, key string, same func(av, bv any) bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k, av := range a {
		bv, ok := b[k]
		if !ok {
			return false
		}
		if k == key {
			if !same(av, bv) {
				return false
			}
		} else if !jsonEqual(av, bv) {
			return false
		}
	}
	return true
}

// sameMapsWith compares av and bv by same when both are non-nil objects,
// by jsonEqual when neither is; an object and a non-object differ.
func sameMapsWith(av, bv any, same func(a, b map[string]any) bool) bool {
	am, _ := av.(map[string]any)
	bm, _ := bv.(map[string]any)
	switch {
	case am == nil && bm == nil:
		return jsonEqual(av, bv)
	case am == nil || bm == nil:
		return false
	}
	return same(am, bm)
}

// sameExcept reports whether a and b are equal but for their values of
// key skip (either may lack it); a nil map is an empty one.
func sameExcept(a, b map[string]any, skip string) bool {
	n, m := len(a), len(b)
	if _, ok := a[skip]; ok {
		n--
	}
	if _, ok := b[skip]; ok {
		m--
	}
	if n != m {
		return false
	}
	for k, av := range a {
		if k == skip {
			continue
		}
		bv, ok := b[k]
		if !ok || !jsonEqual(av, bv) {
			return false
		}
	}
	return true
}

// jsonEqual is reflect.DeepEqual for JSON values, without reflection for
// the types a decoded object holds.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case string, int64, bool, float64, nil, json.Number:
		return a == b
	}
	return reflect.DeepEqual(a, b)
}

// answer reads the stored entry at v (the server's read back after a
// write) and decodes it into obj.
func answer(v *crdkit.Version, e *entry, obj runtime.Object) error {
	sn, err := readSnapshot(v, e)
	if err != nil {
		return err
	}
	return decodeSnapshot(sn, obj)
}

// decodeSnapshot is decodeInto for a snapshot: an unstructured object is
// given the snapshot's copy.
func decodeSnapshot(sn *snapshot, into runtime.Object) error {
	if u, ok := into.(*unstructured.Unstructured); ok && u != nil {
		gvk := u.GroupVersionKind()
		u.Object = sn.copy()
		if !gvk.Empty() {
			u.SetGroupVersionKind(gvk)
		}
		return nil
	}
	return decodeInto(sn.obj, into)
}

func isDryRun(dryRun []string) bool { return slices.Contains(dryRun, metav1.DryRunAll) }

func fieldManager(m string) string {
	if m == "" {
		return defaultFieldManager
	}
	return m
}

func (c *Client) managed(m string) crdkit.ManagedFields {
	return crdkit.ManagedFields{FieldManager: fieldManager(m), Now: c.now()}
}

// newServerFields gives a created object its uid and creationTimestamp.
func (c *Client) newServerFields(obj map[string]any) {
	md := metadata(obj)
	md["uid"] = string(uuid.NewUUID())
	md["creationTimestamp"] = c.now().UTC().Format(time.RFC3339)
}

// seed creates an initial object as the server would, then writes its
// status as a status update would when the version has the status
// subresource.
func (c *Client) seed(o client.Object) error {
	r, v, gvk, err := c.objTarget(o)
	if err != nil {
		return err
	}
	body, err := c.encode(o, gvk)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return err
	}
	md := metadata(m)
	delete(md, "resourceVersion")
	delete(md, "uid")
	delete(md, "creationTimestamp")
	delete(md, "generation")
	delete(md, "managedFields")
	body, _ = json.Marshal(m)
	c.mu.Lock()
	defer c.mu.Unlock()
	e, err := c.createLocked(r, v, body, o.GetNamespace(), crdkit.CreateOptions{ManagedFields: c.managed("")}, false)
	if err != nil {
		return err
	}
	status, ok := m["status"]
	if !ok {
		return nil
	}
	live, err := read(v, e)
	if err != nil {
		return err
	}
	upd := copyJSON(live)
	upd["status"] = status
	res := v.UpdateStatus(upd, live, crdkit.UpdateOptions{ManagedFields: c.managed("")})
	if res.Err != nil {
		if apierrors.IsNotFound(res.Err) {
			return nil // no status subresource: the create kept it
		}
		return res.Err
	}
	_, err = c.put(r, r.key(md2ns(live), o.GetName()), res.Object, e, false)
	return err
}

func md2ns(obj map[string]any) string {
	ns, _ := metadata(obj)["namespace"].(string)
	return ns
}

func (c *Client) createLocked(r *resource, v *crdkit.Version, body []byte, ns string, opts crdkit.CreateOptions, dryRun bool) (*entry, error) {
	opts.Namespace = ns
	res := v.CreateJSON(body, opts)
	if res.Err != nil {
		return nil, res.Err
	}
	md := metadata(res.Object)
	name, _ := md["name"].(string)
	k := r.key(md2ns(res.Object), name)
	if _, ok := r.objs[k]; ok {
		return nil, apierrors.NewAlreadyExists(r.gr, name)
	}
	c.newServerFields(res.Object)
	return c.put(r, k, res.Object, nil, dryRun)
}

// Create implements client.Client.
func (c *Client) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	r, v, gvk, err := c.objTarget(obj)
	if err != nil {
		return err
	}
	if r == nil {
		return c.delegate.Create(ctx, obj, opts...)
	}
	if err := r.checkNamespace(obj.GetNamespace(), true); err != nil {
		return err
	}
	o := (&client.CreateOptions{}).ApplyOptions(opts)
	body, err := c.encode(obj, gvk)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	dry := isDryRun(o.DryRun)
	e, err := c.createLocked(r, v, body, obj.GetNamespace(), crdkit.CreateOptions{
		FieldValidation: crdkit.FieldValidation(o.FieldValidation), ManagedFields: c.managed(o.FieldManager)}, dry)
	if err != nil {
		return err
	}
	if dry {
		return decodeInto(e.obj, obj)
	}
	return answer(v, e, obj)
}

// Get implements client.Client.
func (c *Client) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r, v, _, err := c.objTarget(obj)
	if err != nil {
		return err
	}
	if r == nil {
		return c.delegate.Get(ctx, key, obj, opts...)
	}
	if err := r.checkNamespace(key.Namespace, false); err != nil {
		return err
	}
	c.mu.Lock()
	e := r.objs[r.key(key.Namespace, key.Name)]
	c.mu.Unlock()
	if e == nil || (r.namespaced && key.Namespace == "") {
		return apierrors.NewNotFound(r.gr, key.Name)
	}
	return answer(v, e, obj)
}

// Update implements client.Client.
func (c *Client) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	r, v, gvk, err := c.objTarget(obj)
	if err != nil {
		return err
	}
	if r == nil {
		return c.delegate.Update(ctx, obj, opts...)
	}
	o := (&client.UpdateOptions{}).ApplyOptions(opts)
	return c.update(r, v, gvk, obj, "", o.DryRun, crdkit.UpdateOptions{
		FieldValidation: crdkit.FieldValidation(o.FieldValidation), ManagedFields: c.managed(o.FieldManager)})
}

func (c *Client) update(r *resource, v *crdkit.Version, gvk schema.GroupVersionKind, obj client.Object, sub string, dryRun []string, uo crdkit.UpdateOptions) error {
	if err := r.checkNamespace(obj.GetNamespace(), false); err != nil {
		return err
	}
	body, err := c.encode(obj, gvk)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := r.key(obj.GetNamespace(), obj.GetName())
	e, live, err := c.readLive(r, v, k)
	if err != nil {
		return err
	}
	if e == nil {
		return apierrors.NewNotFound(r.gr, obj.GetName())
	}
	var res crdkit.Result
	if sub == "status" {
		res = v.UpdateStatusJSON(body, live, uo)
	} else {
		res = v.UpdateJSON(body, live, uo)
	}
	return c.finish(r, v, k, e, res, isDryRun(dryRun), obj)
}

// finish stores the answer of a write over the live entry e (or deletes
// the object, when the write removed its last finalizer while it was being
// deleted) and decodes the answer into obj.
func (c *Client) finish(r *resource, v *crdkit.Version, k nsName, e *entry, res crdkit.Result, dry bool, obj runtime.Object) error {
	if res.Err != nil {
		return res.Err
	}
	if res.Deleted || (res.Err == nil && !res.Created && e != nil && terminatedWithoutFinalizers(res.Object)) {
		out := copyJSON(res.Object)
		// The server answers with the updated object at the revision it
		// was read at; the DELETED event carries the object as it was
		// last stored.
		if !dry {
			if err := c.remove(r, k, e, nil); err != nil {
				return err
			}
		}
		md := metadata(out)
		omd := metadata(e.obj)
		for _, f := range [...]string{"uid", "creationTimestamp"} {
			if _, ok := md[f]; !ok {
				md[f] = omd[f]
			}
		}
		md["resourceVersion"] = strconv.FormatInt(e.rv, 10)
		return decodeInto(out, obj)
	}
	if res.Created {
		c.newServerFields(res.Object)
	}
	ne, err := c.put(r, k, res.Object, e, dry)
	if err != nil {
		return err
	}
	if dry {
		out := ne.obj
		if ne.rv != 0 {
			metadata(out)["resourceVersion"] = strconv.FormatInt(ne.rv, 10)
		}
		return decodeInto(out, obj)
	}
	return answer(v, ne, obj)
}

// terminatedWithoutFinalizers reports an object being deleted that an
// update leaves without finalizers: the server deletes it.
func terminatedWithoutFinalizers(obj map[string]any) bool {
	md, _ := obj["metadata"].(map[string]any)
	if md == nil || md["deletionTimestamp"] == nil {
		return false
	}
	f, _ := md["finalizers"].([]any)
	return len(f) == 0
}

// Patch implements client.Client.
func (c *Client) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	r, v, _, err := c.objTarget(obj)
	if err != nil {
		return err
	}
	if r == nil {
		return c.delegate.Patch(ctx, obj, patch, opts...)
	}
	o := (&client.PatchOptions{}).ApplyOptions(opts)
	return c.patch(r, v, obj, patch, "", o)
}

func (c *Client) patch(r *resource, v *crdkit.Version, obj client.Object, patch client.Patch, sub string, o *client.PatchOptions) error {
	if patch == nil {
		return errors.New("crfake: the patch is nil")
	}
	data, err := patch.Data(obj)
	if err != nil {
		return err
	}
	po := crdkit.PatchOptions{
		FieldValidation: crdkit.FieldValidation(o.FieldValidation),
		Force:           o.Force != nil && *o.Force,
		Subresource:     sub,
		Namespace:       obj.GetNamespace(),
		Name:            obj.GetName(),
		ManagedFields:   c.managed(o.FieldManager),
	}
	if patch.Type() == "application/apply-patch+yaml" {
		po.ManagedFields.FieldManager = o.FieldManager
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := r.key(obj.GetNamespace(), obj.GetName())
	e, live, err := c.readLive(r, v, k)
	if err != nil {
		return err
	}
	res := v.Patch(crdkit.PatchType(patch.Type()), data, live, po)
	return c.finish(r, v, k, e, res, isDryRun(o.DryRun), obj)
}

// Apply implements client.Client: a server-side apply of the apply
// configuration (client.ApplyConfigurationFromUnstructured, or a generated
// apply configuration).
func (c *Client) Apply(ctx context.Context, ac runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	return c.apply(ctx, ac, "", opts)
}

func (c *Client) apply(ctx context.Context, ac runtime.ApplyConfiguration, sub string, opts []client.ApplyOption) error {
	if isNil(ac) {
		return errNilObject
	}
	data, err := json.Marshal(ac)
	if err != nil {
		return err
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	gv, err := schema.ParseGroupVersion(head.APIVersion)
	if err != nil {
		return fmt.Errorf("failed to parse %q as GroupVersion: %w", head.APIVersion, err)
	}
	r, v, err := c.target(gv.WithKind(head.Kind))
	if err != nil {
		return err
	}
	if r == nil {
		if sub != "" {
			return c.delegate.Status().Apply(ctx, ac, subApplyOptions(opts)...)
		}
		return c.delegate.Apply(ctx, ac, opts...)
	}
	o := &client.ApplyOptions{}
	o.ApplyOptions(opts)
	po := crdkit.PatchOptions{
		Force:         o.Force != nil && *o.Force,
		Subresource:   sub,
		Namespace:     head.Metadata.Namespace,
		Name:          head.Metadata.Name,
		ManagedFields: crdkit.ManagedFields{FieldManager: o.FieldManager, Now: c.now()},
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := r.key(head.Metadata.Namespace, head.Metadata.Name)
	e, live, err := c.readLive(r, v, k)
	if err != nil {
		return err
	}
	res := v.Apply(data, live, po)
	u := &unstructured.Unstructured{}
	if err := c.finish(r, v, k, e, res, isDryRun(o.DryRun), u); err != nil {
		return err
	}
	out, err := json.Marshal(u)
	if err != nil {
		return err
	}
	if uc, ok := ac.(interface{ SetUnstructuredContent(map[string]any) }); ok {
		uc.SetUnstructuredContent(u.UnstructuredContent())
		return nil
	}
	return json.Unmarshal(out, ac)
}

func subApplyOptions(opts []client.ApplyOption) []client.SubResourceApplyOption {
	o := &client.ApplyOptions{}
	o.ApplyOptions(opts)
	return []client.SubResourceApplyOption{&client.SubResourceApplyOptions{ApplyOptions: *o}}
}

// Delete implements client.Client.
func (c *Client) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	r, v, _, err := c.objTarget(obj)
	if err != nil {
		return err
	}
	if r == nil {
		return c.delegate.Delete(ctx, obj, opts...)
	}
	if err := r.checkNamespace(obj.GetNamespace(), false); err != nil {
		return err
	}
	o := (&client.DeleteOptions{}).ApplyOptions(opts)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deleteLocked(r, v, r.key(obj.GetNamespace(), obj.GetName()), obj.GetName(), o)
}

func (c *Client) deleteLocked(r *resource, v *crdkit.Version, k nsName, name string, o *client.DeleteOptions) error {
	e, live, err := c.readLive(r, v, k)
	if err != nil {
		return err
	}
	if e == nil {
		return apierrors.NewNotFound(r.gr, name)
	}
	res := v.Delete(live, crdkit.DeleteOptions{DeleteOptions: *o.AsDeleteOptions()})
	if res.Err != nil {
		return res.Err
	}
	if isDryRun(o.DryRun) {
		return nil
	}
	if res.Deleted {
		return c.remove(r, k, e, nil)
	}
	_, err = c.put(r, k, res.Object, e, false)
	return err
}

// DeleteAllOf implements client.Client: the server's DELETE of a
// collection, each selected object deleted as by Delete, in key order.
func (c *Client) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	r, v, _, err := c.objTarget(obj)
	if err != nil {
		return err
	}
	if r == nil {
		return c.delegate.DeleteAllOf(ctx, obj, opts...)
	}
	o := (&client.DeleteAllOfOptions{}).ApplyOptions(opts)
	c.mu.Lock()
	defer c.mu.Unlock()
	items, err := c.listLocked(r, v, o.ListOptions.AsListOptions(), o.ListOptions.Namespace)
	if err != nil {
		return err
	}
	for _, it := range items {
		md := metadata(it.obj)
		ns, _ := md["namespace"].(string)
		name, _ := md["name"].(string)
		if err := c.deleteLocked(r, v, r.key(ns, name), name, &o.DeleteOptions); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return err
		}
	}
	return nil
}

// listLocked returns the objects of r a list at v selects, read at v, in
// the list's order.
func (c *Client) listLocked(r *resource, v *crdkit.Version, lo *metav1.ListOptions, ns string) ([]*snapshot, error) {
	return c.listAtLocked(r, v, lo, ns, 0)
}

// listAtLocked is listLocked as of revision at (0: now): each key's entry
// as it was then, which the watch history gives by undoing the writes
// after at. A revision the history no longer reaches back to is etcd's
// compacted revision: the server's 410 for a list page continued there.
func (c *Client) listAtLocked(r *resource, v *crdkit.Version, lo *metav1.ListOptions, ns string, at int64) ([]*snapshot, error) {
	var sel *crdkit.Selector
	if lo.LabelSelector != "" || lo.FieldSelector != "" {
		var err error
		sel, err = v.Selector(crdkit.ListOptions{Namespace: ns, LabelSelector: lo.LabelSelector, FieldSelector: lo.FieldSelector})
		if err != nil {
			return nil, err
		}
	}
	var then map[nsName]*entry // the entries at at of the keys written since (nil: absent)
	if at > 0 && at < c.rv {
		if c.historyDropped && (len(c.history) == 0 || c.history[0].obj.rv > at+1) {
			return nil, errSnapshotGone
		}
		for i := len(c.history) - 1; i >= 0 && c.history[i].obj.rv > at; i-- {
			ev := c.history[i]
			if ev.r != r {
				continue
			}
			md := metadata(ev.obj.obj)
			name, _ := md["name"].(string)
			ons, _ := md["namespace"].(string)
			if then == nil {
				then = map[nsName]*entry{}
			}
			then[r.key(ons, name)] = ev.old
		}
	}
	// The keys are in storage key order, the order crdkit's Select
	// gives (it keeps the matching objects and sorts them): the
	// matching snapshots in key order are its answer. The keys deleted
	// since the snapshot (gone, in order) merge into them.
	keys := r.keysIn(ns)
	var gone []storageKeyed
	if then != nil {
		gone = deletedKeys(r, then, ns)
	}
	out := make([]*snapshot, 0, len(keys)+len(gone))
	add := func(e *entry) error {
		sn, err := readSnapshot(v, e)
		if err != nil {
			return err
		}
		if sel == nil || sel.Matches(sn.obj) {
			out = append(out, sn)
		}
		return nil
	}
	j := 0
	for _, sk := range keys {
		if ns != "" && r.namespaced && sk.k.ns != ns {
			continue
		}
		for ; j < len(gone) && gone[j].s < sk.s; j++ {
			if err := add(then[gone[j].k]); err != nil {
				return nil, err
			}
		}
		e := r.objs[sk.k]
		if then != nil {
			if old, ok := then[sk.k]; ok {
				if old == nil {
					continue // created since
				}
				e = old
			}
		}
		if err := add(e); err != nil {
			return nil, err
		}
	}
	for ; j < len(gone); j++ {
		if err := add(then[gone[j].k]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// deletedKeys returns, in order, then's keys (in namespace ns, when the
// list is of one) that had an object at the snapshot and have none now.
func deletedKeys(r *resource, then map[nsName]*entry, ns string) []storageKeyed {
	var out []storageKeyed
	for k, e := range then {
		if e == nil || (ns != "" && r.namespaced && k.ns != ns) {
			continue
		}
		if _, now := r.objs[k]; !now {
			out = append(out, storageKeyed{k, k.ns + "/" + k.name})
		}
	}
	slices.SortFunc(out, func(a, b storageKeyed) int { return strings.Compare(a.s, b.s) })
	return out
}

// errSnapshotGone: the watch history no longer reaches back to a list's
// revision (etcd has compacted it).
var errSnapshotGone = errors.New("snapshot compacted")

// continueExpired is the server's 410 for a continue token whose revision
// etcd has compacted away: it hands back a token continuing from the same
// key at the latest revision.
func continueExpired(start string) error {
	b, _ := json.Marshal(continueToken{APIVersion: "meta.k8s.io/v1", ResourceVersion: -1, StartKey: start})
	err := apierrors.NewResourceExpired("The provided continue parameter is too old " +
		"to display a consistent list result. You can start a new list without " +
		"the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided " +
		"token results in an inconsistent list - objects that were created, " +
		"modified, or deleted between the time the first chunk was returned " +
		"and now may show up in the list.")
	err.ErrStatus.ListMeta.Continue = base64.RawURLEncoding.EncodeToString(b)
	return err
}

// tooLargeResourceVersion is the watch cache's answer to a list at a
// revision it has not reached (after waiting 3 s for it).
func tooLargeResourceVersion(rv uint64, now int64) error {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", rv, now), 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{
		Type:    metav1.CauseTypeResourceVersionTooLarge,
		Message: "Too large resource version",
	}}
	return err
}

// errListExpired is the server's answer to a list at a resourceVersion
// etcd has compacted away.
var errListExpired = apierrors.NewResourceExpired("The resourceVersion for the provided list is too old.")

// listGVK returns the kind of a list's items.
func (c *Client) listGVK(list client.ObjectList) (schema.GroupVersionKind, error) {
	if isNil(list) {
		return schema.GroupVersionKind{}, errNilObject
	}
	gvk, err := c.gvkFor(list)
	if err != nil {
		return gvk, err
	}
	if !strings.HasSuffix(gvk.Kind, "List") {
		return gvk, fmt.Errorf("non-list type %T (kind %q) passed as output", list, gvk)
	}
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	return gvk, nil
}

// List implements client.Client.
func (c *Client) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	gvk, err := c.listGVK(list)
	if err != nil {
		return err
	}
	r, v, err := c.target(gvk)
	if err != nil {
		return err
	}
	if r == nil {
		return c.delegate.List(ctx, list, opts...)
	}
	o := (&client.ListOptions{}).ApplyOptions(opts)
	lo := o.AsListOptions()
	var start string
	var at int64 // the revision of the list's first page; 0: now
	if lo.Continue != "" {
		if lo.ResourceVersionMatch != "" {
			return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "", field.ErrorList{
				field.Forbidden(field.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden when continue is provided")})
		}
		var err error
		if start, at, err = decodeContinue(lo.Continue); err != nil {
			return err
		}
		if lo.ResourceVersion != "" && lo.ResourceVersion != "0" {
			return apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		if at < 0 {
			at = 0 // the server's token to continue at the latest revision
		}
	}
	// The watch cache answers resourceVersion "0" whole, without pages.
	limit := lo.Limit
	if lo.ResourceVersion == "0" {
		limit = 0
	}
	c.mu.Lock()
	var gone error = errListExpired
	if lo.Continue != "" {
		gone = continueExpired(start)
	}
	if lo.Continue == "" && lo.ResourceVersion != "" && lo.ResourceVersion != "0" {
		// A revision not yet written: the watch cache waits for it, then
		// answers 504. An exact resourceVersion: the list as of that
		// revision.
		u, err := strconv.ParseUint(lo.ResourceVersion, 10, 64)
		if err != nil {
			c.mu.Unlock()
			return apierrors.NewBadRequest("invalid resource version: " +
				field.Invalid(field.NewPath("resourceVersion"), lo.ResourceVersion, err.Error()).Error())
		}
		n := int64(u)
		switch {
		case u > uint64(c.rv):
			c.mu.Unlock()
			return tooLargeResourceVersion(u, c.rv)
		case n > 0 && (lo.ResourceVersionMatch == metav1.ResourceVersionMatchExact ||
			(lo.ResourceVersionMatch == "" && lo.Limit > 0)):
			at, gone = n, errListExpired
		}
	}
	if at > c.rv {
		rv := c.rv
		c.mu.Unlock()
		return tooLargeResourceVersion(uint64(at), rv)
	}
	items, err := c.listAtLocked(r, v, lo, o.Namespace, at)
	rv := c.rv
	if at > 0 && at < rv {
		rv = at
	}
	c.mu.Unlock()
	if err == errSnapshotGone {
		err = gone
	}
	if err != nil {
		return err
	}
	if start != "" {
		// The token's key is relative to the list's key range: a
		// namespace's objects, or all.
		if r.namespaced && o.Namespace != "" {
			start = o.Namespace + "/" + start
		}
		i := 0
		for i < len(items) && storageKey(r, items[i].obj) < start {
			i++
		}
		items = items[i:]
	}
	md := map[string]any{"continue": "", "resourceVersion": strconv.FormatInt(rv, 10)}
	if limit > 0 && int64(len(items)) > limit {
		rest := int64(len(items)) - limit
		items = items[:limit]
		last := storageKey(r, items[len(items)-1].obj)
		if r.namespaced && o.Namespace != "" {
			last = strings.TrimPrefix(last, o.Namespace+"/")
		}
		md["continue"] = encodeContinue(rv, last)
		if lo.LabelSelector == "" && lo.FieldSelector == "" {
			md["remainingItemCount"] = rest
		}
	}
	apiVersion, kind := gvk.GroupVersion().String(), gvk.Kind+"List"
	if u, ok := list.(*unstructured.UnstructuredList); ok && u != nil {
		// decodeInto's answer for the list below, each item copied by
		// its snapshot's plan.
		lgvk := u.GroupVersionKind()
		u.Object = map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": md}
		u.Items = make([]unstructured.Unstructured, len(items))
		for i, it := range items {
			u.Items[i].Object = it.copy()
		}
		if !lgvk.Empty() {
			u.SetGroupVersionKind(lgvk)
		}
		return nil
	}
	its := make([]any, len(items))
	for i, it := range items {
		its[i] = it.obj
	}
	out := map[string]any{
		"apiVersion": apiVersion,
		"kind":       kind,
		"metadata":   md,
		"items":      its,
	}
	return decodeInto(out, list)
}

// storageKey is an object's key under its resource, as list pages
// continue from it: namespace/name, or name.
func storageKey(r *resource, obj map[string]any) string {
	md := metadata(obj)
	name, _ := md["name"].(string)
	if ns, _ := md["namespace"].(string); r.namespaced && ns != "" {
		return ns + "/" + name
	}
	return name
}

// encodeContinue returns a continue token in the server's form: base64
// of the list's revision and the key after which the next page starts.
func encodeContinue(rv int64, key string) string {
	b, _ := json.Marshal(map[string]any{"v": "meta.k8s.io/v1", "rv": rv, "start": key + "\x00"})
	return base64.RawURLEncoding.EncodeToString(b)
}

// continueToken is the decoded form of a continue token (its name and
// fields as the server's, so that its decoding errors read the same).
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

// decodeContinue returns the key a continue token starts at (the server's
// tokens end it in a NUL: the key after the last one listed) and the
// revision of the list's first page (negative: the latest), or the
// server's 400 for a token it refuses, checked in the server's order.
func decodeContinue(tok string) (string, int64, error) {
	bad := func(msg string) error {
		return apierrors.NewBadRequest("invalid continue token: " + msg)
	}
	const invalid = "continue key is not valid"
	data, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return "", 0, bad(invalid + ": " + err.Error())
	}
	var t continueToken
	if err := json.Unmarshal(data, &t); err != nil {
		return "", 0, bad(invalid + ": " + err.Error())
	}
	if t.APIVersion != "meta.k8s.io/v1" {
		return "", 0, bad(invalid + ": server does not recognize this encoded version " + t.APIVersion)
	}
	if t.ResourceVersion == 0 {
		return "", 0, bad(invalid + ": incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	}
	if t.StartKey == "" {
		return "", 0, bad(invalid + ": encoded start key empty (version meta.k8s.io/v1)")
	}
	// The server refuses a key that path cleaning changes (one that
	// would reach out of the list's key range).
	if k := "/" + strings.TrimPrefix(t.StartKey, "/"); path.Clean(k) != k {
		return "", 0, bad(invalid + ": " + t.StartKey)
	}
	return strings.TrimPrefix(t.StartKey, "/"), t.ResourceVersion, nil
}

// Scheme implements client.Client.
func (c *Client) Scheme() *runtime.Scheme { return c.scheme }

// RESTMapper implements client.Client: the CRDs' served versions, then
// the fake client's mapper.
func (c *Client) RESTMapper() meta.RESTMapper { return c.mapper }

// GroupVersionKindFor implements client.Client.
func (c *Client) GroupVersionKindFor(obj runtime.Object) (schema.GroupVersionKind, error) {
	if isNil(obj) {
		return schema.GroupVersionKind{}, errNilObject
	}
	return c.gvkFor(obj)
}

// IsObjectNamespaced implements client.Client.
func (c *Client) IsObjectNamespaced(obj runtime.Object) (bool, error) {
	if isNil(obj) {
		return false, errNilObject
	}
	return apiutil.IsObjectNamespaced(obj, c.scheme, c.mapper)
}
