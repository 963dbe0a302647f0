package servertest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/crfake"
)

// The crclient scenarios: scripted sequences of controller-runtime client
// calls, each run through controller-runtime's real client against the
// server and through crfake's client, whose transcripts (returned objects,
// errors as reason, code, message and causes, watch events) must be equal
// once uids, resourceVersions and times are replaced by labels in order of
// first appearance.

// ctObj is the seed CronTab as a controller's Go type.
type ctObj struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ctSpec   `json:"spec,omitempty"`
	Status            ctStatus `json:"status,omitempty"`
}

type ctSpec struct {
	CronSpec string   `json:"cronSpec,omitempty"`
	Image    string   `json:"image,omitempty"`
	Replicas *int64   `json:"replicas,omitempty"`
	Tags     []string `json:"tags,omitempty"`
}

type ctStatus struct {
	Phase string `json:"phase,omitempty"`
}

type ctList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ctObj `json:"items"`
}

func (c *ctObj) DeepCopyObject() runtime.Object {
	b, _ := json.Marshal(c)
	var cp ctObj
	_ = json.Unmarshal(b, &cp)
	cp.TypeMeta = c.TypeMeta
	return &cp
}

func (l *ctList) DeepCopyObject() runtime.Object {
	b, _ := json.Marshal(l)
	var cp ctList
	_ = json.Unmarshal(b, &cp)
	return &cp
}

func crScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	gv := schema.GroupVersion{Group: "stable.example.com", Version: "v1"}
	s.AddKnownTypeWithName(gv.WithKind("CronTab"), &ctObj{})
	s.AddKnownTypeWithName(gv.WithKind("CronTabList"), &ctList{})
	metav1.AddToGroupVersion(s, gv)
	return s
}

// run is one run of a scenario through one client.
type run struct {
	ctx  context.Context
	c    client.WithWatch
	ns   string
	out  []string
	real bool
}

// rec records the outcome of a call: the object the call left in obj, or
// its error.
func (r *run) rec(op string, obj runtime.Object, err error) {
	if err != nil {
		r.out = append(r.out, op+" ! "+errString(err))
		return
	}
	if obj == nil {
		r.out = append(r.out, op+" ok")
		return
	}
	b, _ := json.Marshal(obj)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if md, ok := m["metadata"].(map[string]any); ok {
		if _, list := m["items"]; list {
			md["resourceVersion"] = "<list>"
		}
	}
	b, _ = json.Marshal(m)
	r.out = append(r.out, op+" = "+string(b))
}

func errString(err error) string {
	st, ok := err.(apierrors.APIStatus)
	if !ok {
		return "non-status error: " + err.Error()
	}
	s := st.Status()
	out := fmt.Sprintf("%s %d %s", apierrors.ReasonForError(err), s.Code, s.Message)
	if s.Details != nil {
		for _, c := range s.Details.Causes {
			out += fmt.Sprintf(" | %s %s %s", c.Type, c.Field, c.Message)
		}
	}
	return out
}

func (r *run) u(apiVersion, kind, name string, body string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if body != "" {
		if err := json.Unmarshal([]byte(body), &u.Object); err != nil {
			panic(err)
		}
	}
	if u.Object == nil {
		u.Object = map[string]any{}
	}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetName(name)
	return u
}

// nsd sets the scenario's namespace.
func (r *run) nsd(u *unstructured.Unstructured) *unstructured.Unstructured {
	u.SetNamespace(r.ns)
	return u
}

func (r *run) ct(name, spec string) *unstructured.Unstructured {
	if spec == "" {
		spec = `{"cronSpec":"* * * * */5"}`
	}
	return r.nsd(r.u("stable.example.com/v1", "CronTab", name, `{"spec":`+spec+`}`))
}

func (r *run) get(u *unstructured.Unstructured) *unstructured.Unstructured {
	g := &unstructured.Unstructured{}
	g.SetGroupVersionKind(u.GroupVersionKind())
	err := r.c.Get(r.ctx, client.ObjectKeyFromObject(u), g)
	r.rec("get "+u.GetName(), g, err)
	return g
}

// page records one page of a CronTab list in r.ns, continued from cont.
func (r *run) page(op, cont string, opts ...client.ListOption) *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetAPIVersion(ctv1)
	l.SetKind("CronTabList")
	opts = append([]client.ListOption{client.InNamespace(r.ns)}, opts...)
	if cont != "" {
		opts = append(opts, client.Continue(cont))
	}
	r.rec(op, l, r.c.List(r.ctx, l, opts...))
	return l
}

// sameRV records whether a later page's list resourceVersion is the first
// page's (rec hides a list's resourceVersion: the server's is global).
func (r *run) sameRV(op string, first, later *unstructured.UnstructuredList) {
	r.out = append(r.out, fmt.Sprintf("%s resourceVersion is page 1's: %v", op, first.GetResourceVersion() == later.GetResourceVersion()))
}

func (r *run) list(apiVersion, kind string, opts ...client.ListOption) {
	l := &unstructured.UnstructuredList{}
	l.SetAPIVersion(apiVersion)
	l.SetKind(kind + "List")
	err := r.c.List(r.ctx, l, append([]client.ListOption{client.InNamespace(r.ns)}, opts...)...)
	r.rec("list "+kind, l, err)
}

// scenario is a script; watch names the kind whose events in the
// scenario's namespace are recorded (apiVersion, kind), or is empty.
type scenario struct {
	name  string
	watch [2]string
	run   func(r *run)
}

func mergePatch(s string) client.Patch { return client.RawPatch(patchType("merge"), []byte(s)) }
func jsonPatch(s string) client.Patch  { return client.RawPatch(patchType("json"), []byte(s)) }

func patchType(t string) k8stypes.PatchType {
	switch t {
	case "merge":
		return "application/merge-patch+json"
	case "json":
		return "application/json-patch+json"
	}
	return "application/apply-patch+yaml"
}

func applyCfg(u *unstructured.Unstructured) runtime.ApplyConfiguration {
	return client.ApplyConfigurationFromUnstructured(u)
}

const ctv1 = "stable.example.com/v1"

var crScenarios = []scenario{
	{"create-defaults", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", "")
		r.rec("create", u, r.c.Create(r.ctx, u))
		r.get(u)
	}},
	{"create-prunes-unknown", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", `{"cronSpec":"x","bogus":1,"replicas":2}`)
		r.rec("create", u, r.c.Create(r.ctx, u))
	}},
	{"create-invalid", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", `{"replicas":20,"tags":["a","a"],"image":5}`)
		r.rec("create", u, r.c.Create(r.ctx, u))
		r.get(u)
	}},
	{"create-strict", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", `{"bogus":1}`)
		r.rec("create", u, r.c.Create(r.ctx, u, client.FieldValidation("Strict")))
	}},
	{"create-twice", [2]string{ctv1, "CronTab"}, func(r *run) {
		r.rec("create", nil, r.c.Create(r.ctx, r.ct("a", "")))
		r.rec("create again", nil, r.c.Create(r.ctx, r.ct("a", "")))
	}},
	{"create-dry-run", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", "")
		err := r.c.Create(r.ctx, u, client.DryRunAll)
		u.SetUID("")
		u.SetCreationTimestamp(metav1.Time{})
		r.rec("create dry-run", u, err)
		r.get(u)
	}},
	{"create-status-dropped", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", "")
		u.Object["status"] = map[string]any{"phase": "Running"}
		r.rec("create", u, r.c.Create(r.ctx, u))
	}},
	{"get-missing", [2]string{}, func(r *run) {
		r.get(r.ct("nope", ""))
	}},
	{"update-generation", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", "")
		r.rec("create", u, r.c.Create(r.ctx, u))
		u.SetLabels(map[string]string{"x": "y"})
		r.rec("update labels", u, r.c.Update(r.ctx, u))
		setSpec(u, "image", "img")
		r.rec("update spec", u, r.c.Update(r.ctx, u))
		r.rec("update unchanged", u, r.c.Update(r.ctx, u))
	}},
	{"update-conflict", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", "")
		r.rec("create", u, r.c.Create(r.ctx, u))
		stale := u.DeepCopy()
		setSpec(u, "image", "one")
		r.rec("update", u, r.c.Update(r.ctx, u))
		setSpec(stale, "image", "two")
		r.rec("update stale", stale, r.c.Update(r.ctx, stale))
	}},
	{"update-missing", [2]string{}, func(r *run) {
		u := r.ct("a", "")
		u.SetResourceVersion("5")
		r.rec("update", u, r.c.Update(r.ctx, u))
	}},
	{"update-invalid", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", "")
		r.rec("create", u, r.c.Create(r.ctx, u))
		setSpec(u, "replicas", int64(0))
		r.rec("update", u, r.c.Update(r.ctx, u))
	}},
	{"update-status-through-update", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", "")
		r.rec("create", u, r.c.Create(r.ctx, u))
		u.Object["status"] = map[string]any{"phase": "Running"}
		r.rec("update", u, r.c.Update(r.ctx, u))
	}},
	{"status-update", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", "")
		r.rec("create", u, r.c.Create(r.ctx, u))
		u.Object["status"] = map[string]any{"phase": "Running"}
		setSpec(u, "image", "ignored")
		r.rec("status update", u, r.c.Status().Update(r.ctx, u))
		u.Object["status"] = map[string]any{"phase": 5}
		r.rec("status update invalid", u, r.c.Status().Update(r.ctx, u))
	}},
	{"status-patch", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", "")
		r.rec("create", u, r.c.Create(r.ctx, u))
		r.rec("status patch", u, r.c.Status().Patch(r.ctx, u, mergePatch(`{"status":{"phase":"Done"},"spec":{"image":"no"}}`)))
	}},
	{"merge-patch", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", "")
		r.rec("create", u, r.c.Create(r.ctx, u))
		orig := u.DeepCopy()
		u.SetLabels(map[string]string{"app": "web"})
		setSpec(u, "replicas", int64(3))
		r.rec("patch mergefrom", u, r.c.Patch(r.ctx, u, client.MergeFrom(orig)))
		r.rec("patch invalid", u, r.c.Patch(r.ctx, u, mergePatch(`{"spec":{"replicas":"x"}}`)))
		r.rec("patch bogus strict", u, r.c.Patch(r.ctx, u, mergePatch(`{"spec":{"bogus":1}}`), client.FieldValidation("Strict")))
	}},
	{"merge-patch-optimistic-lock", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", "")
		r.rec("create", u, r.c.Create(r.ctx, u))
		orig := u.DeepCopy()
		stale := u.DeepCopy()
		u.SetLabels(map[string]string{"a": "b"})
		r.rec("patch", u, r.c.Patch(r.ctx, u, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})))
		stale.SetLabels(map[string]string{"c": "d"})
		r.rec("patch stale", stale, r.c.Patch(r.ctx, stale, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})))
	}},
	{"json-patch", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", `{"cronSpec":"x","tags":["a"]}`)
		r.rec("create", u, r.c.Create(r.ctx, u))
		r.rec("json patch", u, r.c.Patch(r.ctx, u, jsonPatch(`[{"op":"add","path":"/spec/tags/-","value":"b"}]`)))
		r.rec("json patch test fails", u, r.c.Patch(r.ctx, u, jsonPatch(`[{"op":"test","path":"/spec/cronSpec","value":"y"}]`)))
		r.rec("json patch dup", u, r.c.Patch(r.ctx, u, jsonPatch(`[{"op":"add","path":"/spec/tags/-","value":"a"}]`)))
		r.rec("json patch missing", r.ct("zz", ""), r.c.Patch(r.ctx, r.ct("zz", ""), jsonPatch(`[]`)))
	}},
	{"strategic-merge-refused", [2]string{}, func(r *run) {
		u := r.ct("a", "")
		r.rec("create", u, r.c.Create(r.ctx, u))
		r.rec("smp", u, r.c.Patch(r.ctx, u, client.RawPatch("application/strategic-merge-patch+json", []byte(`{}`))))
	}},
	{"apply-create-and-conflict", [2]string{ctv1, "CronTab"}, func(r *run) {
		a := r.ct("a", `{"cronSpec":"* * * * *","replicas":2}`)
		r.rec("apply alice", a, r.c.Apply(r.ctx, applyCfg(a), client.FieldOwner("alice")))
		b := r.ct("a", `{"replicas":3}`)
		r.rec("apply bob", b, r.c.Apply(r.ctx, applyCfg(b), client.FieldOwner("bob")))
		b = r.ct("a", `{"replicas":3}`)
		r.rec("apply bob force", b, r.c.Apply(r.ctx, applyCfg(b), client.FieldOwner("bob"), client.ForceOwnership))
		a = r.ct("a", `{"cronSpec":"* * * * *"}`)
		r.rec("apply alice again", a, r.c.Apply(r.ctx, applyCfg(a), client.FieldOwner("alice")))
	}},
	{"apply-patch-type", [2]string{ctv1, "CronTab"}, func(r *run) {
		a := r.ct("a", `{"cronSpec":"* * * * *"}`)
		r.rec("apply via Patch", a, r.c.Patch(r.ctx, a, client.Apply, client.FieldOwner("ctl"))) //nolint:staticcheck
		bad := r.ct("a", `{"replicas":99}`)
		r.rec("apply invalid", bad, r.c.Apply(r.ctx, applyCfg(bad), client.FieldOwner("ctl")))
		none := r.ct("a", `{"replicas":2}`)
		r.rec("apply no manager", none, r.c.Apply(r.ctx, applyCfg(none)))
	}},
	{"status-apply", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", "")
		r.rec("create", u, r.c.Create(r.ctx, u))
		s := r.nsd(r.u(ctv1, "CronTab", "a", `{"status":{"phase":"Up"}}`))
		r.rec("status apply", s, r.c.Status().Apply(r.ctx, applyCfg(s), client.FieldOwner("ctl")))
	}},
	{"delete-plain", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", "")
		r.rec("create", u, r.c.Create(r.ctx, u))
		r.rec("delete", nil, r.c.Delete(r.ctx, u))
		r.get(u)
		r.rec("delete again", nil, r.c.Delete(r.ctx, u))
	}},
	{"delete-finalizer-flow", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", "")
		u.SetFinalizers([]string{"example.com/cleanup"})
		r.rec("create", u, r.c.Create(r.ctx, u))
		r.rec("delete", nil, r.c.Delete(r.ctx, u))
		g := r.get(u)
		setSpec(g, "image", "while deleting")
		r.rec("update while deleting", g, r.c.Update(r.ctx, g))
		g.SetFinalizers(append(g.GetFinalizers(), "example.com/new"))
		r.rec("add finalizer while deleting", g, r.c.Update(r.ctx, g))
		g = r.get(u)
		g.SetFinalizers(nil)
		r.rec("remove finalizers", g, r.c.Update(r.ctx, g))
		r.get(u)
	}},
	{"delete-finalizer-by-patch", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", "")
		u.SetFinalizers([]string{"example.com/cleanup"})
		r.rec("create", u, r.c.Create(r.ctx, u))
		r.rec("delete foreground", nil, r.c.Delete(r.ctx, u, client.PropagationPolicy(metav1.DeletePropagationForeground)))
		g := r.get(u)
		r.rec("patch finalizers away", g, r.c.Patch(r.ctx, g, mergePatch(`{"metadata":{"finalizers":null}}`)))
		r.get(u)
	}},
	{"delete-preconditions", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", "")
		r.rec("create", u, r.c.Create(r.ctx, u))
		r.rec("delete wrong uid", nil, r.c.Delete(r.ctx, u, client.Preconditions{UID: ptrTo(apiUID("0000"))}))
		r.rec("delete bad policy", nil, r.c.Delete(r.ctx, u, client.PropagationPolicy("Sideways")))
		r.rec("delete right uid", nil, r.c.Delete(r.ctx, u, client.Preconditions{UID: ptrTo(u.GetUID())}))
	}},
	{"delete-all-of", [2]string{ctv1, "CronTab"}, func(r *run) {
		for i, l := range []string{"x", "y", "x"} {
			u := r.ct(fmt.Sprintf("c%d", i), "")
			u.SetLabels(map[string]string{"k": l})
			r.rec("create", u, r.c.Create(r.ctx, u))
		}
		r.rec("deleteallof", nil, r.c.DeleteAllOf(r.ctx, r.ct("", ""), client.InNamespace(r.ns), client.MatchingLabels{"k": "x"}))
		r.list(ctv1, "CronTab")
	}},
	{"list-selectors", [2]string{}, func(r *run) {
		for i, l := range []string{"web", "db", "web"} {
			u := r.ct(fmt.Sprintf("c%d", i), "")
			u.SetLabels(map[string]string{"app": l})
			r.rec("create", nil, r.c.Create(r.ctx, u))
		}
		r.list(ctv1, "CronTab")
		r.list(ctv1, "CronTab", client.MatchingLabels{"app": "web"})
		r.list(ctv1, "CronTab", client.MatchingFields{"metadata.name": "c1"})
		r.list(ctv1, "CronTab", client.MatchingFields{"spec.cronSpec": "x"})
		sel, _ := labels.Parse("app notin (web)")
		r.list(ctv1, "CronTab", client.MatchingLabelsSelector{Selector: sel})
	}},
	{"list-order", [2]string{}, func(r *run) {
		// Created out of order, with names that sort around "-", "." and
		// digits: every list is in key order, with and without selectors
		// and across pages.
		for i, n := range []string{"b", "a0", "a-1", "ab", "a", "a.1"} {
			u := r.ct(n, "")
			u.SetLabels(map[string]string{"odd": fmt.Sprint(i%2 == 1)})
			r.rec("create", nil, r.c.Create(r.ctx, u))
		}
		r.list(ctv1, "CronTab")
		r.list(ctv1, "CronTab", client.MatchingLabels{"odd": "true"})
		r.list(ctv1, "CronTab", client.MatchingFields{"metadata.name": "a.1"})
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion(ctv1)
		l.SetKind("CronTabList")
		r.rec("list limit 4", l, r.c.List(r.ctx, l, client.InNamespace(r.ns), client.Limit(4)))
		l2 := &unstructured.UnstructuredList{}
		l2.SetAPIVersion(ctv1)
		l2.SetKind("CronTabList")
		r.rec("list continue", l2, r.c.List(r.ctx, l2, client.InNamespace(r.ns), client.Limit(4), client.Continue(l.GetContinue())))
	}},
	{"list-pages-snapshot", [2]string{}, func(r *run) {
		// Every page of a paginated list answers as of the first page:
		// objects created, changed or deleted since do not show (changed
		// ones show as they were), the list's resourceVersion and
		// remainingItemCount are the first page's.
		for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
			r.rec("create "+n, nil, r.c.Create(r.ctx, r.ct(n, `{"cronSpec":"1"}`)))
		}
		p1 := r.page("page 1", "", client.Limit(2))
		r.rec("create bb", nil, r.c.Create(r.ctx, r.ct("bb", "")))
		r.rec("create 0", nil, r.c.Create(r.ctx, r.ct("0", "")))
		c := r.get(r.ct("c", ""))
		c.Object["spec"] = map[string]any{"cronSpec": "2"}
		r.rec("update c", nil, r.c.Update(r.ctx, c))
		r.rec("delete d", nil, r.c.Delete(r.ctx, r.ct("d", "")))
		p2 := r.page("page 2", p1.GetContinue(), client.Limit(2))
		r.sameRV("page 2", p1, p2)
		r.rec("delete e", nil, r.c.Delete(r.ctx, r.ct("e", "")))
		r.rec("create g", nil, r.c.Create(r.ctx, r.ct("g", "")))
		c = r.get(r.ct("c", ""))
		c.Object["spec"] = map[string]any{"cronSpec": "3"}
		r.rec("update c again", nil, r.c.Update(r.ctx, c))
		p3 := r.page("page 3", p2.GetContinue(), client.Limit(10))
		r.sameRV("page 3", p1, p3)
		r.page("page 2 again", p1.GetContinue(), client.Limit(3))
		r.list(ctv1, "CronTab")
		// A list at an exact resourceVersion (with a limit, or
		// resourceVersionMatch Exact) is the snapshot too; "0" is
		// served whole from the watch cache, without pages.
		at := &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: p1.GetResourceVersion()}}
		x := r.page("list at page 1's resourceVersion, limit 3", "", at, client.Limit(3))
		r.sameRV("list at page 1's resourceVersion", p1, x)
		r.page("its page 2", x.GetContinue(), client.Limit(3))
		exact := &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: p1.GetResourceVersion(), ResourceVersionMatch: metav1.ResourceVersionMatchExact}}
		r.page("list at page 1's resourceVersion, exact", "", exact)
		r.page("list at resourceVersion 0, limit 2", "", &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "0"}}, client.Limit(2))
	}},
	{"list-pages-selector", [2]string{}, func(r *run) {
		// Pages with a label selector (no remainingItemCount) and across
		// namespaces, from the first page's snapshot.
		for i, n := range []string{"a", "b", "c", "d", "e"} {
			for _, ns := range []string{r.ns, r.ns + "-b"} {
				u := r.ct(n, `{"cronSpec":"1"}`)
				u.SetNamespace(ns)
				u.SetLabels(map[string]string{"odd": fmt.Sprint(i%2 == 1), "scenario": r.ns})
				r.rec("create "+ns+"/"+n, nil, r.c.Create(r.ctx, u))
			}
		}
		sel := client.MatchingLabels{"odd": "false", "scenario": r.ns}
		p1 := r.page("selector page 1", "", client.Limit(2), sel)
		a := r.get(r.ct("a", ""))
		a.SetLabels(map[string]string{"odd": "true", "scenario": r.ns})
		r.rec("relabel a", nil, r.c.Update(r.ctx, a))
		e := r.get(r.ct("e", ""))
		e.SetLabels(map[string]string{"odd": "true", "scenario": r.ns})
		r.rec("relabel e", nil, r.c.Update(r.ctx, e))
		b := r.get(r.ct("b", ""))
		b.SetLabels(map[string]string{"odd": "false", "scenario": r.ns})
		r.rec("relabel b", nil, r.c.Update(r.ctx, b))
		p2 := r.page("selector page 2", p1.GetContinue(), client.Limit(5), sel)
		r.sameRV("selector page 2", p1, p2)
		// The token's key is relative to the namespace: it continues in
		// another namespace from the same name.
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion(ctv1)
		l.SetKind("CronTabList")
		r.rec("page in other namespace", l, r.c.List(r.ctx, l, client.InNamespace(r.ns+"-b"), client.Limit(2), client.Continue(p1.GetContinue())))
	}},
	{"list-pages-tokens", [2]string{}, func(r *run) {
		// Tokens crafted by hand, from another resource, and with
		// resourceVersion options: the server's answers.
		for _, n := range []string{"a", "b", "c"} {
			r.rec("create "+n, nil, r.c.Create(r.ctx, r.ct(n, `{"cronSpec":"1"}`)))
		}
		p1 := r.page("page 1", "", client.Limit(1))
		tok := func(v string, rv any, start string) string {
			b, _ := json.Marshal(map[string]any{"v": v, "rv": rv, "start": start})
			return base64.RawURLEncoding.EncodeToString(b)
		}
		for _, t := range []struct{ name, tok string }{
			{"not base64", "%%%"},
			{"not json", base64.RawURLEncoding.EncodeToString([]byte("[1"))},
			{"bad version", tok("meta.k8s.io/v2", 1, "a")},
			{"rv 0", tok("meta.k8s.io/v1", 0, "a")},
			{"empty start", tok("meta.k8s.io/v1", 1, "")},
			{"traversal", tok("meta.k8s.io/v1", 1, "../x")},
			{"slash start", tok("meta.k8s.io/v1", -1, "/b")},
			{"latest from b", tok("meta.k8s.io/v1", -1, "b")},
			{"latest after b", tok("meta.k8s.io/v1", -1, "b\x00")},
		} {
			r.page("token "+t.name, t.tok, client.Limit(5))
		}
		r.page("continue with resourceVersion", p1.GetContinue(), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "1"}}, client.Limit(1))
		r.page("continue with resourceVersion 0", p1.GetContinue(), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "0"}}, client.Limit(1))
		r.page("continue with resourceVersionMatch", p1.GetContinue(), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "1", ResourceVersionMatch: metav1.ResourceVersionMatchExact}}, client.Limit(1))
		r.page("list at resourceVersion abc, limit 1", "", &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "abc"}}, client.Limit(1))
		// A revision not reached yet: the watch cache waits 3 s for it,
		// then answers 504 naming its current revision (the server's is
		// global: the numbers are compared as N). The real client's
		// transport drops the 504's Retry-After header, so client-go does
		// not retry (see TestCRClientScenarios); the two lists run at once.
		future := func(cont string, opts ...client.ListOption) string {
			l := &unstructured.UnstructuredList{}
			l.SetAPIVersion(ctv1)
			l.SetKind("CronTabList")
			opts = append([]client.ListOption{client.InNamespace(r.ns)}, opts...)
			if cont != "" {
				opts = append(opts, client.Continue(cont))
			}
			err := r.c.List(r.ctx, l, opts...)
			if err == nil {
				return "ok"
			}
			msg := regexp.MustCompile(`[0-9]+`).ReplaceAllString(errString(err), "N")
			if st, ok := err.(apierrors.APIStatus); ok && st.Status().Details != nil {
				msg += fmt.Sprintf(" retryAfter %d", st.Status().Details.RetryAfterSeconds)
			}
			return "! " + msg
		}
		var fut [2]string
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			fut[0] = future(tok("meta.k8s.io/v1", int64(1)<<40, "a"), client.Limit(1))
		}()
		go func() {
			defer wg.Done()
			fut[1] = future("", &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: fmt.Sprint(int64(1) << 40)}}, client.Limit(1))
		}()
		wg.Wait()
		r.out = append(r.out, "token from the future "+fut[0], "list at a future resourceVersion "+fut[1])
		iss := r.nsd(r.u("cert-manager.io/v1", "Issuer", "b", `{"spec":{"selfSigned":{}}}`))
		r.rec("create issuer b", nil, r.c.Create(r.ctx, iss))
		iss = r.nsd(r.u("cert-manager.io/v1", "Issuer", "c", `{"spec":{"selfSigned":{}}}`))
		r.rec("create issuer c", nil, r.c.Create(r.ctx, iss))
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion("cert-manager.io/v1")
		l.SetKind("IssuerList")
		r.rec("issuers with a CronTab token", l, r.c.List(r.ctx, l, client.InNamespace(r.ns), client.Limit(5), client.Continue(p1.GetContinue())))
	}},
	{"typed-crontab", [2]string{ctv1, "CronTab"}, func(r *run) {
		ct := &ctObj{ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: r.ns}, Spec: ctSpec{CronSpec: "* * * * *"}}
		r.rec("create typed", ct, r.c.Create(r.ctx, ct))
		ct.Status.Phase = "Running"
		r.rec("status update typed", ct, r.c.Status().Update(r.ctx, ct))
		ct.Spec.Tags = []string{"a", "a"}
		r.rec("update typed invalid", ct, r.c.Update(r.ctx, ct))
		l := &ctList{}
		r.rec("list typed", l, r.c.List(r.ctx, l, client.InNamespace(r.ns)))
	}},
	{"certificate-selectable-fields", [2]string{"cert-manager.io/v1", "Certificate"}, func(r *run) {
		for i, issuer := range []string{"a", "b"} {
			u := r.nsd(r.u("cert-manager.io/v1", "Certificate", fmt.Sprintf("cert%d", i),
				`{"spec":{"secretName":"s`+fmt.Sprint(i)+`","dnsNames":["x.example.com"],"issuerRef":{"name":"`+issuer+`","kind":"Issuer"}}}`))
			r.rec("create", u, r.c.Create(r.ctx, u))
		}
		r.list("cert-manager.io/v1", "Certificate", client.MatchingFields{"spec.issuerRef.name": "b"})
		bad := r.nsd(r.u("cert-manager.io/v1", "Certificate", "bad", `{"spec":{"issuerRef":{}}}`))
		r.rec("create invalid", bad, r.c.Create(r.ctx, bad))
	}},
	{"issuer-status", [2]string{"cert-manager.io/v1", "Issuer"}, func(r *run) {
		u := r.nsd(r.u("cert-manager.io/v1", "Issuer", "iss", `{"spec":{"selfSigned":{}}}`))
		r.rec("create", u, r.c.Create(r.ctx, u))
		u.Object["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}}}
		r.rec("status update", u, r.c.Status().Update(r.ctx, u))
		u.Object["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "Maybe"}}}
		r.rec("status update invalid", u, r.c.Status().Update(r.ctx, u))
	}},
	{"rollout-scale", [2]string{"argoproj.io/v1alpha1", "Rollout"}, func(r *run) {
		u := r.nsd(r.u("argoproj.io/v1alpha1", "Rollout", "ro", `{"spec":{"replicas":2,"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i"}]}},"strategy":{"canary":{}}}}`))
		r.rec("create", u, r.c.Create(r.ctx, u))
		sc := &autoscalingv1.Scale{}
		r.rec("get scale", sc, r.c.SubResource("scale").Get(r.ctx, u, sc))
		sc.Spec.Replicas = 5
		r.rec("update scale", sc, r.c.SubResource("scale").Update(r.ctx, u, client.WithSubResourceBody(sc)))
		r.get(u)
		sc2 := &autoscalingv1.Scale{}
		r.rec("patch scale", sc2, r.c.SubResource("scale").Patch(r.ctx, u, mergePatch(`{"spec":{"replicas":1}}`), client.WithSubResourceBody(sc2)))
		r.get(u)
	}},
	{"gateway-versions", [2]string{"gateway.networking.k8s.io/v1", "Gateway"}, func(r *run) {
		u := r.nsd(r.u("gateway.networking.k8s.io/v1", "Gateway", "gw", `{"spec":{"gatewayClassName":"c","listeners":[{"name":"http","port":80,"protocol":"HTTP"}]}}`))
		r.rec("create v1", u, r.c.Create(r.ctx, u))
		g := r.nsd(r.u("gateway.networking.k8s.io/v1beta1", "Gateway", "gw", ""))
		r.get(g)
		r.list("gateway.networking.k8s.io/v1beta1", "Gateway")
		dup := r.nsd(r.u("gateway.networking.k8s.io/v1", "Gateway", "gw2", `{"spec":{"gatewayClassName":"c","listeners":[{"name":"http","port":80,"protocol":"HTTP"},{"name":"http","port":81,"protocol":"HTTP"}]}}`))
		r.rec("create dup listeners", dup, r.c.Create(r.ctx, dup))
	}},
	{"httproute-cel", [2]string{"gateway.networking.k8s.io/v1", "HTTPRoute"}, func(r *run) {
		u := r.nsd(r.u("gateway.networking.k8s.io/v1", "HTTPRoute", "rt", `{"spec":{"parentRefs":[{"name":"gw"}],"rules":[{"matches":[{"path":{"type":"PathPrefix","value":"/a"}}],"filters":[{"type":"RequestRedirect","requestRedirect":{"scheme":"https","statusCode":301}}]}]}}`))
		r.rec("create", u, r.c.Create(r.ctx, u))
		bad := r.nsd(r.u("gateway.networking.k8s.io/v1", "HTTPRoute", "bad", `{"spec":{"rules":[{"matches":[{"path":{"type":"PathPrefix","value":"noslash"}}]}]}}`))
		r.rec("create invalid", bad, r.c.Create(r.ctx, bad))
	}},
	{"kustomization-defaults", [2]string{"kustomize.toolkit.fluxcd.io/v1", "Kustomization"}, func(r *run) {
		u := r.nsd(r.u("kustomize.toolkit.fluxcd.io/v1", "Kustomization", "k", `{"spec":{"interval":"5m","prune":true,"sourceRef":{"kind":"GitRepository","name":"repo"}}}`))
		r.rec("create", u, r.c.Create(r.ctx, u))
		r.rec("merge patch", u, r.c.Patch(r.ctx, u, mergePatch(`{"spec":{"suspend":true}}`)))
		r.rec("merge patch invalid", u, r.c.Patch(r.ctx, u, mergePatch(`{"spec":{"sourceRef":{"kind":"Nope"}}}`)))
	}},
	{"scaledobject", [2]string{"keda.sh/v1alpha1", "ScaledObject"}, func(r *run) {
		u := r.nsd(r.u("keda.sh/v1alpha1", "ScaledObject", "so", `{"spec":{"scaleTargetRef":{"name":"d"},"triggers":[{"type":"cpu","metadata":{"value":"50"}}]}}`))
		r.rec("create", u, r.c.Create(r.ctx, u))
		bad := r.nsd(r.u("keda.sh/v1alpha1", "ScaledObject", "bad", `{"spec":{"triggers":[]}}`))
		r.rec("create invalid", bad, r.c.Create(r.ctx, bad))
		r.rec("delete", nil, r.c.Delete(r.ctx, u))
	}},
	{"composition-cluster-scoped", [2]string{}, func(r *run) {
		u := r.u("apiextensions.crossplane.io/v1", "Composition", r.ns+"-comp", `{"spec":{"compositeTypeRef":{"apiVersion":"x.example.com/v1","kind":"XThing"},"mode":"Pipeline","pipeline":[{"step":"s","functionRef":{"name":"f"}}]}}`)
		r.rec("create", u, r.c.Create(r.ctx, u))
		r.get(u)
		u.SetLabels(map[string]string{"a": "b"})
		r.rec("update", u, r.c.Update(r.ctx, u))
		r.rec("delete", nil, r.c.Delete(r.ctx, u))
		r.get(u)
	}},
	{"xrd-versions", [2]string{}, func(r *run) {
		u := r.u("apiextensions.crossplane.io/v1", "CompositeResourceDefinition", "xthings"+r.ns+".example.com",
			`{"spec":{"group":"example.com","names":{"kind":"XThing","plural":"xthings`+r.ns+`"},"versions":[{"name":"v1","served":true,"referenceable":true}]}}`)
		r.rec("create", u, r.c.Create(r.ctx, u))
		g := r.u("apiextensions.crossplane.io/v2", "CompositeResourceDefinition", u.GetName(), "")
		r.get(g)
	}},
	{"machinedeployment-scale", [2]string{"cluster.x-k8s.io/v1beta2", "MachineDeployment"}, func(r *run) {
		u := r.nsd(r.u("cluster.x-k8s.io/v1beta2", "MachineDeployment", "md", `{"spec":{"clusterName":"c","replicas":1,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"clusterName":"c","bootstrap":{"dataSecretName":"s"},"infrastructureRef":{"apiGroup":"infra.example.com","kind":"M","name":"m"}}}}}`))
		r.rec("create", u, r.c.Create(r.ctx, u))
		sc := &autoscalingv1.Scale{}
		r.rec("get scale", sc, r.c.SubResource("scale").Get(r.ctx, u, sc))
		sc.Spec.Replicas = 3
		r.rec("update scale", sc, r.c.SubResource("scale").Update(r.ctx, u, client.WithSubResourceBody(sc)))
	}},
	{"prometheus-scale-json-patch", [2]string{"monitoring.coreos.com/v1", "Prometheus"}, func(r *run) {
		u := r.nsd(r.u("monitoring.coreos.com/v1", "Prometheus", "p", `{"spec":{"replicas":1}}`))
		r.rec("create", u, r.c.Create(r.ctx, u))
		sc := &autoscalingv1.Scale{}
		r.rec("patch scale", sc, r.c.SubResource("scale").Patch(r.ctx, u, jsonPatch(`[{"op":"replace","path":"/spec/replicas","value":2}]`), client.WithSubResourceBody(sc)))
		r.get(u)
	}},
	{"prometheus-scale-apply", [2]string{"monitoring.coreos.com/v1", "Prometheus"}, func(r *run) {
		u := r.nsd(r.u("monitoring.coreos.com/v1", "Prometheus", "p", `{"spec":{"replicas":1}}`))
		r.rec("create", u, r.c.Create(r.ctx, u))
		body := func(n int) string {
			return fmt.Sprintf(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"p"},"spec":{"replicas":%d}}`, n)
		}
		// Other replicas: a conflict with the creator, and with force the
		// server's 500 (an apply that changes the Scale fails).
		sc := &autoscalingv1.Scale{}
		r.rec("apply scale conflict", sc, r.c.SubResource("scale").Patch(r.ctx, u, client.RawPatch(k8stypes.ApplyPatchType, []byte(body(3))), client.WithSubResourceBody(sc), client.FieldOwner("scaler")))
		sc2 := &autoscalingv1.Scale{}
		r.rec("apply scale force", sc2, r.c.SubResource("scale").Patch(r.ctx, u, client.RawPatch(k8stypes.ApplyPatchType, []byte(body(3))), client.WithSubResourceBody(sc2), client.FieldOwner("scaler"), client.ForceOwnership))
		// The same replicas: carried out, the manager shares them.
		sc3 := &autoscalingv1.Scale{}
		r.rec("apply scale same", sc3, r.c.SubResource("scale").Patch(r.ctx, u, client.RawPatch(k8stypes.ApplyPatchType, []byte(body(1))), client.WithSubResourceBody(sc3), client.FieldOwner("scaler")))
		r.get(u)
	}},
	{"servicemonitor-apply-json", [2]string{"monitoring.coreos.com/v1", "ServiceMonitor"}, func(r *run) {
		u := r.nsd(r.u("monitoring.coreos.com/v1", "ServiceMonitor", "sm", `{"spec":{"selector":{"matchLabels":{"a":"b"}},"endpoints":[{"port":"web"}]}}`))
		r.rec("apply", u, r.c.Apply(r.ctx, applyCfg(u), client.FieldOwner("op")))
		u2 := r.nsd(r.u("monitoring.coreos.com/v1", "ServiceMonitor", "sm", `{"spec":{"selector":{"matchLabels":{"a":"b"}},"endpoints":[{"port":"web","interval":"30s"}]}}`))
		r.rec("apply again", u2, r.c.Apply(r.ctx, applyCfg(u2), client.FieldOwner("op")))
		g := r.get(u)
		r.rec("json patch", g, r.c.Patch(r.ctx, g, jsonPatch(`[{"op":"remove","path":"/spec/endpoints/0/interval"}]`)))
	}},
	{"appproject-no-status-subresource", [2]string{"argoproj.io/v1alpha1", "AppProject"}, func(r *run) {
		u := r.nsd(r.u("argoproj.io/v1alpha1", "AppProject", "p", `{"spec":{"description":"d"},"status":{"jwtTokensByRole":{}}}`))
		r.rec("create", u, r.c.Create(r.ctx, u))
		r.rec("status update", u, r.c.Status().Update(r.ctx, u))
	}},
	{"unserved-version", [2]string{}, func(r *run) {
		u := r.nsd(r.u("stable.example.com/v9", "CronTab", "a", `{"spec":{}}`))
		err := r.c.Create(r.ctx, u)
		r.out = append(r.out, fmt.Sprintf("create v9: %v", err))
	}},
	{"list-pages", [2]string{}, func(r *run) {
		for i := range 3 {
			r.rec("create", nil, r.c.Create(r.ctx, r.ct(fmt.Sprintf("p%d", i), "")))
		}
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion(ctv1)
		l.SetKind("CronTabList")
		r.rec("list limit 2", l, r.c.List(r.ctx, l, client.InNamespace(r.ns), client.Limit(2)))
		l2 := &unstructured.UnstructuredList{}
		l2.SetAPIVersion(ctv1)
		l2.SetKind("CronTabList")
		r.rec("list continue", l2, r.c.List(r.ctx, l2, client.InNamespace(r.ns), client.Limit(2), client.Continue(l.GetContinue())))
		l3 := &unstructured.UnstructuredList{}
		l3.SetAPIVersion(ctv1)
		l3.SetKind("CronTabList")
		r.rec("list limit 1 selector", l3, r.c.List(r.ctx, l3, client.InNamespace(r.ns), client.Limit(1), client.MatchingFields{"metadata.name": "p1"}))
		r.rec("list bad continue", l3, r.c.List(r.ctx, l3, client.InNamespace(r.ns), client.Continue("nope")))
	}},
	{"create-no-namespace", [2]string{}, func(r *run) {
		u := r.u(ctv1, "CronTab", r.ns+"-nons", `{"spec":{"cronSpec":"* * * * *"}}`)
		r.rec("create", u, r.c.Create(r.ctx, u))
		r.get(u)
		r.rec("delete", nil, r.c.Delete(r.ctx, u))
	}},
	{"cluster-scoped-with-namespace", [2]string{}, func(r *run) {
		u := r.u("apiextensions.crossplane.io/v1", "Composition", r.ns+"-compns", `{"spec":{"compositeTypeRef":{"apiVersion":"x.example.com/v1","kind":"XThing"},"mode":"Pipeline","pipeline":[{"step":"s","functionRef":{"name":"f"}}]}}`)
		u.SetNamespace("somewhere")
		r.rec("create", u, r.c.Create(r.ctx, u))
		r.get(u)
	}},
	{"update-wrong-uid", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("a", "")
		r.rec("create", u, r.c.Create(r.ctx, u))
		u.SetUID("00000000-0000-0000-0000-000000000000")
		r.rec("update", u, r.c.Update(r.ctx, u))
	}},
	{"generate-name", [2]string{ctv1, "CronTab"}, func(r *run) {
		u := r.ct("", "")
		u.SetGenerateName("gen-")
		r.rec("create", u, r.c.Create(r.ctx, u))
		bad := r.ct("", "")
		bad.SetGenerateName("BAD-")
		r.rec("create bad", bad, r.c.Create(r.ctx, bad))
	}},
}

func setSpec(u *unstructured.Unstructured, k string, v any) {
	_ = unstructured.SetNestedField(u.Object, v, "spec", k)
}

func ptrTo[T any](v T) *T { return &v }

type apiUID = k8stypes.UID

// crclientWatch opens the scenario's watch.
func (r *run) openWatch(w [2]string) (watch.Interface, error) {
	l := &unstructured.UnstructuredList{}
	l.SetAPIVersion(w[0])
	l.SetKind(w[1] + "List")
	return r.c.Watch(r.ctx, l, client.InNamespace(r.ns))
}

// drain records the watch's events until none comes for quiet.
func (r *run) drain(w watch.Interface, quiet time.Duration) {
	defer w.Stop()
	deadline := time.After(15 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				r.out = append(r.out, "watch closed")
				return
			}
			r.rec("event "+string(ev.Type), ev.Object, nil)
		case <-time.After(quiet):
			return
		case <-deadline:
			r.out = append(r.out, "watch: no quiet within 15s")
			return
		}
	}
}

var (
	reTime = regexp.MustCompile(`(\\?)"(creationTimestamp|deletionTimestamp|time)(\\?)":(\\?)"[^"\\]*(\\?)"`)
	reGen  = regexp.MustCompile(`(gen|BAD)-[a-z0-9]{5}`)
	reUID  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	reRV   = regexp.MustCompile(`(\\?)"resourceVersion(\\?)":(\\?)"([0-9]+)(\\?)"`)
	reCont = regexp.MustCompile(`"continue":"[^"]+"`)
)

// normalize replaces, over the whole transcript, uids and
// resourceVersions by labels in order of first appearance, and times.
func normalize(lines []string) []string {
	uids, rvs := map[string]string{}, map[string]string{}
	out := make([]string, len(lines))
	for i, l := range lines {
		l = reTime.ReplaceAllString(l, `$1"$2$3":$4"<time>$5"`)
		l = reGen.ReplaceAllString(l, "$1-<rand>")
		l = reCont.ReplaceAllString(l, `"continue":"<token>"`)
		l = reUID.ReplaceAllStringFunc(l, func(v string) string {
			lab, ok := uids[v]
			if !ok {
				lab = fmt.Sprintf("uid-%d", len(uids)+1)
				uids[v] = lab
			}
			return lab
		})
		l = reRV.ReplaceAllStringFunc(l, func(s string) string {
			m := reRV.FindStringSubmatch(s)
			lab, ok := rvs[m[4]]
			if !ok {
				lab = fmt.Sprintf("rv-%d", len(rvs)+1)
				rvs[m[4]] = lab
			}
			return m[1] + `"resourceVersion` + m[2] + `":` + m[3] + `"` + lab + m[5] + `"`
		})
		out[i] = l
	}
	return out
}

// crfakeCRDs compiles the CRDs the server has: the seed CronTab and the
// corpus.
func crfakeCRDs(t testing.TB, b *installed) []*crdkit.CRD {
	var crds []*crdkit.CRD
	ct, err := crdkit.Load([]byte(cronTabCRD))
	if err != nil {
		t.Fatal(err)
	}
	crds = append(crds, ct)
	seen := map[string]bool{}
	for _, d := range b.corpus {
		c, err := crdkit.Load(d.JSON)
		if err != nil || seen[c.Name()] {
			continue
		}
		seen[c.Name()] = true
		crds = append(crds, c)
	}
	return crds
}

var crPasses int

// TestCRClientScenarios runs every scenario through controller-runtime's
// client against the server and through crfake, and compares.
func TestCRClientScenarios(t *testing.T) {
	if corpusDir() == "" {
		t.Skip("corpus not found: set CRDKIT_CORPUS (docs/fetch-corpus.sh)")
	}
	b := setup(t)
	crds := crfakeCRDs(t, b)
	scheme := crScheme()
	cfg := srv.RESTConfig()
	cfg.UserAgent = "" // client-go's default: the server names the field manager after the program
	// client-go retries a 504 that has a Retry-After header 10 times
	// (about 40 s for each list at a revision not reached yet): without
	// the header it answers at once, with the Status the body holds
	// (retryAfterSeconds still in its details, and compared).
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			if err == nil && resp.StatusCode == http.StatusGatewayTimeout {
				resp.Header.Del("Retry-After")
			}
			return resp, err
		})
	}
	// The server is apiextensions-apiserver alone: no /api for discovery.
	// The real client maps kinds with the CRDs' mapping (what discovery
	// would find).
	mc, err := crfake.NewClientBuilder().WithScheme(scheme).WithCRDs(crds...).BuildClient()
	if err != nil {
		t.Fatal(err)
	}
	real, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme, Mapper: mc.RESTMapper()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// Each run of the test (-count) uses namespaces of its own.
	crPasses++
	pass := crPasses
	type outcome struct{ real, fake []string }
	results := make([]outcome, len(crScenarios))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, sc := range crScenarios {
		ns := fmt.Sprintf("crc%d-%d", pass, i)
		// crfake: a fresh client per scenario, as a test builds one.
		fc, err := crfake.NewClientBuilder().WithScheme(scheme).WithCRDs(crds...).BuildClient()
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			// crfake queues a write's events before the write returns;
			// the watch's goroutine delivers them, which a loaded machine
			// may delay.
			results[i].fake = play(ctx, fc, ns, sc, 500*time.Millisecond)
		}()
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i].real = play(ctx, real, ns, sc, 1500*time.Millisecond)
		}()
	}
	wg.Wait()
	same, sorted := 0, 0
	for i, sc := range crScenarios {
		// The server's storage errors name the key with the oracle's own
		// --etcd-prefix; crdkit names it without (ReadOptions.Key).
		for j, l := range results[i].real {
			results[i].real[j] = strings.ReplaceAll(l, "Key: "+strings.TrimSuffix(srv.EtcdPrefix(), "/")+"/", "Key: /")
		}
		rn, fn := normalize(results[i].real), normalize(results[i].fake)
		// CRCLIENT_DUMP=SCENARIO prints what the real server gave in a
		// scenario (to see what a new scenario records).
		if os.Getenv("CRCLIENT_DUMP") == sc.name {
			fmt.Println(strings.Join(rn, "\n"))
		}
		if strings.Join(rn, "\n") == strings.Join(fn, "\n") {
			same++
			continue
		}
		// The server orders the causes of some refusals by Go map
		// iteration (crdkit's order is fixed: package schema's doc):
		// those compare with their causes sorted.
		if strings.Join(sortedCauses(rn), "\n") == strings.Join(sortedCauses(fn), "\n") {
			same++
			sorted++
			continue
		}
		t.Errorf("scenario %s differs:\n%s", sc.name, diffLines(rn, fn))
	}
	fmt.Printf("conformance: crclient-scenarios %d/%d (causes compared sorted in %d)\n", same, len(crScenarios), sorted)
}

// play runs one scenario through c in namespace ns.
func play(ctx context.Context, c client.WithWatch, ns string, sc scenario, quiet time.Duration) []string {
	r := &run{ctx: ctx, c: c, ns: ns}
	var w watch.Interface
	if sc.watch[0] != "" {
		var err error
		if w, err = r.openWatch(sc.watch); err != nil {
			r.out = append(r.out, "watch: "+errString(err))
		}
	}
	sc.run(r)
	if w != nil {
		r.drain(w, quiet)
	}
	return r.out
}

// sortedCauses rewrites each refusal with causes: its causes sorted, and
// the message's list of them rebuilt from the sorted causes.
func sortedCauses(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		parts := strings.Split(l, " | ")
		if len(parts) < 3 || !strings.Contains(parts[0], " ! ") {
			out[i] = l
			continue
		}
		causes := parts[1:]
		sort.Strings(causes)
		head := parts[0]
		if j := strings.Index(head, " is invalid: ["); j >= 0 {
			head = head[:j] + " is invalid: <sorted causes>"
		}
		out[i] = head + " | " + strings.Join(causes, " | ")
	}
	return out
}

func diffLines(real, fake []string) string {
	var b strings.Builder
	n := max(len(real), len(fake))
	for i := range n {
		var a, f string
		if i < len(real) {
			a = real[i]
		}
		if i < len(fake) {
			f = fake[i]
		}
		if a == f {
			fmt.Fprintf(&b, "  = %.200s\n", a)
			continue
		}
		fmt.Fprintf(&b, "  server: %s\n  crfake: %s\n", a, f)
	}
	return b.String()
}

// roundTripFunc is an http.RoundTripper of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
