package fieldmanager

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Options describe the custom resource a Manager serves.
type Options struct {
	// Group and Kind of the custom resource.
	Group, Kind string
	// Versions are the CRD's versions, in any order.
	Versions []Version
	// Models are the OpenAPI definitions the server converts into its
	// type converter (openapi.Models). Nil makes the converter deduce
	// types from the objects, as the server does when it has no models.
	Models map[string]*spec.Schema
	// PreserveUnknownFields is the CRD's spec.preserveUnknownFields.
	PreserveUnknownFields bool
	// Convert converts an object to another version of the CRD (the
	// server's safe converter: None or the webhook, no pruning). It must
	// not modify obj. Nil: None (only apiVersion changes).
	Convert func(obj map[string]any, version string) (map[string]any, error)
	// Default applies, in place, the defaults of the object's own version
	// (the server's unstructuredDefaulter). Nil: no defaults.
	Default func(obj map[string]any)
}

// Version is one version of the CRD and its subresources.
type Version struct {
	Name string
	// Status is true when the version has the status subresource.
	Status bool
	// Scale is true when the version has the scale subresource.
	Scale bool
}

// Subresource names the endpoint a write goes to.
type Subresource string

// The endpoints with a field manager.
const (
	Main   Subresource = ""
	Status Subresource = "status"
	// Scale is the scale subresource: its field manager records the
	// writes of an autoscaling/v1 Scale (the objects given to Update are
	// Scales, with the entries managedfields.ScaleHandler.ToSubresource
	// gives).
	Scale Subresource = "scale"
)

// Manager is the server's field manager for one custom resource: one
// managedfields.FieldManager per version and endpoint, built as the
// custom-resource handler builds them. It is safe for concurrent use.
type Manager struct {
	group    string
	kind     string
	managers map[key]*managedfields.FieldManager
}

type key struct {
	version string
	sub     Subresource
}

// scaleModel is the autoscaling/v1 Scale's definition name.
const scaleModel = "io.k8s.api.autoscaling.v1.Scale"

// scaleGVK is the kind of the objects of the scale subresource.
var scaleGVK = runtimeschema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}

// errScaleToHub is the converter's refusal of a Scale's conversion to the
// custom resource's hub version (a step of a write of /scale that changes
// the Scale).
var errScaleToHub = fmt.Errorf("fieldmanager: no target for %v", scaleGVK)

// ErrNoManager reports a version or subresource the Manager does not serve.
var ErrNoManager = errors.New("fieldmanager: no field manager for this version and subresource")

// New builds the field managers of a custom resource: for each version,
// one for the resource (whose reset fields are the version's status when
// it has the status subresource) and, for a version with the status
// subresource, one for /status (whose reset fields are metadata and spec
// at every version with a status subresource).
func New(o Options) (*Manager, error) {
	var tc managedfields.TypeConverter = managedfields.NewDeducedTypeConverter()
	if len(o.Models) > 0 {
		var err error
		if tc, err = managedfields.NewTypeConverter(o.Models, o.PreserveUnknownFields); err != nil {
			return nil, err
		}
	}
	conv := &converter{group: o.Group, convert: o.Convert}
	def := defaulter{group: o.Group, kind: o.Kind, fn: o.Default}
	statusReset := map[fieldpath.APIVersion]*fieldpath.Set{}
	for _, v := range o.Versions {
		if v.Status {
			gv := runtimeschema.GroupVersion{Group: o.Group, Version: v.Name}
			statusReset[fieldpath.APIVersion(gv.String())] = fieldpath.NewSet(
				fieldpath.MakePathOrDie("metadata"), fieldpath.MakePathOrDie("spec"))
		}
	}
	m := &Manager{group: o.Group, kind: o.Kind, managers: map[key]*managedfields.FieldManager{}}
	for _, v := range o.Versions {
		gvk := runtimeschema.GroupVersionKind{Group: o.Group, Version: v.Name, Kind: o.Kind}
		reset := map[fieldpath.APIVersion]*fieldpath.Set{}
		if v.Status {
			reset[fieldpath.APIVersion(gvk.GroupVersion().String())] = fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
		}
		f, err := managedfields.NewDefaultCRDFieldManager(tc, conv, def, creater{}, gvk, gvk.GroupVersion(), "", fieldpath.NewExcludeFilterSetMap(reset))
		if err != nil {
			return nil, err
		}
		m.managers[key{v.Name, Main}] = f
		if v.Status {
			f, err := managedfields.NewDefaultCRDFieldManager(tc, conv, def, creater{}, gvk, gvk.GroupVersion(), "status", fieldpath.NewExcludeFilterSetMap(statusReset))
			if err != nil {
				return nil, err
			}
			m.managers[key{v.Name, Status}] = f
		}
		if v.Scale {
			// The server's scale scope: the Scale's kind, no reset
			// fields, conversion and defaulting that leave a Scale as
			// it is, the resource's type converter (whose models hold
			// the Scale's schema: openapi.Models). Without the Scale's
			// model, the deduced converter yields the field sets the
			// Scale's schema does for Scales decoded from their type
			// (maps only, no list, no unknown field), not an apply's
			// type errors.
			stc := managedfields.NewDeducedTypeConverter()
			if _, ok := o.Models[scaleModel]; ok {
				stc = tc
			}
			f, err := managedfields.NewDefaultCRDFieldManager(stc, conv, def, creater{}, scaleGVK, gvk.GroupVersion(), "scale", nil)
			if err != nil {
				return nil, err
			}
			m.managers[key{v.Name, Scale}] = f
		}
	}
	return m, nil
}

// Update records in obj's metadata.managedFields what manager changed
// from live to obj in a write that is not an apply (a create, an update,
// a JSON or merge patch), as the server's UpdateNoErrors does: the
// request's own managed fields are kept when they decode and are not
// empty (an empty list resets them), else live's are used; on failure
// live's managed fields are put back. live nil is a create (live is then
// an empty object of obj's kind). It modifies obj, never live.
//
// Entries the write touches get the time now (the server's clock); other
// entries keep their time. A zero now is time.Now().
func (m *Manager) Update(version string, sub Subresource, live, obj map[string]any, manager string, now time.Time) (map[string]any, error) {
	f := m.managers[key{version, sub}]
	if f == nil {
		return nil, ErrNoManager
	}
	clock := newClock(live, obj)
	liveObj := m.liveObject(version, live, clock)
	clock.mark(obj)
	newObj := &unstructured.Unstructured{Object: obj}
	out, err := f.Update(liveObj, newObj, manager)
	if err != nil {
		// UpdateNoErrors, without its log line: live's managed fields
		// are kept (none on a create).
		newObj.SetManagedFields(liveObj.GetManagedFields())
		out = newObj
	}
	u, ok := out.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("fieldmanager: unexpected object %T", out)
	}
	clock.restore(u.Object, now)
	return u.Object, nil
}

// Apply merges the apply configuration patch into live for manager, as
// the server's apply patcher calls the field manager's Apply: it returns
// the merged object with its managed fields, or the server's error (a
// 409 Conflict with the conflicting managers and fields unless force, a
// 400 for a patch of another version or kind or with managedFields, or a
// plain error the handler answers with a 500). live nil applies to an
// empty object (an apply that creates). live is not modified; patch, a
// decoded apply configuration with its own apiVersion and kind, may be.
func (m *Manager) Apply(version string, sub Subresource, live, patch map[string]any, manager string, force bool, now time.Time) (map[string]any, error) {
	f := m.managers[key{version, sub}]
	if f == nil {
		return nil, ErrNoManager
	}
	clock := newClock(live, nil)
	liveObj := m.liveObject(version, live, clock)
	patchObj := &unstructured.Unstructured{Object: patch}
	if sub == Scale && patchObj.GroupVersionKind() == scaleGVK && len(liveObj.GetManagedFields()) == 0 {
		// With no entries, the server's field manager first records the
		// Scale's fields for "before-first-apply", an update from an
		// empty Scale its creater makes unstructured, which the custom
		// resource's converter refuses (it converts only typed Scales).
		return nil, fmt.Errorf("failed to create manager for existing fields: failed to convert live object (/; %v) to proper version: request to convert CR to an invalid group/version: autoscaling/v1", scaleGVK)
	}
	out, err := f.Apply(liveObj, patchObj, manager, force)
	if sub == Scale && err != nil && strings.HasSuffix(err.Error(), ": "+errScaleToHub.Error()) {
		// The apply changed the Scale. The server's field manager takes
		// the new object back from its typed form as an unstructured
		// Scale, which the custom resource's converter refuses (it
		// converts only typed Scales) before anything else: any apply of
		// /scale that changes the Scale fails so. (Here the converter
		// takes it, and refuses the next step, to the hub version; the
		// field manager wraps that error as text.)
		return nil, fmt.Errorf("failed to convert new object (%s/%s; %v) to proper version: request to convert CR to an invalid group/version: autoscaling/v1",
			patchObj.GetNamespace(), patchObj.GetName(), patchObj.GroupVersionKind())
	}
	if err != nil {
		return nil, err
	}
	u, ok := out.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("fieldmanager: unexpected object %T", out)
	}
	clock.restore(u.Object, now)
	return u.Object, nil
}

// liveObject is a copy of live (or an empty object of the version) with
// its entries' times replaced by the clock's marks.
func (m *Manager) liveObject(version string, live map[string]any, c *clock) *unstructured.Unstructured {
	if live == nil {
		u := &unstructured.Unstructured{Object: map[string]any{}}
		u.SetGroupVersionKind(runtimeschema.GroupVersionKind{Group: m.group, Version: version, Kind: m.kind})
		return u
	}
	cp := withOwnEntries(live)
	c.mark(cp)
	return &unstructured.Unstructured{Object: cp}
}

// withOwnEntries is live with its own copies of the maps on the way to the
// managed fields entries (the root, metadata, the list and each entry), the
// rest shared: the clock rewrites the entries' times, and the field
// manager reads live without changing it (FuzzApply, FuzzPatch check that
// live stays as it was).
func withOwnEntries(live map[string]any) map[string]any {
	out := make(map[string]any, len(live))
	for k, v := range live {
		out[k] = v
	}
	md, ok := live["metadata"].(map[string]any)
	if !ok {
		return out
	}
	m := make(map[string]any, len(md))
	for k, v := range md {
		m[k] = v
	}
	out["metadata"] = m
	if l, ok := md["managedFields"].([]any); ok {
		cl := make([]any, len(l))
		for i, e := range l {
			if em, ok := e.(map[string]any); ok {
				ce := make(map[string]any, len(em))
				for k, v := range em {
					ce[k] = v
				}
				cl[i] = ce
			} else {
				cl[i] = e
			}
		}
		m["managedFields"] = cl
	}
	return out
}

// clock stands in for the field manager's clock (time.Now, which it reads
// itself): before the call every entry time of the objects is replaced
// by a mark, a time in 1970 that keeps their order; after it an entry
// still holding a mark gets its own time back and any other was written
// by the call and gets now. The entries are then sorted again as the
// server sorts them, with the final times.
type clock struct {
	marks map[string]string // mark -> original time text
	byOld map[string]string // original time text -> mark
}

func newClock(objs ...map[string]any) *clock {
	var times []time.Time
	texts := map[string]bool{}
	for _, obj := range objs {
		for _, e := range entries(obj) {
			if s, ok := e["time"].(string); ok && !texts[s] {
				t, err := time.Parse(time.RFC3339, s)
				if err != nil {
					continue
				}
				texts[s] = true
				times = append(times, t)
			}
		}
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	c := &clock{marks: map[string]string{}, byOld: map[string]string{}}
	for i, t := range times {
		mark := time.Unix(int64(i+1), 0).UTC().Format(time.RFC3339)
		orig := t.UTC().Format(time.RFC3339)
		for s := range texts {
			if pt, _ := time.Parse(time.RFC3339, s); pt.Equal(t) {
				c.byOld[s] = mark
			}
		}
		c.marks[mark] = orig
	}
	return c
}

func (c *clock) mark(obj map[string]any) {
	for _, e := range entries(obj) {
		if s, ok := e["time"].(string); ok {
			if m, ok := c.byOld[s]; ok {
				e["time"] = m
			}
		}
	}
}

func (c *clock) restore(obj map[string]any, now time.Time) {
	if now.IsZero() {
		now = time.Now()
	}
	text := now.UTC().Format(time.RFC3339)
	es := entries(obj)
	for _, e := range es {
		s, ok := e["time"].(string)
		if !ok {
			continue
		}
		if orig, ok := c.marks[s]; ok {
			e["time"] = orig
		} else {
			e["time"] = text
		}
	}
	if len(es) < 2 {
		return
	}
	list, _ := obj["metadata"].(map[string]any)["managedFields"].([]any)
	sort.SliceStable(list, func(i, j int) bool { return entryLess(list[i], list[j]) })
}

// entryLess is the server's order of managed fields entries: operation,
// then time in seconds, manager, apiVersion and subresource.
func entryLess(a, b any) bool {
	p, _ := a.(map[string]any)
	q, _ := b.(map[string]any)
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	if po, qo := str(p, "operation"), str(q, "operation"); po != qo {
		return po < qo
	}
	sec := func(m map[string]any) int64 {
		t, err := time.Parse(time.RFC3339, str(m, "time"))
		if err != nil {
			return 0
		}
		return t.Unix()
	}
	if ps, qs := sec(p), sec(q); ps != qs {
		return ps < qs
	}
	for _, k := range []string{"manager", "apiVersion", "subresource"} {
		if pv, qv := str(p, k), str(q, k); pv != qv {
			return pv < qv
		}
	}
	return false
}

// entries are the managed fields entries of obj that are objects.
func entries(obj map[string]any) []map[string]any {
	md, _ := obj["metadata"].(map[string]any)
	list, _ := md["managedFields"].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// converter is the runtime.ObjectConvertor the field manager converts
// objects between the CRD's versions with.
type converter struct {
	group   string
	convert func(obj map[string]any, version string) (map[string]any, error)
}

func (c *converter) Convert(in, out, context any) error {
	return errors.New("fieldmanager: Convert is not supported")
}

func (c *converter) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("fieldmanager: cannot convert %T", in)
	}
	gvk := u.GroupVersionKind()
	to, ok := target.KindForGroupVersionKinds([]runtimeschema.GroupVersionKind{gvk})
	if !ok {
		if gvk == scaleGVK {
			return nil, errScaleToHub
		}
		return nil, fmt.Errorf("fieldmanager: no target for %v", gvk)
	}
	if to.GroupVersion() == gvk.GroupVersion() {
		return u, nil
	}
	if c.convert == nil || gvk.Group != c.group {
		cp := u.DeepCopy()
		cp.SetAPIVersion(to.GroupVersion().String())
		return cp, nil
	}
	obj, err := c.convert(u.Object, to.Version)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

func (c *converter) ConvertFieldLabel(gvk runtimeschema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

// defaulter applies the defaults of an object's own version.
type defaulter struct {
	group, kind string
	fn          func(obj map[string]any)
}

func (d defaulter) Default(in runtime.Object) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok || d.fn == nil {
		return
	}
	if gvk := u.GroupVersionKind(); gvk.Group != d.group || gvk.Kind != d.kind {
		return
	}
	d.fn(u.Object)
}

// creater makes empty objects, as the server's unstructured creator does.
type creater struct{}

func (creater) New(kind runtimeschema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(kind)
	return u, nil
}
