package servertest

import (
	"context"
	"testing"
	"time"

	"github.com/crdkit/crdkit/conformance/oracle"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func gizmoCRD(storage bool) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gizmos.example.org"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.org",
			Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gizmos", Singular: "gizmo", Kind: "Gizmo", ListKind: "GizmoList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: storage,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size": {Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte("3")}},
						}},
					},
				}},
			}},
		},
	}
}

// TestInstallTypedAndDelete installs typed CRDs (one refused), checks that
// creates are not slowed by the server's "just established" sleep once
// InstallCRDs returns, then deletes the CRD.
func TestInstallTypedAndDelete(t *testing.T) {
	ctx := context.Background()
	bad := gizmoCRD(false)
	bad.Name = "gadgets.example.org"
	bad.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Kind: "Gadget"}
	start := time.Now()
	res, err := srv.InstallCRDs(ctx, []*apiextensionsv1.CustomResourceDefinition{gizmoCRD(true), bad})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("InstallCRDs of 2 took %v", time.Since(start))
	if !res[0].Established || res[0].CRD == nil || srv.CRD("gizmos.example.org") == nil {
		t.Fatalf("gizmos not established: %+v", res[0])
	}
	if res[1].Code != 422 || res[1].Status == nil || res[1].Established {
		t.Fatalf("gadgets = %d %v, want 422", res[1].Code, res[1].Status)
	}
	t.Logf("refused in batch: %s", res[1].Status.Message)

	start = time.Now()
	r, err := srv.DryRunCreate(ctx, "gizmos.example.org", "v1", []byte(`{"apiVersion":"example.org/v1","kind":"Gizmo","metadata":{"name":"g"},"spec":{}}`), oracle.Strict)
	took := time.Since(start)
	if err != nil || r.Code != 201 {
		t.Fatalf("DryRunCreate = %d %v %v", r.Code, r.Status, err)
	}
	if took > time.Second {
		t.Errorf("first create took %v: the established delay was not waited out", took)
	}
	if md := r.Object["metadata"].(map[string]any); md["namespace"] != nil {
		t.Errorf("cluster-scoped object got a namespace: %v", md)
	}
	if size := r.Object["spec"].(map[string]any)["size"]; size != float64(3) {
		t.Errorf("spec.size = %v, want default 3", size)
	}

	if err := srv.DeleteCRDs(ctx, "gizmos.example.org", "gadgets.example.org"); err != nil {
		t.Fatal(err)
	}
	if srv.CRD("gizmos.example.org") != nil {
		t.Errorf("CRD still registered after delete")
	}
	if crd, err := srv.GetCRD(ctx, "gizmos.example.org"); err != nil || crd != nil {
		t.Errorf("GetCRD after delete = %v, %v", crd, err)
	}
}
