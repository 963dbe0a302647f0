package benchmarks

import (
	"path/filepath"
	"reflect"
	"testing"

	upstream "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/objectmeta"
)

// metaCase is the metadata of one object, as the request decoder sees it.
type metaCase struct {
	name string
	obj  map[string]any // only "metadata"
}

// metaCases are the metadata of the corpus objects, plus metadata the
// plain-metadata shortcut does not cover (unknown fields, managed fields),
// which takes the server's own path on both sides.
func metaCases(tb testing.TB) []metaCase {
	root := benchCorpus(tb)
	var out []metaCase
	seen := map[string]int{}
	for _, doc := range corpusDocs(tb, filepath.Join(root, "objects")) {
		var obj map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, &obj); err != nil {
			tb.Fatal(err)
		}
		md, ok := obj["metadata"].(map[string]any)
		if !ok {
			continue
		}
		kind, _ := obj["kind"].(string)
		seen[kind]++
		if seen[kind] > 1 {
			continue // one object per kind
		}
		out = append(out, metaCase{name: kind, obj: map[string]any{"metadata": md}})
	}
	out = append(out, metaCase{name: "unknown-fields", obj: map[string]any{"metadata": map[string]any{
		"name": "web", "namespace": "prod", "labels": map[string]any{"app": "web", "tier": "front"},
		"colour": "blue", "annotations": map[string]any{"a": "b"},
	}}}, metaCase{name: "managed-fields", obj: map[string]any{"metadata": map[string]any{
		"name": "web", "namespace": "prod",
		"managedFields": []any{map[string]any{"manager": "kubectl", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:spec": map[string]any{}}}},
	}}})
	return out
}

// TestObjectMetaAgrees checks that the benchmark's two sides give the same
// metadata, so the benchmark compares equal work.
func TestObjectMetaAgrees(t *testing.T) {
	for _, c := range metaCases(t) {
		meta, found, unknown, err := objectmeta.Get(c.obj, objectmeta.GetOptions{ReturnUnknownFieldPaths: true, Prefix: "metadata"})
		umeta, ufound, uunknown, uerr := upstream.GetObjectMetaWithOptions(c.obj, upstream.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
		if (err == nil) != (uerr == nil) || found != ufound || !reflect.DeepEqual(meta, umeta) || !reflect.DeepEqual(unknown, uunknown) {
			t.Errorf("%s: Get = %v %v %q %v, upstream %v %v %q %v", c.name, meta, found, unknown, err, umeta, ufound, uunknown, uerr)
			continue
		}
		a, b := map[string]any{}, map[string]any{}
		if err := objectmeta.Set(a, meta); err != nil {
			t.Fatal(err)
		}
		if err := upstream.SetObjectMeta(b, umeta); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: Set = %v, upstream %v", c.name, a, b)
		}
	}
}

// BenchmarkObjectMeta is the request decoder's metadata round trip (strict
// Get, then Set) on the metadata of corpus objects.
func BenchmarkObjectMeta(b *testing.B) {
	for _, c := range metaCases(b) {
		b.Run(c.name+"/crdkit", func(b *testing.B) {
			dst := map[string]any{}
			b.ReportAllocs()
			for b.Loop() {
				meta, _, _, err := objectmeta.Get(c.obj, objectmeta.GetOptions{ReturnUnknownFieldPaths: true, Prefix: "metadata"})
				if err != nil {
					b.Fatal(err)
				}
				if err := objectmeta.Set(dst, meta); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/upstream", func(b *testing.B) {
			dst := map[string]any{}
			b.ReportAllocs()
			for b.Loop() {
				meta, _, _, err := upstream.GetObjectMetaWithOptions(c.obj, upstream.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
				if err != nil {
					b.Fatal(err)
				}
				if err := upstream.SetObjectMeta(dst, meta); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
