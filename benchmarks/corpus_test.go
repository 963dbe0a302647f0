package benchmarks

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/schema"
)

// The corpus inputs the benchmarks share: where the corpus is, every CRD
// version's schema in the forms both sides build, and corpus objects
// decoded as the server decodes request bodies.

// benchCorpus is the corpus folder (corpus.Root: $CRDKIT_CORPUS, or the
// shared folder beside the checkout); it skips tb when there is none.
func benchCorpus(tb testing.TB) string {
	d, ok := corpus.Root()
	if !ok {
		tb.Skip("corpus not found (set CRDKIT_CORPUS)")
	}
	return d
}

// corpusVersion is one version of a corpus CRD and its schema: as written
// (v1), as the server converts it (internal) and builds it (up), and as
// crdkit compiles it from the JSON of the same v1 schema (ours).
type corpusVersion struct {
	name     string // plural-version, for benchmark names
	crd      *apiextensionsv1.CustomResourceDefinition
	props    *apiextensionsv1.JSONSchemaProps
	internal *apiextensions.JSONSchemaProps
	up       *structuralschema.Structural
	ours     *schema.Schema
}

var (
	corpusVersionsOnce sync.Once
	corpusVersionsMap  map[string]*corpusVersion
	corpusVersionsErr  error
)

// corpusVersions returns every version with a schema of every corpus CRD,
// by "Kind group/version", loaded once. Callers must not modify them.
func corpusVersions(dir string) (map[string]*corpusVersion, error) {
	corpusVersionsOnce.Do(func() { corpusVersionsMap, corpusVersionsErr = loadCorpusVersions(dir) })
	return corpusVersionsMap, corpusVersionsErr
}

func loadCorpusVersions(dir string) (map[string]*corpusVersion, error) {
	versions, err := corpus.Versions(filepath.Join(dir, "crds"))
	if err != nil {
		return nil, err
	}
	out := map[string]*corpusVersion{}
	for _, v := range versions {
		crd := v.CustomResourceDefinition
		cv := &corpusVersion{name: crd.Spec.Names.Plural + "-" + v.Name, crd: crd, props: v.Schema.OpenAPIV3Schema}
		if err := cv.build(); err != nil {
			return nil, fmt.Errorf("%s %s: %w", crd.Name, v.Name, err)
		}
		out[crd.Spec.Names.Kind+" "+crd.Spec.Group+"/"+v.Name] = cv
	}
	return out, nil
}

// build builds the server's structural schema (conversion to the internal
// type, NewStructural) and crdkit's.
func (cv *corpusVersion) build() error {
	cv.internal = new(apiextensions.JSONSchemaProps)
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(cv.props, cv.internal, nil); err != nil {
		return err
	}
	var err error
	if cv.up, err = structuralschema.NewStructural(cv.internal); err != nil {
		return err
	}
	js, err := json.Marshal(cv.props)
	if err != nil {
		return err
	}
	cv.ours, err = schema.CompileJSON(js)
	return err
}

// corpusObject is document index of objects/file, decoded as the server
// decodes a request body, with the CRD version that serves it.
func corpusObject(dir, file string, index int, versions map[string]*corpusVersion) (map[string]any, *corpusVersion, error) {
	docs, err := corpus.Documents(filepath.Join(dir, "objects", file))
	if err != nil {
		return nil, nil, err
	}
	if index >= len(docs) {
		return nil, nil, fmt.Errorf("%s has no document %d", file, index)
	}
	var obj map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(docs[index], &obj); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	cv := versions[fmt.Sprintf("%v %v", obj["kind"], obj["apiVersion"])]
	if cv == nil {
		return nil, nil, fmt.Errorf("%s: no CRD serves %v %v", file, obj["apiVersion"], obj["kind"])
	}
	return obj, cv, nil
}

// serverTyped round-trips a generated value through JSON, so that its
// numbers are typed as the server's decoder types them.
func serverTyped(obj any) (map[string]any, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var decoded map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &decoded); err != nil {
		return nil, err
	}
	return decoded, nil
}

// corpusDocs returns every document of every YAML or JSON file under dir,
// as JSON, in file-name order.
func corpusDocs(tb testing.TB, dir string) [][]byte {
	docs, err := corpus.Walk(dir)
	if err != nil {
		tb.Fatal(err)
	}
	out := make([][]byte, len(docs))
	for i, d := range docs {
		out[i] = d.JSON
	}
	return out
}
