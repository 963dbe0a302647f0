package prunediff

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/crdkit/crdkit/internal/corpus"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/conformance/gen"
	"github.com/crdkit/crdkit/prune"
	"github.com/crdkit/crdkit/schema"
)

// tally counts the cases compared and those that agreed.
var tally struct {
	sync.Mutex
	agree, total int
	removing     int // cases where the server removed something
	paths        int // paths the server reported
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tally.total == 0 { // -fuzz runs the cases in worker processes
		os.Exit(code)
	}
	fmt.Printf("conformance: prune %d/%d cases agree\n", tally.agree, tally.total)
	fmt.Printf("conformance: prune: the server removed fields in %d cases, %d paths in all\n", tally.removing, tally.paths)
	os.Exit(code)
}

// upstreamSchema builds the server's structural schema from a v1 schema, as
// the server does when it serves a CRD.
func upstreamSchema(p *apiextensionsv1.JSONSchemaProps) (*structuralschema.Structural, error) {
	if p == nil {
		return nil, nil
	}
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(p, internal, nil); err != nil {
		return nil, err
	}
	return structuralschema.NewStructural(internal)
}

// crdkitSchema compiles the JSON of the same v1 schema with crdkit.
func crdkitSchema(p *apiextensionsv1.JSONSchemaProps) (*schema.Schema, error) {
	if p == nil {
		return nil, nil
	}
	data, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	props, err := schema.ParseProps(data)
	if err != nil {
		return nil, err
	}
	return schema.Compile(props)
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(b)
}

func samePaths(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

// compare prunes obj with both implementations and reports every
// disagreement. obj is not modified.
func compare(t *testing.T, name string, up *structuralschema.Structural, ck *schema.Schema, obj any, root bool) bool {
	t.Helper()
	var problems []string
	orig := mustJSON(t, obj)

	u := runtime.DeepCopyJSONValue(obj)
	upPaths := pruning.PruneWithOptions(u, up, root, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	c := runtime.DeepCopyJSONValue(obj)
	opts := prune.Options{Root: root}
	ckPaths := prune.Object(c, ck, opts, nil)
	upJSON, ckJSON := mustJSON(t, u), mustJSON(t, c)
	if upJSON != ckJSON {
		problems = append(problems, fmt.Sprintf("object:\n  upstream %s\n  crdkit   %s", upJSON, ckJSON))
	}
	if !samePaths(upPaths, ckPaths) {
		problems = append(problems, fmt.Sprintf("paths:\n  upstream %q\n  crdkit   %q", upPaths, ckPaths))
	}

	cp, cpPaths := prune.Copy(obj, ck, opts, nil)
	if after := mustJSON(t, obj); after != orig {
		problems = append(problems, "Copy changed its input")
	}
	if cpJSON := mustJSON(t, cp); cpJSON != ckJSON || !samePaths(cpPaths, ckPaths) {
		problems = append(problems, fmt.Sprintf("Copy: %s %q, Object: %s %q", cpJSON, cpPaths, ckJSON, ckPaths))
	}

	// The pruned object is clean: pruning it again finds nothing and, with
	// paths tracked, allocates nothing.
	if again := prune.Object(c, ck, opts, nil); len(again) != 0 {
		problems = append(problems, fmt.Sprintf("second pass removed %q", again))
	}
	if n := testing.AllocsPerRun(3, func() { prune.Object(c, ck, opts, nil) }); n != 0 {
		problems = append(problems, fmt.Sprintf("clean object: %v allocations, want 0", n))
	}

	tally.Lock()
	tally.total++
	tally.paths += len(upPaths)
	if upJSON != orig {
		tally.removing++
	}
	if len(problems) == 0 {
		tally.agree++
	}
	tally.Unlock()
	if len(problems) > 0 {
		t.Errorf("%s (root=%v), input %s:\n%s", name, root, orig, strings.Join(problems, "\n"))
		return false
	}
	return true
}

// TestCases checks the expectations of crdkit's own table tests against the
// server, and crdkit against the server on them.
func TestCases(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "prune", "testdata", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Root   bool            `json:"root"`
		Object json.RawMessage `json:"object"`
		Want   json.RawMessage `json:"want"`
		Pruned []string        `json:"pruned"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			var p *apiextensionsv1.JSONSchemaProps
			if len(tc.Schema) > 0 && string(tc.Schema) != "null" {
				p = &apiextensionsv1.JSONSchemaProps{}
				if err := json.Unmarshal(tc.Schema, p); err != nil {
					t.Fatal(err)
				}
			}
			up, err := upstreamSchema(p)
			if err != nil {
				t.Fatal(err)
			}
			ck, err := crdkitSchema(p)
			if err != nil {
				t.Fatal(err)
			}
			obj := decode(t, tc.Object)
			u := runtime.DeepCopyJSONValue(obj)
			paths := pruning.PruneWithOptions(u, up, tc.Root, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
			if got, want := mustJSON(t, u), mustJSON(t, decode(t, tc.Want)); got != want {
				t.Errorf("upstream prunes to %s, cases.json says %s", got, want)
			}
			if !samePaths(paths, tc.Pruned) {
				t.Errorf("upstream reports %q, cases.json says %q", paths, tc.Pruned)
			}
			compare(t, tc.Name, up, ck, obj, tc.Root)
			compare(t, tc.Name, up, ck, obj, !tc.Root)
		})
	}
}

func decode(t testing.TB, data []byte) any {
	t.Helper()
	var v any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return v
}

// corpusDir finds the shared corpus, or skips.
func corpusDir(t testing.TB) string {
	d, ok := corpus.Root()
	if !ok {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the directory holding crds/ and objects/ (default ../shared/corpus beside the repository)")
	}
	return d
}

// yamlDocs returns every document under dir as JSON, named file#index.
func yamlDocs(t testing.TB, dir string) (names []string, docs map[string][]byte) {
	all, err := corpus.Walk(dir)
	if err != nil {
		t.Fatal(err)
	}
	docs = map[string][]byte{}
	for _, d := range all {
		docs[d.Name] = d.JSON
		names = append(names, d.Name)
	}
	sort.Strings(names)
	return names, docs
}

type corpusObject struct {
	name string
	obj  any
}

// TestCorpus compares both implementations on every version of every corpus
// CRD, with the matching corpus objects and generated ones.
func TestCorpus(t *testing.T) {
	dir := corpusDir(t)
	crdNames, crdDocs := yamlDocs(t, filepath.Join(dir, "crds"))
	objNames, objDocs := yamlDocs(t, filepath.Join(dir, "objects"))
	objects := map[string][]corpusObject{} // by apiVersion/kind
	for _, n := range objNames {
		var obj any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(objDocs[n], &obj); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		m, ok := obj.(map[string]any)
		if !ok {
			continue
		}
		key := fmt.Sprint(m["apiVersion"], "/", m["kind"])
		objects[key] = append(objects[key], corpusObject{n, obj})
	}
	crds, matched := 0, 0
	for _, n := range crdNames {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := json.Unmarshal(crdDocs[n], crd); err != nil || crd.Kind != "CustomResourceDefinition" {
			continue
		}
		crds++
		for _, v := range crd.Spec.Versions {
			t.Run(crd.Name+"/"+v.Name, func(t *testing.T) {
				var p *apiextensionsv1.JSONSchemaProps
				if v.Schema != nil {
					p = v.Schema.OpenAPIV3Schema
				}
				up, uerr := upstreamSchema(p)
				ck, cerr := crdkitSchema(p)
				if uerr != nil || cerr != nil {
					if (uerr == nil) != (cerr == nil) {
						t.Fatalf("schema: upstream error %v, crdkit error %v", uerr, cerr)
					}
					t.Skipf("neither builds the schema: %v", uerr)
				}
				apiVersion := crd.Spec.Group + "/" + v.Name
				kind := crd.Spec.Names.Kind
				for _, o := range objects[apiVersion+"/"+kind] {
					matched++
					compare(t, o.name, up, ck, o.obj, true)
					compare(t, o.name, up, ck, o.obj, false)
					// The same object with unknown fields sprinkled in.
					g := newObjGen(uint64(len(o.name)), 0.5)
					s := g.sprinkle(runtime.DeepCopyJSONValue(o.obj), 0)
					compare(t, o.name+"+unknown", up, ck, s, true)
					compare(t, o.name+"+unknown", up, ck, s, false)
				}
				for seed := range uint64(12) {
					g := newObjGen(seed, []float64{0, 0.3, 0.6}[seed%3])
					obj := g.root(up, apiVersion, kind)
					name := fmt.Sprintf("generated#%d", seed)
					compare(t, name, up, ck, obj, true)
					compare(t, name, up, ck, obj, false)
				}
				if gg, err := gen.New(crd, v.Name, gen.Options{Seed: 7}); err == nil {
					for seed := range uint64(3) {
						obj := gg.Object(seed, fmt.Sprintf("gen-%d", seed))
						name := fmt.Sprintf("gen#%d", seed)
						compare(t, name, up, ck, obj, true)
						g := newObjGen(seed+100, 0.4)
						s := g.sprinkle(runtime.DeepCopyJSONValue(obj), 0)
						compare(t, name+"+unknown", up, ck, s, true)
						compare(t, name+"+unknown", up, ck, s, false)
					}
				}
			})
		}
	}
	t.Logf("%d CRDs, %d corpus objects matched", crds, matched)
	if crds == 0 {
		t.Fatalf("no CRDs under %s", dir)
	}
}

// randomCase builds a random schema and a random object for it.
func randomCase(t *testing.T, schemaSeed, objSeed uint64, noise float64) (*structuralschema.Structural, *schema.Schema, any, bool) {
	t.Helper()
	p := schemaGen{rand.New(rand.NewPCG(schemaSeed, 1))}.schema(0)
	up, uerr := upstreamSchema(p)
	ck, cerr := crdkitSchema(p)
	if (uerr == nil) != (cerr == nil) {
		t.Fatalf("schema %s: upstream error %v, crdkit error %v", mustJSON(t, p), uerr, cerr)
	}
	if uerr != nil {
		return nil, nil, nil, false
	}
	g := newObjGen(objSeed, noise)
	return up, ck, g.root(up, "example.com/v1", "Random"), true
}

// TestRandom compares both implementations on random schemas and objects.
func TestRandom(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 200
	}
	for i := range uint64(n) {
		up, ck, obj, ok := randomCase(t, i, i*31+7, float64(i%4)/4)
		if !ok {
			continue
		}
		name := fmt.Sprintf("random schema %d", i)
		compare(t, name, up, ck, obj, i%2 == 0)
		// The object generator also runs without a schema.
		g := newObjGen(i, 0.5)
		free := g.value(nil, 0)
		compare(t, name+" free", up, ck, free, i%2 == 1)
		if t.Failed() {
			t.Logf("schema %d: %s", i, mustJSON(t, up))
			return
		}
	}
}

// FuzzPruneAgrees compares both implementations on a random schema and a
// random object, each chosen by a seed.
func FuzzPruneAgrees(f *testing.F) {
	for i := range uint64(8) {
		f.Add(i, i+100, i%2 == 0, uint8(i*40))
	}
	f.Fuzz(func(t *testing.T, schemaSeed, objSeed uint64, root bool, noise uint8) {
		up, ck, obj, ok := randomCase(t, schemaSeed, objSeed, float64(noise)/255)
		if !ok {
			return
		}
		compare(t, "fuzz", up, ck, obj, root)
	})
}
