package benchmarks

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/crdkit/crdkit"
)

// updateCase is a corpus object stored for real (live, as GET returns it)
// and an update of it that changes one field under spec.
type updateCase struct {
	createCase
	live, obj map[string]any
	field     string
}

// updateCases makes, for each corpus object crdkit accepts, the live object
// (crdkit's create result with the fields a server fills) and the first
// one-field spec change crdkit also accepts as an update (a label change
// where no spec value can change alone).
func updateCases(tb testing.TB) []updateCase {
	var out []updateCase
	for _, c := range createCases(tb) {
		res := c.version.Create(c.obj, crdkit.CreateOptions{FieldValidation: crdkit.Ignore, ManagedFields: benchTime})
		if res.Err != nil {
			continue
		}
		live := res.Object
		md := live["metadata"].(map[string]any)
		md["uid"], md["resourceVersion"], md["creationTimestamp"] = "6a2e9b8e-0000-4000-8000-000000000001", "7", "2026-01-01T00:00:00Z"
		spec, _ := live["spec"].(map[string]any)
		found := false
		for _, p := range scalarLeaves(spec, nil) {
			obj := runtime.DeepCopyJSON(live)
			setLeaf(obj["spec"].(map[string]any), p)
			if r := c.version.Update(obj, live, crdkit.UpdateOptions{FieldValidation: crdkit.Ignore, ManagedFields: omitManaged}); r.Err == nil {
				out = append(out, updateCase{c, live, obj, fmt.Sprint(p)})
				found = true
				break
			}
		}
		if !found {
			// No spec value can change alone (immutable fields, patterns,
			// rules tying fields together): a label change instead.
			obj := runtime.DeepCopyJSON(live)
			md := obj["metadata"].(map[string]any)
			labels, _ := md["labels"].(map[string]any)
			if labels == nil {
				labels = map[string]any{}
				md["labels"] = labels
			}
			labels["crdkit.example.com/bench"] = "changed"
			out = append(out, updateCase{c, live, obj, "metadata.labels"})
		}
	}
	return out
}

// scalarLeaves lists the paths of the string, integer and boolean values
// under m, in sorted key order.
func scalarLeaves(m map[string]any, at []string) [][]string {
	var out [][]string
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := append(slices.Clone(at), k)
		switch x := m[k].(type) {
		case string, int64, bool:
			out = append(out, p)
		case map[string]any:
			out = append(out, scalarLeaves(x, p)...)
		}
	}
	return out
}

func setLeaf(m map[string]any, p []string) {
	for _, k := range p[:len(p)-1] {
		m = m[k].(map[string]any)
	}
	switch x := m[p[len(p)-1]].(type) {
	case string:
		m[p[len(p)-1]] = x + "x"
	case int64:
		m[p[len(p)-1]] = x + 1
	case bool:
		m[p[len(p)-1]] = !x
	}
}

// upstreamUpdate is the server's update pipeline from a decoded object:
// the decoder's coercion and request-version defaults (upstreamCreate's
// first steps), then rest.BeforeUpdate with the strategy (generation,
// PrepareForUpdate, validateCommonFields and the strategy's ValidateUpdate:
// ratcheted OpenAPI validation, embedded resources, list types, CEL rules
// with the old object), without storage.
func upstreamUpdate(c updateCase, obj, live map[string]any) error {
	coerceAndDefault(c.createCase, obj)
	ns, _, _ := unstructured.NestedString(live, "metadata", "namespace")
	ctx := genericapirequest.WithNamespace(context.Background(), ns)
	st := c.strategy.(rest.RESTUpdateStrategy)
	return rest.BeforeUpdate(st, ctx, &unstructured.Unstructured{Object: obj}, &unstructured.Unstructured{Object: live})
}

// BenchmarkUpdate runs the whole update pipeline on a one-field spec change
// of each corpus object: crdkit's Version.Update (which copies its input,
// reads live in place and does the store-and-read-back) against the same
// steps of the server (on a copy of the new object made inside the loop;
// the server reads live from storage, so it is not copied).
func BenchmarkUpdate(b *testing.B) {
	for _, c := range updateCases(b) {
		b.Run(c.name+"/crdkit", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if res := c.version.Update(c.obj, c.live, crdkit.UpdateOptions{FieldValidation: crdkit.Ignore, ManagedFields: omitManaged}); res.Object == nil {
					b.Fatal(res.Err)
				}
			}
		})
		b.Run(c.name+"/upstream", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := upstreamUpdate(c, runtime.DeepCopyJSON(c.obj), c.live); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestUpdateBenchInputs checks that the server's steps accept every update
// crdkit accepts, and set the same generation.
func TestUpdateBenchInputs(t *testing.T) {
	cases := updateCases(t)
	if len(cases) == 0 {
		t.Skip("no corpus objects")
	}
	for _, c := range cases {
		res := c.version.Update(c.obj, c.live, crdkit.UpdateOptions{FieldValidation: crdkit.Ignore, ManagedFields: omitManaged})
		obj := runtime.DeepCopyJSON(c.obj)
		if err := upstreamUpdate(c, obj, runtime.DeepCopyJSON(c.live)); err != nil {
			t.Errorf("%s (%s): crdkit accepts, upstream: %v", c.name, c.field, err)
			continue
		}
		got, _, _ := unstructured.NestedInt64(res.Object, "metadata", "generation")
		want, _, _ := unstructured.NestedInt64(obj, "metadata", "generation")
		if got != want {
			t.Errorf("%s (%s): generation %d, upstream %d", c.name, c.field, got, want)
		}
	}
}
