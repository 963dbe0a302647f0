package servertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

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
	cases := corpusCRDCases(t, envInt("CRDKIT_WARNING_MUTATIONS", 6), rand.NewPCG(13, 17), "warnings",
		func(rng *rand.Rand, m map[string]any) string { return crdmut.MutateWarnings(rng, m, 1+rng.IntN(4)) })
	// The decoder's warnings come first, with or without a refusal.
	cases = append(cases,
		crdCase{"unknown and duplicate fields", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.warn.example.com","bogus":1},"spec":{"group":"warn.example.com","scope":"Namespaced","scope":"Cluster","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"extra":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"s":{"type":"string","format":"bogus"}}}}}]}}`},
		crdCase{"unknown fields, refused", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.warn.example.com"},"spec":{"group":"warn.example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget","bogus":"x"},"versions":[{"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","properties":{"s":{"type":"string","format":"bogus"}}}}}]}}`},
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
// crdkit.CreateCRD's CRD must hold the same. The same goes for numbers in
// defaults, enums and examples, which the server decodes as the JSON body
// has them and stores as its internal version has them (1.0 as 1, 1E2 as
// 100, 1e-400 as 0), and refuses with a 400 when out of float64's range
// (1e400, in a default, an enum or an example, or in a bound, which the
// typed decoding refuses): crdkit.Load of the JSON document must answer
// the same code and message, and its CRD (CreateCRD's) hold the same
// property.
func TestCreateStoresCoercedDefaults(t *testing.T) {
	doc := func(prop string) string {
		return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.coerce.example.com"},"spec":{"group":"coerce.example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"x":` + prop + `}}}}}}]}}`
	}
	cases := []struct{ name, prop string }{
		{"coerced-default", `{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,"default":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","bogus":1,"creationTimestamp":null},"spec":{"a":1}}}`},
		{"default 1.0", `{"type":"number","default":1.0}`},
		{"integer default 1.0", `{"type":"integer","default":1.0}`},
		{"integer default 1.5", `{"type":"integer","default":1.5}`},
		{"integer default past int64", `{"type":"integer","default":12345678901234567890}`},
		{"default 1E2", `{"type":"number","default":1E2}`},
		{"default 1e-400", `{"type":"number","default":1e-400}`},
		{"default 1e400", `{"type":"number","default":1e400}`},
		{"default -1e400", `{"type":"number","default":-1e400}`},
		{"enum 1.0", `{"type":"number","enum":[1.0,2.50]}`},
		{"enum 1.0 and 1", `{"type":"number","enum":[1.0,1]}`},
		{"enum 1e400", `{"type":"number","enum":[1e400]}`},
		{"example 1e400", `{"type":"number","example":1e400}`},
		{"maximum 1e400", `{"type":"number","maximum":1e400}`},
		{"maximum and default 1.00", `{"type":"number","maximum":1.0,"default":1.00}`},
		{"object default with 1.0", `{"type":"object","x-kubernetes-preserve-unknown-fields":true,"default":{"a":1.0,"b":[2.50,1e1]}}`},
	}
	prop := func(c *apiextensionsv1.CustomResourceDefinition) string {
		b, _ := json.Marshal(c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["x"])
		return string(b)
	}
	agree := 0
	for _, c := range cases {
		d := doc(c.prop)
		r, err := srv.CreateCRDRaw(context.Background(), []byte(d), oracle.CreateCRDOptions{DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		var want, got string
		if r.Code == 201 {
			theirs := new(apiextensionsv1.CustomResourceDefinition)
			if err := json.Unmarshal(r.Body, theirs); err != nil {
				t.Fatal(err)
			}
			want = "201 " + prop(theirs)
		} else {
			want = fmt.Sprintf("%d %s", r.Code, r.Status.Message)
		}
		ck, err := crdkit.Load([]byte(d))
		var se *apierrors.StatusError
		switch {
		case err == nil:
			crd, _, derr := crdkit.DecodeCRD([]byte(d))
			if derr != nil {
				t.Fatal(derr)
			}
			res := crdkit.CreateCRD(crd)
			if res.Err != nil {
				got = "CreateCRD: " + res.Err.Error()
			} else if p := prop(res.CRD); p != prop(ck.Definition()) {
				got = fmt.Sprintf("CreateCRD %s, Load %s", p, prop(ck.Definition()))
			} else {
				got = "201 " + p
			}
		case errors.As(err, &se):
			got = fmt.Sprintf("%d %s", se.Status().Code, se.Status().Message)
		default:
			got = fmt.Sprintf("%T %v", err, err)
		}
		if got != want {
			t.Errorf("Load(%s) = %s, server %s", c.name, got, want)
			continue
		}
		agree++
		if c.name == "coerced-default" {
			fmt.Printf("conformance: crd-create-coerced-default 1/1 (server stores %s)\n", want)
		}
	}
	fmt.Printf("conformance: crd-create-numbers-server %d/%d cases agree (stored defaults, enums, bounds; 400 for numbers past float64)\n", agree, len(cases))
}
