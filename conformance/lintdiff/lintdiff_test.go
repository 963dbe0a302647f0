// Package lintdiff checks crdkit's CRD validation against the server's own
// validation package (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/
// validation) on the corpus and on generated invalid CRDs.
package lintdiff

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/crdkit/crdkit/internal/corpus"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/crdmut"
)

// corpusDir finds the shared corpus: $CRDKIT_CORPUS, or ../shared/corpus
// beside the repository.
func corpusDir(t testing.TB) string {
	d, ok := corpus.Root()
	if !ok {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the directory holding crds/ and objects/ (default ../shared/corpus beside the repository)")
	}
	return d
}

// corpusCRDs returns every CRD document of the corpus as JSON, by name.
func corpusCRDs(t testing.TB) map[string][]byte {
	dir := filepath.Join(corpusDir(t), "crds")
	docs, err := corpus.Walk(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, d := range docs {
		var m map[string]any
		if json.Unmarshal(d.JSON, &m) == nil && m["kind"] == "CustomResourceDefinition" {
			out[d.Name] = d.JSON
		}
	}
	if len(out) == 0 {
		t.Skipf("no CRDs under %s", dir)
	}
	return out
}

// upstreamLint runs the server's CRD validation as the create handler does:
// strict case-sensitive decode, v1 defaults, conversion to the internal
// form, the strategy's PrepareForCreate, then ValidateCustomResourceDefinition.
func upstreamLint(js []byte) (errs field.ErrorList, err error) {
	defer func() {
		if r := recover(); r != nil {
			// The server recovers this in its handler and answers 500.
			errs, err = nil, fmt.Errorf("upstream panicked: %v", r)
		}
	}()
	crd := new(apiextensionsv1.CustomResourceDefinition)
	if _, err := kjson.UnmarshalStrict(js, crd); err != nil {
		return nil, err
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	internal := new(apiextensions.CustomResourceDefinition)
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		return nil, err
	}
	internal.Status = apiextensions.CustomResourceDefinitionStatus{}
	internal.Generation = 1
	for _, v := range internal.Spec.Versions {
		if v.Storage {
			internal.Status.StoredVersions = append(internal.Status.StoredVersions, v.Name)
			break
		}
	}
	return validation.ValidateCustomResourceDefinition(context.Background(), internal), nil
}

func crdkitLint(js []byte) (field.ErrorList, error) {
	crd := new(apiextensionsv1.CustomResourceDefinition)
	if _, err := kjson.UnmarshalStrict(js, crd); err != nil {
		return nil, err
	}
	return crdkit.Lint(crd), nil
}

// cause renders an error as a Status cause: field, reason, message.
func causes(l field.ErrorList) []string {
	out := make([]string, len(l))
	for i, e := range l {
		out[i] = fmt.Sprintf("%s | %s | %s", e.Field, e.Type, e.ErrorBody())
	}
	sort.Strings(out)
	return out
}

type outcome struct {
	agree, gaps, panics int
}

func compare(t *testing.T, name string, js []byte, o *outcome) {
	t.Helper()
	up, err := upstreamLint(js)
	if err != nil {
		if strings.HasPrefix(err.Error(), "upstream panicked") {
			o.panics++
		}
		return // a decode error or a server panic: not a validation case
	}
	ours, err := crdkitLint(js)
	if err != nil {
		t.Errorf("%s: crdkit decode: %v", name, err)
		return
	}
	uc, oc := causes(up), causes(ours)
	for _, c := range uc {
		if crdmut.Gap(c) != "" {
			o.gaps++
			return
		}
	}
	if strings.Join(uc, "\n") != strings.Join(oc, "\n") {
		t.Errorf("Lint(%s) disagrees with upstream\nupstream:\n  %s\ncrdkit:\n  %s\ninput: %s",
			name, strings.Join(short(uc), "\n  "), strings.Join(short(oc), "\n  "), truncate(js))
		return
	}
	o.agree++
}

func truncate(b []byte) string {
	if len(b) > 600 && os.Getenv("CRDKIT_FULL_INPUT") == "" {
		return string(b[:600]) + "..."
	}
	return string(b)
}

func short(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		if len(s) > 400 {
			s = s[:400] + "..."
		}
		out[i] = s
	}
	return out
}

func TestCorpusLintAgrees(t *testing.T) {
	var o outcome
	crds := corpusCRDs(t)
	for _, name := range sortedNames(crds) {
		js := crds[name]
		ours, err := crdkitLint(js)
		if err != nil {
			t.Fatal(err)
		}
		if len(ours) != 0 {
			t.Errorf("Lint(%s) = %v, want no errors (the server accepts every corpus CRD)", name, ours)
		}
		compare(t, name, js, &o)
	}
	fmt.Printf("conformance: lint-corpus %d/%d cases agree (%d outside current scope)\n", o.agree, len(crds), o.gaps)
}

func TestGeneratedInvalidLintAgrees(t *testing.T) {
	crds := corpusCRDs(t)
	names := sortedNames(crds)
	n := 40
	if s := os.Getenv("CRDKIT_LINT_MUTATIONS"); s != "" {
		fmt.Sscan(s, &n)
	}
	var o outcome
	total := 0
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range names {
		for i := 0; i < n; i++ {
			var crd map[string]any
			if err := json.Unmarshal(crds[name], &crd); err != nil {
				t.Fatal(err)
			}
			desc := crdmut.Mutate(rng, crd, 1+rng.IntN(3))
			js, _ := json.Marshal(crd)
			total++
			compare(t, fmt.Sprintf("%s mutation %d (%s)", name, i, desc), js, &o)
		}
	}
	for _, c := range crdmut.Handwritten {
		total++
		compare(t, c.Name, []byte(c.JSON), &o)
	}
	fmt.Printf("conformance: lint-generated %d/%d cases agree (%d outside current scope, %d where upstream panics)\n", o.agree, total, o.gaps, o.panics)
}

func sortedNames(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
