//go:build unix

package benchmarks

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"syscall"
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit/schema"
)

// Validate benchmarks: the server's OpenAPI value validation and list-type
// checks (ValidateCustomResource with a validator built once, then
// listtype.ValidateListSetsAndMaps) beside crdkit's (Schema.Validate then
// Schema.ValidateListTypes), on corpus objects as the server validates them:
// decoded, pruned, null-pruned and defaulted by upstream code. Neither side
// modifies the object, so every iteration validates the same one. Two
// ".invalid" objects carry a handful of errors each (wrong types, an
// int-or-string boolean, a list duplicate), to price the error path. The
// "walk" implementation is the floor: a type switch over every value of the
// object and nothing else.

// validateObjects are the corpus objects benchmarked: file under objects/,
// document index, short name.
var validateObjects = []struct {
	file  string
	index int
	name  string
}{
	{"argo-cd/application.yaml", 0, "application"},
	{"argo-rollouts/rollout-canary.yaml", 0, "rollout-canary"},
	{"cert-manager/cert-manager-resources.yaml", 1, "certificate"},
	{"flux/kustomize_v1_kustomization.yaml", 0, "kustomization"},
	{"gateway-api/httproute-all-fields-set.yaml", 0, "httproute-all-fields"},
	{"istio/destination-rule-all.yaml", 0, "destination-rule"},
	{"knative/multicontainer-service.yaml", 0, "multicontainer-service"},
	{"prometheus-operator/prometheus.yaml", 0, "prometheus"},
}

// validateBreak names objects that also get an ".invalid" variant, and how.
var validateBreak = map[string]func(obj map[string]any){
	"rollout-canary": func(obj map[string]any) {
		spec := obj["spec"].(map[string]any)
		spec["replicas"] = "three"
		spec["strategy"].(map[string]any)["canary"].(map[string]any)["maxSurge"] = true
		spec["revisionHistoryLimit"] = 2.5
	},
	"prometheus": func(obj map[string]any) {
		spec := obj["spec"].(map[string]any)
		spec["replicas"] = int64(-1) << 40
		spec["serviceAccountName"] = int64(7)
		spec["enableFeatures"] = []any{"a", "a"}
		spec["paused"] = "yes"
	},
}

type validateCase struct {
	crd, object string
	validator   apiservervalidation.SchemaValidator
	structural  *structuralschema.Structural
	ours        *schema.Schema
	obj         map[string]any
	valid       bool // upstream reports nothing
}

var (
	validateCasesOnce sync.Once
	validateCasesList []validateCase
	validateCasesErr  error
)

func validateCases(tb testing.TB) []validateCase {
	dir := benchCorpus(tb)
	validateCasesOnce.Do(func() { validateCasesList, validateCasesErr = loadValidateCases(dir) })
	if validateCasesErr != nil {
		tb.Fatal(validateCasesErr)
	}
	return validateCasesList
}

func loadValidateCases(dir string) ([]validateCase, error) {
	versions, err := corpusVersions(dir)
	if err != nil {
		return nil, err
	}
	var out []validateCase
	for _, o := range validateObjects {
		obj, v, err := corpusObject(dir, o.file, o.index, versions)
		if err != nil {
			return nil, err
		}
		// The server's validator, as it is built once per CRD version.
		validator, _, err := apiservervalidation.NewSchemaValidator(v.internal)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.name, err)
		}
		// What the server validates: the object after pruning, null pruning
		// and defaulting.
		structuralpruning.Prune(obj, v.up, true)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, v.up)
		structuraldefaulting.Default(obj, v.up)
		add := func(name string, obj map[string]any) {
			c := validateCase{crd: v.name, object: name, validator: validator, structural: v.up, ours: v.ours, obj: obj}
			c.valid = len(validateUpstream(&c)) == 0
			out = append(out, c)
		}
		add(o.name, obj)
		if brk := validateBreak[o.name]; brk != nil {
			bad := runtime.DeepCopyJSON(obj)
			brk(bad)
			add(o.name+".invalid", bad)
		}
	}
	return out, nil
}

func validateUpstream(c *validateCase) field.ErrorList {
	errs := apiservervalidation.ValidateCustomResource(nil, c.obj, c.validator)
	return append(errs, listtype.ValidateListSetsAndMaps(nil, c.structural, c.obj)...)
}

func validateCrdkit(c *validateCase) schema.ErrorList {
	errs := c.ours.Validate(c.obj, nil, nil)
	return c.ours.ValidateListTypes(c.obj, nil, errs)
}

// validateWalk visits every value of x with a type switch: the floor.
func validateWalk(x any) int {
	switch x := x.(type) {
	case map[string]any:
		n := 1
		for _, v := range x {
			n += validateWalk(v)
		}
		return n
	case []any:
		n := 1
		for _, v := range x {
			n += validateWalk(v)
		}
		return n
	}
	return 1
}

// TestValidateBenchInputs checks that both sides agree on every benchmark
// input and that crdkit allocates nothing on the valid ones.
func TestValidateBenchInputs(t *testing.T) {
	for _, c := range validateCases(t) {
		up := validateUpstream(&c)
		got := validateCrdkit(&c)
		var a, b []string
		for _, e := range up {
			a = append(a, e.Error())
		}
		for _, e := range got {
			b = append(b, e.Error())
		}
		sort.Strings(a)
		sort.Strings(b)
		if !slices.Equal(a, b) {
			t.Errorf("%s/%s: upstream %q, crdkit %q", c.crd, c.object, a, b)
		}
		if c.valid {
			if n := testing.AllocsPerRun(20, func() { validateCrdkit(&c) }); n != 0 {
				t.Errorf("%s/%s: crdkit allocates %v times on a valid object", c.crd, c.object, n)
			}
		} else if len(up) == 0 {
			t.Errorf("%s/%s: expected errors", c.crd, c.object)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	for _, c := range validateCases(b) {
		b.Run(c.crd+"/"+c.object+"/crdkit", func(b *testing.B) {
			validateTimed(b, func() { validateCrdkit(&c) })
		})
		b.Run(c.crd+"/"+c.object+"/upstream", func(b *testing.B) {
			validateTimed(b, func() { validateUpstream(&c) })
		})
		b.Run(c.crd+"/"+c.object+"/walk", func(b *testing.B) {
			validateTimed(b, func() { validateWalk(c.obj) })
		})
	}
}

// validateTimed runs f b.N times and reports, besides ns/op, the process's
// CPU time per iteration (user plus system, from getrusage), which excludes
// time spent waiting for the CPU on a shared machine.
func validateTimed(b *testing.B, f func()) {
	b.ReportAllocs()
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ResetTimer()
	for b.Loop() {
		f()
	}
	b.StopTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := func(r *syscall.Rusage) int64 { return r.Utime.Nano() + r.Stime.Nano() }
	b.ReportMetric(float64(cpu(&after)-cpu(&before))/float64(b.N), "cpu-ns/op")
}
