package crdkit

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/crdkit/crdkit/objectmeta"
)

// The fields the server resets on create (checked against the real server
// in conformance/servertest resets_test.go).
func TestCreateResets(t *testing.T) {
	data, err := os.ReadFile("examples/crontab/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	namespaced := loadExample(t)
	cluster, err := Load(bytes.Replace(data, []byte("scope: Namespaced"), []byte("scope: Cluster"), 1))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("m", 200)
	for _, tc := range []struct {
		name     string
		crd      *CRD
		metadata string
		wantCode int32
		wantMeta string // metadata of the returned object
		warning  string
	}{
		{"namespace on a cluster-scoped object", cluster, `{"name":"x","namespace":"somewhere"}`, 0, `{"generation":1,"name":"x"}`, ""},
		{"system fields", namespaced, `{"name":"x","uid":"u","selfLink":"/x","deletionTimestamp":"2020-01-01T00:00:00Z","deletionGracePeriodSeconds":-1,"generation":-4}`, 0,
			`{"generation":1,"name":"x","namespace":"default"}`, ""},
		{"duplicate owner references", namespaced, `{"name":"x","ownerReferences":[{"apiVersion":"v1","kind":"A","name":"a","uid":"u1"},{"apiVersion":"v1","kind":"A","name":"a","uid":"u1"}]}`, 0,
			`{"generation":1,"name":"x","namespace":"default","ownerReferences":[{"apiVersion":"v1","kind":"A","name":"a","uid":"u1"}]}`,
			".metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: u1"},
		{"managed fields that do not decode", namespaced, `{"name":"x","managedFields":[{"manager":"x","operation":"Bogus"}]}`, 0, `{"generation":1,"name":"x","namespace":"default"}`, ""},
		{"managed fields of another API version", namespaced, `{"name":"x","managedFields":[{"manager":"` + long + `","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:x":{}}}]}`, 0,
			`{"generation":1,"name":"x","namespace":"default"}`, ""},
		{"managed fields all present in the object", namespaced, `{"name":"x","managedFields":[{"manager":"` + long + `","operation":"Update","apiVersion":"stable.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:name":{}}}}]}`, 0,
			`{"generation":1,"name":"x","namespace":"default"}`, ""},
		{"managed fields kept, then validated", namespaced, `{"name":"x","managedFields":[{"manager":"` + long + `","operation":"Update","apiVersion":"stable.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:x":{}}}]}`, 422, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":` + tc.metadata + `}`
			res := tc.crd.Version("v1").CreateJSON([]byte(body), CreateOptions{ManagedFields: ManagedFields{Omit: true}})
			if tc.wantCode != 0 {
				if st := res.Status(); st == nil || st.Code != tc.wantCode {
					t.Fatalf("CreateJSON(%s) = %v, want %d", body, res.Err, tc.wantCode)
				}
				return
			}
			if res.Err != nil {
				t.Fatalf("CreateJSON(%s) = %v", body, res.Err)
			}
			got, _ := json.Marshal(res.Object["metadata"])
			if string(got) != tc.wantMeta {
				t.Errorf("CreateJSON(%s) metadata = %s, want %s", body, got, tc.wantMeta)
			}
			var warnings []string
			if tc.warning != "" {
				warnings = []string{tc.warning}
			}
			if strings.Join(res.Warnings, "\n") != strings.Join(warnings, "\n") {
				t.Errorf("warnings = %q, want %q", res.Warnings, warnings)
			}
		})
	}
}

func TestLoadResetsAndUndecodable(t *testing.T) {
	data, err := os.ReadFile("examples/crontab/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, from, to string
		wantErr        string
	}{
		{"namespace", "  name: crontabs.stable.example.com\n", "  name: crontabs.stable.example.com\n  namespace: foo\n", ""},
		{"managed fields", "  name: crontabs.stable.example.com\n", "  name: crontabs.stable.example.com\n  managedFields: [{manager: x, operation: Bogus}]\n", ""},
		{"stale status", "spec:\n", "status: {storedVersions: [v9]}\nspec:\n", ""},
		{"wrong type", "    served: true\n", "    served: \"yes\"\n",
			`CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: json: cannot unmarshal string into Go struct field CustomResourceDefinitionVersion.spec.versions.served of type bool`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(string(data), tc.from, tc.to, 1)
			if doc == string(data) {
				t.Fatalf("%q not in the example", tc.from)
			}
			_, err := Load([]byte(doc))
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("Load = %v, want accepted", err)
			case tc.wantErr != "":
				st := (&Result{Err: err}).Status()
				if st == nil || st.Code != 400 || st.Reason != "BadRequest" || st.Message != tc.wantErr {
					t.Errorf("Load = %v, want 400 BadRequest %q", err, tc.wantErr)
				}
			}
		})
	}
}

// TestCreateKeptMetadataSteps runs the create steps that read which keys
// canonical metadata holds (metaKeys) on metadata the fast path keeps as it
// is, against the path that round-trips it: system fields, owner
// references, finalizers, a name and generateName, each present or not.
func TestCreateKeptMetadataSteps(t *testing.T) {
	v := loadExample(t).Version("v1")
	for _, md := range []string{
		`{"name":"x"}`,
		`{"name":"x","uid":"u","selfLink":"/x","creationTimestamp":"2020-01-01T00:00:00Z","resourceVersion":"7","generation":3}`,
		`{"name":"x","uid":"u"}`,
		`{"name":"x","creationTimestamp":"2020-01-01T00:00:00Z"}`,
		`{"name":"x","selfLink":"/x","labels":{"a":"b"},"annotations":{"c":"d"}}`,
		`{"name":"x","ownerReferences":[{"apiVersion":"v1","kind":"A","name":"a","uid":"u1"},{"apiVersion":"v1","kind":"A","name":"a","uid":"u1"}]}`,
		`{"name":"x","ownerReferences":[{"apiVersion":"v1","kind":"A","name":"a","uid":"u1"}]}`,
		`{"name":"x","finalizers":["no-domain","example.com/ok","example.com/ok"]}`,
		`{"name":"x","generateName":"gen-"}`,
		`{"generateName":"gen-"}`,
		`{"labels":{"a":"b"}}`,
		`{"namespace":"ns","name":"x"}`,
		// Kept metadata a new object may not have (objectmeta.ValidNewKept).
		`{"name":"x","labels":{"-bad":"v"}}`,
		`{"name":"x","labels":{"a":"-bad"}}`,
		`{"name":"x","annotations":{"-bad":"v"}}`,
		`{"name":"X_bad"}`,
		`{"name":"x","finalizers":["orphan","foregroundDeletion"]}`,
		`{"name":"x","finalizers":["-bad"]}`,
		`{"generateName":"-bad-"}`,
		`{"name":"x","generation":-2}`,
		`{"name":"x","namespace":"Bad_NS"}`,
		// Managed fields the field manager keeps, drops (all their fields
		// are in the object, or of an unknown version) or refuses.
		`{"name":"x","managedFields":[{"manager":"m","operation":"Update","apiVersion":"stable.example.com/v1","time":"2020-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:zz":{}}}}]}`,
		`{"name":"x","managedFields":[{"manager":"m","operation":"Apply","apiVersion":"stable.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:cronSpec":{}}}},{"manager":"n","operation":"Update","apiVersion":"stable.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:x":{}},"subresource":"status"}]}`,
		`{"name":"x","managedFields":[{"manager":"m","operation":"Update","apiVersion":"other.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:x":{}}}]}`,
		`{"name":"x","managedFields":[{"manager":"m","operation":"Bogus","apiVersion":"stable.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:x":{}}}]}`,
		`{"name":"x","managedFields":[{"manager":"m\u0007","operation":"Update","apiVersion":"stable.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:x":{}}}]}`,
	} {
		body := []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":` + md + `,"spec":{"cronSpec":"* * * * */5"}}`)
		r := &request{v: v, raw: body, fast: true}
		if !r.decodePruned() {
			t.Fatalf("%s: no fast decode", md)
		}
		if keys, ok := objectmeta.CanonicalKeys(r.obj["metadata"].(map[string]any)); !ok || keys == 0 {
			t.Fatalf("%s: not canonical metadata: the test would not reach the kept path", md)
		}
		if !checkDecodePruned(t, v, body) {
			t.Errorf("%s: no fast decode", md)
		}
		// checkDecodePruned leaves a generated name out of the comparison.
		res := v.CreateJSON(body, CreateOptions{})
		rmd, _ := res.Object["metadata"].(map[string]any)
		name, _ := rmd["name"].(string)
		if want := strings.HasPrefix(md, `{"generateName":"gen-"`); want != (strings.HasPrefix(name, "gen-") && len(name) == len("gen-")+5) {
			t.Errorf("%s: name %q", md, name)
		}
	}
}
