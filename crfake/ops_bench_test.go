package crfake_test

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
