//go:build unix

package benchmarks

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/rules"
)

// CEL benchmarks: the x-kubernetes-validations rules of a CRD version on one
// object, with the request budget, as the server runs them on create
// (cel.NewValidator built once per version, then Validate with no old
// object) beside crdkit's (rules.Compile once, then Validator.Validate). The
// objects are every corpus object whose version has rules, decoded,
// pruned, null-pruned and defaulted by upstream code, as the server hands
// them to CEL. Neither side modifies the object.

type celCase struct {
	crd, object string
	structural  *structuralschema.Structural
	upstream    *cel.Validator
	ours        *rules.Validator
	obj         map[string]any
}

var (
	celCasesOnce sync.Once
	celCasesList []celCase
	celCasesErr  error
)

func celCases(tb testing.TB) []celCase {
	dir := benchCorpus(tb)
	celCasesOnce.Do(func() { celCasesList, celCasesErr = loadCELCases(dir) })
	if celCasesErr != nil {
		tb.Fatal(celCasesErr)
	}
	if len(celCasesList) == 0 {
		tb.Skip("no corpus objects of CRD versions with rules")
	}
	return celCasesList
}

func loadCELCases(dir string) ([]celCase, error) {
	versions, err := corpusVersions(dir)
	if err != nil {
		return nil, err
	}
	docs, err := corpus.Walk(filepath.Join(dir, "objects"))
	if err != nil {
		return nil, err
	}
	type compiled struct {
		up   *cel.Validator
		ours *rules.Validator
	}
	cache := map[*corpusVersion]compiled{}
	seen := map[string]int{}
	var out []celCase
	for _, d := range docs {
		var obj map[string]any
		if kjson.UnmarshalCaseSensitivePreserveInts(d.JSON, &obj) != nil {
			continue
		}
		v := versions[fmt.Sprintf("%v %v", obj["kind"], obj["apiVersion"])]
		if v == nil {
			continue
		}
		c, ok := cache[v]
		if !ok {
			c.up = cel.NewValidator(v.up, true, celconfig.PerCallLimit)
			if c.ours, err = rules.Compile(v.ours); err != nil {
				return nil, fmt.Errorf("%s: %w", v.name, err)
			}
			cache[v] = c
		}
		if c.up == nil {
			continue
		}
		structuralpruning.Prune(obj, v.up, true)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, v.up)
		structuraldefaulting.Default(obj, v.up)
		// Object names: the file's base name, and the metadata name when a
		// file holds several.
		name := strings.TrimSuffix(path.Base(strings.SplitN(d.Name, "#", 2)[0]), path.Ext(strings.SplitN(d.Name, "#", 2)[0]))
		if md, ok := obj["metadata"].(map[string]any); ok {
			if n, ok := md["name"].(string); ok && n != "" {
				name += "." + n
			}
		}
		key := v.name + "/" + name
		seen[key]++
		if seen[key] > 1 {
			name = fmt.Sprintf("%s.%d", name, seen[key])
		}
		out = append(out, celCase{crd: v.name, object: name, structural: v.up, upstream: c.up, ours: c.ours, obj: obj})
	}
	return out, nil
}

func celUpstream(c *celCase) (field.ErrorList, int64) {
	return c.upstream.Validate(context.Background(), nil, c.structural, c.obj, nil, celconfig.RuntimeCELCostBudget)
}

func celCrdkit(c *celCase) (field.ErrorList, int64) {
	return c.ours.Validate(c.obj, rules.RuntimeBudget)
}

// celCrdkitUntracked is what crdkit's create runs: the same errors, without
// cel-go's cost tracking where that cannot change them (no budget left).
func celCrdkitUntracked(c *celCase) field.ErrorList {
	errs, _ := c.ours.ValidateUntracked(context.Background(), c.obj, nil, rules.RuntimeBudget)
	return errs
}

// TestCELBenchInputs checks that both sides agree on every benchmark input:
// the same errors and the same budget left.
func TestCELBenchInputs(t *testing.T) {
	for _, c := range celCases(t) {
		up, upLeft := celUpstream(&c)
		got, left := celCrdkit(&c)
		var a, b []string
		for _, e := range up {
			a = append(a, e.Error())
		}
		for _, e := range got {
			b = append(b, e.Error())
		}
		var u []string
		for _, e := range celCrdkitUntracked(&c) {
			u = append(u, e.Error())
		}
		sort.Strings(a)
		sort.Strings(b)
		sort.Strings(u)
		if !slices.Equal(a, b) || upLeft != left {
			t.Errorf("%s/%s: upstream %q (budget %d), crdkit %q (budget %d)", c.crd, c.object, a, upLeft, b, left)
		}
		if !slices.Equal(a, u) {
			t.Errorf("%s/%s: upstream %q, crdkit untracked %q", c.crd, c.object, a, u)
		}
		if upLeft == celconfig.RuntimeCELCostBudget {
			t.Logf("%s/%s: no rule ran", c.crd, c.object)
		}
	}
}

func BenchmarkCEL(b *testing.B) {
	for _, c := range celCases(b) {
		b.Run(c.crd+"/"+c.object+"/crdkit", func(b *testing.B) {
			validateTimed(b, func() { celCrdkitUntracked(&c) })
		})
		b.Run(c.crd+"/"+c.object+"/upstream", func(b *testing.B) {
			validateTimed(b, func() { celUpstream(&c) })
		})
	}
}

// BenchmarkCELCompile compiles every rule of a version: cel.NewValidator on
// the server's structural schema beside rules.Compile on crdkit's compiled
// schema (neither includes building the schema itself).
func BenchmarkCELCompile(b *testing.B) {
	versions, err := corpusVersions(benchCorpus(b))
	if err != nil {
		b.Fatal(err)
	}
	seen := map[string]bool{}
	var names []string
	for _, cv := range versions {
		if cel.NewValidator(cv.up, true, celconfig.PerCallLimit) == nil || seen[cv.name] {
			continue
		}
		seen[cv.name] = true
		names = append(names, cv.name)
	}
	sort.Strings(names)
	byName := map[string]*corpusVersion{}
	for _, cv := range versions {
		byName[cv.name] = cv
	}
	for _, name := range names {
		cv := byName[name]
		b.Run(name+"/crdkit", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rules.Compile(cv.ours); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/upstream", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				cel.NewValidator(cv.up, true, celconfig.PerCallLimit)
			}
		})
	}
}
