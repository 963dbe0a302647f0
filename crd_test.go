package crdkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/internal/docs"
	"github.com/crdkit/crdkit/internal/verdict"
)

// corpusDir returns the shared corpus, or skips the test when it is absent.
func corpusDir(t testing.TB) string {
	d, ok := corpus.Root()
	if !ok {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the directory holding crds/ and objects/ (default ../shared/corpus beside the repository)")
	}
	return d
}

func corpusDocs(t testing.TB) []docs.Doc {
	files, err := docs.Files([]string{filepath.Join(corpusDir(t), "crds")})
	if err != nil {
		t.Fatal(err)
	}
	var out []docs.Doc
	for _, f := range files {
		ds, err := docs.Read(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ds...)
	}
	return out
}

func TestLoadCorpus(t *testing.T) {
	n := 0
	for _, d := range corpusDocs(t) {
		crd, err := Load(d.JSON)
		if errors.Is(err, ErrNotCRD) {
			continue
		}
		if err != nil {
			t.Errorf("Load(%s#%d) = %v, want no error (the server accepts it)", d.File, d.Index, err)
			continue
		}
		n++
		for _, v := range crd.Versions() {
			if v.Schema() == nil {
				t.Errorf("Load(%s).Version(%s).Schema() = nil", crd.Name(), v.Name())
			}
		}
	}
	if n < 30 {
		t.Errorf("loaded %d corpus CRDs, want at least 30", n)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "empty document"},
		{"not yaml", "a: b: c", "yaml"},
		{"wrong kind", "apiVersion: v1\nkind: ConfigMap\n", "not an apiextensions.k8s.io/v1 CustomResourceDefinition"},
		{"v1beta1", "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\n", "not an apiextensions.k8s.io/v1"},
		{"wrong field type", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: {versions: 3}\n", "cannot unmarshal"},
		{"refused", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: x}\n", "is invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load(%q) = %v, want an error containing %q", tc.in, err, tc.want)
			}
		})
	}
}

func TestAllowInvalid(t *testing.T) {
	in := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: x}\n"
	crd, err := Load([]byte(in), LoadOptions{AllowInvalid: true})
	if err != nil {
		t.Fatalf("Load(AllowInvalid) = %v", err)
	}
	if len(crd.Lint()) == 0 {
		t.Errorf("Lint() is empty for a CRD without spec")
	}
}

func TestConcurrentUse(t *testing.T) {
	data, err := os.ReadFile("examples/crontab/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				for _, v := range crd.Versions() {
					_ = v.DeprecationWarning()
					if s := v.Schema(); s != nil {
						for range s.Properties() {
						}
					}
				}
				_ = crd.Lint()
			}
		}()
	}
	wg.Wait()
}

func FuzzLoad(f *testing.F) {
	if d, err := os.ReadFile("examples/crontab/crd.yaml"); err == nil {
		f.Add(d)
	}
	if d, err := os.ReadFile("examples/invalid/non-structural.yaml"); err == nil {
		f.Add(d)
	}
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":{"items":[{}],"x-kubernetes-list-type":"map"}}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		crd, err := Load(data, LoadOptions{AllowInvalid: true})
		if err != nil {
			return
		}
		_ = crd.Lint()
		for _, v := range crd.Versions() {
			_ = v.DeprecationWarning()
		}
		if def := crd.Definition(); def.Name != crd.Name() || len(def.Spec.Versions) != len(crd.Definition().Spec.Versions) {
			t.Errorf("Load(%q).Definition() names %q with %d versions, the CRD %q", data, def.Name, len(def.Spec.Versions), crd.Name())
		}
	})
}

func TestLoadWarnings(t *testing.T) {
	const head = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":`
	const tail = `}}]}}`
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"none", head + `{"type":"object"}` + tail, nil},
		{"duplicate key in JSON", strings.Replace(head, `"scope":"Namespaced"`, `"scope":"Namespaced","scope":"Namespaced"`, 1) + `{"type":"object"}` + tail,
			[]string{`duplicate field "spec.scope"`}},
		{"unrecognized formats, each once, in walk order", head + `{"type":"object","properties":{"a":{"type":"string","format":"foo"},"b":{"type":"integer","format":"float"},"c":{"type":"string","format":"foo"},"d":{"type":"string","format":"date-time"},"e":{"type":"number","format":"double"}}}` + tail,
			[]string{`unrecognized format "foo"`, `unrecognized format "float"`}},
		{"set lists of objects and arrays", head + `{"type":"object","properties":{"o":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"object","x-kubernetes-map-type":"atomic"}},"a":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"array","items":{"type":"string"}}},"s":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}}}` + tail,
			[]string{`x-kubernetes-list-type: set for items of type "array" is not supported by server-side apply or CEL validation rules`, `x-kubernetes-list-type: set for items of type "object" is not supported by server-side apply or CEL validation rules`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Warnings(); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Load(%s).Warnings() = %q, want %q", tc.name, got, tc.want)
			}
		})
	}
}

// TestLoadNumbers: a JSON CRD is decoded as the server decodes the body (no
// YAML conversion), and the numbers of defaults and enums are stored as
// the server stores them; one out of float64's range is the server's 400.
// conformance/servertest's TestCreateStoresCoercedDefaults compares these
// with the real server.
func TestLoadNumbers(t *testing.T) {
	doc := func(prop string) string {
		return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.n.example.com"},"spec":{"group":"n.example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"x":` + prop + `}}}}]}}`
	}
	for _, tc := range []struct{ prop, want string }{
		{`{"type":"number","default":1.0}`, `default 1`},
		{`{"type":"number","default":1E2,"enum":[1.0,100]}`, `default 100, enum [1 100]`},
		{`{"type":"number","default":1e-400}`, `default 0`},
		{`{"type":"number","default":1e400}`, `400 CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: json: cannot unmarshal number 1e400 into Go value of type float64`},
		{`{"type":"number","enum":[-1e400]}`, `400 CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: json: cannot unmarshal number -1e400 into Go value of type float64`},
	} {
		t.Run(tc.prop, func(t *testing.T) {
			c, err := Load([]byte(doc(tc.prop)))
			var got string
			if err != nil {
				var st *apierrors.StatusError
				if !errors.As(err, &st) {
					t.Fatalf("Load(%s) = %T %v, want a Status", tc.prop, err, err)
				}
				got = fmt.Sprintf("%d %s", st.Status().Code, st.Status().Message)
			} else {
				x := c.Definition().Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["x"]
				got = "default " + string(x.Default.Raw)
				if len(x.Enum) > 0 {
					var es []string
					for _, e := range x.Enum {
						es = append(es, string(e.Raw))
					}
					got += ", enum [" + strings.Join(es, " ") + "]"
				}
			}
			if got != tc.want {
				t.Errorf("Load(%s) = %s, want %s", tc.prop, got, tc.want)
			}
		})
	}
}

// TestLoadDefinitionDecodedAgain holds Load's CRDs, which keep their
// schemas only compiled and decode them again for Definition, to New's,
// which keep the typed form: the same definition for every corpus CRD,
// from YAML and from JSON, with the CRD validation run or skipped (a
// known verdict), and the buffer Load was given reused afterwards.
func TestLoadDefinitionDecodedAgain(t *testing.T) {
	n := 0
	// A default whose embedded resource's metadata the validation coerces
	// (the server stores it coerced), besides the corpus.
	coerced := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.coerce.example.com"},"spec":{"group":"coerce.example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"x":` +
		`{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,"default":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","bogus":1,"creationTimestamp":null},"spec":{"a":1}}}}}}}}}]}}`
	for _, d := range append(corpusDocs(t), docs.Doc{File: "coerced", JSON: []byte(coerced)}) {
		typed, _, err := DecodeCRD(d.JSON)
		if errors.Is(err, ErrNotCRD) {
			continue
		}
		if err != nil {
			t.Fatalf("DecodeCRD(%s#%d) = %v", d.File, d.Index, err)
		}
		viaNew, err := New(typed)
		if err != nil {
			t.Fatalf("New(%s) = %v", typed.Name, err)
		}
		want, _ := json.Marshal(viaNew.Definition())
		yml, err := yaml.JSONToYAML(d.JSON)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range []struct {
			name string
			data []byte
			opts LoadOptions
		}{
			{"json", bytes.Clone(d.JSON), LoadOptions{}},
			{"yaml", yml, LoadOptions{}},
			{"json-known", bytes.Clone(d.JSON), LoadOptions{Verdict: &verdict.Verdict{Known: true}}},
		} {
			c, err := Load(in.data, in.opts)
			if err != nil {
				t.Fatalf("Load(%s, %s) = %v", typed.Name, in.name, err)
			}
			for i := range in.data {
				in.data[i] = ' ' // the caller's buffer, reused
			}
			for _, v := range c.v1.Spec.Versions {
				if v.Schema != nil {
					t.Errorf("Load(%s, %s) keeps version %s's typed schema", typed.Name, in.name, v.Name)
				}
			}
			got, _ := json.Marshal(c.Definition())
			if !bytes.Equal(got, want) {
				t.Errorf("Load(%s, %s).Definition() = %.300s..., want New's %.300s...", typed.Name, in.name, got, want)
			}
			if n, _ := json.Marshal(c.Names()); !bytes.Contains(want, append([]byte(`"names":`), n...)) {
				t.Errorf("Load(%s, %s).Names() = %s, not the definition's", typed.Name, in.name, n)
			}
			if again, _ := json.Marshal(c.Definition()); !bytes.Equal(again, got) {
				t.Errorf("Load(%s, %s).Definition() differs on a second call", typed.Name, in.name)
			}
		}
		n++
	}
	if n < 31 {
		t.Errorf("checked %d CRDs, want at least 31", n)
	}
}

// TestDecodeCRDTypeMeta: DecodeCRD decodes strictly first and reads the
// type meta on its own only when that fails; its answers are those of
// reading the type meta first (referenceTypeMeta): not a CRD, the
// decoder's 400 for a CRD, or the type meta's own error.
func TestDecodeCRDTypeMeta(t *testing.T) {
	crd := `"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition"`
	for _, doc := range []string{
		`{` + crd + `,"metadata":{"name":"a.b.c"}}`,
		`{` + crd + `,"spec":3}`,
		`{` + crd + `,"spec":{"versions":3},"extra":1}`,
		`{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"b"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","spec":3}`,
		`{"apiVersion":"v1","kind":"CustomResourceDefinition","spec":3}`,
		`{"apiVersion":3,"kind":"CustomResourceDefinition"}`,
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":null}`,
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConfigMap","kind":"CustomResourceDefinition","spec":{}}`,
		`{` + crd + `,"kind":"ConfigMap"}`,
		`{"ApiVersion":"apiextensions.k8s.io/v1","Kind":"CustomResourceDefinition"}`,
		`{` + crd + `,"metadata":{"name":"a.b.c"},"Metadata":{}}`,
		`[1]`,
		`{"kind":{"a":1},"spec":3}`,
	} {
		_, _, err := DecodeCRD([]byte(doc))
		want := referenceTypeMeta(doc)
		got := "ok"
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("DecodeCRD(%s) = %s, want %s", doc, got, want)
		}
	}
}

// referenceTypeMeta is DecodeCRD's answer on a JSON document when the type
// meta is read first.
func referenceTypeMeta(doc string) string {
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(doc), &tm); err != nil {
		return err.Error()
	}
	if tm.APIVersion != "apiextensions.k8s.io/v1" || tm.Kind != "CustomResourceDefinition" {
		return fmt.Errorf("%w: apiVersion %q, kind %q", ErrNotCRD, tm.APIVersion, tm.Kind).Error()
	}
	if _, _, err := decodeCRDJSON([]byte(doc)); err != nil {
		return err.Error()
	}
	return "ok"
}

// FuzzDecodeCRDTypeMeta holds DecodeCRD on JSON documents to reading the
// type meta first (referenceTypeMeta).
func FuzzDecodeCRDTypeMeta(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":3}`))
	f.Add([]byte(`{"apiVersion":"v1","kind":"ConfigMap","spec":{"versions":1}}`))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"a"},"kind":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		js := bytes.TrimSpace(data)
		if len(js) == 0 || js[0] != '{' || !json.Valid(js) || bytes.Equal(js, []byte("null")) {
			return // YAML, converted first: the same path after that
		}
		_, _, err := DecodeCRD(data)
		got := "ok"
		if err != nil {
			got = err.Error()
		}
		if want := referenceTypeMeta(string(js)); got != want {
			t.Errorf("DecodeCRD(%s) = %s, want %s", data, got, want)
		}
	})
}

// TestVersionsShareCompilation: versions whose schemas are the same share
// one compiled schema (lifted to the top level by the conversion to the
// internal version when all are the same, compared otherwise); versions
// whose schemas differ do not.
func TestVersionsShareCompilation(t *testing.T) {
	doc := func(v2prop string) []byte {
		return []byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[` +
			`{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"a":{"type":"string"}},"x-kubernetes-validations":[{"rule":"has(self.a)"}]}}},` +
			`{"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","properties":{"` + v2prop + `":{"type":"string"}},"x-kubernetes-validations":[{"rule":"has(self.a)"}]}}},` +
			`{"name":"v3","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","properties":{"a":{"type":"string"}},"x-kubernetes-validations":[{"rule":"has(self.a)"}]}}}]}}`)
	}
	c, err := Load(doc("a"))
	if err != nil {
		t.Fatal(err)
	}
	v1, v2, v3 := c.Version("v1"), c.Version("v2"), c.Version("v3")
	if v1.Schema() != v2.Schema() || v1.Schema() != v3.Schema() || v1.rules != v3.rules || v1.rules == nil {
		t.Errorf("Load(three versions of one schema): schemas %p %p %p, rules %p %p, want one of each", v1.Schema(), v2.Schema(), v3.Schema(), v1.rules, v3.rules)
	}
	if v1.sameCoercion != v1 || v2.sameCoercion != v1 || v3.sameCoercion != v1 {
		t.Errorf("Load(three versions of one schema, lifted to the top level): sameCoercion %s %s %s, want v1 v1 v1", v1.sameCoercion.name, v2.sameCoercion.name, v3.sameCoercion.name)
	}
	if _, err := Load(doc("b")); err == nil {
		t.Fatal("Load(v2 without a) = nil, want the rule's compilation error")
	}
	c, err = Load(doc("b"), LoadOptions{AllowInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	v1, v2, v3 = c.Version("v1"), c.Version("v2"), c.Version("v3")
	if v1.Schema() == v2.Schema() || v1.Schema() != v3.Schema() {
		t.Errorf("Load(v2 differs): schemas %p %p %p, want v1's and v3's shared, v2's its own", v1.Schema(), v2.Schema(), v3.Schema())
	}
	if v1.sameCoercion != v3.sameCoercion || v2.sameCoercion == v1.sameCoercion {
		t.Errorf("Load(v2 differs): sameCoercion %s %s %s, want v1 v2 v1", v1.sameCoercion.name, v2.sameCoercion.name, v3.sameCoercion.name)
	}
}
