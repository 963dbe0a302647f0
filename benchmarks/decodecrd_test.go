package benchmarks

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/internal/crdjson"
)

// decodeCRDCase is one corpus CRD's JSON text.
type decodeCRDCase struct {
	crd string // metadata.name
	js  []byte
}

// decodeCRDCases returns every corpus CRD's JSON text, sorted by name.
func decodeCRDCases(tb testing.TB) []decodeCRDCase {
	var out []decodeCRDCase
	for _, js := range corpusDocs(tb, filepath.Join(benchCorpus(tb), "crds")) {
		var tm struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if json.Unmarshal(js, &tm) == nil && tm.Kind == "CustomResourceDefinition" {
			out = append(out, decodeCRDCase{crd: tm.Metadata.Name, js: js})
		}
	}
	if len(out) == 0 {
		tb.Skip("no CRDs in the corpus")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].crd < out[j].crd })
	return out
}

var decodeCRDSink *apiextensionsv1.CustomResourceDefinition

// BenchmarkDecodeCRD decodes a CRD's JSON text: crdjson is the fast path
// crdkit takes (internal/crdjson.Decode), upstream what the server's
// strict decoder does (kjson.UnmarshalStrict).
func BenchmarkDecodeCRD(b *testing.B) {
	for _, c := range decodeCRDCases(b) {
		b.Run(c.crd+"/crdjson", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.js)))
			start := compileCPU()
			for b.Loop() {
				crd, ok := crdjson.Decode(c.js)
				if !ok {
					b.Fatal("crdjson.Decode: not sure")
				}
				decodeCRDSink = crd
			}
			b.ReportMetric(float64(compileCPU()-start)/float64(b.N), "cpu-ns/op")
		})
		b.Run(c.crd+"/upstream", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.js)))
			start := compileCPU()
			for b.Loop() {
				crd := new(apiextensionsv1.CustomResourceDefinition)
				strict, err := kjson.UnmarshalStrict(c.js, crd)
				if err != nil || len(strict) > 0 {
					b.Fatal(err, strict)
				}
				decodeCRDSink = crd
			}
			b.ReportMetric(float64(compileCPU()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
