package defaultdiff

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/crdkit/crdkit/internal/corpus"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/gen"
	"github.com/crdkit/crdkit/defaulting"
	"github.com/crdkit/crdkit/schema"
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

// document is one YAML or JSON document, as JSON, with its name.
type document = corpus.Doc

// readDocuments reads every document of every .yaml, .yml and .json file
// under dir, in lexical order, named file#index.
func readDocuments(t testing.TB, dir string) []document {
	docs, err := corpus.Walk(dir)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// target is one version of one CRD with both implementations' schemas.
type target struct {
	name       string // crd name/version
	apiVersion string
	kind       string
	crd        *apiextensionsv1.CustomResourceDefinition
	version    string
	up         *structuralschema.Structural // after PruneDefaults, as served
	unpruned   *structuralschema.Structural // before PruneDefaults
	ours       *schema.Schema               // schema.ParseProps + schema.Compile
	facade     *schema.Schema               // crdkit.New, from the server's internal types
}

// newTarget builds the schemas of one version. The upstream one is built as
// the server builds it in getOrCreateServingInfoFor.
func newTarget(crd *apiextensionsv1.CustomResourceDefinition, v *apiextensionsv1.CustomResourceDefinitionVersion) (*target, error) {
	props := v.Schema.OpenAPIV3Schema
	internal := new(apiextensions.JSONSchemaProps)
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(props, internal, nil); err != nil {
		return nil, fmt.Errorf("convert: %w", err)
	}
	ss, err := structuralschema.NewStructural(internal)
	if err != nil {
		return nil, fmt.Errorf("NewStructural: %w", err)
	}
	up := ss.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(up); err != nil {
		return nil, fmt.Errorf("PruneDefaults: %w", err)
	}
	js, err := json.Marshal(props)
	if err != nil {
		return nil, err
	}
	ours, err := schema.CompileJSON(js)
	if err != nil {
		return nil, fmt.Errorf("crdkit compile: %w", err)
	}
	c, err := crdkit.New(crd, crdkit.LoadOptions{AllowInvalid: true})
	if err != nil {
		return nil, fmt.Errorf("crdkit.New: %w", err)
	}
	cv := c.Version(v.Name)
	if cv == nil || cv.Schema() == nil {
		return nil, fmt.Errorf("crdkit.New: no schema for version %s", v.Name)
	}
	return &target{
		name:       crd.Name + "/" + v.Name,
		apiVersion: crd.Spec.Group + "/" + v.Name,
		kind:       crd.Spec.Names.Kind,
		crd:        crd,
		version:    v.Name,
		up:         up,
		unpruned:   ss,
		ours:       ours,
		facade:     cv.Schema(),
	}, nil
}

// corpusTargets returns one target per version with a schema of every
// corpus CRD.
func corpusTargets(t testing.TB) []*target {
	versions, err := corpus.Versions(filepath.Join(corpusDir(t), "crds"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*target
	for _, v := range versions {
		tg, err := newTarget(v.CustomResourceDefinition, v.CustomResourceDefinitionVersion)
		if err != nil {
			t.Errorf("%s %s: %v", v.Doc, v.Name, err)
			continue
		}
		out = append(out, tg)
	}
	if len(out) == 0 {
		t.Skip("no CRD versions with schemas in the corpus")
	}
	return out
}

type metaHeader struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// decode decodes a request body as the server does: case-sensitive keys,
// integers as int64, other numbers as float64.
func decode(raw []byte) (any, error) {
	var v any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// operation is one step compared: null pruning, defaulting, or both in the
// server's order.
type operation struct {
	name string
	up   func(any, *structuralschema.Structural)
	ours func(any, *schema.Schema)
}

var operations = []operation{
	{"prune-nulls", structuraldefaulting.PruneNonNullableNullsWithoutDefaults, defaulting.PruneNulls},
	{"default", structuraldefaulting.Default, defaulting.Apply},
	{"prune-nulls+default",
		func(x any, s *structuralschema.Structural) {
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(x, s)
			structuraldefaulting.Default(x, s)
		},
		func(x any, s *schema.Schema) {
			defaulting.PruneNulls(x, s)
			defaulting.Apply(x, s)
		}},
}

// runUpstream runs f and turns a panic into an error.
func runUpstream(f func(any, *structuralschema.Structural), x any, s *structuralschema.Structural) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("upstream panicked: %v", r)
		}
	}()
	f(x, s)
	return nil
}

// verdict is the outcome of one case.
type verdict int

const (
	agree       verdict = iota
	numberTypes         // same JSON text, different Go number types
	differ              // different JSON
	undecodable         // not a JSON object the server would decode
)

// mismatch describes the first disagreement of a case.
type mismatch struct {
	op, at                string
	upstream, ours, input string
}

func (m *mismatch) String() string {
	return fmt.Sprintf("%s at %s\n upstream: %s\n crdkit:   %s\n input:    %s",
		m.op, m.at, truncate(m.upstream), truncate(m.ours), truncate(m.input))
}

// compare runs every operation on raw with upstream and with crdkit using
// ours, and returns the worst verdict with its first mismatch.
func compare(tg *target, ours *schema.Schema, raw []byte) (verdict, *mismatch) {
	if _, err := decode(raw); err != nil {
		return undecodable, nil
	}
	worst, first := agree, (*mismatch)(nil)
	for _, op := range operations {
		up, _ := decode(raw)
		got, _ := decode(raw)
		if err := runUpstream(op.up, up, tg.up); err != nil {
			// Decoded JSON never makes upstream panic; say so if it does.
			return differ, &mismatch{op: op.name, at: err.Error(), input: string(raw)}
		}
		op.ours(got, ours)
		if reflect.DeepEqual(up, got) {
			continue
		}
		v := differ
		if normalise(up) == normalise(got) {
			v = numberTypes
		}
		if v > worst {
			worst = v
			first = &mismatch{op: op.name, at: firstDifference(up, got, ""),
				upstream: normalise(up), ours: normalise(got), input: string(raw)}
		}
	}
	return worst, first
}

// changes reports whether the server's null pruning and defaulting change
// raw, and whether PruneDefaults makes a difference to the result.
func changes(tg *target, raw []byte) (changed, pruneDefaultsMatters bool) {
	orig, err := decode(raw)
	if err != nil {
		return false, false
	}
	up, _ := decode(raw)
	unpruned, _ := decode(raw)
	for _, op := range operations[2:] {
		if runUpstream(op.up, up, tg.up) != nil || runUpstream(op.up, unpruned, tg.unpruned) != nil {
			return false, false
		}
	}
	return !reflect.DeepEqual(orig, up), !reflect.DeepEqual(up, unpruned)
}

// tally counts the verdicts of one crdkit schema source.
type tally struct {
	n, agree  int
	bySource  map[string][2]int // agree, total per object source
	typeOnly  map[string]int    // number-type-only mismatches per target
	typeFirst map[string]*mismatch
	differ    []string
}

func newTally() *tally {
	return &tally{bySource: map[string][2]int{}, typeOnly: map[string]int{}, typeFirst: map[string]*mismatch{}}
}

func (tl *tally) record(tg *target, source, name string, v verdict, m *mismatch) {
	c := tl.bySource[source]
	c[1]++
	tl.n++
	switch v {
	case agree:
		c[0]++
		tl.agree++
	case numberTypes:
		if tl.typeOnly[tg.name] == 0 {
			tl.typeFirst[tg.name] = m
		}
		tl.typeOnly[tg.name]++
	case differ:
		tl.differ = append(tl.differ, fmt.Sprintf("%s %s: %s", tg.name, name, m))
	}
	tl.bySource[source] = c
}

// report fails the test for every disagreement: each JSON difference in
// full (the first 20), number-type-only differences grouped by CRD version.
func (tl *tally) report(t *testing.T, label string) {
	t.Helper()
	for i, d := range tl.differ {
		if i == 20 {
			t.Errorf("%s: %d more JSON differences", label, len(tl.differ)-20)
			break
		}
		t.Errorf("%s: results differ: %s", label, d)
	}
	names := make([]string, 0, len(tl.typeOnly))
	for n := range tl.typeOnly {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Errorf("%s: %s: %d cases give the same JSON with different Go number types; first: %s",
			label, n, tl.typeOnly[n], tl.typeFirst[n])
	}
}

func (tl *tally) typeOnlyCases() int {
	n := 0
	for _, c := range tl.typeOnly {
		n += c
	}
	return n
}

// normalise renders a value as JSON with sorted keys.
func normalise(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func truncate(s string) string {
	if len(s) > 800 && os.Getenv("CRDKIT_FULL_INPUT") == "" {
		return s[:800] + "..."
	}
	return s
}

// firstDifference names the first path where a and b differ, with the Go
// types found there.
func firstDifference(a, b any, path string) string {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(a)+len(bm))
		for k := range a {
			keys = append(keys, k)
		}
		for k := range bm {
			if _, dup := a[k]; !dup {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			av, aok := a[k]
			bv, bok := bm[k]
			if aok != bok {
				return fmt.Sprintf("%s.%s (present upstream: %v, in crdkit: %v)", path, k, aok, bok)
			}
			if !reflect.DeepEqual(av, bv) {
				return firstDifference(av, bv, path+"."+k)
			}
		}
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			break
		}
		for i := range a {
			if !reflect.DeepEqual(a[i], bl[i]) {
				return firstDifference(a[i], bl[i], path+"["+strconv.Itoa(i)+"]")
			}
		}
	}
	if path == "" {
		path = "<root>"
	}
	return fmt.Sprintf("%s (upstream %T %v, crdkit %T %v)", path, a, a, b, b)
}

// mutator edits valid objects towards what defaulting cares about: removed
// and null defaulted fields, nulls on nullable and non-nullable fields, empty
// objects and lists whose nested defaults then apply, null list elements and
// null map values. It navigates with crdkit's compiled schema; both
// implementations then see the same bytes.
type mutator struct {
	r *rand.Rand
}

const mutateDepth = 40

func (m *mutator) object(v any, s *schema.Schema, depth int) {
	if s == nil || depth > mutateDepth {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for k, c := range s.Properties() {
			x, found := v[k]
			_, hasDefault := c.Default()
			switch {
			case found && hasDefault && m.r.IntN(4) == 0:
				delete(v, k)
				continue
			case found && m.r.IntN(8) == 0:
				v[k] = nil // nullable or not, defaulted or not
				continue
			case !found && m.r.IntN(6) == 0:
				v[k] = nil
				continue
			case !found && c.Summary()&schema.HasDefaults != 0 && m.r.IntN(3) == 0:
				x = m.empty(c)
				if x == nil {
					continue
				}
				v[k] = x
			}
			m.object(x, c, depth+1)
		}
		if a, _, _ := s.AdditionalProperties(); a != nil {
			for _, k := range slices.Sorted(maps.Keys(v)) { // sorted: the same random draws every run
				if s.Property(k) == nil {
					m.object(v[k], a, depth+1)
				}
			}
			if m.r.IntN(3) == 0 {
				v["zz-null"] = nil
			}
			if x := m.empty(a); x != nil && m.r.IntN(3) == 0 {
				v["zz-empty"] = x
				m.object(x, a, depth+1)
			}
		}
	case []any:
		it := s.Items()
		if it == nil {
			return
		}
		for _, x := range v {
			m.object(x, it, depth+1)
		}
		if len(v) > 0 && m.r.IntN(3) == 0 {
			v[m.r.IntN(len(v))] = nil
		}
	}
}

// empty returns an empty value of the node's type that can take nested
// defaults, or nil.
func (m *mutator) empty(s *schema.Schema) any {
	switch {
	case s.Type() == "object" || s.NumProperties() > 0:
		return map[string]any{}
	case s.Type() == "array" && s.Items() != nil:
		l := []any{nil}
		if e := m.empty(s.Items()); e != nil {
			l = append(l, e)
		}
		return l
	}
	return nil
}

// generated returns the generated cases of one target: gen's own cases
// (valid objects and its mutations, including nulls and missing defaults)
// and valid objects run through the mutator above.
func generated(t testing.TB, tg *target, seed uint64) []document {
	g, err := gen.New(tg.crd, tg.version, gen.Options{Seed: seed, Cases: 40})
	if err != nil {
		t.Errorf("%s: gen: %v", tg.name, err)
		return nil
	}
	var out []document
	for _, c := range g.Cases() {
		out = append(out, document{Name: "gen/" + c.Name, JSON: c.Raw})
	}
	r := rand.New(rand.NewPCG(seed, uint64(len(tg.name))))
	m := &mutator{r: r}
	for i := range 6 {
		obj := g.Object(uint64(100+i), fmt.Sprintf("obj-%d", i))
		for j := range 3 {
			raw, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			v, err := decode(raw)
			if err != nil {
				t.Fatal(err)
			}
			m.object(v, tg.ours, 0)
			mutated, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, document{Name: fmt.Sprintf("mutated/%d.%d", i, j), JSON: mutated})
		}
	}
	return out
}

func TestCorpusDefaultAgrees(t *testing.T) {
	targets := corpusTargets(t)
	byKind := map[string][]*target{}
	for _, tg := range targets {
		byKind[tg.apiVersion+" "+tg.kind] = append(byKind[tg.apiVersion+" "+tg.kind], tg)
	}
	props, facade := newTally(), newTally()
	var changed, pruneDefaults, skipped int
	run := func(tg *target, source, name string, raw []byte) {
		v, m := compare(tg, tg.ours, raw)
		if v == undecodable {
			skipped++
			return
		}
		props.record(tg, source, name, v, m)
		v, m = compare(tg, tg.facade, raw)
		facade.record(tg, source, name, v, m)
		c, p := changes(tg, raw)
		if c {
			changed++
		}
		if p {
			pruneDefaults++
		}
	}

	// The corpus example objects, each against the version serving its
	// apiVersion and kind.
	matched := 0
	for _, d := range readDocuments(t, filepath.Join(corpusDir(t), "objects")) {
		var tm metaHeader
		if json.Unmarshal(d.JSON, &tm) != nil {
			continue
		}
		for _, tg := range byKind[tm.APIVersion+" "+tm.Kind] {
			matched++
			run(tg, "corpus", "objects/"+d.Name, d.JSON)
		}
	}
	if matched == 0 {
		t.Errorf("no corpus object matched a corpus CRD version")
	}

	// Generated objects for every version.
	for _, tg := range targets {
		for _, d := range generated(t, tg, 1) {
			run(tg, "generated", d.Name, d.JSON)
		}
	}

	props.report(t, "ParseProps schema")
	facade.report(t, "crdkit.New schema")
	c, g := props.bySource["corpus"], props.bySource["generated"]
	fmt.Printf("conformance: default %d/%d cases agree (corpus objects %d/%d, generated %d/%d; %d differ only in Go number types, %d in JSON; %d CRD versions, 3 operations per case; %d cases changed by upstream, %d where PruneDefaults changes upstream's result, %d undecodable bodies skipped)\n",
		props.agree, props.n, c[0], c[1], g[0], g[1], props.typeOnlyCases(), len(props.differ),
		len(targets), changed, pruneDefaults, skipped)
	fmt.Printf("conformance: default-facade %d/%d cases agree (schema from crdkit.New, defaults typed as the server types them; %d differ only in Go number types, %d in JSON)\n",
		facade.agree, facade.n, facade.typeOnlyCases(), len(facade.differ))
}

// fuzzSchemas are openAPIV3Schemas (v1 JSON) that exercise the interactions
// the fuzzer should explore; corpus schemas are added when the corpus is
// present.
var fuzzSchemas = []string{
	`{"type":"object","properties":{
	  "spec":{"type":"object","default":{},"properties":{
	    "replicas":{"type":"integer","default":1},
	    "ratio":{"type":"number","default":0.5},
	    "name":{"type":"string","nullable":true,"default":"n"},
	    "plain":{"type":"string"},
	    "opt":{"type":"string","nullable":true},
	    "ports":{"type":"array","items":{"type":"object","default":{"protocol":null},
	      "properties":{"port":{"type":"integer"},"protocol":{"type":"string","default":"TCP"}}}},
	    "labels":{"type":"object","additionalProperties":{"type":"string","default":"L"}},
	    "ann":{"type":"object","additionalProperties":{"type":"string"}},
	    "nested":{"type":"object","default":{"a":{}},"properties":{"a":{"type":"object","properties":{"b":{"type":"string","default":"B"}}}}}}},
	  "status":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"phase":{"type":"string","default":"Pending"}}}}}`,
	`{"type":"object","properties":{
	  "e":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,
	    "properties":{"apiVersion":{"type":"string","default":"v1"},"kind":{"type":"string"},"metadata":{"type":"object"}}},
	  "p":{"x-kubernetes-int-or-string":true,"default":"http"},
	  "l":{"type":"array","nullable":true,"items":{"type":"array","items":{"type":"string","nullable":true,"default":"s"}}},
	  "m":{"type":"object","additionalProperties":{"type":"object","default":{"k":null},
	    "properties":{"k":{"type":"string","default":"K"},"n":{"type":"string","nullable":true}}}}}}`,
}

func FuzzDefaultAgrees(f *testing.F) {
	var targets []*target
	for i, js := range fuzzSchemas {
		props := new(apiextensionsv1.JSONSchemaProps)
		if err := json.Unmarshal([]byte(js), props); err != nil {
			f.Fatalf("fuzz schema %d: %v", i, err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		crd.Name = "fuzz" + strconv.Itoa(i) + ".example.com"
		crd.Spec.Group = "example.com"
		crd.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{Plural: "fuzz" + strconv.Itoa(i), Kind: "Fuzz"}
		crd.Spec.Scope = apiextensionsv1.NamespaceScoped
		crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: props}}}
		tg, err := newTarget(crd, &crd.Spec.Versions[0])
		if err != nil {
			f.Fatalf("fuzz schema %d: %v", i, err)
		}
		targets = append(targets, tg)
	}
	f.Add(uint16(0), []byte(`{"spec":{"replicas":null,"name":null,"plain":null,"opt":null,"ports":[null,{}],"labels":{"a":null},"ann":{"b":null}}}`))
	f.Add(uint16(0), []byte(`{"spec":{"nested":{"a":null}},"status":{"phase":null,"x":null}}`))
	f.Add(uint16(1), []byte(`{"e":{"apiVersion":null,"kind":null,"u":null},"p":null,"l":[[null,"x"],null],"m":{"x":null,"y":{"k":null,"n":null}}}`))
	if os.Getenv("CRDKIT_CORPUS") != "" || dirExists("../../../shared/corpus") {
		corpus := corpusTargets(f)
		for _, d := range readDocuments(f, filepath.Join(corpusDir(f), "objects")) {
			var tm metaHeader
			if json.Unmarshal(d.JSON, &tm) != nil {
				continue
			}
			for i, tg := range corpus {
				if tg.apiVersion == tm.APIVersion && tg.kind == tm.Kind {
					f.Add(uint16(len(targets)+i), d.JSON)
				}
			}
		}
		targets = append(targets, corpus...)
	}
	f.Fuzz(func(t *testing.T, which uint16, raw []byte) {
		tg := targets[int(which)%len(targets)]
		for _, src := range []struct {
			label string
			s     *schema.Schema
		}{{"ParseProps schema", tg.ours}, {"crdkit.New schema", tg.facade}} {
			if v, m := compare(tg, src.s, raw); v == differ || v == numberTypes {
				t.Errorf("%s, %s: %s", src.label, tg.name, m)
			}
		}
	})
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
