package benchmarks

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	upstreamconversion "k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
)

// convertCase is one corpus object of a multi-version CRD (strategy None)
// and another version of that CRD to convert it to.
type convertCase struct {
	name   string
	obj    map[string]any
	stored []byte
	crd    *crdkit.CRD
	to     string
	up     runtime.ObjectConvertor
	ss     map[string]*structuralschema.Structural
	group  string
	kind   string
}

func convertCases(tb testing.TB) []convertCase {
	root := benchCorpus(tb)
	factory, err := upstreamconversion.NewCRConverterFactory(nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	type multi struct {
		ck *crdkit.CRD
		up runtime.ObjectConvertor
		ss map[string]*structuralschema.Structural
		v1 *apiextensionsv1.CustomResourceDefinition
	}
	byGK := map[string]*multi{}
	for _, doc := range corpusDocs(tb, filepath.Join(root, "crds")) {
		crd := new(apiextensionsv1.CustomResourceDefinition)
		if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, crd); err != nil || crd.Kind != "CustomResourceDefinition" || len(crd.Spec.Versions) < 2 {
			continue
		}
		ck, err := crdkit.New(crd)
		if err != nil {
			tb.Fatal(err)
		}
		def := ck.Definition() // defaulted: strategy None when unset
		if def.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter {
			def.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
			if ck, err = crdkit.New(def); err != nil {
				tb.Fatal(err)
			}
		}
		up, _, err := factory.NewConverter(def)
		if err != nil {
			tb.Fatal(err)
		}
		m := &multi{ck: ck, up: up, ss: map[string]*structuralschema.Structural{}, v1: def}
		for _, v := range def.Spec.Versions {
			internal := new(apiextensions.JSONSchemaProps)
			if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
				tb.Fatal(err)
			}
			ss, err := structuralschema.NewStructural(internal)
			if err != nil {
				tb.Fatal(err)
			}
			m.ss[v.Name] = ss.DeepCopy()
			structuraldefaulting.PruneDefaults(m.ss[v.Name])
		}
		byGK[def.Spec.Group+" "+def.Spec.Names.Kind] = m
	}
	var out []convertCase
	for _, doc := range corpusDocs(tb, filepath.Join(root, "objects")) {
		var obj map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, &obj); err != nil {
			continue
		}
		u := unstructured.Unstructured{Object: obj}
		gvk := u.GroupVersionKind()
		m, ok := byGK[gvk.Group+" "+gvk.Kind]
		if !ok || m.ck.Version(gvk.Version) == nil {
			continue
		}
		if md, ok := obj["metadata"].(map[string]any); ok && m.ck.Namespaced() && md["namespace"] == nil {
			md["namespace"] = "default"
		}
		to := ""
		for _, v := range m.v1.Spec.Versions {
			if v.Name != gvk.Version && v.Served {
				to = v.Name
				break
			}
		}
		if to == "" {
			continue
		}
		stored, _ := json.Marshal(obj)
		c := convertCase{name: fmt.Sprintf("%s/%s", m.ck.Name(), u.GetName()), obj: obj, stored: stored, crd: m.ck, to: to, up: m.up, ss: m.ss,
			group: gvk.Group, kind: gvk.Kind}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// upstreamApply is the server's unstructuredSchemaCoercer.apply.
func (c convertCase) upstreamApply(u *unstructured.Unstructured, drop, repair bool) error {
	kind, foundKind, _ := unstructured.NestedString(u.Object, "kind")
	apiVersion, foundAV, _ := unstructured.NestedString(u.Object, "apiVersion")
	meta, foundMeta, _, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{DropMalformedFields: drop})
	if err != nil {
		return err
	}
	gv, err := runtimeschema.ParseGroupVersion(apiVersion)
	if err != nil {
		return err
	}
	if gv.Group == c.group && kind == c.kind {
		s := c.ss[gv.Version]
		structuralpruning.PruneWithOptions(u.Object, s, true, structuralschema.UnknownFieldPathOptions{})
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, s)
		if err, _ := schemaobjectmeta.CoerceWithOptions(nil, u.Object, s, false, schemaobjectmeta.CoerceOptions{DropInvalidFields: drop}); err != nil {
			return err
		}
		if repair && meta.Generation == 0 {
			meta.Generation = 1
		}
	}
	if foundKind {
		u.SetKind(kind)
	}
	if foundAV {
		u.SetAPIVersion(apiVersion)
	}
	if foundMeta {
		return schemaobjectmeta.SetObjectMeta(u.Object, meta)
	}
	return nil
}

// upstreamConvert is the server's schemaCoercingConverter over its safe
// converter (strategy None): a deep copy converted, then coerced with the
// target schema.
func (c convertCase) upstreamConvert(obj map[string]any) (map[string]any, error) {
	out, err := c.up.ConvertToVersion(&unstructured.Unstructured{Object: obj}, runtimeschema.GroupVersion{Group: c.group, Version: c.to})
	if err != nil {
		return nil, err
	}
	u := out.(*unstructured.Unstructured)
	if err := c.upstreamApply(u, false, false); err != nil {
		return nil, err
	}
	return u.Object, nil
}

// upstreamRead is the server's storage codec: decode, coerce with the
// stored version's schema (malformed metadata dropped, generation
// repaired), its defaults, then the conversion above.
func (c convertCase) upstreamRead(data []byte) (map[string]any, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	if err := c.upstreamApply(u, true, true); err != nil {
		return nil, err
	}
	structuraldefaulting.Default(u.Object, c.ss[u.GroupVersionKind().Version])
	return c.upstreamConvert(u.Object)
}

func BenchmarkConvert(b *testing.B) {
	for _, c := range convertCases(b) {
		b.Run(c.name+":none/crdkit", func(b *testing.B) {
			cpuLoop(b, func() {
				if _, err := c.crd.Convert(c.obj, c.to); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(c.name+":none/upstream", func(b *testing.B) {
			cpuLoop(b, func() {
				if _, err := c.upstreamConvert(c.obj); err != nil {
					b.Fatal(err)
				}
			})
		})
		v := c.crd.Version(c.to)
		b.Run(c.name+":read/crdkit", func(b *testing.B) {
			cpuLoop(b, func() {
				if _, err := v.ReadJSON(c.stored); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(c.name+":read/upstream", func(b *testing.B) {
			cpuLoop(b, func() {
				if _, err := c.upstreamRead(c.stored); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// TestConvertBenchInputs checks that both sides of BenchmarkConvert give
// the same object on every input.
func TestConvertBenchInputs(t *testing.T) {
	cases := convertCases(t)
	if len(cases) == 0 {
		t.Skip("no corpus objects of multi-version CRDs")
	}
	for _, c := range cases {
		ours, err := c.crd.Convert(c.obj, c.to)
		theirs, uerr := c.upstreamConvert(runtime.DeepCopyJSON(c.obj))
		if err != nil || uerr != nil || !reflect.DeepEqual(roundTripJSON(ours), roundTripJSON(theirs)) {
			t.Errorf("%s none: crdkit %v %v, upstream %v %v", c.name, mustJSONString(ours), err, mustJSONString(theirs), uerr)
		}
		ours, err = c.crd.Version(c.to).ReadJSON(c.stored)
		theirs, uerr = c.upstreamRead(c.stored)
		if err != nil || uerr != nil || !reflect.DeepEqual(roundTripJSON(ours), roundTripJSON(theirs)) {
			t.Errorf("%s read:\n  crdkit   %s %v\n  upstream %s %v", c.name, mustJSONString(ours), err, mustJSONString(theirs), uerr)
		}
	}
	t.Logf("%d cases", len(cases))
}

func roundTripJSON(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

func mustJSONString(m map[string]any) string {
	b, _ := json.Marshal(m)
	return string(b)
}
