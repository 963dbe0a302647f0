package crdkit

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

func withFinalizers(live map[string]any, fs ...any) map[string]any {
	obj := runtime.DeepCopyJSON(live)
	md := obj["metadata"].(map[string]any)
	if fs == nil {
		delete(md, "finalizers")
	} else {
		md["finalizers"] = fs
	}
	return obj
}

func TestDelete(t *testing.T) {
	v, live := loadUpdatesExample(t)
	fg, bg, orphan := metav1.DeletePropagationForeground, metav1.DeletePropagationBackground, metav1.DeletePropagationOrphan
	status := func(uid string) map[string]any {
		return map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{}, "status": "Success",
			"details": map[string]any{"name": "nightly", "group": "stable.example.com", "kind": "crontabs", "uid": uid}}
	}
	uid := "7b0c5f7e-2d1f-4a8e-9d55-6a1d1c3c0a11"
	for _, tc := range []struct {
		name       string
		live       map[string]any
		opts       metav1.DeleteOptions
		code       int
		deleted    bool
		finalizers []any // of the object kept
		object     map[string]any
		message    string
	}{
		{name: "plain", live: live, code: 200, deleted: true, object: status(uid)},
		{name: "plain dry run", live: live, opts: metav1.DeleteOptions{DryRun: []string{"All"}}, code: 200, deleted: true, object: status(uid)},
		{name: "finalizer", live: withFinalizers(live, "example.com/hold"), code: 200, finalizers: []any{"example.com/hold"}},
		{name: "finalizer orphanDependents false", live: withFinalizers(live, "example.com/hold"), opts: metav1.DeleteOptions{OrphanDependents: ptr.To(false)}, code: 202, finalizers: []any{"example.com/hold"}},
		{name: "plain orphanDependents false", live: live, opts: metav1.DeleteOptions{OrphanDependents: ptr.To(false)}, code: 200, deleted: true, object: status(uid)},
		{name: "orphan", live: live, opts: metav1.DeleteOptions{PropagationPolicy: &orphan}, code: 200, finalizers: []any{"orphan"}},
		{name: "orphanDependents true", live: live, opts: metav1.DeleteOptions{OrphanDependents: ptr.To(true)}, code: 200, finalizers: []any{"orphan"}},
		{name: "foreground", live: withFinalizers(live, "a"), opts: metav1.DeleteOptions{PropagationPolicy: &fg}, code: 200, finalizers: []any{"a", "foregroundDeletion"}},
		{name: "foreground over orphan", live: withFinalizers(live, "orphan", "a"), opts: metav1.DeleteOptions{PropagationPolicy: &fg}, code: 200, finalizers: []any{"a", "foregroundDeletion"}},
		{name: "own orphan kept in place", live: withFinalizers(live, "orphan", "a"), code: 200, finalizers: []any{"orphan", "a"}},
		{name: "background drops the last", live: withFinalizers(live, "orphan"), opts: metav1.DeleteOptions{PropagationPolicy: &bg}, code: 200, deleted: true, object: status(uid)},
		{name: "background drops the last, dry run", live: withFinalizers(live, "orphan"), opts: metav1.DeleteOptions{PropagationPolicy: &bg, DryRun: []string{"All"}}, code: 200, deleted: true,
			object: map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab"}},
		{name: "background drops the last, resourceVersion precondition", live: withFinalizers(live, "orphan"), opts: metav1.DeleteOptions{PropagationPolicy: &bg, Preconditions: &metav1.Preconditions{ResourceVersion: ptr.To("4242")}},
			message: `Operation cannot be fulfilled on crontabs.stable.example.com "nightly": StorageError: invalid object, Code: 4, Key: /registry/stable.example.com/crontabs/default/nightly, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: , ResourceVersion in object meta: 4242`},
		{name: "uid precondition", live: live, opts: metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr.To[types.UID]("x")}},
			message: `Operation cannot be fulfilled on CronTab.stable.example.com "nightly": the UID in the precondition (x) does not match the UID in record (7b0c5f7e-2d1f-4a8e-9d55-6a1d1c3c0a11). The object might have been deleted and then recreated`},
		{name: "resourceVersion precondition", live: live, opts: metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: ptr.To("1")}},
			message: `Operation cannot be fulfilled on CronTab.stable.example.com "nightly": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (4242). The object might have been modified`},
		{name: "preconditions met", live: live, opts: metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr.To(types.UID(uid)), ResourceVersion: ptr.To("4242")}}, code: 200, deleted: true, object: status(uid)},
		{name: "bad policy", live: live, opts: metav1.DeleteOptions{PropagationPolicy: ptr.To[metav1.DeletionPropagation]("Sideways")},
			message: `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"`},
		{name: "unsafe", live: live, opts: metav1.DeleteOptions{IgnoreStoreReadErrorWithClusterBreakingPotential: ptr.To(true)},
			message: `Operation cannot be fulfilled on crontabs.stable.example.com "nightly": StorageError: invalid object, Code: 4, Key: /registry/stable.example.com/crontabs/default/nightly, ResourceVersion: 0, AdditionalErrorMsg: unsafe deletion is not allowed because the object is decodable from storage`},
		{name: "missing", live: nil, message: `crontabs.stable.example.com "" not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := runtime.DeepCopyJSON(orEmpty(tc.live))
			start := time.Now().UTC().Truncate(time.Second)
			res := v.Delete(tc.live, DeleteOptions{DeleteOptions: tc.opts})
			if tc.live != nil && !reflect.DeepEqual(tc.live, before) {
				t.Errorf("Delete modified live")
			}
			if tc.message != "" {
				st := res.Status()
				if st == nil || st.Message != tc.message {
					t.Fatalf("Delete(%s) = %v, want %s", tc.name, res.Err, tc.message)
				}
				return
			}
			if res.Err != nil || res.Code != tc.code || res.Deleted != tc.deleted {
				t.Fatalf("Delete(%s) = %d deleted %v %v, want %d deleted %v", tc.name, res.Code, res.Deleted, res.Err, tc.code, tc.deleted)
			}
			if tc.deleted {
				if !reflect.DeepEqual(res.Object, tc.object) {
					t.Errorf("Delete(%s).Object = %s, want %s", tc.name, mustMarshal(res.Object), mustMarshal(tc.object))
				}
				return
			}
			md := res.Object["metadata"].(map[string]any)
			ts, _ := time.Parse(time.RFC3339, md["deletionTimestamp"].(string))
			if ts.Before(start) || ts.After(time.Now().Add(time.Second)) || md["deletionGracePeriodSeconds"] != int64(0) || md["generation"] != int64(4) {
				t.Errorf("Delete(%s) metadata = %v, want a deletion timestamp now, grace period 0, generation 4", tc.name, md)
			}
			if got, _ := md["finalizers"].([]any); !slices.Equal(got, tc.finalizers) {
				t.Errorf("Delete(%s) finalizers = %v, want %v", tc.name, got, tc.finalizers)
			}
			for _, k := range []string{"uid", "resourceVersion", "creationTimestamp"} {
				if _, ok := md[k]; ok {
					t.Errorf("Delete(%s) kept metadata.%s", tc.name, k)
				}
			}
		})
	}
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestDeleteTerminating: a second DELETE keeps the first's timestamp and
// generation; an update that removes the last finalizer deletes the
// object and answers with it as the update left it; a status update
// cannot remove finalizers.
func TestDeleteTerminating(t *testing.T) {
	v, live := loadUpdatesExample(t)
	first := v.Delete(withFinalizers(live, "example.com/hold"), DeleteOptions{})
	if first.Err != nil || first.Deleted {
		t.Fatalf("Delete = %v deleted %v", first.Err, first.Deleted)
	}
	terminating := runtime.DeepCopyJSON(first.Object)
	md := terminating["metadata"].(map[string]any)
	md["uid"], md["resourceVersion"], md["creationTimestamp"] = "7b0c5f7e-2d1f-4a8e-9d55-6a1d1c3c0a11", "4243", "2026-01-10T08:00:00Z"
	md["deletionTimestamp"] = "2026-01-11T00:00:00Z"

	again := v.Delete(terminating, DeleteOptions{})
	amd := again.Object["metadata"].(map[string]any)
	if again.Err != nil || again.Deleted || amd["deletionTimestamp"] != "2026-01-11T00:00:00Z" || amd["generation"] != int64(4) {
		t.Errorf("second Delete = %v deleted %v metadata %v, want the first's timestamp and generation", again.Err, again.Deleted, amd)
	}

	body := runtime.DeepCopyJSON(terminating)
	delete(body["metadata"].(map[string]any), "finalizers")
	body["spec"].(map[string]any)["image"] = "new"
	res := v.Update(body, terminating, UpdateOptions{})
	if res.Err != nil || !res.Deleted {
		t.Fatalf("Update removing the last finalizer = %v deleted %v, want deleted", res.Err, res.Deleted)
	}
	if rmd := res.Object["metadata"].(map[string]any); rmd["generation"] != int64(5) || rmd["finalizers"] != nil || rmd["deletionTimestamp"] != "2026-01-11T00:00:00Z" {
		t.Errorf("Update removing the last finalizer: metadata %v", rmd)
	}

	res = v.UpdateStatus(body, terminating, UpdateOptions{})
	if res.Err != nil || res.Deleted {
		t.Errorf("UpdateStatus removing finalizers = %v deleted %v, want kept", res.Err, res.Deleted)
	}

	add := runtime.DeepCopyJSON(terminating)
	add["metadata"].(map[string]any)["finalizers"] = []any{"example.com/hold", "b.com/x"}
	res = v.Update(add, terminating, UpdateOptions{})
	// The server reports the cause twice (the registry's metadata check
	// and the strategy's), once in the message.
	const want = `CronTab.stable.example.com "nightly" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.com/x"}`
	if st := res.Status(); st == nil || st.Message != want || len(st.Details.Causes) != 2 {
		t.Errorf("Update adding a finalizer = %v, want %s (two causes)", res.Status(), want)
	}
}

func TestGCFinalizers(t *testing.T) {
	for _, tc := range []struct {
		in                 []string
		orphan, foreground bool
		want               []string
		changed            bool
	}{
		{nil, false, false, nil, false},
		{[]string{"a"}, false, false, []string{"a"}, false},
		{[]string{"orphan", "a"}, true, false, []string{"orphan", "a"}, false},
		{[]string{"orphan", "a"}, false, false, []string{"a"}, true},
		{[]string{"a"}, true, false, []string{"a", "orphan"}, true},
		{[]string{"orphan", "a"}, false, true, []string{"a", "foregroundDeletion"}, true},
		{[]string{"orphan", "orphan"}, true, false, []string{"orphan", "orphan"}, false},
	} {
		got, changed := GCFinalizers(tc.in, tc.orphan, tc.foreground)
		if !slices.Equal(got, tc.want) || changed != tc.changed {
			t.Errorf("GCFinalizers(%q, %v, %v) = %q %v, want %q %v", tc.in, tc.orphan, tc.foreground, got, changed, tc.want, tc.changed)
		}
	}
}
