package benchmarks

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsconversion "k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/yaml"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/openapi"
)

// omitManaged leaves managed fields out of crdkit's answers, for the
// benchmarks whose upstream twin runs no field manager.
var omitManaged = crdkit.ManagedFields{Omit: true}

// benchTime fixes the time of managed fields entries, so that inputs made
// with managed fields are the same in every run.
var benchTime = crdkit.ManagedFields{Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}

// patchCase is an update case (a one-field spec change of a live corpus
// object) as a merge patch and as a JSON patch, with the server's field
// manager for the object's version, and an apply: the object's
// configuration applied over the object created by applying it before the
// change, by the same manager.
type patchCase struct {
	updateCase
	merge, json []byte
	fm          *managedfields.FieldManager
	// applyLive is live as an apply created it; applyConfig the changed
	// configuration as YAML.
	applyLive   map[string]any
	applyConfig []byte
}

func patchCases(tb testing.TB) []patchCase {
	var out []patchCase
	fms := map[*crdkit.CRD]map[string]*managedfields.FieldManager{}
	for _, c := range updateCases(tb) {
		lj, _ := json.Marshal(c.live)
		oj, _ := json.Marshal(c.obj)
		mp, err := jsonpatch.CreateMergePatch(lj, oj)
		if err != nil {
			tb.Fatal(err)
		}
		ops := jsonOps(c.live, c.obj, "")
		jp, _ := json.Marshal(ops)
		crd := c.version.CRD()
		if fms[crd] == nil {
			fms[crd] = upstreamFieldManagers(tb, crd.Definition())
		}
		pc := patchCase{updateCase: c, merge: mp, json: jp, fm: fms[crd][c.version.Name()]}
		// The apply: the configuration before and after the change (what a
		// manifest holds: no status, no server fields).
		before, after := applyConfig(c.live), applyConfig(c.obj)
		opts := crdkit.PatchOptions{FieldValidation: crdkit.Ignore, ManagedFields: crdkit.ManagedFields{FieldManager: "bench", Now: benchTime.Now}}
		res := c.version.Apply(yamlBytes(tb, before), nil, opts)
		if res.Err != nil {
			continue // the server would refuse the apply (a field it cannot type)
		}
		live := res.Object
		md := live["metadata"].(map[string]any)
		md["uid"], md["resourceVersion"], md["creationTimestamp"] = "6a2e9b8e-0000-4000-8000-000000000001", "7", "2026-01-01T00:00:00Z"
		pc.applyLive, pc.applyConfig = live, yamlBytes(tb, after)
		out = append(out, pc)
	}
	return out
}

// jsonOps is a JSON patch that turns a into b: a replace for every scalar
// that differs, add and remove for keys only one side has.
func jsonOps(a, b map[string]any, at string) []map[string]any {
	var ops []map[string]any
	for _, k := range sortedKeysOf(b) {
		p := at + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
		av, ok := a[k]
		switch {
		case !ok:
			ops = append(ops, map[string]any{"op": "add", "path": p, "value": b[k]})
		case reflect.DeepEqual(av, b[k]):
		default:
			am, aok := av.(map[string]any)
			bm, bok := b[k].(map[string]any)
			if aok && bok {
				ops = append(ops, jsonOps(am, bm, p)...)
			} else {
				ops = append(ops, map[string]any{"op": "replace", "path": p, "value": b[k]})
			}
		}
	}
	for _, k := range sortedKeysOf(a) {
		if _, ok := b[k]; !ok {
			ops = append(ops, map[string]any{"op": "remove", "path": at + "/" + k})
		}
	}
	return ops
}

func sortedKeysOf(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// applyConfig is obj as a manifest holds it: type meta, name, namespace,
// labels and annotations, spec.
func applyConfig(obj map[string]any) map[string]any {
	md, _ := obj["metadata"].(map[string]any)
	cm := map[string]any{"name": md["name"]}
	for _, k := range []string{"namespace", "labels", "annotations"} {
		if v, ok := md[k]; ok {
			cm[k] = v
		}
	}
	out := map[string]any{"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": cm}
	if s, ok := obj["spec"]; ok {
		out["spec"] = s
	}
	return out
}

func yamlBytes(tb testing.TB, obj map[string]any) []byte {
	b, err := json.Marshal(obj)
	if err != nil {
		tb.Fatal(err)
	}
	return b // JSON is YAML; the server's YAML decoder reads it as YAML
}

// upstreamFieldManagers builds the server's field managers of a CRD's
// versions as the custom-resource handler does (scopeWithFieldManager):
// managedfields.NewDefaultCRDFieldManager with the type converter of the
// CRD's models, the server's converter (conversion.NewCRConverterFactory),
// its defaulter (the object's own version's structural defaults) and
// creator. The models are crdkit's openapi.Models, which the real-server
// tests show give the server's managed fields.
func upstreamFieldManagers(tb testing.TB, crd *apiextensionsv1.CustomResourceDefinition) map[string]*managedfields.FieldManager {
	models, err := openapi.Models(crd)
	if err != nil {
		tb.Fatal(err)
	}
	tc, err := managedfields.NewTypeConverter(models, crd.Spec.PreserveUnknownFields)
	if err != nil {
		tb.Fatal(err)
	}
	factory, err := apiextensionsconversion.NewCRConverterFactory(nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	safe, _, err := factory.NewConverter(crd)
	if err != nil {
		tb.Fatal(err)
	}
	def := upstreamDefaulter{crd: crd, schemas: structuralSchemas(tb, crd)}
	out := map[string]*managedfields.FieldManager{}
	for _, v := range crd.Spec.Versions {
		gvk := runtimeschema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
		reset := map[fieldpath.APIVersion]*fieldpath.Set{}
		if v.Subresources != nil && v.Subresources.Status != nil {
			reset[fieldpath.APIVersion(gvk.GroupVersion().String())] = fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
		}
		fm, err := managedfields.NewDefaultCRDFieldManager(tc, safe, def, unstructuredscheme.NewUnstructuredCreator(), gvk, gvk.GroupVersion(), "", fieldpath.NewExcludeFilterSetMap(reset))
		if err != nil {
			tb.Fatal(err)
		}
		out[v.Name] = fm
	}
	return out
}

// upstreamDefaulter is the server's unstructuredDefaulter: the defaults of
// the object's own version.
type upstreamDefaulter struct {
	crd     *apiextensionsv1.CustomResourceDefinition
	schemas map[string]*structuralschema.Structural
}

func (d upstreamDefaulter) Default(in runtime.Object) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return
	}
	gvk := u.GroupVersionKind()
	if gvk.Group != d.crd.Spec.Group || gvk.Kind != d.crd.Spec.Names.Kind {
		return
	}
	if s := d.schemas[gvk.Version]; s != nil {
		structuraldefaulting.Default(u.Object, s)
	}
}

// upstreamPatch is the server's JSON or merge patch of live: live encoded
// as the server's JSON serializer encodes it, the patch applied with the
// server's library, the result decoded by the server's serializer, the
// decoder's coercion and defaults, the field manager's update when fm is
// set, then rest.BeforeUpdate with the strategy (upstreamUpdate's steps).
func upstreamPatch(c patchCase, merge bool, fm *managedfields.FieldManager) error {
	current, err := json.Marshal(c.live)
	if err != nil {
		return err
	}
	var patched []byte
	if merge {
		patched, err = jsonpatch.MergePatch(current, c.merge)
	} else {
		var ops jsonpatch.Patch
		if ops, err = jsonpatch.DecodePatch(c.json); err == nil {
			patched, err = ops.Apply(current)
		}
	}
	if err != nil {
		return err
	}
	def := runtimeschema.GroupVersionKind{}
	obj, _, err := upstreamDecoder.Decode(patched, &def, &unstructured.Unstructured{})
	if err != nil {
		return err
	}
	u := obj.(*unstructured.Unstructured)
	coerceAndDefault(c.createCase, u.Object)
	live := &unstructured.Unstructured{Object: c.live}
	if fm != nil {
		u = fm.UpdateNoErrors(live, u, "bench").(*unstructured.Unstructured)
	}
	ns, _, _ := unstructured.NestedString(c.live, "metadata", "namespace")
	ctx := genericapirequest.WithNamespace(context.Background(), ns)
	return rest.BeforeUpdate(c.strategy.(rest.RESTUpdateStrategy), ctx, u, live)
}

// upstreamApply is the server's apply of the configuration over applyLive:
// the YAML decoded as the apply patcher does, the field manager's Apply,
// then rest.BeforeUpdate with the strategy. floor leaves out all but the
// field manager's Apply on the decoded configuration (the library alone).
func upstreamApply(c patchCase, cfg map[string]any, floor bool) error {
	if !floor {
		cfg = map[string]any{}
		if err := yaml.Unmarshal(c.applyConfig, &cfg); err != nil {
			return err
		}
	}
	live := &unstructured.Unstructured{Object: c.applyLive}
	obj, err := c.fm.Apply(live, &unstructured.Unstructured{Object: cfg}, "bench", false)
	if err != nil || floor {
		return err
	}
	ns, _, _ := unstructured.NestedString(c.applyLive, "metadata", "namespace")
	ctx := genericapirequest.WithNamespace(context.Background(), ns)
	return rest.BeforeUpdate(c.strategy.(rest.RESTUpdateStrategy), ctx, obj, live)
}

// BenchmarkPatch runs a merge patch and a JSON patch of one spec field of
// each corpus object through crdkit's Version.Patch and through the
// server's patch steps (upstreamPatch), both without the field manager
// (crdkit: ManagedFields.Omit). BenchmarkPatchManaged is the same with the
// field manager on both sides, and the field manager's update alone
// (floor).
func BenchmarkPatch(b *testing.B) {
	for _, c := range patchCases(b) {
		for _, kind := range []string{"merge", "json"} {
			pt, body := crdkit.MergePatch, c.merge
			if kind == "json" {
				pt, body = crdkit.JSONPatch, c.json
			}
			b.Run(c.name+"+"+kind+"/crdkit", func(b *testing.B) {
				cpuLoop(b, func() {
					if res := c.version.Patch(pt, body, c.live, crdkit.PatchOptions{FieldValidation: crdkit.Ignore, ManagedFields: omitManaged}); res.Err != nil {
						b.Fatal(res.Err)
					}
				})
			})
			b.Run(c.name+"+"+kind+"/upstream", func(b *testing.B) {
				cpuLoop(b, func() {
					if err := upstreamPatch(c, kind == "merge", nil); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

func BenchmarkPatchManaged(b *testing.B) {
	for _, c := range patchCases(b) {
		b.Run(c.name+"+merge/crdkit", func(b *testing.B) {
			cpuLoop(b, func() {
				if res := c.version.Patch(crdkit.MergePatch, c.merge, c.live, crdkit.PatchOptions{FieldValidation: crdkit.Ignore, ManagedFields: crdkit.ManagedFields{FieldManager: "bench"}}); res.Err != nil {
					b.Fatal(res.Err)
				}
			})
		})
		b.Run(c.name+"+merge/upstream", func(b *testing.B) {
			cpuLoop(b, func() {
				if err := upstreamPatch(c, true, c.fm); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(c.name+"+merge/floor", func(b *testing.B) {
			live := &unstructured.Unstructured{Object: c.live}
			cpuLoop(b, func() {
				_ = c.fm.UpdateNoErrors(live, &unstructured.Unstructured{Object: runtime.DeepCopyJSON(c.obj)}, "bench")
			})
		})
	}
}

// BenchmarkApply runs the apply of each corpus object's changed
// configuration over the object its first configuration created, by the
// same manager: crdkit's Version.Apply, the server's steps (upstreamApply),
// and the field manager's Apply alone on the decoded configuration (floor:
// the shared library's part, which bounds the ratio).
func BenchmarkApply(b *testing.B) {
	for _, c := range patchCases(b) {
		var cfg map[string]any
		if err := yaml.Unmarshal(c.applyConfig, &cfg); err != nil {
			b.Fatal(err)
		}
		b.Run(c.name+"/crdkit", func(b *testing.B) {
			cpuLoop(b, func() {
				if res := c.version.Apply(c.applyConfig, c.applyLive, crdkit.PatchOptions{FieldValidation: crdkit.Ignore, ManagedFields: crdkit.ManagedFields{FieldManager: "bench"}}); res.Err != nil {
					b.Fatal(res.Err)
				}
			})
		})
		b.Run(c.name+"/upstream", func(b *testing.B) {
			cpuLoop(b, func() {
				if err := upstreamApply(c, nil, false); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(c.name+"/floor", func(b *testing.B) {
			cpuLoop(b, func() {
				if err := upstreamApply(c, cfg, true); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// TestPatchBenchInputs checks that the server's steps accept every patch
// and apply crdkit accepts, with the same object (up to what storage adds)
// for the patches.
func TestPatchBenchInputs(t *testing.T) {
	cases := patchCases(t)
	if len(cases) == 0 {
		t.Skip("no corpus objects")
	}
	for _, c := range cases {
		for _, merge := range []bool{true, false} {
			pt, body := crdkit.MergePatch, c.merge
			if !merge {
				pt, body = crdkit.JSONPatch, c.json
			}
			res := c.version.Patch(pt, body, c.live, crdkit.PatchOptions{FieldValidation: crdkit.Ignore, ManagedFields: omitManaged})
			if res.Err != nil {
				t.Errorf("%s %s: crdkit refuses: %v", c.name, pt, res.Err)
				continue
			}
			if err := upstreamPatch(c, merge, c.fm); err != nil {
				t.Errorf("%s %s: crdkit accepts, upstream: %v", c.name, pt, err)
			}
			want := c.version.Update(c.obj, c.live, crdkit.UpdateOptions{FieldValidation: crdkit.Ignore, ManagedFields: omitManaged})
			if !reflect.DeepEqual(res.Object, want.Object) {
				t.Errorf("%s %s: patch = %v, want the update's %v", c.name, pt, res.Object, want.Object)
			}
		}
		if res := c.version.Apply(c.applyConfig, c.applyLive, crdkit.PatchOptions{FieldValidation: crdkit.Ignore, ManagedFields: crdkit.ManagedFields{FieldManager: "bench"}}); res.Err != nil {
			t.Errorf("%s: crdkit apply: %v", c.name, res.Err)
		} else if err := upstreamApply(c, nil, false); err != nil {
			t.Errorf("%s: crdkit applies, upstream: %v", c.name, err)
		}
	}
}

// structuralSchemas are the structural schemas of a CRD's versions.
func structuralSchemas(tb testing.TB, crd *apiextensionsv1.CustomResourceDefinition) map[string]*structuralschema.Structural {
	out := map[string]*structuralschema.Structural{}
	for _, v := range crd.Spec.Versions {
		if v.Schema == nil {
			continue
		}
		internal := new(apiextensions.JSONSchemaProps)
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
			tb.Fatal(err)
		}
		ss, err := structuralschema.NewStructural(internal)
		if err != nil {
			tb.Fatal(err)
		}
		out[v.Name] = ss
	}
	return out
}
