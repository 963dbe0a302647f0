package objectmeta

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// checkResetManagedFields compares ResetManagedFields' direct path with
// the converter's on the metadata md of obj, and reports whether the
// direct path answered.
func checkResetManagedFields(t *testing.T, md map[string]any, obj map[string]any) bool {
	t.Helper()
	known := func(av string) bool { return av == "stable.example.com/v1" || av == "v1" }
	fast, slow := runtime.DeepCopyJSON(md), runtime.DeepCopyJSON(md)
	resetManagedFields(fast, obj, known, true)
	resetManagedFields(slow, obj, known, false)
	if !reflect.DeepEqual(fast, slow) {
		js, _ := json.Marshal(md)
		t.Fatalf("ResetManagedFields(%s):\ndirect    %#v\nconverter %#v", js, fast, slow)
	}
	_, plain := plainManagedFields(md["managedFields"])
	return plain
}

func TestResetManagedFieldsAgreesWithConverter(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	obj := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "K", "metadata": map[string]any{"name": "n", "labels": map[string]any{"a": "b"}},
		"spec": map[string]any{"replicas": int64(1), "list": []any{map[string]any{"name": "x"}}}}
	direct, kept := 0, 0
	for range 20000 {
		md := map[string]any{"name": "n", "managedFields": randomManagedFields(r)}
		if r.IntN(4) == 0 {
			md["managedFields"] = randomMetaValue(r, "managedFields")
		}
		if checkResetManagedFields(t, md, obj) {
			direct++
		}
		cp := runtime.DeepCopyJSON(md)
		ResetManagedFields(cp, obj, func(string) bool { return true })
		if _, ok := cp["managedFields"]; ok {
			kept++
		}
	}
	// Entries as the server writes them, claiming fields obj has or lacks.
	for _, set := range managedSets {
		for _, op := range []string{"Apply", "Update", "Bogus"} {
			for _, av := range []string{"stable.example.com/v1", "other/v1", ""} {
				e := map[string]any{"manager": "m", "operation": op, "apiVersion": av, "time": "2024-01-02T03:04:05Z", "fieldsType": "FieldsV1", "fieldsV1": set}
				checkResetManagedFields(t, map[string]any{"managedFields": []any{e, map[string]any{"manager": "n", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1"}}}, obj)
			}
		}
	}
	t.Logf("direct path taken %d times, entries kept %d times", direct, kept)
	if direct < 1000 || kept < 100 {
		t.Errorf("the direct path was rarely taken (%d) or rarely kept anything (%d): the test checks too little", direct, kept)
	}
}
