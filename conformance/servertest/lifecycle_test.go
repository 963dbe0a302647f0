package servertest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/oracle"
)

// TestServerLifecycle creates objects of every corpus CRD's storage
// version for real, in a fresh namespace, and compares the server's
// answers with crdkit's Version.Delete and Version.Update: DELETEs with
// and without finalizers (dry run and real), preconditions met and failed,
// each propagation policy and orphanDependents, options the server
// refuses; then, on the object being deleted, a second DELETE and updates
// that remove the last finalizer, add one, or touch the deletion fields
// (dry run), and finally a real update that removes the last finalizer.
// Codes, messages (the server's etcd prefix read as kube-apiserver's
// default), causes, warnings and objects are compared; a deletion
// timestamp the request sets is compared for being now on both sides;
// after each real request a GET tells whether the object is gone, which
// is compared with Result.Deleted.
func TestServerLifecycle(t *testing.T) {
	if corpusDir() == "" {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the corpus root (the directory holding crds/)")
	}
	b := setup(t)
	agr := newAgreement()
	defer agr.report(t)
	// The CRDs in parallel (at most -test.parallel at a time, GOMAXPROCS
	// by default), all done before the report.
	t.Run("crds", func(t *testing.T) {
		for i := range b.corpus {
			r := b.results[1+i]
			if !r.Established || r.CRD == nil {
				continue
			}
			t.Run(r.CRD.Name, func(t *testing.T) {
				t.Parallel()
				if ck := loadCrdkit(t, r.CRD); ck != nil {
					lifecycleCRD(t, agr, ck, r.CRD, fmt.Sprintf("lifecycle-%d", i))
				}
			})
		}
	})
}

// lc is one CRD's storage version under test.
type lc struct {
	t       *testing.T
	agr     *agreement
	ck      *crdkit.CRD
	crd     *apiextensionsv1.CustomResourceDefinition
	version string
	ns      string
}

func lifecycleCRD(t *testing.T, agr *agreement, ck *crdkit.CRD, crd *apiextensionsv1.CustomResourceDefinition, ns string) {
	var version string
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			version = v.Name
		}
	}
	base, _ := validBase(t, crd, version)
	if base == nil {
		agr.skip("lifecycle: no valid object the server accepts")
		return
	}
	l := &lc{t: t, agr: agr, ck: ck, crd: crd, version: version, ns: ns}
	mk := func(name string, finalizers ...any) map[string]any {
		obj := deepCopyJSON(base)
		md, _ := obj["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
			obj["metadata"] = md
		}
		delete(md, "finalizers")
		if _, set := md["namespace"]; set {
			md["namespace"] = ns
		}
		if finalizers != nil {
			md["finalizers"] = finalizers
		}
		live, _ := createObject(t, crd, version, ns, name, obj)
		if live == nil {
			agr.skip("lifecycle: create refused")
		}
		return live
	}
	plain := mk("lc-plain")
	held := mk("lc-held", "example.com/hold")
	orph := mk("lc-orphan", "orphan")
	if plain == nil || held == nil || orph == nil {
		return
	}
	dry := []string{metav1.DryRunAll}
	fg, bg, orphan := metav1.DeletePropagationForeground, metav1.DeletePropagationBackground, metav1.DeletePropagationOrphan
	uid := func(live map[string]any) *types.UID {
		return ptr.To(types.UID(live["metadata"].(map[string]any)["uid"].(string)))
	}
	rv := func(live map[string]any) *string {
		return ptr.To(live["metadata"].(map[string]any)["resourceVersion"].(string))
	}
	// Dry runs on the three objects.
	for _, o := range []struct {
		name string
		live map[string]any
	}{{"plain", plain}, {"held", held}, {"orphan", orph}} {
		for _, c := range []struct {
			name string
			opts metav1.DeleteOptions
		}{
			{"dry-run", metav1.DeleteOptions{DryRun: dry}},
			{"uid-met", metav1.DeleteOptions{DryRun: dry, Preconditions: &metav1.Preconditions{UID: uid(o.live)}}},
			{"uid-failed", metav1.DeleteOptions{DryRun: dry, Preconditions: &metav1.Preconditions{UID: ptr.To[types.UID]("6a2e9b8e-0000-4000-8000-000000000001")}}},
			{"resourceVersion-met", metav1.DeleteOptions{DryRun: dry, Preconditions: &metav1.Preconditions{ResourceVersion: rv(o.live)}}},
			{"resourceVersion-failed", metav1.DeleteOptions{DryRun: dry, Preconditions: &metav1.Preconditions{ResourceVersion: ptr.To("1")}}},
			{"both-met", metav1.DeleteOptions{DryRun: dry, Preconditions: &metav1.Preconditions{UID: uid(o.live), ResourceVersion: rv(o.live)}}},
			{"foreground", metav1.DeleteOptions{DryRun: dry, PropagationPolicy: &fg}},
			{"background", metav1.DeleteOptions{DryRun: dry, PropagationPolicy: &bg}},
			{"orphan", metav1.DeleteOptions{DryRun: dry, PropagationPolicy: &orphan}},
			{"orphanDependents-true", metav1.DeleteOptions{DryRun: dry, OrphanDependents: ptr.To(true)}},
			{"orphanDependents-false", metav1.DeleteOptions{DryRun: dry, OrphanDependents: ptr.To(false)}},
			{"gracePeriod-30", metav1.DeleteOptions{DryRun: dry, GracePeriodSeconds: ptr.To[int64](30)}},
			{"gracePeriod-negative", metav1.DeleteOptions{DryRun: dry, GracePeriodSeconds: ptr.To[int64](-5)}},
			{"policy-unknown", metav1.DeleteOptions{DryRun: dry, PropagationPolicy: ptr.To[metav1.DeletionPropagation]("Sideways")}},
			{"policy-and-orphanDependents", metav1.DeleteOptions{DryRun: dry, PropagationPolicy: &bg, OrphanDependents: ptr.To(false)}},
			{"dryRun-unknown", metav1.DeleteOptions{DryRun: []string{"Some"}}},
			{"unsafe", metav1.DeleteOptions{DryRun: dry, IgnoreStoreReadErrorWithClusterBreakingPotential: ptr.To(true)}},
			{"unsafe-with-options", metav1.DeleteOptions{DryRun: dry, IgnoreStoreReadErrorWithClusterBreakingPotential: ptr.To(true), PropagationPolicy: &fg, GracePeriodSeconds: ptr.To[int64](0)}},
		} {
			l.compareDelete(o.name+"-"+c.name, o.live, c.opts)
		}
	}
	// Real requests. The object without finalizers goes at once; a
	// failed precondition keeps it.
	l.compareDelete("real-resourceVersion-failed", plain, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: ptr.To("1")}})
	l.compareDelete("real-plain", plain, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: uid(plain)}})
	// The garbage collector's own finalizer dropped by Background, with a
	// resourceVersion precondition the registry checks against nothing,
	// then without.
	l.compareDelete("real-orphan-background-resourceVersion", orph, metav1.DeleteOptions{PropagationPolicy: &bg, Preconditions: &metav1.Preconditions{ResourceVersion: rv(orph)}})
	l.compareDelete("real-orphan-background", orph, metav1.DeleteOptions{PropagationPolicy: &bg})
	// The object with a finalizer: kept, being deleted.
	l.compareDelete("real-held", held, metav1.DeleteOptions{})
	terminating := l.get("lc-held")
	if terminating == nil {
		return
	}
	l.compareDelete("terminating-again-dry-run", terminating, metav1.DeleteOptions{DryRun: dry})
	l.compareDelete("terminating-foreground-dry-run", terminating, metav1.DeleteOptions{DryRun: dry, PropagationPolicy: &fg})
	l.compareDelete("terminating-orphanDependents-false-dry-run", terminating, metav1.DeleteOptions{DryRun: dry, OrphanDependents: ptr.To(false)})
	l.compareDelete("terminating-again", terminating, metav1.DeleteOptions{})
	terminating = l.get("lc-held")
	if terminating == nil {
		return
	}
	// Updates of the object being deleted (dry run).
	var cases []updateCase
	add := func(name string, f func(obj, md map[string]any)) {
		obj := deepCopyJSON(terminating)
		f(obj, obj["metadata"].(map[string]any))
		body, _ := json.Marshal(obj)
		cases = append(cases, updateCase{name, body, []oracle.FieldValidation{oracle.Warn}})
	}
	add("no-op", func(obj, md map[string]any) {})
	add("finalizers-removed", func(obj, md map[string]any) { delete(md, "finalizers") })
	add("finalizers-emptied", func(obj, md map[string]any) { md["finalizers"] = []any{} })
	add("finalizer-added", func(obj, md map[string]any) { md["finalizers"] = []any{"example.com/hold", "example.com/late"} })
	add("finalizer-replaced", func(obj, md map[string]any) { md["finalizers"] = []any{"example.com/other"} })
	add("deletionTimestamp-changed", func(obj, md map[string]any) { md["deletionTimestamp"] = "2001-01-01T00:00:00Z" })
	add("deletionTimestamp-removed", func(obj, md map[string]any) { delete(md, "deletionTimestamp") })
	add("deletionGracePeriodSeconds-30", func(obj, md map[string]any) { md["deletionGracePeriodSeconds"] = int64(30) })
	add("deletionGracePeriodSeconds-removed", func(obj, md map[string]any) { delete(md, "deletionGracePeriodSeconds") })
	add("label-added", func(obj, md map[string]any) { setLabel(md, "crdkit.example.com/changed", "yes") })
	if spec, ok := terminating["spec"].(map[string]any); ok {
		if paths := leafPaths(spec, []any{"spec"}, 0); len(paths) > 0 {
			p := paths[0]
			add("finalizers-removed-and-changed"+pathString(p), func(obj, md map[string]any) {
				delete(md, "finalizers")
				setAt(obj, p, changedValue(getAt(obj, p)))
			})
			add("finalizers-removed-and-wrong-type"+pathString(p), func(obj, md map[string]any) {
				delete(md, "finalizers")
				setAt(obj, p, wrongType(getAt(obj, p)))
			})
		}
	}
	for _, uc := range cases {
		for _, status := range []bool{false, true} {
			compareUpdateAs(t, agr, "terminating", l.ck, l.crd, version, terminating, uc, oracle.Warn, status)
		}
	}
	// The real update that removes the last finalizer: the object is gone.
	obj := deepCopyJSON(terminating)
	delete(obj["metadata"].(map[string]any), "finalizers")
	body, _ := json.Marshal(obj)
	res := l.ck.Version(version).UpdateJSON(body, terminating, crdkit.UpdateOptions{})
	rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	sr, err := srv.Do(rctx, oracle.Request{Op: oracle.OpUpdate, CRD: crd.Name, Version: version, Namespace: ns, Name: "lc-held", Body: body})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	gone := l.get("lc-held") == nil
	want, got := serverVerdict(sr), updateVerdict(res)
	agr.record("update-terminating-real", "finalizers-removed", got.Code == want.Code && reflect.DeepEqual(got.Object, want.Object) && res.Deleted == gone,
		fmt.Sprintf("%s %s: server %d gone %v %s\n  crdkit %d deleted %v %s", crd.Name, version, want.Code, gone, mustJSON(want.Object), got.Code, res.Deleted, mustJSON(got.Object)))
}

// get returns the object as GET returns it, or nil when it is gone.
func (l *lc) get(name string) map[string]any {
	rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := srv.Do(rctx, oracle.Request{Op: oracle.OpGet, CRD: l.crd.Name, Version: l.version, Namespace: l.ns, Name: name})
	if err != nil {
		l.t.Fatalf("%s: get %s: %v", l.crd.Name, name, err)
	}
	if r.Code == 404 {
		return nil
	}
	if r.Code != 200 {
		l.t.Fatalf("%s: get %s: %d %v", l.crd.Name, name, r.Code, r.Status)
	}
	return jsonInt64(r.Body)
}

// jsonInt64 decodes a JSON object with integers as int64, as the server's
// decoder does.
func jsonInt64(data []byte) map[string]any {
	var obj map[string]any
	d := json.NewDecoder(strings.NewReader(string(data)))
	d.UseNumber()
	if d.Decode(&obj) != nil {
		return nil
	}
	return numbersInt64(obj).(map[string]any)
}

func numbersInt64(x any) any {
	switch t := x.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case map[string]any:
		for k, e := range t {
			t[k] = numbersInt64(e)
		}
	case []any:
		for i, e := range t {
			t[i] = numbersInt64(e)
		}
	}
	return x
}

// compareDelete sends one DELETE of live (with opts as its body) and
// compares the answer with crdkit's; for a real request it also compares
// whether the object is gone.
func (l *lc) compareDelete(name string, live map[string]any, opts metav1.DeleteOptions) {
	md := live["metadata"].(map[string]any)
	objName := md["name"].(string)
	body, _ := json.Marshal(opts)
	rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	sr, err := srv.DoRaw(rctx, oracle.RawRequest{Method: "DELETE", CRD: l.crd.Name, Version: l.version, Namespace: l.ns, Name: objName, Body: body})
	cancel()
	if err != nil {
		l.t.Fatalf("%s %s: %v", l.crd.Name, name, err)
	}
	res := l.ck.Version(l.version).Delete(live, crdkit.DeleteOptions{DeleteOptions: opts})
	want, got := serverVerdict(sr), deleteVerdict(res)
	want.Message = strings.ReplaceAll(want.Message, srv.EtcdPrefix()+"/", crdkit.EtcdPrefix+"/")
	_, hadTimestamp := md["deletionTimestamp"]
	tsOK := sameDeletionTime(got.Object, want.Object, hadTimestamp)
	sortCauses(got.Causes)
	sortCauses(want.Causes)
	kind := name
	if i := strings.IndexByte(kind, '-'); i > 0 {
		kind = kind[i+1:]
	}
	desc := fmt.Sprintf("%s %s %s\n  options: %s", l.crd.Name, l.version, name, body)
	l.agr.record("delete-code", kind, got.Code == want.Code && got.Reason == want.Reason,
		fmt.Sprintf("%s\n  server: %d %s %s\n  crdkit: %d %s %s", desc, want.Code, want.Reason, want.Message, got.Code, got.Reason, got.Message))
	if want.Code >= 400 && got.Code == want.Code {
		l.agr.record("delete-message-exact", kind, got.Message == want.Message && slices.Equal(got.Causes, want.Causes),
			fmt.Sprintf("%s\n  server: %s %q\n  crdkit: %s %q", desc, want.Message, want.Causes, got.Message, got.Causes))
	}
	l.agr.record("delete-warnings", kind, slices.Equal(got.Warnings, want.Warnings),
		fmt.Sprintf("%s\n  server: %q\n  crdkit: %q", desc, want.Warnings, got.Warnings))
	if want.Code < 300 && got.Code == want.Code {
		l.agr.record("delete-object", kind, tsOK && reflect.DeepEqual(got.Object, want.Object),
			fmt.Sprintf("%s\n  server: %s\n  crdkit: %s", desc, mustJSON(want.Object), mustJSON(got.Object)))
	}
	if len(opts.DryRun) == 0 {
		gone := l.get(objName) == nil
		l.agr.record("delete-deleted", kind, res.Deleted == gone,
			fmt.Sprintf("%s\n  server: gone %v\n  crdkit: Deleted %v", desc, gone, res.Deleted))
	}
}

// deleteVerdict is a crdkit DELETE result in the form the server's answers
// are recorded.
func deleteVerdict(res crdkit.Result) Verdict {
	v := createVerdict(res)
	if res.Err == nil {
		v.Code = res.Code
	}
	return v
}

// sameDeletionTime checks the deletion timestamps of two answers and
// replaces them with a placeholder: equal when the object had one before
// the request, else both within a minute of now (each side takes its own
// clock).
func sameDeletionTime(got, want map[string]any, had bool) bool {
	gmd, _ := got["metadata"].(map[string]any)
	wmd, _ := want["metadata"].(map[string]any)
	gts, gok := gmd["deletionTimestamp"].(string)
	wts, wok := wmd["deletionTimestamp"].(string)
	if gok != wok {
		return false
	}
	if !gok || had {
		return gts == wts
	}
	now := time.Now()
	for _, s := range []string{gts, wts} {
		ts, err := time.Parse(time.RFC3339, s)
		if err != nil || ts.Before(now.Add(-time.Minute)) || ts.After(now.Add(time.Minute)) {
			return false
		}
	}
	gmd["deletionTimestamp"], wmd["deletionTimestamp"] = "<now>", "<now>"
	return true
}
