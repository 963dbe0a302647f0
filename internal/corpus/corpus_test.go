package corpus

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestDocuments(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.yaml")
	if err := os.WriteFile(p, []byte("a: 1\n---\n# only a comment\n---\nb: [2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, err := Documents(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || string(docs[0]) != `{"a":1}` || string(docs[1]) != `{"b":[2]}` {
		t.Errorf("Documents = %q, want [{\"a\":1} {\"b\":[2]}]", docs)
	}
}

func TestRootFromEnv(t *testing.T) {
	d := t.TempDir()
	t.Setenv("CRDKIT_CORPUS", d)
	if got, ok := Root(); !ok || got != d {
		t.Errorf("Root() = %q, %t, want %q, true", got, ok, d)
	}
	t.Setenv("CRDKIT_CORPUS", filepath.Join(d, "missing"))
	if _, ok := Root(); ok {
		t.Errorf("Root() ok for a missing directory")
	}
}

func TestWalk(t *testing.T) {
	d := t.TempDir()
	for name, body := range map[string]string{
		"b/x.yaml": "a: 1\n---\n# only a comment\n---\nb: [2]\n",
		"a.json":   `{"c": 3}`,
		"notes.md": "a: 1\n",
		"b/y.YML":  "null\n---\nd: 4\n",
	} {
		p := filepath.Join(d, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs, err := Walk(d)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, doc := range docs {
		got = append(got, doc.Name+" "+string(doc.JSON))
	}
	want := []string{`a.json#0 {"c":3}`, `b/x.yaml#0 {"a":1}`, `b/x.yaml#2 {"b":[2]}`, `b/y.YML#1 {"d":4}`}
	if !slices.Equal(got, want) {
		t.Errorf("Walk = %q, want %q", got, want)
	}
	if err := os.WriteFile(filepath.Join(d, "bad.yaml"), []byte("a: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Walk(d); err == nil {
		t.Error("Walk accepted a file that is not YAML")
	}
}

func TestCRDsAndVersions(t *testing.T) {
	d := t.TempDir()
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, kind: Widget}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
  - {name: v2, served: true, storage: false}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: other}
`
	if err := os.WriteFile(filepath.Join(d, "w.yaml"), []byte(crd), 0o644); err != nil {
		t.Fatal(err)
	}
	crds, err := CRDs(d)
	if err != nil || len(crds) != 1 || crds[0].Doc != "w.yaml#0" || crds[0].ObjectMeta.Name != "widgets.example.com" {
		t.Fatalf("CRDs = %+v, %v; want the one CRD, named w.yaml#0", crds, err)
	}
	vs, err := Versions(d)
	if err != nil || len(vs) != 1 || vs[0].Name != "v1" || vs[0].Spec.Versions[0].Schema.OpenAPIV3Schema.Type != "object" {
		t.Fatalf("Versions = %+v, %v; want v1 only (v2 has no schema)", vs, err)
	}
}
