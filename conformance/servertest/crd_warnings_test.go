package servertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/crdmut"
	"github.com/crdkit/crdkit/conformance/oracle"
)

// TestCreateWarningsAgreeWithServer sends every corpus CRD and mutations
// that add formats and set lists (crdmut.MutateWarnings), plus documents
// with unknown and duplicate fields, as dry-run CRD creates, and compares
// the server's Warning headers with crdkit.Load's (CRD.Warnings; for a
// refused CRD, those of Load with AllowInvalid, which the server sends
// with its 422). Where the server's order of several format warnings
// follows its map iteration, the lists are compared sorted.
func TestCreateWarningsAgreeWithServer(t *testing.T) {
	dir := corpusDir()
	if dir == "" {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the corpus root (the directory holding crds/)")
	}
	docs, err := oracle.LoadCRDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	perCRD := envInt("CRDKIT_WARNING_MUTATIONS", 6)
	type wcase struct{ name, json string }
	var cases []wcase
	rng := rand.New(rand.NewPCG(13, 17))
	for _, d := range docs {
		name := fmt.Sprintf("%s#%d", filepath.Base(d.File), d.Index)
		doc := regroup(t, d.JSON)
		cases = append(cases, wcase{name, string(doc)})
		for i := 0; i < perCRD; i++ {
			var m map[string]any
			if err := json.Unmarshal(doc, &m); err != nil {
				t.Fatal(err)
			}
			desc := crdmut.MutateWarnings(rng, m, 1+rng.IntN(4))
			b, _ := json.Marshal(m)
			cases = append(cases, wcase{fmt.Sprintf("%s warnings %d %s", name, i, desc), string(b)})
		}
	}
	// The decoder's warnings come first, with or without a refusal.
	cases = append(cases,
		wcase{"unknown and duplicate fields", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.warn.example.com","bogus":1},"spec":{"group":"warn.example.com","scope":"Namespaced","scope":"Cluster","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"extra":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"s":{"type":"string","format":"bogus"}}}}}]}}`},
		wcase{"unknown fields, refused", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.warn.example.com"},"spec":{"group":"warn.example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget","bogus":"x"},"versions":[{"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","properties":{"s":{"type":"string","format":"bogus"}}}}}]}}`},
	)

	ctx := context.Background()
	results := make([]oracle.Result, len(cases))
	errs := make([]error, len(cases))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, c := range cases {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i], errs[i] = srv.CreateCRDRaw(ctx, []byte(c.json), oracle.CreateCRDOptions{DryRun: true})
		})
	}
	wg.Wait()
	var agree, sorted, withWarnings, refused, compared int
	for i, c := range cases {
		r := results[i]
		if errs[i] != nil || r.Code >= 500 {
			continue
		}
		compared++
		crd, err := crdkit.Load([]byte(c.json), crdkit.LoadOptions{AllowInvalid: true})
		var got []string
		switch {
		case err == nil:
			got = crd.Warnings()
		case errors.Is(err, crdkit.ErrNotCRD):
			t.Fatalf("%s: %v", c.name, err)
		}
		if r.Code != 201 {
			refused++
		}
		if len(r.Warnings) > 0 {
			withWarnings++
		}
		if slices.Equal(got, r.Warnings) {
			agree++
			continue
		}
		if len(r.Warnings) > 1 && slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(r.Warnings))) {
			agree++
			sorted++
			continue
		}
		t.Errorf("Load(%s).Warnings() = %q, server (%d) sent %q", c.name, got, r.Code, r.Warnings)
	}
	fmt.Printf("conformance: crd-create-warnings-server %d/%d cases agree (%d with warnings, %d of them compared sorted: the server's order follows map iteration; %d refused)\n",
		agree, compared, withWarnings, sorted, refused)
}

// TestCreateStoresCoercedDefaults: the server coerces the metadata of an
// embedded resource in a default in place while it validates the default,
// so the CRD it stores (and answers with) holds the coerced value.
// crdkit.CreateCRD's CRD must hold the same.
func TestCreateStoresCoercedDefaults(t *testing.T) {
	doc := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.coerce.example.com"},"spec":{"group":"coerce.example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,"default":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","bogus":1,"creationTimestamp":null},"spec":{"a":1}}}}}}}}}]}}`
	r, err := srv.CreateCRDRaw(context.Background(), []byte(doc), oracle.CreateCRDOptions{DryRun: true})
	if err != nil || r.Code != 201 {
		t.Fatalf("dry-run create = %d %v %v", r.Code, r.Status, err)
	}
	crd, _, err := crdkit.DecodeCRD([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	res := crdkit.CreateCRD(crd)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	theirs := new(apiextensionsv1.CustomResourceDefinition)
	if err := json.Unmarshal(r.Body, theirs); err != nil {
		t.Fatal(err)
	}
	def := func(c *apiextensionsv1.CustomResourceDefinition) string {
		return string(c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["template"].Default.Raw)
	}
	if got, want := def(res.CRD), def(theirs); got != want {
		t.Errorf("CreateCRD: the stored default = %s, server %s", got, want)
	}
	fmt.Printf("conformance: crd-create-coerced-default 1/1 (server stores %s)\n", def(theirs))
}
