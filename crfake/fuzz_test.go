package crfake_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// FuzzListContinue lists pages with arbitrary continue tokens (as given,
// and as the JSON inside the server's base64 form), resourceVersions and
// limits, between writes: every list must answer, never panic or hang.
func FuzzListContinue(f *testing.F) {
	f.Add(`{"v":"meta.k8s.io/v1","rv":3,"start":"b\u0000"}`, "", int64(2))
	f.Add(`{"v":"meta.k8s.io/v1","rv":-1,"start":"/../a"}`, "0", int64(1))
	f.Add(`{"v":"meta.k8s.io/v1","rv":99999999999,"start":"zz"}`, "4", int64(0))
	c, err := newClientB()
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	for _, n := range []string{"a", "b", "c"} {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("stable.example.com/v1")
		u.SetKind("CronTab")
		u.SetName(n)
		u.SetNamespace("default")
		if err := c.Create(ctx, u); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, tok, rv string, limit int64) {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("stable.example.com/v1")
		u.SetKind("CronTab")
		u.SetName("b")
		u.SetNamespace("default")
		_ = c.Patch(ctx, u, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"x":"`+fmt.Sprint(len(tok)%7)+`"}}}`)))
		for _, cont := range []string{tok, base64.RawURLEncoding.EncodeToString([]byte(tok))} {
			for _, ns := range []string{"default", ""} {
				l := &unstructured.UnstructuredList{}
				l.SetAPIVersion("stable.example.com/v1")
				l.SetKind("CronTabList")
				_ = c.List(ctx, l, client.InNamespace(ns), client.Limit(limit), client.Continue(cont),
					&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: rv}})
			}
		}
	})
}
