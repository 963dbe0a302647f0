// Package controller is a small controller-runtime reconciler for the
// seed's CronTab (crd.yaml), with tests written against crfake's client:
// each test shows something controller-runtime's plain fake client gets
// wrong and the API server (and crfake) gets right.
//
//	cd examples/crontab-controller && go test -v .
package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CronTab is the controller's Go type of the custom resource.
type CronTab struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CronTabSpec   `json:"spec,omitempty"`
	Status            CronTabStatus `json:"status,omitempty"`
}

// CronTabSpec is the desired state. Replicas is defaulted by the CRD's
// schema to 1: the controller relies on the server for it.
type CronTabSpec struct {
	CronSpec string `json:"cronSpec"`
	Image    string `json:"image,omitempty"`
	Replicas *int64 `json:"replicas,omitempty"`
}

// CronTabStatus is what the controller reports.
type CronTabStatus struct {
	Phase     string `json:"phase,omitempty"`
	Scheduled int64  `json:"scheduled,omitempty"`
}

// CronTabList is a list of CronTabs.
type CronTabList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CronTab `json:"items"`
}

// DeepCopyObject implements runtime.Object.
func (c *CronTab) DeepCopyObject() runtime.Object {
	cp := *c
	c.ObjectMeta.DeepCopyInto(&cp.ObjectMeta)
	if c.Spec.Replicas != nil {
		r := *c.Spec.Replicas
		cp.Spec.Replicas = &r
	}
	return &cp
}

// DeepCopyObject implements runtime.Object.
func (l *CronTabList) DeepCopyObject() runtime.Object {
	cp := *l
	cp.Items = make([]CronTab, len(l.Items))
	for i := range l.Items {
		cp.Items[i] = *l.Items[i].DeepCopyObject().(*CronTab)
	}
	return &cp
}

// GroupVersion is the CronTab's group and version.
var GroupVersion = schema.GroupVersion{Group: "stable.example.com", Version: "v1"}

// NewScheme returns client-go's kinds and the CronTab types.
func NewScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	s.AddKnownTypes(GroupVersion, &CronTab{}, &CronTabList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return s
}

// Finalizer is the controller's finalizer: it cleans up the jobs of a
// CronTab being deleted before letting it go.
const Finalizer = "stable.example.com/jobs"

// Reconciler reconciles CronTabs.
type Reconciler struct {
	Client client.Client
	// CleanedUp records the CronTabs whose jobs were cleaned up.
	CleanedUp []string
}

// Reconcile adds the finalizer, reports the scheduled replicas in the
// status, and on deletion cleans up and removes the finalizer.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ct := &CronTab{}
	if err := r.Client.Get(ctx, req.NamespacedName, ct); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if ct.DeletionTimestamp != nil {
		if !slices.Contains(ct.Finalizers, Finalizer) {
			return ctrl.Result{}, nil
		}
		r.CleanedUp = append(r.CleanedUp, req.String())
		ct.Finalizers = slices.DeleteFunc(ct.Finalizers, func(f string) bool { return f == Finalizer })
		return ctrl.Result{}, r.Client.Update(ctx, ct)
	}
	if !slices.Contains(ct.Finalizers, Finalizer) {
		ct.Finalizers = append(ct.Finalizers, Finalizer)
		if err := r.Client.Update(ctx, ct); err != nil {
			return ctrl.Result{}, err
		}
	}
	// The server defaults spec.replicas; an object without it was never
	// stored by a server.
	if ct.Spec.Replicas == nil {
		return ctrl.Result{}, errors.New("spec.replicas is not set: the object did not come from an API server")
	}
	want := CronTabStatus{Phase: fmt.Sprintf("Scheduled %q", ct.Spec.CronSpec), Scheduled: *ct.Spec.Replicas}
	if ct.Status == want {
		return ctrl.Result{}, nil
	}
	ct.Status = want
	return ctrl.Result{}, r.Client.Status().Update(ctx, ct)
}
