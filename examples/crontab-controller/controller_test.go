package controller

import (
	"context"
	"os"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crdkit/crdkit/crfake"
)

// newClient is the one line that differs from a test on controller-runtime's
// fake client: crfake's builder, given the CRD.
func newClient(t *testing.T, objs ...client.Object) client.WithWatch {
	t.Helper()
	crd, err := os.ReadFile("crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return crfake.NewClientBuilder().WithScheme(NewScheme()).WithCRDYAML(crd).WithObjects(objs...).Build()
}

// newPlainFake is controller-runtime's fake client, for contrast.
func newPlainFake(objs ...client.Object) client.WithWatch {
	return fake.NewClientBuilder().WithScheme(NewScheme()).WithObjects(objs...).Build()
}

func cronTab(name, cronSpec string) *CronTab {
	return &CronTab{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: CronTabSpec{CronSpec: cronSpec}}
}

func reconcile(t *testing.T, r *Reconciler, name string) error {
	t.Helper()
	_, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: name}})
	return err
}

// The reconciler reads spec.replicas, which the CRD defaults: the server
// fills it in on create, the plain fake client does not.
func TestDefaultedReplicas(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	if err := c.Create(ctx, cronTab("nightly", "0 3 * * *")); err != nil {
		t.Fatal(err)
	}
	r := &Reconciler{Client: c}
	if err := reconcile(t, r, "nightly"); err != nil {
		t.Fatalf("Reconcile = %v", err)
	}
	got := &CronTab{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "nightly"}, got); err != nil {
		t.Fatal(err)
	}
	if got.Status.Scheduled != 1 {
		t.Errorf("status.scheduled = %d, want 1 (the default)", got.Status.Scheduled)
	}

	pf := newPlainFake()
	if err := pf.Create(ctx, cronTab("nightly", "0 3 * * *")); err != nil {
		t.Fatal(err)
	}
	if err := reconcile(t, &Reconciler{Client: pf}, "nightly"); err == nil {
		t.Error("plain fake: Reconcile = nil, want the error of a missing default (if this passes, the fake now defaults)")
	}
}

// A status written through Update is dropped by the server when the CRD
// has the status subresource; the plain fake client (without
// WithStatusSubresource, which a test must remember) keeps it, hiding the
// bug of a reconciler that writes status with Update.
func TestStatusThroughUpdateIsDropped(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		c         client.Client
		wantPhase string
	}{
		{"crfake", newClient(t), ""},
		{"plain fake", newPlainFake(), "Running"},
	} {
		ct := cronTab("a", "* * * * *")
		if err := tc.c.Create(ctx, ct); err != nil {
			t.Fatal(err)
		}
		ct.Status.Phase = "Running"
		if err := tc.c.Update(ctx, ct); err != nil {
			t.Fatal(err)
		}
		got := &CronTab{}
		if err := tc.c.Get(ctx, client.ObjectKeyFromObject(ct), got); err != nil {
			t.Fatal(err)
		}
		if got.Status.Phase != tc.wantPhase {
			t.Errorf("%s: status.phase after Update = %q, want %q", tc.name, got.Status.Phase, tc.wantPhase)
		}
	}
}

// An object the schema refuses: the server answers 422 with the field
// errors; the plain fake client stores it.
func TestInvalidObjectRefused(t *testing.T) {
	ctx := context.Background()
	bad := cronTab("bad", "every night")
	err := newClient(t).Create(ctx, bad)
	if !apierrors.IsInvalid(err) {
		t.Fatalf("Create(invalid) = %v, want Invalid", err)
	}
	want := `CronTab.stable.example.com "bad" is invalid: spec.cronSpec: Invalid value: "every night": spec.cronSpec in body should match '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$'`
	if err.Error() != want {
		t.Errorf("Create(invalid) = %s, want %s", err, want)
	}
	if err := newPlainFake().Create(ctx, cronTab("bad", "every night")); err != nil {
		t.Errorf("plain fake: Create(invalid) = %v, want nil (if this fails, the fake now validates)", err)
	}
}

// The finalizer flow as the server runs it: DELETE keeps the object with a
// deletion timestamp and bumps its generation; the reconciler cleans up and
// removes its finalizer, and that update deletes the object. The plain fake
// client keeps generation at 0 throughout.
func TestFinalizerFlow(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, cronTab("job", "*/5 * * * *"))
	r := &Reconciler{Client: c}
	if err := reconcile(t, r, "job"); err != nil {
		t.Fatal(err)
	}
	ct := &CronTab{}
	key := client.ObjectKey{Namespace: "default", Name: "job"}
	if err := c.Get(ctx, key, ct); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, ct); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, key, ct); err != nil {
		t.Fatalf("Get(being deleted) = %v", err)
	}
	if ct.DeletionTimestamp == nil || ct.Generation != 2 {
		t.Errorf("after Delete: deletionTimestamp %v generation %d, want set and 2", ct.DeletionTimestamp, ct.Generation)
	}
	// A finalizer cannot be added to an object being deleted.
	ct.Finalizers = append(ct.Finalizers, "example.com/late")
	if err := c.Update(ctx, ct); !apierrors.IsInvalid(err) {
		t.Errorf("Update(add finalizer while deleting) = %v, want Invalid", err)
	}
	if err := reconcile(t, r, "job"); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, key, ct); !apierrors.IsNotFound(err) {
		t.Errorf("Get(after the finalizer) = %v, want NotFound", err)
	}
	if len(r.CleanedUp) != 1 {
		t.Errorf("cleaned up %v, want default/job once", r.CleanedUp)
	}

	pf := newPlainFake(cronTab("job", "*/5 * * * *"))
	pct := &CronTab{}
	if err := pf.Get(ctx, key, pct); err != nil {
		t.Fatal(err)
	}
	pct.Finalizers = []string{Finalizer}
	if err := pf.Update(ctx, pct); err != nil {
		t.Fatal(err)
	}
	if err := pf.Delete(ctx, pct); err != nil {
		t.Fatal(err)
	}
	if err := pf.Get(ctx, key, pct); err != nil || pct.Generation == 2 {
		t.Errorf("plain fake: Get after Delete = %v, generation %d, want the fake's generation (not the server's 2)", err, pct.Generation)
	}
}
