package servertest

import (
	"context"
	"strings"
	"testing"

	"github.com/crdkit/crdkit/conformance/oracle"
)

// crdDoc builds a CRD document for widgets.example.com with the given
// metadata name, versions JSON.
func crdDoc(name, versions string) []byte {
	return []byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"` + name + `"},
"spec":{"group":"example.com","scope":"Namespaced",
"names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
"versions":` + versions + `}}`)
}

const okSchema = `{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}}`

// TestServerRefusesInvalidCRDs sends invalid CRDs as dry-run creates and
// checks the server refuses each with 422 Invalid and causes.
func TestServerRefusesInvalidCRDs(t *testing.T) {
	ctx := context.Background()
	valid := crdDoc("widgets.example.com", `[{"name":"v1","served":true,"storage":true,"schema":`+okSchema+`}]`)
	r, err := srv.CreateCRDRaw(ctx, valid, oracle.CreateCRDOptions{DryRun: true})
	if err != nil || r.Code != 201 {
		t.Fatalf("valid CRD: %d %v %v", r.Code, r.Status, err)
	}

	for _, tc := range []struct {
		name string
		doc  []byte
	}{
		{"non-structural: property without type", crdDoc("widgets.example.com",
			`[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"properties":{"a":{}}}}}}}]`)},
		{"non-structural: type in anyOf", crdDoc("widgets.example.com",
			`[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","anyOf":[{"type":"string"}]}}}}}]`)},
		{"no storage version", crdDoc("widgets.example.com",
			`[{"name":"v1","served":true,"storage":false,"schema":`+okSchema+`}]`)},
		{"two storage versions", crdDoc("widgets.example.com",
			`[{"name":"v1","served":true,"storage":true,"schema":`+okSchema+`},{"name":"v2","served":true,"storage":true,"schema":`+okSchema+`}]`)},
		{"wrong name", crdDoc("gadgets.example.com",
			`[{"name":"v1","served":true,"storage":true,"schema":`+okSchema+`}]`)},
		{"missing schema", crdDoc("widgets.example.com",
			`[{"name":"v1","served":true,"storage":true}]`)},
		{"default does not match schema", crdDoc("widgets.example.com",
			`[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer","default":"big"}}}}}}}]`)},
		{"list-type map without keys", crdDoc("widgets.example.com",
			`[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","items":{"type":"object","properties":{"k":{"type":"string"}}}}}}}}}}]`)},
		{"CEL rule does not compile", crdDoc("widgets.example.com",
			`[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"self.nope >"}],"properties":{"size":{"type":"integer"}}}}}}}]`)},
		{"bad pattern", crdDoc("widgets.example.com",
			`[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"s":{"type":"string","pattern":"(["}}}}}}}]`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := srv.CreateCRDRaw(ctx, tc.doc, oracle.CreateCRDOptions{DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			if r.Code != 422 || r.Status == nil || r.Status.Reason != "Invalid" || r.Status.Details == nil || len(r.Status.Details.Causes) == 0 {
				t.Fatalf("CreateCRDRaw = %d %+v, want 422 Invalid with causes", r.Code, r.Status)
			}
			t.Logf("%d %s: %s", r.Code, r.Status.Reason, r.Status.Message)
			for _, c := range r.Status.Details.Causes {
				t.Logf("  cause %s | %s | %s", c.Field, c.Type, c.Message)
			}
			if !strings.Contains(r.Status.Message, "widgets.example.com") && !strings.Contains(r.Status.Message, "gadgets.example.com") {
				t.Errorf("message %q does not name the CRD", r.Status.Message)
			}
		})
	}
}
