package crfake_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdkit/crdkit/crfake"
)

const cronTabCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, listKind: CronTabList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    selectableFields: [{jsonPath: .spec.image}]
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "!has(oldSelf.image) || self.image == oldSelf.image"
              message: image is immutable
            properties:
              cronSpec: {type: string, pattern: '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$'}
              image: {type: string}
              replicas: {type: integer, minimum: 1, maximum: 10, default: 1}
          status:
            type: object
            properties:
              phase: {type: string}
              replicas: {type: integer}
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

// CronTab is a controller's Go type for the CRD.
type CronTab struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CronTabSpec   `json:"spec,omitempty"`
	Status            CronTabStatus `json:"status,omitempty"`
}

type CronTabSpec struct {
	CronSpec string `json:"cronSpec,omitempty"`
	Image    string `json:"image,omitempty"`
	Replicas *int64 `json:"replicas,omitempty"`
}

type CronTabStatus struct {
	Phase    string `json:"phase,omitempty"`
	Replicas int64  `json:"replicas,omitempty"`
}

type CronTabList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CronTab `json:"items"`
}

func (c *CronTab) DeepCopyObject() runtime.Object {
	cp := *c
	c.ObjectMeta.DeepCopyInto(&cp.ObjectMeta)
	if c.Spec.Replicas != nil {
		r := *c.Spec.Replicas
		cp.Spec.Replicas = &r
	}
	return &cp
}

func (l *CronTabList) DeepCopyObject() runtime.Object {
	cp := *l
	cp.Items = make([]CronTab, len(l.Items))
	for i := range l.Items {
		cp.Items[i] = *l.Items[i].DeepCopyObject().(*CronTab)
	}
	return &cp
}

var gv = schema.GroupVersion{Group: "stable.example.com", Version: "v1"}

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	s.AddKnownTypes(gv, &CronTab{}, &CronTabList{})
	metav1.AddToGroupVersion(s, gv)
	return s
}

var t0 = time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)

func newClient(t *testing.T, objs ...client.Object) client.WithWatch {
	t.Helper()
	c, err := crfake.NewClientBuilder().WithScheme(newScheme()).WithCRDYAML([]byte(cronTabCRD)).
		WithClock(func() time.Time { return t0 }).WithObjects(objs...).BuildClient()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newClientB() (*crfake.Client, error) {
	return crfake.NewClientBuilder().WithScheme(newScheme()).WithCRDYAML([]byte(cronTabCRD)).
		WithClock(func() time.Time { return t0 }).BuildClient()
}

func cronTab(name string) *CronTab {
	return &CronTab{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: CronTabSpec{CronSpec: "* * * * */5", Image: "img:1"}}
}

func reason(err error) string { return string(apierrors.ReasonForError(err)) }

func TestCreateDefaultsAndServerFields(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	ct := cronTab("a")
	if err := c.Create(ctx, ct); err != nil {
		t.Fatalf("Create = %v", err)
	}
	if ct.Spec.Replicas == nil || *ct.Spec.Replicas != 1 {
		t.Errorf("Create: spec.replicas = %v, want the default 1", ct.Spec.Replicas)
	}
	if ct.UID == "" || ct.ResourceVersion == "" || ct.Generation != 1 || !ct.CreationTimestamp.Time.Equal(t0) {
		t.Errorf("Create: uid %q rv %q generation %d created %v, want all set", ct.UID, ct.ResourceVersion, ct.Generation, ct.CreationTimestamp)
	}
	if len(ct.ManagedFields) != 1 || ct.ManagedFields[0].Operation != metav1.ManagedFieldsOperationUpdate {
		t.Errorf("Create: managedFields = %v, want one Update entry", ct.ManagedFields)
	}
	got := &CronTab{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(ct), got); err != nil {
		t.Fatal(err)
	}
	if got.UID != ct.UID || got.ResourceVersion != ct.ResourceVersion {
		t.Errorf("Get = %s/%s, want %s/%s", got.UID, got.ResourceVersion, ct.UID, ct.ResourceVersion)
	}
	if err := c.Create(ctx, cronTab("a")); !apierrors.IsAlreadyExists(err) {
		t.Errorf("Create(twice) = %v, want AlreadyExists", err)
	}
	err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "nope"}, &CronTab{})
	if !apierrors.IsNotFound(err) || err.Error() != `crontabs.stable.example.com "nope" not found` {
		t.Errorf("Get(missing) = %v, want NotFound", err)
	}
	gen := &CronTab{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-", Namespace: "default"}, Spec: CronTabSpec{CronSpec: "* * * * *"}}
	if err := c.Create(ctx, gen); err != nil || !strings.HasPrefix(gen.Name, "gen-") || len(gen.Name) != 9 {
		t.Errorf("Create(generateName) = %v, name %q", err, gen.Name)
	}
}

func TestCreateInvalid(t *testing.T) {
	c := newClient(t)
	ct := cronTab("bad")
	r := int64(20)
	ct.Spec.Replicas = &r
	ct.Spec.CronSpec = "nope"
	err := c.Create(context.Background(), ct)
	if !apierrors.IsInvalid(err) {
		t.Fatalf("Create(invalid) = %v, want Invalid", err)
	}
	st := err.(apierrors.APIStatus).Status()
	if st.Code != 422 || len(st.Details.Causes) != 2 {
		t.Errorf("Create(invalid) = %d %v, want 422 with 2 causes", st.Code, st.Details.Causes)
	}
	want := `CronTab.stable.example.com "bad" is invalid: [spec.cronSpec: Invalid value: "nope": spec.cronSpec in body should match '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$', spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10]`
	if err.Error() != want {
		t.Errorf("Create(invalid) = %s, want %s", err, want)
	}
}

func TestUpdate(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	ct := cronTab("a")
	if err := c.Create(ctx, ct); err != nil {
		t.Fatal(err)
	}
	stale := ct.DeepCopyObject().(*CronTab)
	rv := ct.ResourceVersion

	// An update that changes nothing keeps the resourceVersion.
	if err := c.Update(ctx, ct); err != nil || ct.ResourceVersion != rv || ct.Generation != 1 {
		t.Errorf("Update(no change) = %v, rv %s generation %d, want rv %s generation 1", err, ct.ResourceVersion, ct.Generation, rv)
	}
	// Status through Update is dropped: the status subresource is on.
	ct.Status.Phase = "Running"
	ct.Spec.CronSpec = "0 * * * *"
	if err := c.Update(ctx, ct); err != nil {
		t.Fatal(err)
	}
	if ct.Status.Phase != "" || ct.Generation != 2 || ct.ResourceVersion == rv {
		t.Errorf("Update = phase %q generation %d rv %s, want status dropped, generation 2, new rv", ct.Status.Phase, ct.Generation, ct.ResourceVersion)
	}
	// A stale resourceVersion is a conflict.
	stale.Spec.CronSpec = "1 * * * *"
	err := c.Update(ctx, stale)
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "the object has been modified") {
		t.Errorf("Update(stale) = %v, want Conflict", err)
	}
	// The transition rule sees the live object.
	ct.Spec.Image = "img:2"
	err = c.Update(ctx, ct)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "image is immutable") {
		t.Errorf("Update(image) = %v, want Invalid: image is immutable", err)
	}
	ct.Spec.Image = "img:1"
	// Status().Update writes status only.
	ct.Status.Phase = "Running"
	ct.Spec.CronSpec = "5 * * * *"
	if err := c.Status().Update(ctx, ct); err != nil {
		t.Fatal(err)
	}
	if ct.Status.Phase != "Running" || ct.Spec.CronSpec != "0 * * * *" || ct.Generation != 2 {
		t.Errorf("Status().Update = phase %q cronSpec %q generation %d, want Running, spec kept, generation 2", ct.Status.Phase, ct.Spec.CronSpec, ct.Generation)
	}
	if err := c.Update(ctx, cronTab("missing")); !apierrors.IsNotFound(err) {
		t.Errorf("Update(missing) = %v, want NotFound", err)
	}
}

func TestPatch(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	ct := cronTab("a")
	if err := c.Create(ctx, ct); err != nil {
		t.Fatal(err)
	}
	orig := ct.DeepCopyObject().(*CronTab)
	ct.Labels = map[string]string{"app": "web"}
	if err := c.Patch(ctx, ct, client.MergeFrom(orig)); err != nil {
		t.Fatal(err)
	}
	if ct.Labels["app"] != "web" || ct.Generation != 1 {
		t.Errorf("Patch(merge) = labels %v generation %d", ct.Labels, ct.Generation)
	}
	err := c.Patch(ctx, ct, client.RawPatch("application/json-patch+json", []byte(`[{"op":"replace","path":"/spec/replicas","value":11}]`)))
	if !apierrors.IsInvalid(err) {
		t.Errorf("Patch(json, invalid) = %v, want Invalid", err)
	}
	if err := c.Patch(ctx, ct, client.RawPatch("application/json-patch+json", []byte(`[{"op":"replace","path":"/spec/replicas","value":3}]`))); err != nil || *ct.Spec.Replicas != 3 || ct.Generation != 2 {
		t.Errorf("Patch(json) = %v, replicas %v generation %d", err, ct.Spec.Replicas, ct.Generation)
	}
	if err := c.Patch(ctx, ct, client.RawPatch("application/strategic-merge-patch+json", []byte(`{}`))); reason(err) != "UnsupportedMediaType" {
		t.Errorf("Patch(strategic) = %v, want UnsupportedMediaType", err)
	}
	// Status().Patch
	base := ct.DeepCopyObject().(*CronTab)
	ct.Status.Phase = "Done"
	if err := c.Status().Patch(ctx, ct, client.MergeFrom(base)); err != nil || ct.Status.Phase != "Done" {
		t.Errorf("Status().Patch = %v, phase %q", err, ct.Status.Phase)
	}
}

func TestApply(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "ap", "namespace": "default"},
		"spec":     map[string]any{"cronSpec": "* * * * *", "replicas": int64(2)},
	}}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("alice")); err != nil {
		t.Fatalf("Apply = %v", err)
	}
	if u.GetUID() == "" || u.GetGeneration() != 1 {
		t.Errorf("Apply (create) = uid %q generation %d", u.GetUID(), u.GetGeneration())
	}
	bob := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "ap", "namespace": "default"},
		"spec":     map[string]any{"replicas": int64(3)},
	}}
	err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(bob), client.FieldOwner("bob"))
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `conflict with "alice"`) {
		t.Errorf("Apply(conflict) = %v, want Conflict with alice", err)
	}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(bob), client.FieldOwner("bob"), client.ForceOwnership); err != nil {
		t.Errorf("Apply(force) = %v", err)
	}
	r, _, _ := unstructured.NestedInt64(bob.Object, "spec", "replicas")
	if r != 3 {
		t.Errorf("Apply(force): replicas = %d, want 3", r)
	}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(bob)); err == nil || !apierrors.IsInvalid(err) {
		t.Errorf("Apply(no field manager) = %v, want Invalid", err)
	}
}

func TestDeleteWithFinalizer(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	ct := cronTab("f")
	ct.Finalizers = []string{"example.com/cleanup"}
	if err := c.Create(ctx, ct); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, ct); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(ct), ct); err != nil {
		t.Fatalf("Get(being deleted) = %v", err)
	}
	if ct.DeletionTimestamp == nil || ct.Generation != 2 {
		t.Errorf("Delete: deletionTimestamp %v generation %d, want set and 2", ct.DeletionTimestamp, ct.Generation)
	}
	ct.Finalizers = nil
	if err := c.Update(ctx, ct); err != nil {
		t.Fatalf("Update(remove finalizer) = %v", err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(ct), ct); !apierrors.IsNotFound(err) {
		t.Errorf("Get(after last finalizer) = %v, want NotFound", err)
	}
	if err := c.Delete(ctx, ct); !apierrors.IsNotFound(err) {
		t.Errorf("Delete(missing) = %v, want NotFound", err)
	}
	pre := cronTab("p")
	if err := c.Create(ctx, pre); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, pre, client.Preconditions{ResourceVersion: new("1")}); !apierrors.IsConflict(err) {
		t.Errorf("Delete(precondition) = %v, want Conflict", err)
	}
}

func TestListSelectorsAndDeleteAllOf(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	for i, img := range []string{"x", "y", "x"} {
		ct := cronTab(fmt.Sprintf("c%d", i))
		ct.Spec.Image = img
		ct.Labels = map[string]string{"i": fmt.Sprint(i)}
		if err := c.Create(ctx, ct); err != nil {
			t.Fatal(err)
		}
	}
	other := cronTab("o")
	other.Namespace = "other"
	if err := c.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	names := func(l *CronTabList) []string {
		var out []string
		for _, it := range l.Items {
			out = append(out, it.Namespace+"/"+it.Name)
		}
		return out
	}
	for _, tc := range []struct {
		opts []client.ListOption
		want string
	}{
		{nil, "[default/c0 default/c1 default/c2 other/o]"},
		{[]client.ListOption{client.InNamespace("default")}, "[default/c0 default/c1 default/c2]"},
		{[]client.ListOption{client.MatchingLabels{"i": "1"}}, "[default/c1]"},
		{[]client.ListOption{client.MatchingFields{"spec.image": "x"}, client.InNamespace("default")}, "[default/c0 default/c2]"},
	} {
		l := &CronTabList{}
		if err := c.List(ctx, l, tc.opts...); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(names(l)); got != tc.want {
			t.Errorf("List(%v) = %s, want %s", tc.opts, got, tc.want)
		}
	}
	err := c.List(ctx, &CronTabList{}, client.MatchingFields{"spec.cronSpec": "x"})
	if !apierrors.IsBadRequest(err) {
		t.Errorf("List(field not selectable) = %v, want BadRequest", err)
	}
	// At another served version.
	ul := &unstructured.UnstructuredList{}
	ul.SetAPIVersion("stable.example.com/v1beta1")
	ul.SetKind("CronTabList")
	if err := c.List(ctx, ul, client.InNamespace("other")); err != nil || len(ul.Items) != 1 || ul.Items[0].GetAPIVersion() != "stable.example.com/v1beta1" {
		t.Errorf("List(v1beta1) = %v, %v", err, ul.Items)
	}
	if err := c.DeleteAllOf(ctx, &CronTab{}, client.InNamespace("default"), client.MatchingFields{"spec.image": "x"}); err != nil {
		t.Fatal(err)
	}
	l := &CronTabList{}
	if err := c.List(ctx, l); err != nil || fmt.Sprint(names(l)) != "[default/c1 other/o]" {
		t.Errorf("List(after DeleteAllOf) = %v %v", err, names(l))
	}
}

func TestScale(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	ct := cronTab("s")
	if err := c.Create(ctx, ct); err != nil {
		t.Fatal(err)
	}
	sc := &autoscalingv1.Scale{}
	if err := c.SubResource("scale").Get(ctx, ct, sc); err != nil || sc.Spec.Replicas != 1 {
		t.Fatalf("Get(scale) = %v, %+v", err, sc.Spec)
	}
	sc.Spec.Replicas = 4
	if err := c.SubResource("scale").Update(ctx, ct, client.WithSubResourceBody(sc)); err != nil || sc.Spec.Replicas != 4 {
		t.Fatalf("Update(scale) = %v, %+v", err, sc.Spec)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(ct), ct); err != nil || *ct.Spec.Replicas != 4 || ct.ResourceVersion != sc.ResourceVersion {
		t.Errorf("Get after scale = %v, replicas %d rv %s (scale rv %s)", err, *ct.Spec.Replicas, ct.ResourceVersion, sc.ResourceVersion)
	}
	sc.Spec.Replicas = 40
	if err := c.SubResource("scale").Update(ctx, ct, client.WithSubResourceBody(sc)); !apierrors.IsInvalid(err) {
		t.Errorf("Update(scale 40) = %v, want Invalid", err)
	}
	patch := client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"replicas":2}}`))
	sc2 := &autoscalingv1.Scale{}
	if err := c.SubResource("scale").Patch(ctx, ct, patch, client.WithSubResourceBody(sc2)); err != nil || sc2.Spec.Replicas != 2 {
		t.Errorf("Patch(scale) = %v, %+v", err, sc2.Spec)
	}
	// The object stored holds the entry the server records for the
	// patch's manager (TestCRClientScenarios compares them with the
	// server's, after PUTs without type meta too).
	ct = cronTab("s2")
	if err := c.Create(ctx, ct); err != nil {
		t.Fatal(err)
	}
	if err := c.SubResource("scale").Patch(ctx, ct, patch, client.WithSubResourceBody(sc2), client.FieldOwner("hpa")); err != nil {
		t.Fatalf("Patch(scale) by hpa = %v", err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(ct), ct); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range ct.ManagedFields {
		if e.Manager == "hpa" {
			found = e.Subresource == "scale" && e.Operation == "Update" && e.Time == nil && string(e.FieldsV1.Raw) == `{"f:spec":{"f:replicas":{}}}`
		}
	}
	if !found {
		t.Errorf("managedFields after Patch(scale) by hpa = %+v, want an entry of hpa for /scale owning spec.replicas", ct.ManagedFields)
	}
}

func TestWatch(t *testing.T) {
	c := newClient(t, cronTab("pre"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := c.Watch(ctx, &CronTabList{}, client.InNamespace("default"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ct := cronTab("w")
	ct.Finalizers = []string{"f"}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Create(ctx, ct))
	ct.Spec.CronSpec = "1 * * * *"
	must(c.Update(ctx, ct))
	must(c.Delete(ctx, ct))
	must(c.Get(ctx, client.ObjectKeyFromObject(ct), ct))
	ct.Finalizers = nil
	must(c.Update(ctx, ct))
	want := []string{"ADDED pre", "ADDED w", "MODIFIED w", "MODIFIED w", "DELETED w"}
	var got []string
	for len(got) < len(want) {
		select {
		case ev := <-w.ResultChan():
			got = append(got, fmt.Sprintf("%s %s", ev.Type, ev.Object.(*CronTab).Name))
		case <-ctx.Done():
			t.Fatalf("Watch: got %v before the timeout, want %v", got, want)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Watch = %v, want %v", got, want)
	}
	// From a resourceVersion: the events after it.
	l := &CronTabList{}
	must(c.List(ctx, l))
	w2, err := c.Watch(ctx, &CronTabList{}, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: l.ResourceVersion}})
	must(err)
	defer w2.Stop()
	must(c.Create(ctx, cronTab("later")))
	select {
	case ev := <-w2.ResultChan():
		if ev.Type != watch.Added || ev.Object.(*CronTab).Name != "later" {
			t.Errorf("Watch(from rv) = %s %s, want ADDED later", ev.Type, ev.Object.(*CronTab).Name)
		}
	case <-ctx.Done():
		t.Fatal("Watch(from rv): no event")
	}
}

func TestInitialObjectsAndDelegation(t *testing.T) {
	ct := cronTab("seed")
	ct.Status.Phase = "Ready"
	ct.ResourceVersion = "999"
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "default"}, Data: map[string]string{"k": "v"}}
	c := newClient(t, ct, cm)
	ctx := context.Background()
	got := &CronTab{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(ct), got); err != nil {
		t.Fatal(err)
	}
	if *got.Spec.Replicas != 1 || got.Status.Phase != "Ready" {
		t.Errorf("initial object = replicas %d phase %q, want defaulted and status kept", *got.Spec.Replicas, got.Status.Phase)
	}
	gcm := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(cm), gcm); err != nil || gcm.Data["k"] != "v" {
		t.Errorf("Get(ConfigMap) = %v, %v", err, gcm.Data)
	}
	if err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm2", Namespace: "default"}}); err != nil {
		t.Errorf("Create(ConfigMap) = %v", err)
	}
	ok, err := c.IsObjectNamespaced(&CronTab{})
	if err != nil || !ok {
		t.Errorf("IsObjectNamespaced(CronTab) = %v, %v", ok, err)
	}
}

func TestHostileInputs(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	var nilCT *CronTab
	if err := c.Create(ctx, nilCT); err == nil {
		t.Error("Create(nil) = nil, want an error")
	}
	if err := c.Get(ctx, client.ObjectKey{Name: "x"}, nil); err == nil {
		t.Error("Get(nil) = nil, want an error")
	}
	type Unregistered struct{ CronTab }
	if err := c.Create(ctx, &Unregistered{}); err == nil {
		t.Error("Create(unregistered) = nil, want an error")
	}
	wrong := &unstructured.UnstructuredList{}
	wrong.SetAPIVersion("stable.example.com/v1")
	wrong.SetKind("CronTab")
	if err := c.List(ctx, wrong); err == nil {
		t.Error("List(not a list kind) = nil, want an error")
	}
	if err := c.List(ctx, (*CronTabList)(nil)); err == nil {
		t.Error("List(nil) = nil, want an error")
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("stable.example.com/v9")
	u.SetKind("CronTab")
	if err := c.Create(ctx, u); err == nil || !strings.Contains(err.Error(), `no matches for kind "CronTab" in version "stable.example.com/v9"`) {
		t.Errorf("Create(unserved version) = %v", err)
	}
	if err := c.Patch(ctx, cronTab("a"), nil); err == nil {
		t.Error("Patch(nil patch) = nil, want an error")
	}
}

// Reconcilers on several goroutines: every write is serialised, conflicts
// are conflicts, the race detector finds nothing.
func TestConcurrentReconcilers(t *testing.T) {
	c := newClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range 5 {
		if err := c.Create(ctx, cronTab(fmt.Sprintf("c%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	w, err := c.Watch(ctx, &CronTabList{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	go func() {
		for range w.ResultChan() {
		}
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	conflicts, updates := 0, 0
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				ct := &CronTab{}
				key := client.ObjectKey{Namespace: "default", Name: fmt.Sprintf("c%d", j%5)}
				if err := c.Get(ctx, key, ct); err != nil {
					t.Error(err)
					return
				}
				ct.Status.Phase = fmt.Sprintf("g%d-%d", g, j)
				err := c.Status().Update(ctx, ct)
				mu.Lock()
				switch {
				case err == nil:
					updates++
				case apierrors.IsConflict(err):
					conflicts++
				default:
					t.Error(err)
				}
				mu.Unlock()
				l := &CronTabList{}
				if err := c.List(ctx, l); err != nil || len(l.Items) != 5 {
					t.Errorf("List = %v, %d items", err, len(l.Items))
				}
			}
		}()
	}
	wg.Wait()
	if updates+conflicts != 80 || updates == 0 {
		t.Errorf("updates %d conflicts %d, want 80 in all", updates, conflicts)
	}
}

func TestListPages(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	for i := range 5 {
		if err := c.Create(ctx, cronTab(fmt.Sprintf("p%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	cont := ""
	for pages := 0; pages < 10; pages++ {
		l := &CronTabList{}
		if err := c.List(ctx, l, client.InNamespace("default"), client.Limit(2), client.Continue(cont)); err != nil {
			t.Fatal(err)
		}
		for _, it := range l.Items {
			names = append(names, it.Name)
		}
		if cont = l.Continue; cont == "" {
			break
		}
		if l.RemainingItemCount == nil {
			t.Errorf("List(page) remainingItemCount = nil, want set")
		}
	}
	if fmt.Sprint(names) != "[p0 p1 p2 p3 p4]" {
		t.Errorf("List(pages of 2) = %v, want p0..p4", names)
	}
	err := c.List(ctx, &CronTabList{}, client.Continue("nope"))
	if !apierrors.IsBadRequest(err) || !strings.HasPrefix(err.Error(), "invalid continue token: continue key is not valid: ") {
		t.Errorf("List(bad continue) = %v, want BadRequest", err)
	}
}

func TestWatchTooOld(t *testing.T) {
	defer crfake.SetMaxHistory(4)()
	c := newClient(t)
	ctx := context.Background()
	for i := range 6 {
		if err := c.Create(ctx, cronTab(fmt.Sprintf("h%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.Watch(ctx, &CronTabList{}, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "1"}})
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Errorf("Watch(rv 1 after the history moved on) = %v, want 410 Expired", err)
	}
	w, err := c.Watch(ctx, &CronTabList{}, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "5"}})
	if err != nil {
		t.Fatalf("Watch(rv 5) = %v", err)
	}
	defer w.Stop()
	select {
	case ev := <-w.ResultChan():
		if ev.Object.(*CronTab).Name != "h5" {
			t.Errorf("Watch(rv 5) first event = %s, want h5", ev.Object.(*CronTab).Name)
		}
	case <-time.After(10 * time.Second):
		t.Error("Watch(rv 5): no event")
	}
}

// TestListPagesSnapshot: later pages answer as of the first page (the
// conformance scenarios list-pages-* compare this with the server), and a
// page whose revision the history no longer reaches is the server's 410.
func TestListPagesSnapshot(t *testing.T) {
	defer crfake.SetMaxHistory(8)()
	c := newClient(t)
	ctx := context.Background()
	for _, n := range []string{"a", "b", "c", "d"} {
		if err := c.Create(ctx, cronTab(n)); err != nil {
			t.Fatal(err)
		}
	}
	p1 := &CronTabList{}
	if err := c.List(ctx, p1, client.InNamespace("default"), client.Limit(1)); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, cronTab("bb")); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, cronTab("c")); err != nil {
		t.Fatal(err)
	}
	b := &CronTab{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "b"}, b); err != nil {
		t.Fatal(err)
	}
	b.Spec.CronSpec = "1 * * * *"
	if err := c.Update(ctx, b); err != nil {
		t.Fatal(err)
	}
	p2 := &CronTabList{}
	if err := c.List(ctx, p2, client.InNamespace("default"), client.Limit(10), client.Continue(p1.Continue)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range p2.Items {
		got = append(got, it.Name+":"+it.Spec.CronSpec)
	}
	if want := "[b:* * * * */5 c:* * * * */5 d:* * * * */5]"; fmt.Sprint(got) != want {
		t.Errorf("List(page 2) = %v, want %s", got, want)
	}
	if p2.ResourceVersion != p1.ResourceVersion {
		t.Errorf("List(page 2) resourceVersion = %s, want page 1's %s", p2.ResourceVersion, p1.ResourceVersion)
	}
	for i := range 8 {
		if err := c.Create(ctx, cronTab(fmt.Sprintf("z%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	err := c.List(ctx, &CronTabList{}, client.InNamespace("default"), client.Limit(1), client.Continue(p1.Continue))
	if !apierrors.IsResourceExpired(err) || !strings.HasPrefix(err.Error(), "The provided continue parameter is too old") {
		t.Errorf("List(continue after the history moved on) = %v, want 410 Expired", err)
	}
	// The 410 hands back a token continuing from the same key now.
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		l := &CronTabList{}
		if err := c.List(ctx, l, client.InNamespace("default"), client.Limit(100), client.Continue(st.Status().Continue)); err != nil {
			t.Fatalf("List(the 410's token) = %v", err)
		}
		var got []string
		for _, it := range l.Items {
			got = append(got, it.Name)
		}
		if want := "[b bb d z0 z1 z2 z3 z4 z5 z6 z7]"; fmt.Sprint(got) != want {
			t.Errorf("List(the 410's token) = %v, want %s", got, want)
		}
	}
}
