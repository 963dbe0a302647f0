package fieldmanager_test

import (
	"fmt"
	"time"

	"github.com/crdkit/crdkit/fieldmanager"
)

// A second manager applying a field the first one applied with another
// value: the server's 409, then, forced, the field changes hands.
func Example() {
	m, err := fieldmanager.New(fieldmanager.Options{Group: "stable.example.com", Kind: "CronTab",
		Versions: []fieldmanager.Version{{Name: "v1"}}})
	if err != nil {
		panic(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	config := func(image string) map[string]any {
		return map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
			"metadata": map[string]any{"name": "nightly"}, "spec": map[string]any{"image": image}}
	}
	live, _ := m.Apply("v1", fieldmanager.Main, nil, config("backup:1"), "gitops", false, now)
	live["metadata"].(map[string]any)["uid"] = "6a2e9b8e" // stored
	_, err = m.Apply("v1", fieldmanager.Main, live, config("backup:2"), "kubectl", false, now)
	fmt.Println(err)
	obj, _ := m.Apply("v1", fieldmanager.Main, live, config("backup:2"), "kubectl", true, now)
	for _, e := range obj["metadata"].(map[string]any)["managedFields"].([]any) {
		e := e.(map[string]any)
		fmt.Println(e["manager"], e["operation"], e["fieldsV1"])
	}
	// Output:
	// Apply failed with 1 conflict: conflict with "gitops": .spec.image
	// gitops Apply map[f:spec:map[]]
	// kubectl Apply map[f:spec:map[.:map[] f:image:map[]]]
}
