// Package corpus finds and reads the shared real-world corpus of CRDs and
// objects for tests and benchmarks (of this module and of the conformance
// and benchmarks modules).
package corpus

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
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
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, err
		}
		if js = bytes.TrimSpace(js); len(js) > 0 && string(js) != "null" {
			out = append(out, js)
		}
	}
}
