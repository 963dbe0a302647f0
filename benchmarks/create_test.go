package benchmarks

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
)

// createStrategy is the server's custom-resource strategy
// (customresource.NewStrategy), as a create uses it.
type createStrategy = rest.RESTCreateStrategy

// createCase is one corpus object with its CRD version, prepared for both
// pipelines.
type createCase struct {
	name     string
	obj      map[string]any
	version  *crdkit.Version
	strategy createStrategy
	ss       *structuralschema.Structural
}

// createCases loads the corpus objects of every CRD version, with or
// without x-kubernetes-validations rules (both sides evaluate them), and
// builds both pipelines once.
func createCases(tb testing.TB) []createCase {
	root := benchCorpus(tb)
	type served struct {
		v        *crdkit.Version
		strategy createStrategy
		ss       *structuralschema.Structural
	}
	byGVK := map[string]served{}
	for _, doc := range corpusDocs(tb, filepath.Join(root, "crds")) {
		crd := new(apiextensionsv1.CustomResourceDefinition)
		if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, crd); err != nil || crd.Kind != "CustomResourceDefinition" {
			continue
		}
		ck, err := crdkit.New(crd)
		if err != nil {
			tb.Fatal(err)
		}
		for _, v := range crd.Spec.Versions {
			if v.Schema == nil {
				continue
			}
			internal := new(apiextensions.JSONSchemaProps)
			if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
				tb.Fatal(err)
			}
			ss, err := structuralschema.NewStructural(internal)
			if err != nil {
				tb.Fatal(err)
			}
			validator, _, err := apiservervalidation.NewSchemaValidator(internal)
			if err != nil {
				tb.Fatal(err)
			}
			var status *apiextensions.CustomResourceSubresourceStatus
			var scale *apiextensions.CustomResourceSubresourceScale
			if sr := v.Subresources; sr != nil {
				if sr.Status != nil {
					status = &apiextensions.CustomResourceSubresourceStatus{}
				}
				if sc := sr.Scale; sc != nil {
					scale = &apiextensions.CustomResourceSubresourceScale{SpecReplicasPath: sc.SpecReplicasPath, StatusReplicasPath: sc.StatusReplicasPath, LabelSelectorPath: sc.LabelSelectorPath}
				}
			}
			gvk := runtimeschema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			st := customresource.NewStrategy(unstructuredscheme.NewUnstructuredObjectTyper(), crd.Spec.Scope == apiextensionsv1.NamespaceScoped, gvk, validator, nil, ss, status, scale, nil)
			byGVK[gvk.GroupVersion().String()+" "+gvk.Kind] = served{ck.Version(v.Name), st, ss}
		}
	}
	var out []createCase
	for _, doc := range corpusDocs(tb, filepath.Join(root, "objects")) {
		var obj map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, &obj); err != nil {
			continue
		}
		av, _ := obj["apiVersion"].(string)
		kind, _ := obj["kind"].(string)
		s, ok := byGVK[av+" "+kind]
		if !ok {
			continue
		}
		if md, ok := obj["metadata"].(map[string]any); ok && s.v.CRD().Namespaced() && md["namespace"] == nil {
			md["namespace"] = "default"
		}
		name, _, _ := unstructured.NestedString(obj, "metadata", "name")
		out = append(out, createCase{name: fmt.Sprintf("%s/%s", s.v.CRD().Name(), name), obj: obj, version: s.v, strategy: s.strategy, ss: s.ss})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// upstreamCreate is the server's create pipeline from a decoded object,
// CEL rules included (the strategy runs them), without storage: the
// decoder's coercion (metadata round trip, prune, null pruning, embedded
// coercion), request-version defaults, then upstreamBeforeCreate. It
// returns the error the server answers with, nil when it accepts.
func upstreamCreate(c createCase, obj map[string]any) error {
	coerceAndDefault(c, obj)
	ns, _, _ := unstructured.NestedString(obj, "metadata", "namespace")
	ctx := genericapirequest.WithNamespace(context.Background(), ns)
	return upstreamBeforeCreate(ctx, c.strategy, &unstructured.Unstructured{Object: obj})
}

// upstreamBeforeCreate is rest.BeforeCreate (k8s.io/apiserver
// pkg/registry/rest/create.go) without its two internal-error checks of
// the store's own earlier steps (system metadata filled, name generated):
// the store fills a uid and creation time before it, which crdkit leaves to
// the caller, so a direct call would fail. The rest is the server's, in
// its order: the namespace check, PrepareForCreate, rest.ValidateCreate
// (the strategy's validation, then the object metadata's), the Invalid
// status error built from the causes, the warnings and Canonicalize; the
// same work crdkit's create does.
func upstreamBeforeCreate(ctx context.Context, st createStrategy, obj runtime.Object) error {
	objectMeta, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	kinds, _, err := st.ObjectKinds(obj)
	if err != nil {
		return err
	}
	ns, _ := genericapirequest.NamespaceFrom(ctx)
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForScope(ns, st.NamespaceScoped()), objectMeta); err != nil {
		return err
	}
	st.PrepareForCreate(ctx, obj)
	if errs := rest.ValidateCreate(ctx, obj, st); len(errs) != 0 {
		return apierrors.NewInvalid(kinds[0].GroupKind(), objectMeta.GetName(), errs)
	}
	for _, w := range st.WarningsOnCreate(ctx, obj) {
		warning.AddWarning(ctx, "", w)
	}
	st.Canonicalize(obj)
	return nil
}

// coerceAndDefault is the decoder's coercion with the object's own schema
// (metadata round trip, prune, null pruning, embedded coercion) and its
// request-version defaults, in place.
func coerceAndDefault(c createCase, obj map[string]any) {
	meta, found, _, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{})
	if err != nil {
		panic(err)
	}
	structuralpruning.Prune(obj, c.ss, true)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, c.ss)
	if err, _ := schemaobjectmeta.CoerceWithOptions(nil, obj, c.ss, false, schemaobjectmeta.CoerceOptions{}); err != nil {
		panic(err)
	}
	if found {
		if err := schemaobjectmeta.SetObjectMeta(obj, meta); err != nil {
			panic(err)
		}
	}
	structuraldefaulting.Default(obj, c.ss)
}

// BenchmarkCreate runs the whole create pipeline on decoded corpus objects:
// crdkit's Version.Create (which also copies its input and does the
// store-and-read-back the server's response reflects) against the same
// steps of the server called directly (on a copy made inside the loop, as
// crdkit's Create copies), x-kubernetes-validations rules included.
func BenchmarkCreate(b *testing.B) {
	for _, c := range createCases(b) {
		b.Run(c.name+"/crdkit", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if res := c.version.Create(c.obj, crdkit.CreateOptions{FieldValidation: crdkit.Ignore, ManagedFields: omitManaged}); res.Object == nil && res.Err == nil {
					b.Fatal("no answer")
				}
			}
		})
		b.Run(c.name+"/upstream", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = upstreamCreate(c, runtime.DeepCopyJSON(c.obj))
			}
		})
	}
}

// TestCreateBenchInputs checks that both pipelines agree on every input:
// the same verdict, and for accepted objects the same object once the
// server's storage step is left out of the comparison.
func TestCreateBenchInputs(t *testing.T) {
	cases := createCases(t)
	if len(cases) == 0 {
		t.Skip("no corpus objects for CRD versions without rules")
	}
	for _, c := range cases {
		res := c.version.Create(c.obj, crdkit.CreateOptions{FieldValidation: crdkit.Ignore, ManagedFields: omitManaged})
		err := upstreamCreate(c, runtime.DeepCopyJSON(c.obj))
		if (res.Err == nil) != (err == nil) {
			t.Errorf("%s: crdkit %v, upstream %v", c.name, res.Err, err)
		} else if err != nil && res.Err.Error() != err.Error() {
			t.Errorf("%s: crdkit %q, upstream %q", c.name, res.Err, err)
		}
		if res.Err == nil {
			if _, err := json.Marshal(res.Object); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		}
	}
}
