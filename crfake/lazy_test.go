package crfake_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/crfake"
)

// widgetCRD is written in block style, so that its head is read from its
// text and it compiles on first use.
const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    kind: Widget
    listKind: WidgetList
    plural: widgets
    singular: widget
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: 3}
`

// gadgetCRD is JSON, cluster-scoped.
const gadgetCRD = `{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {"name": "gadgets.example.com"},
 "spec": {"group": "example.com", "scope": "Cluster",
  "names": {"kind": "Gadget", "listKind": "GadgetList", "plural": "gadgets", "singular": "gadget"},
  "versions": [{"name": "v1", "served": true, "storage": true,
   "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}}`

// brokenCRD is refused by the server: its schema is not structural.
var brokenCRD = strings.Replace(strings.NewReplacer("widgets", "brokens", "Widget", "Broken", "widget", "broken").Replace(widgetCRD),
	"        type: object\n", "", 1)

func widget(kind, name, ns string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("example.com/v1")
	u.SetKind(kind)
	u.SetName(name)
	u.SetNamespace(ns)
	u.Object["spec"] = map[string]any{}
	return u
}

// A CRD document compiles on first use of its kind; a refused one gives,
// on first use, the error the server's CRD create gives.
func TestLazyCompile(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := crfake.NewClientBuilder().WithCRDYAML([]byte(widgetCRD), []byte(gadgetCRD), []byte(brokenCRD)).BuildClient()
	if err != nil {
		t.Fatalf("BuildClient() = %v, want a client (the refused CRD refuses its first use)", err)
	}
	for _, k := range []string{"Widget", "Gadget", "Broken"} {
		if crfake.Compiled(c, "example.com", k) {
			t.Errorf("Compiled(%s) after Build = true, want false", k)
		}
	}
	w := widget("Widget", "w", "default")
	if err := c.Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	if size, _, _ := unstructured.NestedInt64(w.Object, "spec", "size"); size != 3 {
		t.Errorf("Create(widget).spec.size = %d, want the default 3", size)
	}
	if !crfake.Compiled(c, "example.com", "Widget") || crfake.Compiled(c, "example.com", "Gadget") {
		t.Errorf("after a Widget's create: Compiled(Widget), Compiled(Gadget) = %v, %v, want true, false",
			crfake.Compiled(c, "example.com", "Widget"), crfake.Compiled(c, "example.com", "Gadget"))
	}
	if err := c.Create(ctx, widget("Gadget", "g", "")); err != nil {
		t.Fatal(err)
	}
	_, loadErr := crdkit.Load([]byte(brokenCRD))
	if loadErr == nil {
		t.Fatal("crdkit.Load(brokenCRD) = nil error, want the server's refusal")
	}
	for range 2 {
		err := c.Create(ctx, widget("Broken", "b", "default"))
		if !apierrors.IsInvalid(err) || err == nil || !strings.HasSuffix(err.Error(), loadErr.Error()) {
			t.Errorf("Create(Broken) = %v, want the CRD's refusal %v", err, loadErr)
		}
	}
	// The RESTMapper knows the kind from its head.
	if _, err := c.RESTMapper().RESTMapping(widget("Broken", "", "").GroupVersionKind().GroupKind(), "v1"); err != nil {
		t.Errorf("RESTMapping(Broken) = %v, want the mapping of its head", err)
	}
	// A CRD without singular: the server defaults it to the kind in lower case.
	gc, err := crfake.NewClientBuilder().WithCRDYAML([]byte(strings.Replace(gadgetCRD, `, "singular": "gadget"`, "", 1))).BuildClient()
	if err != nil {
		t.Fatal(err)
	}
	if gvk, err := gc.RESTMapper().KindFor(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadget"}); err != nil || gvk.Kind != "Gadget" {
		t.Errorf("KindFor(gadget) = %v, %v, want Gadget", gvk, err)
	}
}

// A document whose head is not read from its text compiles at Build, and
// Build reports its refusal as before.
func TestBuildCompilesUnreadHeads(t *testing.T) {
	anchored := strings.Replace(brokenCRD, "  names:\n", "  names: &n\n", 1)
	_, loadErr := crdkit.Load([]byte(anchored))
	_, err := crfake.NewClientBuilder().WithCRDYAML([]byte(anchored)).BuildClient()
	if err == nil || loadErr == nil || !strings.HasSuffix(err.Error(), loadErr.Error()) {
		t.Errorf("BuildClient(anchored refused CRD) = %v, want %v", err, loadErr)
	}
	_, err = crfake.NewClientBuilder().WithCRDYAML([]byte(widgetCRD), []byte(strings.Replace(widgetCRD, "plural: widgets", "plural: widgetz", 1))).BuildClient()
	if err == nil || !strings.Contains(err.Error(), "two CRDs define Widget.example.com") {
		t.Errorf("BuildClient(two Widget CRDs) = %v, want two CRDs define Widget.example.com", err)
	}
}

// The CRDs of initial objects compile at Build; only those.
func TestInitialObjectsCompile(t *testing.T) {
	c, err := crfake.NewClientBuilder().WithCRDYAML([]byte(widgetCRD), []byte(gadgetCRD)).
		WithObjects(widget("Widget", "w", "default")).BuildClient()
	if err != nil {
		t.Fatal(err)
	}
	if !crfake.Compiled(c, "example.com", "Widget") || crfake.Compiled(c, "example.com", "Gadget") {
		t.Errorf("Compiled(Widget), Compiled(Gadget) = %v, %v, want true, false",
			crfake.Compiled(c, "example.com", "Widget"), crfake.Compiled(c, "example.com", "Gadget"))
	}
	_, err = crfake.NewClientBuilder().WithCRDYAML([]byte(brokenCRD)).WithObjects(widget("Broken", "b", "default")).BuildClient()
	if !apierrors.IsInvalid(err) {
		t.Errorf("BuildClient(an object of a refused CRD) = %v, want the CRD's refusal", err)
	}
}

// Reconcilers that use a kind first at the same time compile its CRD
// once; the race detector finds nothing.
func TestConcurrentFirstUse(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b := crfake.NewClientBuilder().WithCRDYAML([]byte(widgetCRD), []byte(gadgetCRD), []byte(brokenCRD))
	for range 2 { // two clients of one builder share the compilation
		c, err := b.BuildClient()
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				kind := [...]string{"Widget", "Gadget", "Broken"}[i%3]
				ns := "default"
				if kind == "Gadget" {
					ns = ""
				}
				err := c.Create(ctx, widget(kind, fmt.Sprintf("o%d", i), ns))
				if (err != nil) != (kind == "Broken") {
					t.Errorf("Create(%s o%d) = %v", kind, i, err)
				}
				l := &unstructured.UnstructuredList{}
				l.SetAPIVersion("example.com/v1")
				l.SetKind(kind + "List")
				if err := c.List(ctx, l, client.InNamespace(ns)); (err != nil) != (kind == "Broken") {
					t.Errorf("List(%s) = %v", kind, err)
				}
			}()
		}
		wg.Wait()
	}
}

// FuzzLazyCRD: whatever the CRD document, Build and the first requests
// for the kind its head names give a client or an error, never a panic;
// a request for a kind whose CRD is refused gives the refusal.
func FuzzLazyCRD(f *testing.F) {
	f.Add([]byte(widgetCRD))
	f.Add([]byte(gadgetCRD))
	f.Add([]byte(brokenCRD))
	f.Fuzz(func(t *testing.T, doc []byte) {
		c, err := crfake.NewClientBuilder().WithCRDYAML(doc).BuildClient()
		if err != nil {
			return
		}
		_, loadErr := crdkit.Load(doc)
		h, ok := crfake.Head(c)
		if !ok {
			t.Fatalf("BuildClient(%q) built a client without a CRD", doc)
		}
		ctx := context.Background()
		for _, v := range h.Spec.Versions {
			if !v.Served {
				continue
			}
			u := widget(h.Spec.Names.Kind, "x", "default")
			u.SetAPIVersion(h.Spec.Group + "/" + v.Name)
			err := c.Create(ctx, u)
			if loadErr != nil && (err == nil || !strings.HasSuffix(err.Error(), loadErr.Error())) {
				t.Errorf("Create(%s) = %v, want the CRD's refusal %v", h.Spec.Names.Kind, err, loadErr)
			}
		}
	})
}
