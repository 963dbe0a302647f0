package crfake_test

import (
	"context"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestAnswersAreCopies checks that the caller owns what it is given and
// what it gave: changing an object after Create or Update, or an answer of
// Get or an item of List (its maps and slices, to the leaves of
// managedFields), changes neither the store nor any other answer, and a
// later write changes no earlier answer.
func TestAnswersAreCopies(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	newCT := func(name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "stable.example.com/v1", "kind": "CronTab",
			"metadata": map[string]any{"name": name, "namespace": "default", "labels": map[string]any{"a": "b"}},
			"spec":     map[string]any{"cronSpec": "* * * * *", "image": "i"},
		}}
	}
	get := func(name string) *unstructured.Unstructured {
		t.Helper()
		g := &unstructured.Unstructured{}
		g.SetAPIVersion("stable.example.com/v1")
		g.SetKind("CronTab")
		if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, g); err != nil {
			t.Fatalf("Get(%s) = %v", name, err)
		}
		return g
	}
	list := func() *unstructured.UnstructuredList {
		t.Helper()
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion("stable.example.com/v1")
		l.SetKind("CronTabList")
		if err := c.List(ctx, l, client.InNamespace("default")); err != nil {
			t.Fatalf("List = %v", err)
		}
		return l
	}
	for _, n := range []string{"a", "b"} {
		u := newCT(n)
		if err := c.Create(ctx, u); err != nil {
			t.Fatalf("Create(%s) = %v", n, err)
		}
		mutate(u.Object)
	}
	want := map[string]*unstructured.Unstructured{"a": get("a"), "b": get("b")}
	check := func(when string) {
		t.Helper()
		for n, w := range want {
			if g := get(n); !reflect.DeepEqual(g.Object, w.Object) {
				t.Errorf("%s: Get(%s) = %v, want %v", when, n, g.Object, w.Object)
			}
		}
		l := list()
		if len(l.Items) != 2 || !reflect.DeepEqual(l.Items[0].Object, want["a"].Object) || !reflect.DeepEqual(l.Items[1].Object, want["b"].Object) {
			t.Errorf("%s: List = %v, want a and b as Get gave them", when, l.Items)
		}
	}
	check("after changing the created objects")

	g := get("a")
	mutate(g.Object)
	check("after changing a Get answer")

	l := list()
	for i := range l.Items {
		mutate(l.Items[i].Object)
	}
	mutate(l.Object)
	check("after changing a List's items")

	// A write after answers were given changes none of them.
	before, gotList := get("a"), list()
	keepGet, keepList := before.DeepCopy(), gotList.DeepCopy()
	up := get("a")
	if err := unstructured.SetNestedField(up.Object, "*/5 * * * *", "spec", "cronSpec"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(up.Object, "c", "metadata", "labels", "a"); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(ctx, up); err != nil {
		t.Fatalf("Update = %v", err)
	}
	if !reflect.DeepEqual(before.Object, keepGet.Object) || !reflect.DeepEqual(gotList.Items, keepList.Items) {
		t.Errorf("an Update changed earlier answers: Get %v, want %v", before.Object, keepGet.Object)
	}
	want["a"] = get("a")
	if v, _, _ := unstructured.NestedString(want["a"].Object, "metadata", "labels", "a"); v != "c" {
		t.Fatalf("Update: labels.a = %q, want c", v)
	}
	mutate(up.Object)
	check("after changing an updated object")
}

// mutate changes every map and slice in v: each map gains a key, each
// slice's first element is replaced.
func mutate(v any) {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			mutate(e)
		}
		if x != nil {
			x["mutated"] = true
		}
	case []any:
		for _, e := range x {
			mutate(e)
		}
		if len(x) > 0 {
			x[0] = "mutated"
		}
	}
}
