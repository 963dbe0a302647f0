package servertest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/crdkit/crdkit/conformance/oracle"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const cronTabCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1",
  "kind": "CustomResourceDefinition",
  "metadata": {"name": "crontabs.stable.example.com"},
  "spec": {
    "group": "stable.example.com",
    "scope": "Namespaced",
    "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab", "listKind": "CronTabList"},
    "versions": [{
      "name": "v1", "served": true, "storage": true,
      "subresources": {"status": {}},
      "additionalPrinterColumns": [
        {"name": "Spec", "type": "string", "jsonPath": ".spec.cronSpec"},
        {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"}
      ],
      "schema": {"openAPIV3Schema": {
        "type": "object",
        "properties": {
          "spec": {
            "type": "object",
            "properties": {
              "cronSpec": {"type": "string"},
              "image": {"type": "string"},
              "replicas": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1},
              "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"}
            }
          },
          "status": {"type": "object", "properties": {"phase": {"type": "string"}}}
        }
      }}
    }]
  }
}`

const cronTabName = "crontabs.stable.example.com"

func cronTab(name, extra string) []byte {
	return []byte(fmt.Sprintf(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":%q,"namespace":"default"},"spec":{"cronSpec":"* * * * */5"%s}}`, name, extra))
}

// TestOracleRequests exercises every request kind of the oracle on a
// CronTab CRD.
func TestOracleRequests(t *testing.T) {
	b := setup(t)
	if r := b.results[0]; !r.Established {
		t.Fatalf("CronTab CRD not established: %d %v %s", r.Code, r.Status, r.Condition)
	}
	t.Logf("server start %v; batch of %d CRDs installed in %v (including the 2 s established wait)", startTook, len(b.results), b.took)
	ctx := context.Background()

	t.Run("dry-run modes", func(t *testing.T) {
		body := cronTab("modes", `,"bogus":1,"replicas":2,"replicas":3`)
		for _, tc := range []struct {
			fv       oracle.FieldValidation
			code     int
			warnings []string
		}{
			{oracle.Warn, 201, []string{`duplicate field "spec.replicas"`, `unknown field "spec.bogus"`}},
			{oracle.FieldValidationDefault, 201, []string{`duplicate field "spec.replicas"`, `unknown field "spec.bogus"`}},
			{oracle.Ignore, 201, nil},
			{oracle.Strict, 400, nil},
		} {
			r, err := srv.DryRunCreate(ctx, cronTabName, "v1", body, tc.fv)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(r.Warnings)
			if r.Code != tc.code || !slices.Equal(r.Warnings, tc.warnings) {
				t.Errorf("DryRunCreate(%q) = %d %q, want %d %q", tc.fv, r.Code, r.Warnings, tc.code, tc.warnings)
			}
			if r.Allowed() {
				spec := r.Object["spec"].(map[string]any)
				if _, ok := spec["bogus"]; ok || spec["replicas"] != float64(3) {
					t.Errorf("DryRunCreate(%q).spec = %v, want bogus pruned and replicas 3", tc.fv, spec)
				}
			} else {
				t.Logf("Strict: %d %s %q", r.Code, r.Status.Reason, r.Status.Message)
				if !strings.Contains(r.Status.Message, `cannot be handled as a CronTab: strict decoding error: duplicate field "spec.replicas", unknown field "spec.bogus"`) {
					t.Errorf("Strict message = %q", r.Status.Message)
				}
			}
		}
	})

	t.Run("invalid", func(t *testing.T) {
		r, err := srv.DryRunCreate(ctx, cronTabName, "v1", cronTab("invalid", `,"replicas":20,"tags":["a","a"],"image":5`), oracle.Warn)
		if err != nil {
			t.Fatal(err)
		}
		if r.Code != 422 || r.Status.Details == nil || len(r.Status.Details.Causes) != 3 {
			t.Fatalf("invalid create = %d %+v", r.Code, r.Status)
		}
		t.Logf("422 message: %s", r.Status.Message)
		for _, c := range r.Status.Details.Causes {
			t.Logf("cause %s | %s | %s", c.Field, c.Type, c.Message)
		}
		if !slices.IsSortedFunc(r.Status.Details.Causes, func(a, b metav1.StatusCause) int { return strings.Compare(a.Field, b.Field) }) {
			t.Errorf("causes not sorted")
		}
	})

	t.Run("persist", func(t *testing.T) {
		r, err := srv.Do(ctx, oracle.Request{Op: oracle.OpCreate, CRD: cronTabName, Version: "v1", Body: cronTab("persisted", "")})
		if err != nil || r.Code != 201 {
			t.Fatalf("create = %d %v %v", r.Code, r.Status, err)
		}
		md := r.Object["metadata"].(map[string]any)
		rv := md["resourceVersion"].(string)
		if md["uid"] == nil || md["generation"] != float64(1) {
			t.Errorf("created metadata = %v", md)
		}
		n := oracle.Normalize(r.Object)
		for _, f := range []string{"uid", "creationTimestamp", "resourceVersion"} {
			if _, ok := n["metadata"].(map[string]any)[f]; ok {
				t.Errorf("Normalize kept metadata.%s", f)
			}
		}
		// The server names the request's field manager after the
		// User-Agent; Normalize keeps the entries but not their time.
		mf, _ := n["metadata"].(map[string]any)["managedFields"].([]any)
		if len(mf) != 1 || mf[0].(map[string]any)["manager"] != "crdkit" || mf[0].(map[string]any)["time"] != oracle.TimePlaceholder {
			t.Errorf("normalized managedFields = %v, want one entry of manager crdkit, its time %s", mf, oracle.TimePlaceholder)
		}
		if spec := r.Object["spec"].(map[string]any); spec["replicas"] != float64(1) {
			t.Errorf("created spec = %v, want replicas defaulted to 1", spec)
		}

		upd := fmt.Sprintf(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"persisted","namespace":"default","resourceVersion":%q},"spec":{"cronSpec":"0 * * * *","replicas":4},"status":{"phase":"ignored"}}`, rv)
		r, err = srv.Do(ctx, oracle.Request{Op: oracle.OpUpdate, CRD: cronTabName, Version: "v1", Body: []byte(upd)})
		if err != nil || r.Code != 200 {
			t.Fatalf("update = %d %v %v", r.Code, r.Status, err)
		}
		md = r.Object["metadata"].(map[string]any)
		if md["generation"] != float64(2) || r.Object["status"] != nil {
			t.Errorf("update: generation %v status %v, want 2 and no status", md["generation"], r.Object["status"])
		}
		rv = md["resourceVersion"].(string)

		st := fmt.Sprintf(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"persisted","namespace":"default","resourceVersion":%q,"labels":{"ignored":"x"}},"spec":{"cronSpec":"ignored"},"status":{"phase":"Running"}}`, rv)
		r, err = srv.Do(ctx, oracle.Request{Op: oracle.OpUpdateStatus, CRD: cronTabName, Version: "v1", Body: []byte(st)})
		if err != nil || r.Code != 200 {
			t.Fatalf("status update = %d %v %v", r.Code, r.Status, err)
		}
		md = r.Object["metadata"].(map[string]any)
		if md["generation"] != float64(2) || md["labels"] != nil || r.Object["spec"].(map[string]any)["cronSpec"] != "0 * * * *" {
			t.Errorf("status update object = %v", r.Object)
		}

		r, err = srv.Do(ctx, oracle.Request{Op: oracle.OpUpdate, CRD: cronTabName, Version: "v1", Name: "persisted", Body: []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"persisted","namespace":"default"},"spec":{}}`)})
		if err != nil || r.Code != 422 {
			t.Errorf("update without resourceVersion = %d %v %v", r.Code, r.Status, err)
		} else {
			t.Logf("update without resourceVersion: %s", r.Status.Message)
		}

		r, err = srv.Do(ctx, oracle.Request{Op: oracle.OpGet, CRD: cronTabName, Version: "v1", Name: "persisted"})
		if err != nil || r.Code != 200 || r.Object["status"].(map[string]any)["phase"] != "Running" {
			t.Fatalf("get = %d %v %v", r.Code, r.Object, err)
		}

		r, err = srv.Do(ctx, oracle.Request{Op: oracle.OpGetTable, CRD: cronTabName, Version: "v1", Name: "persisted"})
		if err != nil || r.Code != 200 || r.Object["kind"] != "Table" {
			t.Fatalf("get table = %d %v %v", r.Code, r.Object, err)
		}
		tbl, _ := json.Marshal(oracle.Normalize(r.Object))
		t.Logf("table: %s", tbl)
		if !strings.Contains(string(tbl), `"cells":["persisted","0 * * * *",4]`) {
			t.Errorf("table cells unexpected")
		}

		r, err = srv.Do(ctx, oracle.Request{Op: oracle.OpGetTable, CRD: cronTabName, Version: "v1"})
		if err != nil || r.Code != 200 || len(r.Object["rows"].([]any)) != 1 {
			t.Errorf("list table = %d %v %v", r.Code, r.Object, err)
		}

		r, err = srv.Do(ctx, oracle.Request{Op: oracle.OpDelete, CRD: cronTabName, Version: "v1", Name: "persisted"})
		if err != nil || r.Code != 200 {
			t.Errorf("delete = %d %v %v", r.Code, r.Status, err)
		}
	})

	t.Run("parallel", func(t *testing.T) {
		for i := 0; i < 16; i++ {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				r, err := srv.DryRunCreate(ctx, cronTabName, "v1", cronTab(fmt.Sprintf("p%d", i), fmt.Sprintf(`,"replicas":%d`, i)), oracle.Strict)
				if err != nil {
					t.Fatal(err)
				}
				want := 201
				if i < 1 || i > 10 {
					want = 422
				}
				if r.Code != want {
					t.Errorf("replicas %d: code %d, want %d", i, r.Code, want)
				}
			})
		}
	})
}
