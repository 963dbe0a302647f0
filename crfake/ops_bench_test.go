package crfake_test

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// BenchmarkOps is 1,000 operations on CronTabs: 250 rounds of create, get,
// update and list of the namespace (conformance/servertest's
// BenchmarkCRClientOps compares them with the server).
func BenchmarkOps(b *testing.B) {
	for b.Loop() {
		c, err := newClientB()
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		for i := range 250 {
			u := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "stable.example.com/v1", "kind": "CronTab",
				"metadata": map[string]any{"name": fmt.Sprintf("c%d", i), "namespace": "ns"},
				"spec":     map[string]any{"cronSpec": "* * * * *", "image": "a"},
			}}
			if err := c.Create(ctx, u); err != nil {
				b.Fatal(err)
			}
			g := &unstructured.Unstructured{}
			g.SetGroupVersionKind(u.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKeyFromObject(u), g); err != nil {
				b.Fatal(err)
			}
			if err := unstructured.SetNestedField(g.Object, int64(2), "spec", "replicas"); err != nil {
				b.Fatal(err)
			}
			if err := c.Update(ctx, g); err != nil {
				b.Fatal(err)
			}
			l := &unstructured.UnstructuredList{}
			l.SetAPIVersion("stable.example.com/v1")
			l.SetKind("CronTabList")
			if err := c.List(ctx, l, client.InNamespace("ns")); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkListPages is a paginated list of 1,000 CronTabs in pages of
// 100, with one object updated between the first page and the rest (the
// later pages read the first page's snapshot).
func BenchmarkListPages(b *testing.B) {
	c, err := newClientB()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for i := range 1000 {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "stable.example.com/v1", "kind": "CronTab",
			"metadata": map[string]any{"name": fmt.Sprintf("c%04d", i), "namespace": "ns"},
			"spec":     map[string]any{"cronSpec": "* * * * *", "image": "a"},
		}}
		if err := c.Create(ctx, u); err != nil {
			b.Fatal(err)
		}
	}
	n := int64(0)
	for b.Loop() {
		cont, items := "", 0
		for page := 0; ; page++ {
			l := &unstructured.UnstructuredList{}
			l.SetAPIVersion("stable.example.com/v1")
			l.SetKind("CronTabList")
			if err := c.List(ctx, l, client.InNamespace("ns"), client.Limit(100), client.Continue(cont)); err != nil {
				b.Fatal(err)
			}
			items += len(l.Items)
			if page == 0 {
				n++
				p := []byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, 1+n%10))
				u := &unstructured.Unstructured{}
				u.SetGroupVersionKind(l.Items[0].GroupVersionKind())
				u.SetNamespace("ns")
				u.SetName("c0500")
				if err := c.Patch(ctx, u, client.RawPatch(types.MergePatchType, p)); err != nil {
					b.Fatal(err)
				}
			}
			if cont = l.GetContinue(); cont == "" {
				break
			}
		}
		if items != 1000 {
			b.Fatalf("pages listed %d items, want 1000", items)
		}
	}
}
