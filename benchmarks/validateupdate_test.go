//go:build unix

package benchmarks

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/common"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/schema"
)

// ValidateUpdate benchmarks: ratcheted OpenAPI value validation of an
// update, the server's (ValidateCustomResourceUpdate with WithRatcheting and
// a correlated object of the root, as customresource's strategy builds them
// per update) beside crdkit's (Schema.ValidateUpdate with Correlate). Each
// corpus object, as the server validates it (pruned, null-pruned,
// defaulted), is the old object; the new one has one scalar field changed
// (the first under spec whose change adds no error).
// Each object has a ".ratcheted" variant too, whose old and new objects
// both hold a value of the wrong type elsewhere, so that the error is
// found and ratcheted away. Neither side modifies its inputs.

type vuCase struct {
	name       string // crd version/object
	validator  apiservervalidation.SchemaValidator
	structural *structuralschema.Structural
	ours       *schema.Schema
	new, old   map[string]any
	ratcheted  bool // old and new keep an invalid value
}

var (
	vuCasesOnce sync.Once
	vuCasesList []vuCase
	vuCasesErr  error
)

func vuCases(tb testing.TB) []vuCase {
	dir := benchCorpus(tb)
	vuCasesOnce.Do(func() { vuCasesList, vuCasesErr = loadVUCases(tb, dir) })
	if vuCasesErr != nil {
		tb.Fatal(vuCasesErr)
	}
	return vuCasesList
}

func loadVUCases(tb testing.TB, dir string) ([]vuCase, error) {
	versions, err := corpusVersions(dir)
	if err != nil {
		return nil, err
	}
	validators := map[*corpusVersion]apiservervalidation.SchemaValidator{}
	var out []vuCase
	for i, doc := range corpusDocs(tb, filepath.Join(dir, "objects")) {
		var obj map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, &obj); err != nil {
			continue
		}
		cv := versions[fmt.Sprintf("%v %v", obj["kind"], obj["apiVersion"])]
		if cv == nil {
			continue
		}
		validator := validators[cv]
		if validator == nil {
			if validator, _, err = apiservervalidation.NewSchemaValidator(cv.internal); err != nil {
				return nil, fmt.Errorf("%s: %w", cv.name, err)
			}
			validators[cv] = validator
		}
		structuralpruning.Prune(obj, cv.up, true)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, cv.up)
		structuraldefaulting.Default(obj, cv.up)
		leaves := vuScalarLeaves(cv.ours, obj, nil)
		if len(leaves) == 0 {
			continue
		}
		md, _ := obj["metadata"].(map[string]any)
		name := fmt.Sprintf("%s/%v-%d", cv.name, md["name"], i)
		// The first field whose change adds no error (a pattern or an enum
		// may refuse it), else the first.
		nw := runtime.DeepCopyJSON(obj)
		vuSetLeaf(nw, leaves[0], vuChanged(vuLeafAt(nw, leaves[0])))
		for _, l := range leaves {
			try := runtime.DeepCopyJSON(obj)
			vuSetLeaf(try, l, vuChanged(vuLeafAt(try, l)))
			if len(cv.ours.Validate(try, nil, nil)) <= len(cv.ours.Validate(obj, nil, nil)) {
				nw = try
				break
			}
		}
		c := vuCase{name: name, validator: validator, structural: cv.up, ours: cv.ours, new: nw, old: obj}
		out = append(out, c)
		if len(leaves) > 1 {
			// The wrong type at the last leaf, in both.
			broken := leaves[len(leaves)-1]
			c.old, c.new = runtime.DeepCopyJSON(obj), runtime.DeepCopyJSON(nw)
			vuSetLeaf(c.old, broken, []any{"wrong type"})
			vuSetLeaf(c.new, broken, []any{"wrong type"})
			c.name += ".ratcheted"
			c.ratcheted = true
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// vuScalarLeaves returns the paths of the scalars of obj under declared
// properties below the root's spec, in sorted order.
func vuScalarLeaves(s *schema.Schema, v any, path []string) [][]string {
	m, ok := v.(map[string]any)
	if !ok || s == nil {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if len(path) > 0 || k == "spec" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out [][]string
	for _, k := range keys {
		p := s.Property(k)
		if p == nil {
			continue
		}
		q := append(slices.Clip(path), k)
		switch m[k].(type) {
		case string, int64, bool:
			out = append(out, q)
		case map[string]any:
			out = append(out, vuScalarLeaves(p, m[k], q)...)
		}
	}
	return out
}

func vuLeafAt(obj map[string]any, path []string) any {
	var cur any = obj
	for _, k := range path {
		cur = cur.(map[string]any)[k]
	}
	return cur
}

func vuSetLeaf(obj map[string]any, path []string, v any) {
	m := obj
	for _, k := range path[:len(path)-1] {
		m = m[k].(map[string]any)
	}
	m[path[len(path)-1]] = v
}

func vuChanged(v any) any {
	switch x := v.(type) {
	case string:
		return x + "x"
	case int64:
		return x + 1
	case bool:
		return !x
	}
	return v
}

func vuUpstream(c *vuCase) field.ErrorList {
	co := common.NewCorrelatedObject(c.new, c.old, &model.Structural{Structural: c.structural})
	return apiservervalidation.ValidateCustomResourceUpdate(nil, c.new, c.old, c.validator, apiservervalidation.WithRatcheting(co))
}

func vuCrdkit(c *vuCase) schema.ErrorList {
	return c.ours.ValidateUpdate(c.new, schema.Correlate(c.ours, c.new, c.old), nil, nil)
}

// TestValidateUpdateBenchInputs checks that both sides agree on every
// benchmark input, that the ratcheted variants had an error to ratchet, and
// counts crdkit's allocations on the updates without errors.
func TestValidateUpdateBenchInputs(t *testing.T) {
	cases := vuCases(t)
	if len(cases) == 0 {
		t.Skip("no corpus objects")
	}
	ratcheted := 0
	for _, c := range cases {
		var a, b []string
		for _, e := range vuUpstream(&c) {
			a = append(a, e.Error())
		}
		for _, e := range vuCrdkit(&c) {
			b = append(b, e.Error())
		}
		sort.Strings(a)
		sort.Strings(b)
		if !slices.Equal(a, b) {
			t.Errorf("%s: upstream %q, crdkit %q", c.name, a, b)
		}
		plain := c.ours.Validate(c.new, nil, nil)
		if c.ratcheted {
			if len(plain) <= len(b) {
				t.Errorf("%s: nothing ratcheted (%d errors, %d without ratcheting)", c.name, len(b), len(plain))
			}
			ratcheted++
		}
		if len(plain) == 0 {
			if n := testing.AllocsPerRun(20, func() { vuCrdkit(&c) }); n > 1 {
				t.Errorf("%s: crdkit allocates %v times on a valid update", c.name, n)
			}
		}
	}
	t.Logf("%d cases, %d ratcheted", len(cases), ratcheted)
}

func BenchmarkValidateUpdate(b *testing.B) {
	for _, c := range vuCases(b) {
		b.Run(c.name+"/crdkit", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				vuCrdkit(&c)
			}
		})
		b.Run(c.name+"/upstream", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				vuUpstream(&c)
			}
		})
	}
}
