package crfake_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// TestDelegateApplyIsTheFakeClients: built-in kinds go to controller-
// runtime's fake client, whose type converters crfake builds on first use
// (lazyTypeConverter); server-side applies of a ConfigMap, a conflicting
// one and an unstructured object of a kind client-go does not know must
// give what the fake client gives with its own converters.
func TestDelegateApplyIsTheFakeClients(t *testing.T) {
	plain := fake.NewClientBuilder().WithScheme(newScheme()).Build()
	mine := newClient(t)
	run := func(c client.Client) string {
		ctx := context.Background()
		var out string
		ac := corev1ac.ConfigMap("cm", "default").WithData(map[string]string{"k": "v"})
		err := c.Apply(ctx, ac, client.FieldOwner("a"))
		out += fmt.Sprintf("apply a: %v\n", err)
		ac2 := corev1ac.ConfigMap("cm", "default").WithData(map[string]string{"k": "w"})
		err = c.Apply(ctx, ac2, client.FieldOwner("b"))
		out += fmt.Sprintf("apply b: %v\n", err)
		cm := &corev1.ConfigMap{}
		err = c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "cm"}, cm)
		for i := range cm.ManagedFields {
			cm.ManagedFields[i].Time = nil
		}
		out += fmt.Sprintf("get: %v %v %s\n", err, cm.Data, managed(cm.ManagedFields))
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("example.com/v1")
		u.SetKind("Thing")
		u.SetName("t")
		u.SetNamespace("default")
		err = c.Patch(ctx, u, client.Apply, client.FieldOwner("a"), client.ForceOwnership) //nolint:staticcheck // the fake client's SSA path for an unknown kind
		out += fmt.Sprintf("apply unknown kind: %v\n", err)
		return out
	}
	want, got := run(plain), run(mine)
	if got != want {
		t.Errorf("crfake's delegate:\n%s\nwant controller-runtime's fake client:\n%s", got, want)
	}
}

func managed(m []metav1.ManagedFieldsEntry) string {
	var s string
	for _, e := range m {
		s += fmt.Sprintf("[%s %s %s]", e.Manager, e.Operation, e.FieldsV1.String())
	}
	return s
}
