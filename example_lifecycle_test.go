package crdkit_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdkit/crdkit"
)

// A DELETE of an object with a finalizer keeps it, being deleted; the
// update that removes the last finalizer deletes it.
func ExampleVersion_Delete() {
	crd, _ := crdkit.Load([]byte(crontab))
	v := crd.Version("v1")
	live := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "nightly", "namespace": "default", "uid": "u-1", "resourceVersion": "7",
			"generation": int64(1), "finalizers": []any{"example.com/backup"}},
		"spec": map[string]any{"cronSpec": "0 3 * * *"}}

	res := v.Delete(live, crdkit.DeleteOptions{})
	md := res.Object["metadata"].(map[string]any)
	fmt.Println(res.Code, res.Deleted, md["deletionTimestamp"] != nil, md["deletionGracePeriodSeconds"], md["generation"])

	fg := metav1.DeletePropagationForeground
	res = v.Delete(live, crdkit.DeleteOptions{DeleteOptions: metav1.DeleteOptions{PropagationPolicy: &fg}})
	fmt.Println(res.Object["metadata"].(map[string]any)["finalizers"])

	// The controller removes its finalizer from the object being deleted.
	terminating := res.Object
	tmd := terminating["metadata"].(map[string]any)
	tmd["uid"], tmd["resourceVersion"], tmd["finalizers"] = "u-1", "8", []any{"example.com/backup"}
	done := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "nightly", "namespace": "default", "resourceVersion": "8"},
		"spec":     map[string]any{"cronSpec": "0 3 * * *"}}
	res = v.Update(done, terminating, crdkit.UpdateOptions{})
	fmt.Println(res.Err, res.Deleted)
	// Output:
	// 200 false true 0 2
	// [example.com/backup foregroundDeletion]
	// <nil> true
}

// List selects as the server's list does: label selectors, metadata.name,
// metadata.namespace and the version's selectableFields.
func ExampleVersion_List() {
	crd, _ := crdkit.Load([]byte(crontab))
	v := crd.Version("v1")
	obj := func(name string, labels map[string]any) map[string]any {
		return map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
			"metadata": map[string]any{"name": name, "namespace": "default", "labels": labels}}
	}
	objs := []map[string]any{obj("b", map[string]any{"app": "web"}), obj("a", map[string]any{"app": "db"}), obj("c", nil)}
	items, _ := v.List(objs, crdkit.ListOptions{LabelSelector: "app in (web,db)"})
	for _, o := range items {
		fmt.Println(o["metadata"].(map[string]any)["name"])
	}
	_, err := v.List(objs, crdkit.ListOptions{FieldSelector: "spec.cronSpec=x"})
	fmt.Println(err)
	// Output:
	// a
	// b
	// field label not supported: spec.cronSpec
}
