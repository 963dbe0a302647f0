package crdkit

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

const writeCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
`

func decodeWriteCRD(t *testing.T, doc string, edits ...func(*apiextensionsv1.CustomResourceDefinition)) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	c := new(apiextensionsv1.CustomResourceDefinition)
	if err := yaml.UnmarshalStrict([]byte(doc), c); err != nil {
		t.Fatal(err)
	}
	for _, e := range edits {
		e(c)
	}
	return c
}

func TestCreateCRD(t *testing.T) {
	res := CreateCRD(decodeWriteCRD(t, writeCRD))
	if res.Err != nil || res.CRD == nil {
		t.Fatalf("CreateCRD = %v, want accepted", res.Err)
	}
	if res.CRD.Generation != 1 || strings.Join(res.CRD.Status.StoredVersions, ",") != "v1" {
		t.Errorf("CreateCRD.CRD generation %d, stored versions %v, want 1, [v1]", res.CRD.Generation, res.CRD.Status.StoredVersions)
	}
	bad := CreateCRD(decodeWriteCRD(t, writeCRD, func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Group = "nodot" }))
	if bad.Err == nil || len(bad.Errors) == 0 || bad.CRD != nil {
		t.Errorf("CreateCRD(group without a dot) = %v, %v, want refused", bad.Err, bad.Errors)
	}
}

func TestUpdateCRD(t *testing.T) {
	live, err := Installed(decodeWriteCRD(t, writeCRD))
	if err != nil {
		t.Fatal(err)
	}
	revision := func(edits ...func(*apiextensionsv1.CustomResourceDefinition)) *apiextensionsv1.CustomResourceDefinition {
		return decodeWriteCRD(t, writeCRD, append([]func(*apiextensionsv1.CustomResourceDefinition){func(c *apiextensionsv1.CustomResourceDefinition) { c.ResourceVersion = "1" }}, edits...)...)
	}
	for _, tc := range []struct {
		name       string
		crd        *apiextensionsv1.CustomResourceDefinition
		code       int32 // 0: accepted
		generation int64
		stored     string
		cause      string
	}{
		{"no-op keeps the generation", revision(), 0, 1, "v1", ""},
		{"label keeps the generation", revision(func(c *apiextensionsv1.CustomResourceDefinition) { c.Labels = map[string]string{"a": "b"} }), 0, 1, "v1", ""},
		{"schema change bumps the generation", revision(func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Description = "d"
		}), 0, 2, "v1", ""},
		{"new storage version is appended to storedVersions", revision(func(c *apiextensionsv1.CustomResourceDefinition) {
			v2 := *c.Spec.Versions[0].DeepCopy()
			v2.Name = "v2"
			c.Spec.Versions[0].Storage = false
			c.Spec.Versions = append(c.Spec.Versions, v2)
		}), 0, 2, "v1,v2", ""},
		{"scope is immutable", revision(func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Scope = "Cluster" }), 422, 0, "", "spec.scope"},
		{"stored version removed", revision(func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Name = "v2" }), 422, 0, "", "status.storedVersions[0]"},
		{"resourceVersion required", revision(func(c *apiextensionsv1.CustomResourceDefinition) { c.ResourceVersion = "" }), 422, 0, "", "metadata.resourceVersion"},
		{"stale resourceVersion", revision(func(c *apiextensionsv1.CustomResourceDefinition) { c.ResourceVersion = "7" }), 409, 0, "", ""},
		{"another uid", revision(func(c *apiextensionsv1.CustomResourceDefinition) { c.UID = "other" }), 409, 0, "", ""},
		{"another name", revision(func(c *apiextensionsv1.CustomResourceDefinition) { c.Name = "gadgets.example.com" }), 400, 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := UpdateCRD(tc.crd, live)
			st := (&Result{Err: res.Err}).Status()
			if tc.code == 0 {
				if res.Err != nil || res.CRD == nil {
					t.Fatalf("UpdateCRD(%s) = %v, want accepted", tc.name, res.Err)
				}
				if res.CRD.Generation != tc.generation || strings.Join(res.CRD.Status.StoredVersions, ",") != tc.stored {
					t.Errorf("UpdateCRD(%s).CRD generation %d, stored %v, want %d, %s", tc.name, res.CRD.Generation, res.CRD.Status.StoredVersions, tc.generation, tc.stored)
				}
				return
			}
			if st == nil || st.Code != tc.code {
				t.Fatalf("UpdateCRD(%s) = %v, want %d", tc.name, res.Err, tc.code)
			}
			if tc.cause != "" && (st.Details == nil || len(st.Details.Causes) == 0 || st.Details.Causes[0].Field != tc.cause) {
				t.Errorf("UpdateCRD(%s) = %v, want a cause at %s", tc.name, st, tc.cause)
			}
		})
	}
}
