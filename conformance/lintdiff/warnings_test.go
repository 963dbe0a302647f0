package lintdiff

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/crdmut"
)

// upstreamInternal decodes a CRD document as the create handler does and
// prepares it as the strategy does before validation.
func upstreamInternal(js []byte) (*apiextensions.CustomResourceDefinition, error) {
	crd := new(apiextensionsv1.CustomResourceDefinition)
	if _, err := kjson.UnmarshalStrict(js, crd); err != nil {
		return nil, err
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	internal := new(apiextensions.CustomResourceDefinition)
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		return nil, err
	}
	customresourcedefinition.NewStrategy(nil).PrepareForCreate(context.Background(), internal)
	return internal, nil
}

// dedup keeps the first of equal warnings, as the server's warning
// recorder sends them.
func dedup(ws []string) []string {
	var out []string
	for _, w := range ws {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// TestCreateWarningsAgree compares the warnings of crdkit.CreateCRD with the
// server's CRD strategy (WarningsOnCreate, after the validation passed) on
// the corpus CRDs and on mutations that add formats and set lists. Where
// upstream's order follows its map iteration (several distinct warnings),
// the lists are compared sorted and counted apart.
func TestCreateWarningsAgree(t *testing.T) {
	crds := corpusCRDs(t)
	n := 12
	if s := os.Getenv("CRDKIT_LINT_MUTATIONS"); s != "" {
		fmt.Sscan(s, &n)
	}
	rng := rand.New(rand.NewPCG(5, 8))
	type tc struct {
		name string
		js   []byte
	}
	var cases []tc
	for _, name := range sortedNames(crds) {
		cases = append(cases, tc{name, crds[name]})
		for i := 0; i < n; i++ {
			var m map[string]any
			if err := json.Unmarshal(crds[name], &m); err != nil {
				t.Fatal(err)
			}
			desc := crdmut.MutateWarnings(rng, m, 1+rng.IntN(4))
			js, _ := json.Marshal(m)
			cases = append(cases, tc{fmt.Sprintf("%s warnings %d %s", name, i, desc), js})
		}
	}
	var agree, exact, withWarnings, refused int
	strategy := customresourcedefinition.NewStrategy(nil)
	for _, c := range cases {
		internal, err := upstreamInternal(c.js)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		crd := new(apiextensionsv1.CustomResourceDefinition)
		if _, err := kjson.UnmarshalStrict(c.js, crd); err != nil {
			t.Fatal(err)
		}
		res := crdkit.CreateCRD(crd)
		var want []string
		if errs, err := upstreamLint(c.js); err == nil && len(errs) == 0 {
			want = dedup(strategy.WarningsOnCreate(context.Background(), internal))
		} else {
			refused++
		}
		got := res.Warnings
		if len(want) > 0 {
			withWarnings++
		}
		if slices.Equal(got, want) {
			agree++
			exact++
			continue
		}
		gs, ws := slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
		if slices.Equal(gs, ws) && len(ws) > 1 {
			agree++
			continue
		}
		t.Errorf("CreateCRD(%s).Warnings = %q, want %q", c.name, got, want)
	}
	fmt.Printf("conformance: crd-create-warnings %d/%d cases agree (%d with warnings, %d of them in the same order; %d refused CRDs, no strategy warnings)\n",
		agree, len(cases), withWarnings, exact-(len(cases)-withWarnings), refused)
}
