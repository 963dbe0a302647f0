package servertest

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/restmapper"
	kexplain "k8s.io/kubectl/pkg/explain"
	explainv2 "k8s.io/kubectl/pkg/explain/v2"

	"github.com/crdkit/crdkit/internal/explain"
	"github.com/crdkit/crdkit/openapi"
)

// TestOpenAPIExplain drives kubectl's explain package against the server
// (discovery for the REST mapper, /openapi/v3 for the schemas) and compares
// its text with crdkit explain's for every CRD's top level, spec and status,
// with and without --recursive, at the preferred and at every served version.
func TestOpenAPIExplain(t *testing.T) {
	crds := openAPICRDs(t)
	// The v3 documents are published asynchronously: TestOpenAPIV3's wait.
	dc, err := discovery.NewDiscoveryClientForConfig(srv.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	client := restClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			want, err := openapi.BuildV3(crds, crd.Spec.Group, v.Name)
			if err != nil {
				t.Fatal(err)
			}
			for {
				got, ok := getJSON(ctx, t, client, "/openapi/v3/apis/"+crd.Spec.Group+"/"+v.Name)
				if ok && published(got, want) {
					break
				}
				select {
				case <-ctx.Done():
					t.Fatalf("%s %s not published in time", crd.Name, v.Name)
				case <-time.After(200 * time.Millisecond):
				}
			}
		}
	}
	grs := serverGroupResources(t, dc, crds)
	mapper := restmapper.NewShortcutExpander(restmapper.NewDiscoveryRESTMapper(grs), dc, nil)
	oc := dc.OpenAPIV3()
	kubectl := func(arg string, gv schema.GroupVersion, recursive bool) (string, error) {
		var gvr schema.GroupVersionResource
		var fields []string
		var err error
		if gv.Empty() {
			gvr, fields, err = kexplain.SplitAndParseResourceRequestWithMatchingPrefix(arg, mapper)
		} else {
			gvr, fields, err = kexplain.SplitAndParseResourceRequest(arg, mapper)
			gvr.Group, gvr.Version = gv.Group, gv.Version
		}
		if err != nil {
			return "", err
		}
		var b bytes.Buffer
		err = explainv2.PrintModelDescription(fields, &b, oc, gvr, recursive, 0, "plaintext")
		return b.String(), err
	}
	agree, total := 0, 0
	for _, crd := range crds {
		if strings.HasSuffix(crd.Spec.Group, "."+numbersGroup) {
			continue // copies of the rule CRDs, explained field by field below
		}
		qualified := crd.Spec.Names.Plural + "." + crd.Spec.Group
		var gvs []schema.GroupVersion
		gvs = append(gvs, schema.GroupVersion{})
		for _, v := range crd.Spec.Versions {
			if v.Served {
				gvs = append(gvs, schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name})
			}
		}
		for _, gv := range gvs {
			args := []string{qualified, qualified + ".spec", qualified + ".status", qualified + ".metadata"}
			if !gv.Empty() {
				args = []string{crd.Spec.Names.Plural, crd.Spec.Names.Singular + ".spec"}
			}
			for _, arg := range args {
				for _, recursive := range []bool{false, true} {
					total++
					want, werr := kubectl(arg, gv, recursive)
					var b bytes.Buffer
					gerr := explain.Resource(&b, crds, arg, gv, recursive)
					if b.String() != want || (werr == nil) != (gerr == nil) {
						t.Errorf("explain %s --api-version %q --recursive=%t:\ncrdkit (%v):\n%s\nkubectl (%v):\n%s",
							arg, gv.String(), recursive, gerr, truncate(b.String(), 600), werr, truncate(want, 600))
						continue
					}
					agree++
				}
			}
		}
	}
	fmt.Printf("conformance: openapi-explain %d/%d outputs agree\n", agree, total)

	// Every field of the large-integer CRDs with a default, an enum, an
	// example or a bound, on its own: kubectl's long view of a field lists
	// its enum in full.
	agree, total = 0, 0
	for _, crd := range crds {
		if !strings.HasSuffix(crd.Spec.Group, numbersGroup) {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served || v.Schema == nil {
				continue
			}
			gv := schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}
			for _, f := range numberFields(v.Schema.OpenAPIV3Schema, crd.Spec.Names.Plural, 0) {
				total++
				want, werr := kubectl(f, gv, false)
				var b bytes.Buffer
				gerr := explain.Resource(&b, crds, f, gv, false)
				if b.String() != want || (werr == nil) != (gerr == nil) {
					t.Errorf("explain %s --api-version %s:\ncrdkit (%v):\n%s\nkubectl (%v):\n%s",
						f, gv, gerr, truncate(b.String(), 600), werr, truncate(want, 600))
					continue
				}
				agree++
			}
		}
	}
	fmt.Printf("conformance: openapi-explain large-integer %d/%d fields agree\n", agree, total)
	if total < 20 {
		t.Errorf("%d large-integer fields explained, want at least 20", total)
	}
}

// numberFields lists the explain arguments (prefix.field.field...) of the
// fields under s, through properties and array items, that have a default,
// an enum, an example or a bound.
func numberFields(s *apiextensionsv1.JSONSchemaProps, prefix string, depth int) []string {
	if s == nil || depth > 20 {
		return nil
	}
	var out []string
	if depth > 0 && (s.Default != nil || len(s.Enum) > 0 || s.Example != nil || s.Maximum != nil || s.Minimum != nil || s.MultipleOf != nil) {
		out = append(out, prefix)
	}
	if s.Items != nil && s.Items.Schema != nil {
		for _, f := range numberFields(s.Items.Schema, prefix, depth+1) {
			if f != prefix {
				out = append(out, f)
			}
		}
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		p := s.Properties[k]
		out = append(out, numberFields(&p, prefix+"."+k, depth+1)...)
	}
	return out
}

// serverGroupResources is restmapper.GetAPIGroupResources for the CRDs'
// groups: this server (no aggregator in front) does not serve the /apis list.
func serverGroupResources(t *testing.T, dc *discovery.DiscoveryClient, crds []*apiextensionsv1.CustomResourceDefinition) []*restmapper.APIGroupResources {
	t.Helper()
	seen := map[string]bool{}
	var out []*restmapper.APIGroupResources
	for _, crd := range crds {
		if seen[crd.Spec.Group] {
			continue
		}
		seen[crd.Spec.Group] = true
		var g metav1.APIGroup
		if err := dc.RESTClient().Get().AbsPath("/apis/" + crd.Spec.Group).Do(context.Background()).Into(&g); err != nil {
			t.Fatalf("GET /apis/%s: %v", crd.Spec.Group, err)
		}
		gr := &restmapper.APIGroupResources{Group: g, VersionedResources: map[string][]metav1.APIResource{}}
		for _, v := range g.Versions {
			rl, err := dc.ServerResourcesForGroupVersion(v.GroupVersion)
			if err != nil {
				t.Fatalf("GET /apis/%s: %v", v.GroupVersion, err)
			}
			gr.VersionedResources[v.Version] = rl.APIResources
		}
		out = append(out, gr)
	}
	return out
}
