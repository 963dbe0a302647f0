package structdiff

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/crdkit/crdkit/internal/corpus"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

var update = flag.Bool("update", false, "rewrite schema/testdata/structural.json from upstream")

// goldenFile holds the structural cases with the server's verdicts; package
// schema's unit tests check crdkit against it.
const goldenFile = "../../schema/testdata/structural.json"

// goldenBase is the field path the golden cases are checked under: where a
// CRD's first version keeps its schema.
var goldenBase = field.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")

type goldenCase struct {
	Name       string          `json:"name"`
	Schema     json.RawMessage `json:"schema"`
	BuildError string          `json:"buildError,omitempty"`
	Errors     []string        `json:"errors,omitempty"`
}

func readGolden(t testing.TB) []goldenCase {
	raw, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatalf("%s: %v", goldenFile, err)
	}
	return cases
}

// writeGolden writes the cases one field a line, each schema compact on one
// line, so that diffs stay readable.
func writeGolden(t *testing.T, cases []goldenCase) {
	var b bytes.Buffer
	str := func(s string) string { j, _ := json.Marshal(s); return string(j) }
	b.WriteString("[\n")
	for i, c := range cases {
		var compact bytes.Buffer
		if err := json.Compact(&compact, c.Schema); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "  {\n    \"name\": %s,\n    \"schema\": %s", str(c.Name), compact.String())
		if c.BuildError != "" {
			fmt.Fprintf(&b, ",\n    \"buildError\": %s", str(c.BuildError))
		}
		if len(c.Errors) > 0 {
			b.WriteString(",\n    \"errors\": [\n")
			for j, e := range c.Errors {
				sep := ","
				if j == len(c.Errors)-1 {
					sep = ""
				}
				fmt.Fprintf(&b, "      %s%s\n", str(e), sep)
			}
			b.WriteString("    ]")
		}
		sep := ","
		if i == len(cases)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "\n  }%s\n", sep)
	}
	b.WriteString("]\n")
	if err := os.WriteFile(goldenFile, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGolden checks that the expectations in schema/testdata/structural.json
// are what upstream v0.37.2 says; with -update it rewrites them.
func TestGolden(t *testing.T) {
	cases := readGolden(t)
	for i := range cases {
		c := &cases[i]
		t.Run(c.Name, func(t *testing.T) {
			r := upstream(c.Schema, goldenBase, "")
			if r.panicked != "" || r.decodeErr != nil {
				t.Fatalf("upstream(%s) = %s, want a verdict", c.Schema, r)
			}
			// Upstream's first build error depends on map order; a golden
			// case must not.
			for range 16 {
				if again := upstream(c.Schema, goldenBase, ""); again.buildErr != r.buildErr {
					t.Fatalf("upstream(%s) build error depends on map order: %q or %q", c.Schema, r.buildErr, again.buildErr)
				}
			}
			if *update {
				c.BuildError, c.Errors = r.buildErr, r.errs
				return
			}
			if c.BuildError != r.buildErr || strings.Join(c.Errors, "\n") != strings.Join(r.errs, "\n") {
				t.Errorf("upstream(%s) = %s, want (golden file) build error %q, errors:\n    %s",
					c.Schema, r, c.BuildError, strings.Join(c.Errors, "\n    "))
			}
		})
	}
	if *update {
		writeGolden(t, cases)
	}
}

// corpusDir finds the shared corpus: $CRDKIT_CORPUS, or ../shared/corpus
// beside the repository.
func corpusDir(t testing.TB) string {
	d, ok := corpus.Root()
	if !ok {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the directory holding crds/ and objects/ (default ../shared/corpus beside the repository)")
	}
	return d
}

// corpusSchemas returns the openAPIV3Schema of every version of every corpus
// CRD, as JSON, by "<crd>/<version>"; nil (and no skip) without a corpus
// when optional is true.
func corpusSchemas(t testing.TB, optional bool) map[string][]byte {
	dir, ok := corpus.Root()
	switch {
	case !ok && optional:
		return nil
	case !ok:
		dir = corpusDir(t) // skips
	}
	docs, err := corpus.Walk(filepath.Join(dir, "crds"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, d := range docs {
		var crd struct {
			Kind     string
			Metadata struct{ Name string }
			Spec     struct {
				Versions []struct {
					Name   string
					Schema struct {
						OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
					}
				}
			}
		}
		if json.Unmarshal(d.JSON, &crd) != nil || crd.Kind != "CustomResourceDefinition" {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if len(v.Schema.OpenAPIV3Schema) > 0 {
				out[crd.Metadata.Name+"/"+v.Name] = v.Schema.OpenAPIV3Schema
			}
		}
	}
	return out
}

func sortedKeys(m map[string][]byte) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// generated returns n schemas from the seeded generator.
func generated(seed uint64, n int) [][]byte {
	g := newSchemaGen(seed)
	out := make([][]byte, n)
	for i := range out {
		js, err := json.Marshal(g.root())
		if err != nil {
			panic(err)
		}
		out[i] = js
	}
	return out
}

// tally counts verdicts.
type tally struct {
	agree, total, caseFold, notComparable, structural, buildErr int
}

func (c *tally) add(t *testing.T, name string, js []byte) {
	t.Helper()
	c.total++
	v, diff := compareJSON(js)
	switch v {
	case agree:
		c.agree++
		switch r := crdkit(js, nil); {
		case r.structural:
			c.structural++
		case r.buildErr != "":
			c.buildErr++
		}
	case notComparable:
		c.notComparable++
	case knownCaseFold:
		c.caseFold++
	default:
		t.Errorf("structural(%s) disagrees with upstream\n%s\ninput: %s", name, diff, truncate(js))
	}
}

func truncate(b []byte) string {
	if len(b) > 800 && os.Getenv("CRDKIT_FULL_INPUT") == "" {
		return string(b[:800]) + "..."
	}
	return string(b)
}

// TestStructuralAgrees compares crdkit and upstream on every corpus schema,
// every golden case and a deterministic set of generated schemas.
func TestStructuralAgrees(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	if s := os.Getenv("CRDKIT_STRUCTURAL_CASES"); s != "" {
		fmt.Sscan(s, &n)
	}
	var corpus, golden, gen tally
	schemas := corpusSchemas(t, true)
	if schemas == nil {
		t.Log("corpus not found (set CRDKIT_CORPUS): corpus schemas skipped")
	}
	for _, name := range sortedKeys(schemas) {
		corpus.add(t, name, schemas[name])
	}
	for _, c := range readGolden(t) {
		golden.add(t, c.Name, c.Schema)
	}
	for i, js := range generated(1, n) {
		gen.add(t, fmt.Sprintf("generated %d", i), js)
	}
	all := tally{
		agree:         corpus.agree + golden.agree + gen.agree,
		total:         corpus.total + golden.total + gen.total,
		caseFold:      corpus.caseFold + golden.caseFold + gen.caseFold,
		notComparable: corpus.notComparable + golden.notComparable + gen.notComparable,
		structural:    corpus.structural + golden.structural + gen.structural,
		buildErr:      corpus.buildErr + golden.buildErr + gen.buildErr,
	}
	fmt.Printf("conformance: structural %d/%d cases agree (corpus %d/%d, golden %d/%d, generated %d/%d; %d structural, %d build errors, %d not structural; %d not comparable, %d case-folded keys)\n",
		all.agree, all.total, corpus.agree, corpus.total, golden.agree, golden.total, gen.agree, gen.total,
		all.structural, all.buildErr, all.agree-all.structural-all.buildErr, all.notComparable, all.caseFold)
	if corpus.structural != corpus.agree {
		t.Errorf("%d of %d corpus schemas are not structural for crdkit, want all (the server serves them)", corpus.agree-corpus.structural, corpus.agree)
	}
	if gen.structural == 0 || gen.structural == gen.agree {
		t.Errorf("generated %d structural schemas of %d, want both verdicts", gen.structural, gen.agree)
	}
}

// FuzzStructuralAgrees decodes arbitrary bytes as an openAPIV3Schema and
// compares crdkit's and upstream's structural verdicts and errors.
func FuzzStructuralAgrees(f *testing.F) {
	for _, c := range readGolden(f) {
		f.Add([]byte(c.Schema))
	}
	for _, js := range generated(2, 200) {
		f.Add(js)
	}
	schemas := corpusSchemas(f, true)
	for _, name := range sortedKeys(schemas) {
		if len(schemas[name]) < 64<<10 {
			f.Add(schemas[name])
		}
	}
	f.Fuzz(func(t *testing.T, js []byte) {
		switch v, diff := compareJSON(js); v {
		case disagree:
			t.Fatalf("structural(%q) disagrees with upstream\n%s", js, diff)
		}
	})
}
