package main

import (
	"encoding/json"
	"testing"
)

func TestValidateUpdates(t *testing.T) {
	code, out, errs := runCLI(t, "validate", "--crds", "../../examples/updates/crd.yaml", "--old", "../../examples/updates/live.json",
		"-o", "json", "../../examples/updates/changes.yaml")
	if code != 1 {
		t.Fatalf("exit = %d, want 1 (stderr %s)", code, errs)
	}
	var doc struct {
		Results []objectResult `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Results) != 3 {
		t.Fatalf("%d results, want 3:\n%s", len(doc.Results), out)
	}
	first := doc.Results[0]
	if !first.Allowed || first.Code != 200 || first.Object["metadata"].(map[string]any)["generation"] != 4.0 {
		t.Errorf("first change = %+v, want accepted with code 200 and generation 4", first)
	}
	if last := doc.Results[2]; last.Allowed || last.Code != 422 {
		t.Errorf("last change = %+v, want refused with 422", last)
	}
	// Without --old the same documents are creates: nothing ratchets.
	code, out, _ = runCLI(t, "validate", "--crds", "../../examples/updates/crd.yaml", "-o", "json", "../../examples/updates/changes.yaml")
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if code != 1 || doc.Results[0].Code != 422 {
		t.Errorf("without --old: exit %d, code %d, want 1 and 422 (the image is too long for a create)", code, doc.Results[0].Code)
	}
	if got, _, _ := runCLI(t, "validate", "--subresource", "status", "../../examples/updates/changes.yaml"); got != 2 {
		t.Errorf("--subresource without --old: exit %d, want 2", got)
	}
}

func TestWithResourceVersion(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"metadata":{"name":"a"}}`, `{"metadata":{"resourceVersion":"7","name":"a"}}`},
		{`{"metadata":{}}`, `{"metadata":{"resourceVersion":"7"}}`},
		{`{"kind":"K"}`, `{"metadata":{"resourceVersion":"7"},"kind":"K"}`},
		{`{}`, `{"metadata":{"resourceVersion":"7"}}`},
		{`{"metadata":{"resourceVersion":"1"}}`, `{"metadata":{"resourceVersion":"1"}}`},
		{`{"spec":{"metadata":{}},"metadata":{"a":1,"a":2}}`, `{"spec":{"metadata":{}},"metadata":{"resourceVersion":"7","a":1,"a":2}}`},
		{`{"metadata":"x"}`, `{"metadata":"x"}`},
	} {
		if got := string(withResourceVersion([]byte(tc.in), "7")); got != tc.want {
			t.Errorf("withResourceVersion(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
