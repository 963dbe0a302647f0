package crdkit

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/internal/corpus"
)

// sameSchemas has two versions with one schema, which has an embedded
// resource with a default: the default's metadata is not canonical, so the
// read path's target coercion changes it.
const sameSchemas = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: pods.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: pods, kind: Pod}
  versions:
  - name: v1
    served: true
    storage: false
    schema: &s {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {
      size: {type: integer, default: 1},
      template: {type: object, x-kubernetes-embedded-resource: true, default: {apiVersion: v1, kind: Pod, metadata: {name: a, foo: b}},
        properties: {spec: {type: object}}}}}}}}
  - name: v2
    served: true
    storage: true
    schema: *s
`

// multiVersionCRDs are the example CRDs with more than one version and,
// when the corpus is there, every corpus CRD with more than one version;
// a Webhook strategy is replaced by None.
func multiVersionCRDs(t testing.TB) []*CRD {
	out := []*CRD{loadExample(t), loadYAML(t, twoVersions), loadYAML(t, sameSchemas)}
	if _, ok := corpus.Root(); !ok {
		return out
	}
	for _, d := range corpusDocs(t) {
		crd, err := Load(d.JSON)
		if err != nil || len(crd.Versions()) < 2 {
			continue
		}
		if crd.strategy() != apiextensionsv1.NoneConverter {
			def := crd.Definition()
			def.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
			if crd, err = New(def); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, crd)
	}
	return out
}

// storedVariants are obj as stored at every version crd defines, each as
// is and in ways the read path treats specially: unknown fields, nulls,
// malformed metadata, generation 0, no kind, a repeated key.
func storedVariants(t testing.TB, crd *CRD, obj map[string]any) map[string][]byte {
	out := map[string][]byte{}
	add := func(name string, m map[string]any) {
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = raw
	}
	for _, v := range crd.Versions() {
		at := func() map[string]any {
			var m map[string]any
			if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(jsonOf(obj)), &m); err != nil {
				t.Fatal(err)
			}
			m["apiVersion"] = crd.Group() + "/" + v.Name()
			m["kind"] = crd.Kind()
			if _, ok := m["metadata"].(map[string]any); !ok {
				m["metadata"] = map[string]any{"name": "x"}
			}
			return m
		}
		add(v.Name(), at())
		m := at()
		sprinkle(m, 0)
		add(v.Name()+"+unknown", m)
		m = at()
		nullify(m, 0)
		m["metadata"].(map[string]any)["labels"] = nil
		add(v.Name()+"+nulls", m)
		m = at()
		m["metadata"].(map[string]any)["labels"] = map[string]any{"a": int64(1)}
		m["metadata"].(map[string]any)["generation"] = "x"
		add(v.Name()+"+badmeta", m)
		m = at()
		m["metadata"].(map[string]any)["generation"] = int64(0)
		add(v.Name()+"+gen0", m)
		m = at()
		delete(m, "kind")
		add(v.Name()+"+nokind", m)
		raw := []byte(jsonOf(at()))
		out[v.Name()+"+repeated"] = append(raw[:len(raw)-1:len(raw)-1], []byte(`,"apiVersion":"other.example.com/v1"}`)...)
	}
	return out
}

// nullify adds a null under every key of every map below the root and sets
// every other scalar it finds in a map to null.
func nullify(x any, depth int) {
	switch x := x.(type) {
	case map[string]any:
		i := 0
		for k, e := range x {
			switch e.(type) {
			case map[string]any, []any:
				nullify(e, depth+1)
			default:
				if depth > 0 && i%2 == 0 {
					x[k] = nil
				}
			}
			i++
		}
		if depth > 0 {
			x["nullField"] = nil
		}
	case []any:
		for _, e := range x {
			nullify(e, depth+1)
		}
	}
}

// checkReadFast reads raw at every version of crd with and without the fast
// paths and fails on any difference. It returns how many reads took the
// fast decode and how many left out the target coercion.
func checkReadFast(t *testing.T, crd *CRD, name string, raw []byte) (decoded, same int) {
	t.Helper()
	for _, v := range crd.Versions() {
		opts := ReadOptions{Key: "/k", Revision: 3}
		got, err := v.readWith(raw, nil, opts, true)
		want, werr := v.readWith(raw, nil, opts, false)
		if err := sameReadResult(got, err, want, werr); err != nil {
			t.Fatalf("%s: ReadJSON(%s) at %s with the fast paths: %v", crd.Name(), name, v.Name(), err)
		}
		r := &reading{v: v, raw: raw, fast: true}
		if r.decodePruned() {
			decoded++
		}
		r = &reading{v: v, opts: opts, raw: raw, fast: true}
		r.served()
		r.decode()
		r.coerceStored()
		r.defaultStored()
		r.convert()
		if r.err == nil && r.same && v.targetCoercionIsIdentity() {
			same++
		}
	}
	return decoded, same
}

func sameReadResult(got map[string]any, err error, want map[string]any, werr error) error {
	if (err == nil) != (werr == nil) {
		return fmt.Errorf("error %v, want %v", err, werr)
	}
	if err != nil {
		as, _ := err.(apierrors.APIStatus)
		bs, _ := werr.(apierrors.APIStatus)
		if err.Error() != werr.Error() || (as == nil) != (bs == nil) || (as != nil && !reflect.DeepEqual(as.Status(), bs.Status())) {
			return fmt.Errorf("error %v, want %v", err, werr)
		}
		return nil
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("= %s, want %s", jsonOf(got), jsonOf(want))
	}
	return nil
}

// TestReadFastCorpus reads every corpus object of a multi-version CRD, as
// stored at every version and in every variant, at every version, with and
// without the fast paths: the results must be the same, and the fast paths
// must be taken for the plain objects.
func TestReadFastCorpus(t *testing.T) {
	crds, objs := multiVersionObjects(t)
	var reads, decoded, same, plain int
	for _, c := range crds {
		for i, obj := range objs[c] {
			for name, raw := range storedVariants(t, c, obj) {
				d, s := checkReadFast(t, c, fmt.Sprintf("%d/%s", i, name), raw)
				reads += len(c.Versions())
				decoded += d
				same += s
				if c.Version(name) != nil {
					plain += len(c.Versions())
					if d != len(c.Versions()) {
						t.Errorf("%s: ReadJSON(%d/%s) took the fast decode %d times in %d", c.Name(), i, name, d, len(c.Versions()))
					}
				}
			}
		}
	}
	if same == 0 {
		t.Error("no read left out the target coercion")
	}
	t.Logf("%d reads: %d fast decodes (%d of plain objects), %d target coercions left out", reads, decoded, plain, same)
}

// multiVersionObjects are multiVersionCRDs and, for each, its corpus
// objects and a small object of its own.
func multiVersionObjects(t testing.TB) ([]*CRD, map[*CRD][]map[string]any) {
	crds := multiVersionCRDs(t)
	byGK := map[string]*CRD{}
	for _, c := range crds {
		byGK[c.Group()+" "+c.Kind()] = c
	}
	objs := map[*CRD][]map[string]any{}
	if root, ok := corpus.Root(); ok {
		docs, err := corpus.Walk(filepath.Join(root, "objects"))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			var obj map[string]any
			if kjson.UnmarshalCaseSensitivePreserveInts(d.JSON, &obj) != nil {
				continue
			}
			gvk := objectGVK(obj)
			if c := byGK[gvk.Group+" "+gvk.Kind]; c != nil {
				objs[c] = append(objs[c], obj)
			}
		}
	}
	for _, c := range crds {
		objs[c] = append(objs[c], map[string]any{"metadata": map[string]any{"name": "a", "namespace": "n", "labels": map[string]any{"a": "b"}},
			"spec": map[string]any{"replicas": int64(2), "size": int64(1), "x": []any{map[string]any{"y": nil}}}})
	}
	return crds, objs
}

// TestConvertFastCorpus converts every variant of TestReadFastCorpus's
// objects (decoded) to every version with and without convertNone.
func TestConvertFastCorpus(t *testing.T) {
	var n, fast int
	crds, objs := multiVersionObjects(t)
	for _, c := range crds {
		for i, obj := range objs[c] {
			for name, raw := range storedVariants(t, c, obj) {
				var m map[string]any
				if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &m); err != nil {
					t.Fatal(err)
				}
				for _, v := range c.Versions() {
					n++
					if checkConvertFast(t, c, m, v.Name()) {
						fast++
					} else if !strings.HasSuffix(name, "+nokind") {
						t.Errorf("%s: Convert(%d/%s) to %s did not take convertNone", c.Name(), i, name, v.Name())
					}
				}
			}
		}
	}
	t.Logf("%d conversions, %d through convertNone", n, fast)
}

// checkConvertFast converts obj to version with and without convertNone
// and fails on any difference; it reports whether convertNone answered.
func checkConvertFast(t *testing.T, c *CRD, obj map[string]any, version string) bool {
	t.Helper()
	before := jsonOf(obj)
	got, err, ok := c.convertNone(obj, version)
	if jsonOf(obj) != before {
		t.Fatalf("%s: convertNone(%s) modified its input", c.Name(), before)
	}
	if !ok {
		return false
	}
	want, werr := c.convert(obj, false, version, convertOptions(nil))
	if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: convertNone(%s, %s) = %s %v, want %s %v", c.Name(), before, version, jsonOf(got), err, jsonOf(want), werr)
	}
	return true
}

func TestConvertNoneFallsBack(t *testing.T) {
	crd := loadYAML(t, twoVersions)
	for _, obj := range []map[string]any{
		{"apiVersion": "example.com/v1", "kind": "Thing", "spec": map[string]any{"size": 2}},
		{"apiVersion": "example.com/v1", "kind": "Thing", "spec": map[string]any{"size": float32(2)}},
		{"apiVersion": "example.com/v1", "kind": "Thing", "spec": map[string]any(nil)},
		{"apiVersion": "example.com/v1", "kind": "Thing", "spec": []any(nil)},
		{"apiVersion": "example.com/v1", "kind": "Thing", "spec": struct{}{}},
		{"apiVersion": "example.com/v1", "kind": "Other", "spec": map[string]any{}},
		{"apiVersion": "example.com/v1", "spec": map[string]any{}},
	} {
		if checkConvertFast(t, crd, obj, "v2") {
			t.Errorf("Convert(%#v) took convertNone", obj)
		}
	}
	deep := map[string]any{}
	for i, m := 0, deep; i <= maxWalkDepth; i++ {
		n := map[string]any{}
		m["a"] = n
		m = n
	}
	if checkConvertFast(t, crd, map[string]any{"apiVersion": "example.com/v1", "kind": "Thing", "spec": deep}, "v2") {
		t.Error("Convert of an object nested too deep took convertNone")
	}
	if !checkConvertFast(t, crd, map[string]any{"apiVersion": "example.com/v1", "kind": "Thing", "metadata": map[string]any{"name": "a", "labels": nil},
		"spec": map[string]any{"size": int64(2), "x": nil}, "status": nil}, "v2") {
		t.Error("Convert of a plain object did not take convertNone")
	}
}

// FuzzReadFast compares the read path with and without its fast paths on
// arbitrary stored bytes, for the example CRDs and the corpus CRDs with
// more than one version.
func FuzzReadFast(f *testing.F) {
	crds := multiVersionCRDs(f)
	f.Add(uint8(0), []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","generation":0},"spec":{"cronSpec":"* * * * */5","replicas":3,"x":null}}`))
	f.Add(uint8(1), []byte(`{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"a","labels":{"a":1}},"spec":{"size":null,"bogus":[1,{"b":null}]}}`))
	f.Add(uint8(1), []byte(`{"apiVersion" : "example.com/v0","kind":"Thing","metadata":{"name":"a"},"spec":{"old":null}}`))
	f.Add(uint8(1), []byte(`{"kind":"Thing","apiVersion":"example.com/v2","metadata":{"name":"a"},"apiVersion":"example.com/v1"}`))
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		checkReadFast(t, crds[int(which)%len(crds)], "fuzz", raw)
	})
}

// FuzzConvertFast compares Convert with and without convertNone on
// arbitrary decoded objects.
func FuzzConvertFast(f *testing.F) {
	crds := multiVersionCRDs(f)
	f.Add(uint8(0), uint8(1), []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","labels":{"a":"b"}},"spec":{"cronSpec":"* * * * */5","replicas":3,"x":null}}`))
	f.Add(uint8(1), uint8(2), []byte(`{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"a","labels":{"a":1}},"spec":{"size":null,"bogus":[1,{"b":null}]}}`))
	f.Add(uint8(1), uint8(0), []byte(`{"apiVersion":"example.com/v9","kind":"Thing","metadata":[]}`))
	f.Fuzz(func(t *testing.T, which, to uint8, raw []byte) {
		var obj map[string]any
		if kjson.UnmarshalCaseSensitivePreserveInts(raw, &obj) != nil || obj == nil {
			return
		}
		c := crds[int(which)%len(crds)]
		vs := c.Versions()
		checkConvertFast(t, c, obj, vs[int(to)%len(vs)].Name())
	})
}
