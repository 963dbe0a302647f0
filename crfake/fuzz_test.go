package crfake_test

import (
	"context"
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// FuzzWrites sends arbitrary bodies through every write of the client:
// create, update, merge and JSON patches, apply, status update, delete. It
// must answer (an object or an error), never panic or hang.
func FuzzWrites(f *testing.F) {
	f.Add([]byte(`{"spec":{"cronSpec":"* * * * *","replicas":3}}`), []byte(`{"spec":{"replicas":2}}`))
	f.Add([]byte(`{"metadata":{"finalizers":["a"],"labels":{"x":"y"}},"spec":{"image":5}}`), []byte(`[{"op":"remove","path":"/metadata/finalizers"}]`))
	f.Add([]byte(`{"status":{"phase":"x"},"spec":null}`), []byte(`null`))
	c, err := newClientB()
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, body, patch []byte) {
		var m map[string]any
		if json.Unmarshal(body, &m) != nil || m == nil {
			m = map[string]any{}
		}
		u := &unstructured.Unstructured{Object: m}
		u.SetAPIVersion("stable.example.com/v1")
		u.SetKind("CronTab")
		u.SetName("fz")
		u.SetNamespace("default")
		_ = c.Create(ctx, u.DeepCopy())
		g := &unstructured.Unstructured{}
		g.SetAPIVersion("stable.example.com/v1")
		g.SetKind("CronTab")
		if c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "fz"}, g) == nil {
			up := u.DeepCopy()
			up.SetResourceVersion(g.GetResourceVersion())
			_ = c.Update(ctx, up)
			_ = c.Status().Update(ctx, up)
		}
		for _, pt := range []string{"application/merge-patch+json", "application/json-patch+json", "application/apply-patch+yaml"} {
			_ = c.Patch(ctx, u.DeepCopy(), client.RawPatch(types.PatchType(pt), patch), client.FieldOwner("fuzz"))
		}
		_ = c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u.DeepCopy()), client.FieldOwner("fuzz"), client.ForceOwnership)
		_ = c.Delete(ctx, u.DeepCopy())
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion("stable.example.com/v1")
		l.SetKind("CronTabList")
		_ = c.List(ctx, l)
		// Leave no object behind being deleted.
		if c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "fz"}, g) == nil {
			_ = c.Patch(ctx, g, client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`)))
			_ = c.Delete(ctx, g)
		}
	})
}
