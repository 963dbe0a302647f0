//go:build unix

package benchmarks

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/definition"
	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/rules"
)

// CRDUpdate benchmarks: the server's validation of a CRD update
// (validation.ValidateCustomResourceDefinitionUpdate) beside crdkit's
// (definition.ValidateUpdate), on the internal forms after the strategy's
// PrepareForUpdate, for every corpus CRD as the live CRD (established,
// stored versions set) and two revisions of it:
//
//   - relabel: a metadata change, the spec unchanged (kubectl apply of the
//     same manifest with another label);
//   - revision: one property's description changed in every version (a
//     new release whose schemas change, each then validated in full).
//
// Neither side modifies its inputs; both compile every CEL rule. Besides
// ns/op (wall time, the figure compared), each reports cpu-ns/op, the CPU
// time of the process per call (GC workers and crdkit's parallel workers
// included), which waiting for other processes on a shared machine does
// not inflate.

type crdUpdateCase struct {
	name     string // crd/revision
	new, old *apiextensions.CustomResourceDefinition
}

var (
	crdUpdateOnce  sync.Once
	crdUpdateList  []crdUpdateCase
	crdUpdateError error
)

func crdUpdateCases(tb testing.TB) []crdUpdateCase {
	dir := benchCorpus(tb)
	crdUpdateOnce.Do(func() { crdUpdateList, crdUpdateError = loadCRDUpdateCases(dir) })
	if crdUpdateError != nil {
		tb.Fatal(crdUpdateError)
	}
	return crdUpdateList
}

func internalCRD(js []byte) (*apiextensions.CustomResourceDefinition, error) {
	v1 := new(apiextensionsv1.CustomResourceDefinition)
	if _, err := kjson.UnmarshalStrict(js, v1); err != nil {
		return nil, err
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(v1)
	out := new(apiextensions.CustomResourceDefinition)
	err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(v1, out, nil)
	return out, err
}

func loadCRDUpdateCases(dir string) ([]crdUpdateCase, error) {
	files, err := filepath.Glob(filepath.Join(dir, "crds", "*", "*.yaml"))
	if err != nil {
		return nil, err
	}
	var out []crdUpdateCase
	st := customresourcedefinition.NewStrategy(nil)
	for _, f := range files {
		docs, err := corpus.Documents(f)
		if err != nil {
			return nil, err
		}
		for _, js := range docs {
			var m map[string]any
			if json.Unmarshal(js, &m) != nil || m["kind"] != "CustomResourceDefinition" {
				continue
			}
			old, err := internalCRD(js)
			if err != nil {
				return nil, err
			}
			st.PrepareForCreate(context.Background(), old)
			old.Status.AcceptedNames = old.Spec.Names
			old.Status.Conditions = []apiextensions.CustomResourceDefinitionCondition{{Type: apiextensions.Established, Status: apiextensions.ConditionTrue}}
			for _, rev := range []string{"relabel", "revision"} {
				nm := deepMap(m)
				md := nm["metadata"].(map[string]any)
				md["labels"] = map[string]any{"revision": "2"}
				if rev == "revision" {
					for _, v := range nm["spec"].(map[string]any)["versions"].([]any) {
						s, _ := v.(map[string]any)["schema"].(map[string]any)
						root, _ := s["openAPIV3Schema"].(map[string]any)
						if root != nil {
							root["description"] = "the next release"
						}
					}
				}
				b, _ := json.Marshal(nm)
				nw, err := internalCRD(b)
				if err != nil {
					return nil, err
				}
				nw.Generation = old.Generation
				st.PrepareForUpdate(context.Background(), nw, old)
				out = append(out, crdUpdateCase{name: old.Name + "/" + rev, new: nw, old: old})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

func deepMap(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// TestCRDUpdateBenchInputs checks that both sides give the same number of
// errors on every benchmark input (the differential tests compare them in
// full).
func TestCRDUpdateBenchInputs(t *testing.T) {
	for _, c := range crdUpdateCases(t) {
		up := validation.ValidateCustomResourceDefinitionUpdate(context.Background(), c.new, c.old)
		ours := definition.ValidateUpdate(c.new, c.old)
		if len(up) != len(ours) {
			t.Errorf("ValidateUpdate(%s) = %d errors, upstream %d", c.name, len(ours), len(up))
		}
	}
}

func BenchmarkCRDUpdate(b *testing.B) { benchCRDUpdate(b, false) }

// BenchmarkCRDFirstUpdate is BenchmarkCRDUpdate with crdkit's process-wide
// caches (parsed expressions, rule environments, compilations) dropped
// before every call: what a first check of a CRD costs. (Upstream keeps
// its own process-wide base environment, as crdkit does.)
func BenchmarkCRDFirstUpdate(b *testing.B) { benchCRDUpdate(b, true) }

// benchCRDUpdate runs both sides on every case, reporting besides wall
// time the process's CPU per call (cpu-ns/op), which a loaded machine does
// not inflate; first drops crdkit's caches before each call.
func benchCRDUpdate(b *testing.B, first bool) {
	for _, c := range crdUpdateCases(b) {
		b.Run(c.name+"/crdkit", func(b *testing.B) {
			b.ReportAllocs()
			start := compileCPU()
			for b.Loop() {
				if first {
					rules.DropCaches()
				}
				definition.ValidateUpdate(c.new, c.old)
			}
			b.ReportMetric(float64(compileCPU()-start)/float64(b.N), "cpu-ns/op")
		})
		b.Run(c.name+"/upstream", func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			start := compileCPU()
			for b.Loop() {
				validation.ValidateCustomResourceDefinitionUpdate(ctx, c.new, c.old)
			}
			b.ReportMetric(float64(compileCPU()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
