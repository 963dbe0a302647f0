package yamljson_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/internal/yamljson"
)

// benchObjects are the corpus objects of the CLI's per-document benchmark.
var benchObjects = []string{
	"argo-rollouts/rollout-canary.yaml#0",
	"cert-manager/issuers.valid.yaml#0",
	"gateway-api/httproute-all-fields-set.yaml#0",
	"istio/destination-rule-all.yaml#0",
	"prometheus-operator/prometheus.yaml#0",
}

// BenchmarkYAMLToJSON/<kind>/<object>/{crdkit,upstream} converts the YAML
// that sigs.k8s.io/yaml.JSONToYAML writes for a corpus object to JSON:
// crdkit with Convert, upstream with YAMLToJSONStrict, as docs.Chunk.Convert
// called it before.
//
//	go test -run '^$' -bench YAMLToJSON -cpu 1 ./internal/yamljson
func BenchmarkYAMLToJSON(b *testing.B) {
	root, ok := corpus.Root()
	if !ok {
		b.Skip("corpus not found: set CRDKIT_CORPUS or put it at ../shared/corpus")
	}
	objects, err := corpus.Walk(filepath.Join(root, "objects"))
	if err != nil {
		b.Fatal(err)
	}
	for _, want := range benchObjects {
		var js []byte
		for _, d := range objects {
			if d.Name == want {
				js = d.JSON
			}
		}
		if js == nil {
			b.Fatalf("corpus object %s not found", want)
		}
		var tm struct{ Kind string }
		_ = json.Unmarshal(js, &tm)
		y, err := yaml.JSONToYAML(js)
		if err != nil {
			b.Fatal(err)
		}
		name := strings.ToLower(tm.Kind) + "/" + strings.TrimSuffix(filepath.Base(want), ".yaml#0")
		b.Run(name+"/crdkit", func(b *testing.B) {
			if _, ok := yamljson.Convert(nil, y); !ok {
				b.Fatalf("Convert(%s) is not sure", want)
			}
			b.SetBytes(int64(len(y)))
			b.ReportAllocs()
			buf := make([]byte, 0, len(y)+len(y)/4) // as docs.Chunk.Convert sizes it
			for b.Loop() {
				yamljson.Convert(buf[:0], y)
			}
		})
		b.Run(name+"/upstream", func(b *testing.B) {
			b.SetBytes(int64(len(y)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := yaml.YAMLToJSONStrict(y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
