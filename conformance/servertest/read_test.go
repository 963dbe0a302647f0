package servertest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/gen"
	"github.com/crdkit/crdkit/conformance/oracle"
)

// readCRDs are generated multi-version CRDs: different schemas and
// defaults per version, a version that is not served, cluster scope,
// preserveUnknownFields under a subtree, an embedded resource.
var readCRDs = []string{`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: shelves.read.crdkit.dev}
spec:
  group: read.crdkit.dev
  scope: Namespaced
  names: {plural: shelves, kind: Shelf}
  versions:
  - name: v1alpha1
    served: false
    storage: false
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {
      legacy: {type: string, default: old}, count: {type: integer}}}}}}
  - name: v1
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {
      count: {type: integer, default: 1}, color: {type: string, default: red},
      extra: {type: object, x-kubernetes-preserve-unknown-fields: true}}}}}}
  - name: v2
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {
      size: {type: integer, default: 3}, count: {type: integer},
      nested: {type: object, default: {a: 1}, properties: {a: {type: integer}, b: {type: string, default: bee}}},
      template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}}},
      status: {type: object, properties: {phase: {type: string, default: Pending}}}}}}
    subresources: {status: {}}
`, `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: racks.read.crdkit.dev}
spec:
  group: read.crdkit.dev
  scope: Cluster
  names: {plural: racks, kind: Rack}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {
      slots: {type: array, items: {type: object, properties: {n: {type: integer, default: 0}, tag: {type: string}}}}}}}}}
  - name: v2beta1
    served: true
    storage: false
    deprecated: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {spec: {type: object, properties: {
      slots: {type: array, items: {type: object, properties: {tag: {type: string, default: none}}}},
      nullable: {type: string, nullable: true}}}}}}
`}

// storedVariants are the objects written into etcd for one base object at
// one version: the base, unknown fields, malformed metadata, no spec (missing
// defaults), generation 0 or absent, an undefined version, another group,
// another kind, no kind, bytes that are not JSON.
func storedVariants(base map[string]any, group string) []struct {
	name string
	data []byte
} {
	type variant = struct {
		name string
		data []byte
	}
	mk := func(name string, edit func(o map[string]any)) variant {
		o := jsonRoundTrip(base)
		md, _ := o["metadata"].(map[string]any)
		md["name"] = fmt.Sprint(md["name"], "-", name)
		edit(o)
		b, _ := json.Marshal(o)
		return variant{name, b}
	}
	return []variant{
		mk("base", func(o map[string]any) {}),
		mk("unknown", func(o map[string]any) {
			o["bogusTop"] = 1
			if spec, ok := o["spec"].(map[string]any); ok {
				spec["crdkitUnknown"] = map[string]any{"x": 1}
			}
			o["metadata"].(map[string]any)["bogusMeta"] = "x"
		}),
		mk("badmeta", func(o map[string]any) {
			md := o["metadata"].(map[string]any)
			md["labels"] = map[string]any{"a": 1, "ok": "yes"}
			md["annotations"] = "not a map"
			md["finalizers"] = []any{1, "x/y"}
			md["generation"] = "seven"
			md["ownerReferences"] = map[string]any{}
		}),
		mk("nospec", func(o map[string]any) { delete(o, "spec"); delete(o, "status") }),
		mk("gen0", func(o map[string]any) { o["metadata"].(map[string]any)["generation"] = 0 }),
		mk("gen4", func(o map[string]any) { o["metadata"].(map[string]any)["generation"] = 4 }),
		mk("nulls", func(o map[string]any) {
			if spec, ok := o["spec"].(map[string]any); ok {
				for k := range spec {
					spec[k] = nil
				}
			}
		}),
		mk("undefined", func(o map[string]any) { o["apiVersion"] = group + "/v999" }),
		mk("othergroup", func(o map[string]any) { o["apiVersion"] = "other.crdkit.dev/v1" }),
		// Another kind of the same group at the key (crdkit convert --resource).
		mk("otherkind", func(o map[string]any) { o["kind"] = "CrdkitOtherKind" }),
		mk("nokind", func(o map[string]any) { delete(o, "kind") }),
		mk("badkind", func(o map[string]any) { o["kind"] = 7 }),
		{"notjson", []byte(`{"apiVersion":`)},
	}
}

// TestServerReadPath writes objects directly into etcd (the server's key for
// custom resources) at every defined version of the multi-version corpus
// CRDs (strategy None) and of readCRDs, then GETs each at every version
// and compares with crdkit's Version.ReadJSON: the object (without the
// server-only metadata), or the code and message.
func TestServerReadPath(t *testing.T) {
	b := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	var docs [][]byte
	for _, y := range readCRDs {
		js, err := yaml.YAMLToJSON([]byte(y))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, js)
	}
	docs = append(docs, mixedCRDs(t, b)...)
	extra, err := srv.InstallRawCRDs(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, r := range append(append([]oracle.InstallResult(nil), b.results...), extra...) {
		c := r.CRD
		if c == nil || !r.Established || len(c.Spec.Versions) < 2 {
			continue
		}
		if c.Spec.Conversion != nil && c.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter {
			continue // a webhook the test cannot reach: TestWebhook* cover webhooks
		}
		crds = append(crds, c)
	}
	a := newAgreement()
	var cks []*crdkit.CRD
	var compiled []*apiextensionsv1.CustomResourceDefinition
	for _, crd := range crds {
		if ck := loadCrdkit(t, crd); ck != nil {
			cks, compiled = append(cks, ck), append(compiled, crd)
		}
	}
	nCRD := len(cks)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				readCRD(ctx, t, a, compiled[i], cks[i])
			}
		}()
	}
	for i := range cks {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	fmt.Printf("conformance: read path over %d multi-version CRDs (%d from the corpus with strategy None, %d hand-written and generated)\n", nCRD, nCRD-len(extra), len(extra))
	a.report(t)
}

// readCRD writes the variants of a generated object at every version of
// crd into etcd and compares the GETs at every version with crdkit's.
func readCRD(ctx context.Context, t *testing.T, a *agreement, crd *apiextensionsv1.CustomResourceDefinition, ck *crdkit.CRD) {
	for vi, v := range crd.Spec.Versions {
		g, err := gen.New(crd, v.Name, gen.Options{Seed: 7})
		if err != nil {
			t.Errorf("%s %s: %v", crd.Name, v.Name, err)
			continue
		}
		base := g.Object(uint64(vi+1), fmt.Sprintf("read-%s", v.Name))
		ns := ""
		if crd.Spec.Scope == apiextensionsv1.NamespaceScoped {
			ns = "default"
			base["metadata"].(map[string]any)["namespace"] = ns
		}
		for _, sv := range storedVariants(base, crd.Spec.Group) {
			name := fmt.Sprintf("read-%s-%s", v.Name, sv.name)
			key, rev, err := srv.PutStored(ctx, crd.Name, ns, name, sv.data)
			if err != nil {
				t.Errorf("put %s: %v", key, err)
				return
			}
			for _, w := range crd.Spec.Versions {
				res, err := srv.Do(ctx, oracle.Request{Op: oracle.OpGet, CRD: crd.Name, Version: w.Name, Namespace: ns, Name: name})
				if err != nil {
					t.Errorf("get %s at %s: %v", key, w.Name, err)
					return
				}
				got, gerr := ck.Version(w.Name).ReadJSON(sv.data, crdkit.ReadOptions{Key: key, Revision: rev})
				compareRead(a, crd.Name, v.Name, w, sv.name, sv.data, res, got, gerr)
			}
			// An object the server cannot decode keeps the resource's watch
			// cache from initialising (later LISTs answer 429): remove it.
			if err := srv.DeleteStored(ctx, crd.Name, ns, name); err != nil {
				t.Errorf("delete %s: %v", key, err)
				return
			}
		}
	}
}

// compareRead compares one GET with crdkit's read.
func compareRead(a *agreement, crd, stored string, at apiextensionsv1.CustomResourceDefinitionVersion, variant string, data []byte, res oracle.Result, got map[string]any, gerr error) {
	sample := func(ours string) string {
		return fmt.Sprintf("%s stored at %s (%s) read at %s\n  stored: %s\n  server: %d %s\n  crdkit: %s",
			crd, stored, variant, at.Name, truncate(string(data), 400), res.Code, truncate(string(res.Body), 1200), truncate(ours, 1200))
	}
	if !at.Served {
		ok := res.Code == 404 && apierrors.IsNotFound(gerr)
		a.record("read-unserved-404", variant, ok, sample(fmt.Sprint(gerr)))
		return
	}
	if res.Code == 200 {
		if gerr != nil {
			a.record("read-object", variant, false, sample(gerr.Error()))
			return
		}
		want := oracle.Normalize(res.Object)
		ours := oracle.Normalize(jsonRoundTrip(got))
		a.record("read-object", variant, reflect.DeepEqual(want, ours), sample(mustJSON(ours)))
		return
	}
	st, ok := gerr.(apierrors.APIStatus)
	if !ok || res.Status == nil {
		a.record("read-error", variant, false, sample(fmt.Sprint(gerr)))
		return
	}
	s := st.Status()
	a.record("read-error", variant, int(s.Code) == res.Code && s.Message == res.Status.Message && s.Reason == res.Status.Reason,
		sample(fmt.Sprintf("%d %s %s", s.Code, s.Reason, s.Message)))
}

// mixedCRDs are generated multi-version CRDs: each takes the schemas of
// two corpus CRD versions (different shapes, defaults, embedded resources,
// preserve-unknown-fields) as its versions v1 (storage) and v2, and the
// second again as v3alpha1, not served.
func mixedCRDs(t *testing.T, b *installed) [][]byte {
	var schemas []*apiextensionsv1.JSONSchemaProps
	for _, r := range b.results {
		if r.CRD == nil || len(r.CRD.Spec.Versions) == 0 || r.CRD.Spec.PreserveUnknownFields {
			continue
		}
		if v := r.CRD.Spec.Versions[0]; v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			schemas = append(schemas, v.Schema.OpenAPIV3Schema)
		}
	}
	var docs [][]byte
	for i := 0; i+1 < len(schemas) && i < 16; i += 2 {
		crd := apiextensionsv1.CustomResourceDefinition{}
		crd.APIVersion, crd.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
		plural := fmt.Sprintf("mixed%d", i/2)
		crd.Name = plural + ".read.crdkit.dev"
		crd.Spec.Group = "read.crdkit.dev"
		crd.Spec.Scope = apiextensionsv1.NamespaceScoped
		crd.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Kind: fmt.Sprintf("Mixed%d", i/2)}
		for j, v := range []struct {
			name            string
			served, storage bool
			s               *apiextensionsv1.JSONSchemaProps
		}{{"v1", true, true, schemas[i]}, {"v2", true, false, schemas[i+1]}, {"v3alpha1", false, false, schemas[i+1]}} {
			_ = j
			crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v.name, Served: v.served, Storage: v.storage,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: v.s.DeepCopy()}})
		}
		js, err := json.Marshal(crd)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, js)
	}
	return docs
}
