package benchmarks

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"

	"github.com/crdkit/crdkit"
)

// memStorage is the storage under the upstream store in the DELETE
// benchmark: it holds the object as JSON, and Get decodes it as etcd3's
// store does, with the plain unstructured JSON codec (the server's storage
// codec also prunes, round-trips metadata and defaults: it costs more).
// The store's dry runs need nothing else.
type memStorage struct {
	storage.Interface
	data []byte
}

func (m *memStorage) Get(_ context.Context, _ string, _ storage.GetOptions, out runtime.Object) error {
	_, _, err := unstructured.UnstructuredJSONScheme.Decode(m.data, nil, out)
	return err
}

func (m *memStorage) Versioner() storage.Versioner { return storage.APIObjectVersioner{} }

// deleteCase is one corpus object, live, and the options of a DELETE.
type deleteCase struct {
	updateCase
	name  string
	live  map[string]any
	opts  metav1.DeleteOptions
	store *genericregistry.Store
}

// deleteCases makes, for each corpus object crdkit accepts, three DELETEs
// (dry runs): of the object without finalizers (deleted), with a
// finalizer (kept, being deleted: stored and read back), and without
// finalizers but with propagationPolicy Foreground (kept with the
// garbage collector's finalizer).
func deleteCases(tb testing.TB) []deleteCase {
	fg := metav1.DeletePropagationForeground
	dry := []string{metav1.DryRunAll}
	var out []deleteCase
	for _, c := range updateCases(tb) {
		held := runtime.DeepCopyJSON(c.live)
		held["metadata"].(map[string]any)["finalizers"] = []any{"example.com/hold"}
		out = append(out,
			deleteCase{c, c.name + "+plain", c.live, metav1.DeleteOptions{DryRun: dry}, upstreamStore(c, c.live)},
			deleteCase{c, c.name + "+finalizer", held, metav1.DeleteOptions{DryRun: dry}, upstreamStore(c, held)},
			deleteCase{c, c.name + "+foreground", c.live, metav1.DeleteOptions{DryRun: dry, PropagationPolicy: &fg}, upstreamStore(c, c.live)})
	}
	return out
}

// upstreamDelete is the server's registry DELETE (genericregistry.Store
// with the custom-resource strategy and garbage collection on) as a dry
// run over memStorage: BeforeDelete (options, preconditions), the garbage
// collector's finalizers, markAsDeleting and the dry-run update (encoded
// and decoded as JSON), or the dry-run delete and the Status of success.
func upstreamDelete(c deleteCase) (runtime.Object, bool, error) {
	name, _, _ := unstructured.NestedString(c.live, "metadata", "name")
	ns, _, _ := unstructured.NestedString(c.live, "metadata", "namespace")
	ctx := genericapirequest.WithNamespace(context.Background(), ns)
	opts := c.opts
	return c.store.Delete(ctx, name, rest.ValidateAllObjectFunc, &opts)
}

func mustJSON(obj map[string]any) []byte {
	data, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	return data
}

// upstreamStore is the registry's store for a case, built once.
func upstreamStore(c updateCase, live map[string]any) *genericregistry.Store {
	return &genericregistry.Store{
		NewFunc:                  func() runtime.Object { return &unstructured.Unstructured{} },
		DefaultQualifiedResource: runtimeschema.GroupResource{Group: c.version.CRD().Group(), Resource: c.version.CRD().Definition().Spec.Names.Plural},
		KeyFunc:                  func(context.Context, string) (string, error) { return "/k", nil },
		DeleteStrategy:           c.strategy.(rest.RESTDeleteStrategy),
		EnableGarbageCollection:  true,
		Storage:                  genericregistry.DryRunnableStorage{Storage: &memStorage{data: mustJSON(live)}, Codec: unstructured.UnstructuredJSONScheme},
	}
}

// BenchmarkDelete runs a dry-run DELETE of each corpus object: crdkit's
// Version.Delete against the server's registry (upstreamDelete).
func BenchmarkDelete(b *testing.B) {
	for _, c := range deleteCases(b) {
		opts := crdkit.DeleteOptions{DeleteOptions: c.opts}
		b.Run(c.name+"/crdkit", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if res := c.version.Delete(c.live, opts); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
		b.Run(c.name+"/upstream", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, _, err := upstreamDelete(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDeleteBenchInputs checks that both sides decide alike on every
// benchmark input: deleted or kept, and for a kept object the same
// finalizers, generation and deletion grace period.
func TestDeleteBenchInputs(t *testing.T) {
	cases := deleteCases(t)
	if len(cases) == 0 {
		t.Skip("no corpus objects")
	}
	for _, c := range cases {
		res := c.version.Delete(c.live, crdkit.DeleteOptions{DeleteOptions: c.opts})
		obj, deleted, err := upstreamDelete(c)
		if err != nil || res.Err != nil || res.Deleted != deleted {
			t.Errorf("%s: crdkit deleted %v (%v), upstream %v (%v)", c.name, res.Deleted, res.Err, deleted, err)
			continue
		}
		if deleted {
			continue
		}
		u := obj.(*unstructured.Unstructured)
		md := res.Object["metadata"].(map[string]any)
		fs, _ := md["finalizers"].([]any)
		var got []string
		for _, f := range fs {
			got = append(got, f.(string))
		}
		if !slices.Equal(got, u.GetFinalizers()) || md["generation"] != u.GetGeneration() || !reflect.DeepEqual(md["deletionGracePeriodSeconds"], ptrValue(u.GetDeletionGracePeriodSeconds())) {
			t.Errorf("%s: crdkit %v, upstream finalizers %q generation %d grace %v", c.name, md, u.GetFinalizers(), u.GetGeneration(), u.GetDeletionGracePeriodSeconds())
		}
	}
}

func ptrValue(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// finalizedCase is an object being deleted (a deletion timestamp, its
// only finalizer) and the update that removes the finalizer.
type finalizedCase struct {
	updateCase
	live, obj map[string]any
}

func finalizedCases(tb testing.TB) []finalizedCase {
	var out []finalizedCase
	ts := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Format(time.RFC3339)
	for _, c := range updateCases(tb) {
		live := runtime.DeepCopyJSON(c.live)
		md := live["metadata"].(map[string]any)
		md["finalizers"], md["deletionTimestamp"], md["deletionGracePeriodSeconds"] = []any{"example.com/hold"}, ts, int64(0)
		obj := runtime.DeepCopyJSON(live)
		delete(obj["metadata"].(map[string]any), "finalizers")
		out = append(out, finalizedCase{c, live, obj})
	}
	return out
}

// upstreamFinalized is the server's update of such an object up to the
// registry's decision: upstreamUpdate's steps, then
// ShouldDeleteDuringUpdate.
func upstreamFinalized(c finalizedCase, obj map[string]any) (bool, error) {
	if err := upstreamUpdate(c.updateCase, obj, c.live); err != nil {
		return false, err
	}
	return genericregistry.ShouldDeleteDuringUpdate(context.Background(), "/k", &unstructured.Unstructured{Object: obj}, &unstructured.Unstructured{Object: c.live}), nil
}

// BenchmarkUpdateFinalized runs the update that removes the last
// finalizer of an object being deleted: crdkit's Version.Update (which
// answers Deleted, without storing) against the server's update steps and
// its ShouldDeleteDuringUpdate.
func BenchmarkUpdateFinalized(b *testing.B) {
	for _, c := range finalizedCases(b) {
		b.Run(c.name+"/crdkit", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if res := c.version.Update(c.obj, c.live, crdkit.UpdateOptions{FieldValidation: crdkit.Ignore}); !res.Deleted {
					b.Fatal(res.Err)
				}
			}
		})
		b.Run(c.name+"/upstream", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if del, err := upstreamFinalized(c, runtime.DeepCopyJSON(c.obj)); !del {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestUpdateFinalizedBenchInputs checks that both sides delete on every
// input.
func TestUpdateFinalizedBenchInputs(t *testing.T) {
	cases := finalizedCases(t)
	if len(cases) == 0 {
		t.Skip("no corpus objects")
	}
	for _, c := range cases {
		res := c.version.Update(c.obj, c.live, crdkit.UpdateOptions{FieldValidation: crdkit.Ignore})
		del, err := upstreamFinalized(c, runtime.DeepCopyJSON(c.obj))
		if !res.Deleted || !del {
			t.Errorf("%s: crdkit deleted %v (%v), upstream %v (%v)", c.name, res.Deleted, res.Err, del, err)
		}
	}
}

// selectCase is a list of objects of one CRD version and a selector.
type selectCase struct {
	name     string
	version  *crdkit.Version
	strategy interface {
		MatchCustomResourceDefinitionStorage(labels.Selector, fields.Selector) storage.SelectionPredicate
	}
	objs   []map[string]any
	opts   crdkit.ListOptions
	labels labels.Selector
	fields fields.Selector
}

// selectCases builds, for each corpus CRD version with objects, a list of
// 100 objects (the corpus objects of the version, each copied with its
// own name and one of four label sets) and the server's strategy with the
// version's selectableFields plus those of its schema's first string,
// integer and boolean fields under spec (as a CRD author would add them),
// and three selectors: labels, metadata fields, a selectable field.
func selectCases(tb testing.TB) []selectCase {
	byVersion := map[*crdkit.Version][]map[string]any{}
	var order []*crdkit.Version
	for _, c := range createCases(tb) {
		res := c.version.Create(c.obj, crdkit.CreateOptions{FieldValidation: crdkit.Ignore})
		if res.Err != nil {
			continue
		}
		if byVersion[c.version] == nil {
			order = append(order, c.version)
		}
		byVersion[c.version] = append(byVersion[c.version], res.Object)
	}
	labelSets := []map[string]any{{"app": "a", "tier": "1"}, {"app": "b", "tier": "2"}, {"app": "c"}, nil}
	var out []selectCase
	for _, v := range order {
		crd := v.CRD().Definition()
		var ver apiextensionsv1.CustomResourceDefinitionVersion
		for _, x := range crd.Spec.Versions {
			if x.Name == v.Name() {
				ver = x
			}
		}
		sfs := append([]apiextensionsv1.SelectableField(nil), ver.SelectableFields...)
		if len(sfs) == 0 {
			if p := firstScalarPath(ver.Schema.OpenAPIV3Schema, byVersion[v][0]); p != "" {
				sfs = append(sfs, apiextensionsv1.SelectableField{JSONPath: "." + p})
			}
		}
		crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{ver}
		crd.Spec.Versions[0].SelectableFields = sfs
		crd.Spec.Versions[0].Storage = true
		ck, err := crdkit.New(crd)
		if err != nil {
			tb.Fatalf("%s with selectable fields %v: %v", crd.Name, sfs, err)
		}
		cv := ck.Version(v.Name())
		internal := new(apiextensions.JSONSchemaProps)
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(ver.Schema.OpenAPIV3Schema, internal, nil); err != nil {
			tb.Fatal(err)
		}
		ss, err := structuralschema.NewStructural(internal)
		if err != nil {
			tb.Fatal(err)
		}
		validator, _, err := apiservervalidation.NewSchemaValidator(internal)
		if err != nil {
			tb.Fatal(err)
		}
		gvk := runtimeschema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name(), Kind: crd.Spec.Names.Kind}
		st := customresource.NewStrategy(unstructuredscheme.NewUnstructuredObjectTyper(), crd.Spec.Scope == apiextensionsv1.NamespaceScoped, gvk, validator, nil, ss, nil, nil, sfs)
		var objs []map[string]any
		for i := 0; i < 100; i++ {
			o := runtime.DeepCopyJSON(byVersion[v][i%len(byVersion[v])])
			md := o["metadata"].(map[string]any)
			md["name"] = fmt.Sprintf("obj-%d", i)
			delete(md, "labels")
			if ls := labelSets[i%len(labelSets)]; ls != nil {
				md["labels"] = runtime.DeepCopyJSON(ls)
			}
			objs = append(objs, o)
		}
		optss := []crdkit.ListOptions{
			{LabelSelector: "app in (a,b),tier"},
			{FieldSelector: "metadata.name!=obj-3"},
		}
		if len(sfs) > 0 {
			f := sfs[0].JSONPath[1:]
			var val any
			for _, o := range objs {
				if val = lookup(o, f); val != nil {
					break
				}
			}
			optss = append(optss, crdkit.ListOptions{FieldSelector: fmt.Sprintf("%s=%v", f, val)})
		}
		for i, opts := range optss {
			ls, err := labels.Parse(opts.LabelSelector)
			if err != nil {
				tb.Fatal(err)
			}
			fs, err := fields.ParseSelector(opts.FieldSelector)
			if err != nil {
				tb.Fatal(err)
			}
			kind := [...]string{"labels", "metadata", "selectable"}[i]
			out = append(out, selectCase{name: fmt.Sprintf("%s/%s/%s", crd.Name, v.Name(), kind), version: cv, strategy: st, objs: objs, opts: opts, labels: ls, fields: fs})
		}
	}
	return out
}

// firstScalarPath is the dotted path of the first (in sorted order)
// string, integer or boolean field under spec that obj holds.
func firstScalarPath(s *apiextensionsv1.JSONSchemaProps, obj map[string]any) string {
	var walk func(s apiextensionsv1.JSONSchemaProps, at string, v any, depth int) string
	walk = func(s apiextensionsv1.JSONSchemaProps, at string, v any, depth int) string {
		m, ok := v.(map[string]any)
		if !ok || depth > 4 {
			return ""
		}
		keys := make([]string, 0, len(s.Properties))
		for k := range s.Properties {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := s.Properties[k]
			x, held := m[k]
			if !held {
				continue
			}
			switch p.Type {
			case "string", "integer", "boolean":
				if !p.XIntOrString {
					return at + k
				}
			case "object":
				if r := walk(p, at+k+".", x, depth+1); r != "" {
					return r
				}
			}
		}
		return ""
	}
	spec, ok := s.Properties["spec"]
	if !ok {
		return ""
	}
	return walk(spec, "spec.", obj["spec"], 0)
}

func lookup(obj map[string]any, dotted string) any {
	var cur any = obj
	start := 0
	for i := 0; i <= len(dotted); i++ {
		if i == len(dotted) || dotted[i] == '.' {
			m, ok := cur.(map[string]any)
			if !ok {
				return nil
			}
			cur = m[dotted[start:i]]
			start = i + 1
		}
	}
	return cur
}

// BenchmarkSelect matches a list of 100 objects against a selector:
// crdkit's compiled Selector.Matches on each object against the server's
// SelectionPredicate (the strategy's MatchCustomResourceDefinitionStorage:
// GetAttrs builds each object's label and field sets, selectable fields
// through the server's JSONPath), both with the selectors parsed once.
func BenchmarkSelect(b *testing.B) {
	for _, c := range selectCases(b) {
		s, err := c.version.Selector(c.opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name+"/crdkit", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, o := range c.objs {
					s.Matches(o)
				}
			}
		})
		pred := c.strategy.MatchCustomResourceDefinitionStorage(c.labels, c.fields)
		us := make([]*unstructured.Unstructured, len(c.objs))
		for i, o := range c.objs {
			us[i] = &unstructured.Unstructured{Object: o}
		}
		b.Run(c.name+"/upstream", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, u := range us {
					if _, err := pred.Matches(u); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// TestSelectBenchInputs checks that both sides select the same objects.
func TestSelectBenchInputs(t *testing.T) {
	cases := selectCases(t)
	if len(cases) == 0 {
		t.Skip("no corpus objects")
	}
	for _, c := range cases {
		s, err := c.version.Selector(c.opts)
		if err != nil {
			t.Fatal(err)
		}
		pred := c.strategy.MatchCustomResourceDefinitionStorage(c.labels, c.fields)
		n := 0
		for _, o := range c.objs {
			want, err := pred.Matches(&unstructured.Unstructured{Object: o})
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Matches(o); got != want {
				t.Errorf("%s %+v: %s: crdkit %v, upstream %v", c.name, c.opts, o["metadata"].(map[string]any)["name"], got, want)
			}
			if want {
				n++
			}
		}
		if n == 0 || n == len(c.objs) && c.opts.LabelSelector != "" {
			t.Errorf("%s %+v: %d of %d objects selected: the selector does not discriminate", c.name, c.opts, n, len(c.objs))
		}
	}
}
