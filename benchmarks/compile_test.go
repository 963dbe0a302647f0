//go:build unix

package benchmarks

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/crdkit/crdkit/internal/corpus"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/schema"
)

// Compile benchmarks: the once-per-CRD-version work of turning the storage
// version's openAPIV3Schema, as JSON, into something that can check objects.
//
//   - crdkit: schema.ParseProps, schema.ValidateStructural, schema.Compile
//     (which includes BuildError and compiles every pattern).
//   - upstream, as the server does it: decode into apiextensions v1
//     JSONSchemaProps (sigs.k8s.io/json, case-sensitive, ints preserved),
//     conversion to the internal type, structuralschema.NewStructural and
//     ValidateStructural, and validation.NewSchemaValidator (the kube-openapi
//     validator every object is checked with).
//
// Neither side includes CEL compilation or the CRD-time checks of a create.
// The file builds on unix only, for getrusage (see compileCPU).

// compileCase is the storage version schema of one corpus CRD.
type compileCase struct {
	crd string // metadata.name
	js  []byte // the openAPIV3Schema
}

// compileCases returns every corpus CRD's storage version schema, sorted by
// CRD name.
func compileCases(tb testing.TB) []compileCase {
	dir := benchCorpus(tb)
	files, err := filepath.Glob(filepath.Join(dir, "crds", "*", "*.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []compileCase
	for _, f := range files {
		docs, err := corpus.Documents(f)
		if err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		for _, js := range docs {
			var crd struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
				Spec struct {
					Versions []struct {
						Storage bool `json:"storage"`
						Schema  struct {
							OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
						} `json:"schema"`
					} `json:"versions"`
				} `json:"spec"`
			}
			if json.Unmarshal(js, &crd) != nil || crd.Kind != "CustomResourceDefinition" {
				continue
			}
			for _, v := range crd.Spec.Versions {
				if v.Storage && len(v.Schema.OpenAPIV3Schema) > 0 {
					out = append(out, compileCase{crd: crd.Metadata.Name, js: v.Schema.OpenAPIV3Schema})
				}
			}
		}
	}
	if len(out) == 0 {
		tb.Skipf("no CRDs under %s", dir)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].crd < out[j].crd })
	return out
}

// compileCrdkit is crdkit's side of one iteration.
func compileCrdkit(js []byte) (*schema.Schema, error) {
	p, err := schema.ParseProps(js)
	if err != nil {
		return nil, err
	}
	if errs := schema.ValidateStructural(p, schema.NewPath("openAPIV3Schema")); len(errs) > 0 {
		return nil, errs
	}
	return schema.Compile(p)
}

// compileUpstream is the server's side of one iteration.
func compileUpstream(js []byte) (apiservervalidation.SchemaValidator, error) {
	v1 := new(apiextensionsv1.JSONSchemaProps)
	if err := kjson.UnmarshalCaseSensitivePreserveInts(js, v1); err != nil {
		return nil, err
	}
	internal := new(apiextensions.JSONSchemaProps)
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v1, internal, nil); err != nil {
		return nil, err
	}
	ss, err := structuralschema.NewStructural(internal)
	if err != nil {
		return nil, err
	}
	if errs := structuralschema.ValidateStructural(field.NewPath("openAPIV3Schema"), ss); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	v, _, err := apiservervalidation.NewSchemaValidator(internal)
	return v, err
}

var (
	compileSinkCrdkit   *schema.Schema
	compileSinkUpstream apiservervalidation.SchemaValidator
)

// compileCPU is the CPU time used by this process so far. On a shared
// machine wall time (ns/op) includes waiting for other processes; the CPU
// time of the benchmark process (GC workers included) does not, so the
// benchmarks also report it as cpu-ns/op.
func compileCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkCompile(b *testing.B) {
	for _, c := range compileCases(b) {
		b.Run(c.crd+"/crdkit", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.js)))
			start := compileCPU()
			for b.Loop() {
				s, err := compileCrdkit(c.js)
				if err != nil {
					b.Fatal(err)
				}
				compileSinkCrdkit = s
			}
			b.ReportMetric(float64(compileCPU()-start)/float64(b.N), "cpu-ns/op")
		})
		b.Run(c.crd+"/upstream", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.js)))
			start := compileCPU()
			for b.Loop() {
				v, err := compileUpstream(c.js)
				if err != nil {
					b.Fatal(err)
				}
				compileSinkUpstream = v
			}
			b.ReportMetric(float64(compileCPU()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// TestCompileBenchInputs runs one iteration of each side on every input, so
// that the benchmarks' inputs are checked by go test.
func TestCompileBenchInputs(t *testing.T) {
	for _, c := range compileCases(t) {
		t.Run(c.crd, func(t *testing.T) {
			s, err := compileCrdkit(c.js)
			if err != nil || s == nil {
				t.Fatalf("compileCrdkit(%s) = %v, %v, want a schema", c.crd, s, err)
			}
			if _, err := compileUpstream(c.js); err != nil {
				t.Fatalf("compileUpstream(%s) error = %v, want none", c.crd, err)
			}
		})
	}
}
