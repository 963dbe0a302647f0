// Package corpus finds and reads the shared real-world corpus of CRDs and
// objects for tests and benchmarks (of this module and of the conformance
// and benchmarks modules).
package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Root returns the corpus root (the directory holding crds/ and objects/):
// $CRDKIT_CORPUS when set, else the first shared/corpus found beside the
// working directory or one of its parents. ok is false when there is none.
func Root() (dir string, ok bool) {
	if d := os.Getenv("CRDKIT_CORPUS"); d != "" {
		_, err := os.Stat(d)
		return d, err == nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for d := wd; ; d = filepath.Dir(d) {
		c := filepath.Join(filepath.Dir(d), "shared", "corpus")
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			return c, true
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// Documents reads a YAML file (several documents allowed) or a JSON file
// and returns each non-empty document as JSON.
func Documents(path string) ([][]byte, error) {
	var out [][]byte
	err := eachDocument(path, func(_ int, js []byte) { out = append(out, js) })
	return out, err
}

// Doc is one document of a corpus file, as JSON.
type Doc struct {
	Name string // the file's path relative to the walked folder, "#", the document's position in the file
	JSON []byte
}

// Walk reads every document of every .yaml, .yml and .json file under dir,
// in lexical order of the files. A document's position counts the empty
// documents of its file too, so names stay put when one is emptied.
func Walk(dir string) ([]Doc, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".yaml", ".yml", ".json":
			if !d.IsDir() {
				files = append(files, p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var docs []Doc
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		err := eachDocument(f, func(i int, js []byte) {
			docs = append(docs, Doc{Name: fmt.Sprintf("%s#%d", rel, i), JSON: js})
		})
		if err != nil {
			return nil, err
		}
	}
	return docs, nil
}

// eachDocument calls fn with every non-empty document of the file at path,
// as JSON, and its position among all the file's documents.
func eachDocument(path string, fn func(i int, js []byte)) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for i := 0; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return fmt.Errorf("%s#%d: %w", path, i, err)
		}
		if js = bytes.TrimSpace(js); len(js) > 0 && string(js) != "null" {
			fn(i, js)
		}
	}
}

// CRD is one CustomResourceDefinition document of the corpus.
type CRD struct {
	Doc string // the document's name, as Walk names it
	*apiextensionsv1.CustomResourceDefinition
}

// CRDs returns every CustomResourceDefinition document under dir (the
// corpus's crds folder, usually), decoded as the server decodes request
// bodies (case-sensitive keys, integers kept), in Walk's order.
func CRDs(dir string) ([]CRD, error) {
	docs, err := Walk(dir)
	if err != nil {
		return nil, err
	}
	var out []CRD
	for _, d := range docs {
		var tm struct{ Kind string }
		if json.Unmarshal(d.JSON, &tm) != nil || tm.Kind != "CustomResourceDefinition" {
			continue
		}
		crd := new(apiextensionsv1.CustomResourceDefinition)
		if err := kjson.UnmarshalCaseSensitivePreserveInts(d.JSON, crd); err != nil {
			return nil, fmt.Errorf("%s: %w", d.Name, err)
		}
		out = append(out, CRD{Doc: d.Name, CustomResourceDefinition: crd})
	}
	return out, nil
}

// Version is one version of a corpus CRD that has an openAPIV3Schema.
type Version struct {
	CRD
	*apiextensionsv1.CustomResourceDefinitionVersion // points into CRD.Spec.Versions
}

// Versions returns every version with an openAPIV3Schema of every
// CustomResourceDefinition under dir, in CRDs' order.
func Versions(dir string) ([]Version, error) {
	crds, err := CRDs(dir)
	if err != nil {
		return nil, err
	}
	var out []Version
	for _, c := range crds {
		for i := range c.Spec.Versions {
			if v := &c.Spec.Versions[i]; v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
				out = append(out, Version{CRD: c, CustomResourceDefinitionVersion: v})
			}
		}
	}
	return out, nil
}
