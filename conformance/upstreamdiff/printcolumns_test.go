package upstreamdiff

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/client-go/util/jsonpath"

	"github.com/crdkit/crdkit/printcolumns"
)

// pcCorpusDir finds the shared corpus: $CRDKIT_CORPUS, or ../shared/corpus
// next to the repository root.
func pcCorpusDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("CRDKIT_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	if _, err := os.Stat(filepath.Join(dir, "crds")); err != nil {
		t.Skipf("corpus not found at %s (set CRDKIT_CORPUS to the corpus root): %v", dir, err)
	}
	return dir
}

// pcDocs decodes every YAML or JSON document under dir/sub into JSON.
func pcDocs(t testing.TB, dir, sub string) (docs []json.RawMessage, names []string) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join(dir, sub), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml") && !strings.HasSuffix(path, ".json") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
		for i := 0; ; i++ {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return fmt.Errorf("%s: %w", path, err)
			}
			if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
				continue
			}
			rel, _ := filepath.Rel(dir, path)
			docs = append(docs, raw)
			names = append(names, fmt.Sprintf("%s#%d", rel, i))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs, names
}

type pcCRD struct {
	crd  apiextensionsv1.CustomResourceDefinition
	objs []map[string]any // corpus objects of the CRD's group and kind
	file string
}

// pcCorpus loads the corpus CRDs with the corpus objects that belong to each.
func pcCorpus(t testing.TB) []*pcCRD {
	dir := pcCorpusDir(t)
	crdDocs, crdNames := pcDocs(t, dir, "crds")
	var crds []*pcCRD
	byGK := map[string]*pcCRD{}
	for i, raw := range crdDocs {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := json.Unmarshal(raw, &crd); err != nil || crd.Kind != "CustomResourceDefinition" {
			continue
		}
		c := &pcCRD{crd: crd, file: crdNames[i]}
		crds = append(crds, c)
		byGK[crd.Spec.Group+"/"+crd.Spec.Names.Kind] = c
	}
	objDocs, _ := pcDocs(t, dir, "objects")
	for _, raw := range objDocs {
		var obj map[string]any
		if err := utiljson.Unmarshal(raw, &obj); err != nil {
			t.Fatalf("decode corpus object: %v", err)
		}
		apiVersion, _ := obj["apiVersion"].(string)
		kind, _ := obj["kind"].(string)
		group, _, _ := strings.Cut(apiVersion, "/")
		if c := byGK[group+"/"+kind]; c != nil {
			c.objs = append(c.objs, obj)
		}
	}
	if len(crds) == 0 {
		t.Skipf("no CRDs in the corpus at %s", dir)
	}
	return crds
}

// pcServerColumns returns the columns the server serves for a version: the
// version's own, or the default Age column when it has none.
func pcServerColumns(cols []apiextensionsv1.CustomResourceColumnDefinition) []apiextensionsv1.CustomResourceColumnDefinition {
	if len(cols) > 0 {
		return cols
	}
	return []apiextensionsv1.CustomResourceColumnDefinition{{
		Name: "Age", Type: "date", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"],
		JSONPath: ".metadata.creationTimestamp",
	}}
}

// pcCompare converts objs with crdkit and with the server's table convertor
// and reports every difference. Both see the same clock to the second;
// timestamps used in tests are years old or special, so ages agree.
func pcCompare(t *testing.T, cols []apiextensionsv1.CustomResourceColumnDefinition, objs []map[string]any, noHeaders bool) (cells, nonNil int) {
	t.Helper()
	conv, upErr := tableconvertor.New(pcServerColumns(cols))
	mine, myErr := printcolumns.Compile(cols)
	if (upErr == nil) != (myErr == nil) || upErr != nil && upErr.Error() != myErr.Error() {
		t.Errorf("Compile error = %v, upstream %v", myErr, upErr)
	}

	// Ages come from two clocks read a moment apart; a second boundary
	// between them can change a young age ("5s" and "6s"), so a difference
	// is confirmed by a second run before it is reported.
	for attempt := 0; ; attempt++ {
		cells, nonNil, same := pcCompareOnce(t, conv, mine, objs, noHeaders, attempt > 0)
		if same || attempt > 0 {
			return cells, nonNil
		}
	}
}

func pcCompareOnce(t *testing.T, conv rest.TableConvertor, mine *printcolumns.Columns, objs []map[string]any, noHeaders, report bool) (cells, nonNil int, same bool) {
	t.Helper()
	items := make([]unstructured.Unstructured, len(objs))
	for i, o := range objs {
		items[i].Object = o
	}
	list := &unstructured.UnstructuredList{
		Object: map[string]any{"metadata": map[string]any{"resourceVersion": "42", "continue": "abc", "remainingItemCount": int64(3)}},
		Items:  items,
	}
	want, upErr := conv.ConvertToTable(context.Background(), list, &metav1.TableOptions{NoHeaders: noHeaders})
	three := int64(3)
	got, err := mine.Table(objs, printcolumns.TableOptions{
		NoHeaders: noHeaders,
		Now:       time.Now,
		ListMeta:  metav1.ListMeta{ResourceVersion: "42", Continue: "abc", RemainingItemCount: &three},
	})
	if upErr != nil || err != nil {
		if upErr == nil || err == nil || upErr.Error() != err.Error() {
			t.Errorf("Table() error = %v, upstream %v", err, upErr)
		}
		return 0, 0, true
	}
	for _, r := range got.Rows {
		for _, c := range r.Cells[1:] {
			cells++
			if c != nil {
				nonNil++
			}
		}
	}
	if reflect.DeepEqual(got, want) {
		return cells, nonNil, true
	}
	if !report {
		return cells, nonNil, false
	}
	if !reflect.DeepEqual(got.ColumnDefinitions, want.ColumnDefinitions) {
		t.Errorf("column definitions:\n got %#v\nwant %#v", got.ColumnDefinitions, want.ColumnDefinitions)
	}
	if !reflect.DeepEqual(got.ListMeta, want.ListMeta) {
		t.Errorf("list meta: got %#v, want %#v", got.ListMeta, want.ListMeta)
	}
	if len(got.Rows) != len(want.Rows) {
		t.Fatalf("%d rows, upstream %d", len(got.Rows), len(want.Rows))
	}
	for i := range got.Rows {
		g, w := got.Rows[i], want.Rows[i]
		if !reflect.DeepEqual(g.Cells, w.Cells) {
			src, _ := json.Marshal(objs[i])
			t.Errorf("row %d cells = %#v, upstream %#v\nobject %s", i, g.Cells, w.Cells, src)
		}
		if !reflect.DeepEqual(g.Object, w.Object) {
			t.Errorf("row %d object differs", i)
		}
	}
	return cells, nonNil, false
}

// pcStamp returns a copy of obj with a creationTimestamp, so that Age columns
// render. The stamp is years old, so its age text is stable for a day.
func pcStamp(obj map[string]any, stamp string) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	md := map[string]any{}
	if m, ok := obj["metadata"].(map[string]any); ok {
		for k, v := range m {
			md[k] = v
		}
	}
	md["creationTimestamp"] = stamp
	out["metadata"] = md
	return out
}

func TestPrintColumnsCorpus(t *testing.T) {
	crds := pcCorpus(t)
	versions, withColumns, objects, cells, nonNil := 0, 0, 0, 0, 0
	for _, c := range crds {
		for _, v := range c.crd.Spec.Versions {
			t.Run(c.crd.Name+"/"+v.Name, func(t *testing.T) {
				versions++
				if len(v.AdditionalPrinterColumns) > 0 {
					withColumns++
				}
				objs := make([]map[string]any, 0, 2*len(c.objs)+1)
				for _, o := range c.objs {
					objs = append(objs, o, pcStamp(o, "2016-02-29T12:00:00Z"))
				}
				objs = append(objs, pcGenerated(v.AdditionalPrinterColumns, rand.New(rand.NewPCG(uint64(len(c.crd.Name)), uint64(len(v.Name)))), 200)...)
				objects += len(objs)
				pcCompare(t, v.AdditionalPrinterColumns, objs[:min(3, len(objs))], true)
				for len(objs) > 0 {
					chunk := objs[:min(10, len(objs))]
					objs = objs[len(chunk):]
					c, n := pcCompare(t, v.AdditionalPrinterColumns, chunk, false)
					cells, nonNil = cells+c, nonNil+n
				}
			})
		}
	}
	t.Logf("%d CRDs, %d versions (%d with printer columns), %d objects, %d cells compared (%d not nil)",
		len(crds), versions, withColumns, objects, cells, nonNil)
	if withColumns == 0 {
		t.Errorf("no corpus version has printer columns")
	}
}

// TestPrintColumnsPaths compares column lists the corpus lacks: every column
// type against paths of every shape, and paths the parser rejects.
func TestPrintColumnsPaths(t *testing.T) {
	paths := []string{
		".spec.a", ".spec.list[0]", ".spec.list[-1]", ".spec.list[*].a", ".spec.list[1:3]", ".spec.list[::2]",
		`.spec.list[?(@.a=="x")].b`, `.spec.list[?(@.n>1)].a`, `.spec.list[?(@.a)].b`, ".spec.list[0,1]",
		".spec", ".", ".metadata.creationTimestamp", ".status.conditions[0].lastTransitionTime",
		`.status.conditions[?(@.type=="Ready")].status`, `.metadata.labels.app\.kubernetes\.io/name`,
	}
	types := []string{"string", "integer", "number", "boolean", "date", "object", ""}
	r := rand.New(rand.NewPCG(11, 12))
	for _, p := range paths {
		var cols []apiextensionsv1.CustomResourceColumnDefinition
		for i, typ := range types {
			cols = append(cols, apiextensionsv1.CustomResourceColumnDefinition{
				Name: fmt.Sprintf("C%d", i), Type: typ, JSONPath: p, Priority: int32(i % 2), Format: "int32",
			})
		}
		t.Run(p, func(t *testing.T) {
			objs := pcGenerated(cols, r, 150)
			for i := 0; i < len(objs); i += 10 {
				pcCompare(t, cols, objs[i:i+10], false)
			}
		})
	}
	bad := [][]apiextensionsv1.CustomResourceColumnDefinition{
		{{Name: "A", Type: "string", JSONPath: ".a"}, {Name: "B", Type: "string", JSONPath: ".b["}, {Name: "C", Type: "string", JSONPath: ".c"}},
		{{Name: "A", Type: "integer", JSONPath: `.a[?(@.x=="y"`}},
		{{Name: "A", Type: "string", JSONPath: ".a"}, {Name: "B", Type: "string", JSONPath: ".b[x]"}},
	}
	for i, cols := range bad {
		t.Run(fmt.Sprintf("bad%d", i), func(t *testing.T) { pcCompare(t, cols, pcGenerated(cols, r, 20), false) })
	}
}

// pcGenerated returns n objects built around the columns' paths: the keys and
// literals the paths mention, nested at random with values of every JSON type
// (timestamps included), so that each path finds a value, a wrong type, a
// null or nothing.
func pcGenerated(cols []apiextensionsv1.CustomResourceColumnDefinition, r *rand.Rand, n int) []map[string]any {
	g := pcGen{r: r, keys: []string{"metadata", "spec", "status", "name", "type", "status", "conditions", "items"}}
	for _, c := range cols {
		for _, tok := range strings.FieldsFunc(c.JSONPath, func(r rune) bool { return strings.ContainsRune(".[]?()@=!<>,:*'\" ", r) }) {
			g.keys = append(g.keys, strings.ReplaceAll(tok, `\`, ""))
		}
	}
	objs := make([]map[string]any, n)
	for i := range objs {
		obj := g.object(3)
		// The server takes an object with a top-level "items" array for a
		// list of its items; keep that to a few objects.
		if _, ok := obj["items"].([]any); ok && i%25 != 0 {
			delete(obj, "items")
		}
		// Most objects follow each path to its end, so cells are rarely nil.
		for _, c := range cols {
			if r.IntN(4) > 0 {
				g.plant(obj, c.JSONPath)
			}
		}
		objs[i] = obj
	}
	return objs
}

type pcGen struct {
	r    *rand.Rand
	keys []string
}

var pcStamps = []string{
	"2015-06-01T00:00:00Z", "2001-01-01T10:00:00+02:00", "0001-01-01T00:00:00Z", "", "null", "yesterday",
	"2999-01-01T00:00:00Z", "2020-01-01", "2019-03-04T05:06:07.891Z",
}

func (g *pcGen) scalar() any {
	switch g.r.IntN(9) {
	case 0:
		return nil
	case 1:
		return g.r.IntN(2) == 0
	case 2:
		return int64(g.r.IntN(2000) - 1000)
	case 3:
		return float64(g.r.IntN(2000)-1000) / 8
	case 4:
		return []float64{1e21, -0.0001, 3.7, 2.5}[g.r.IntN(4)]
	case 5, 6:
		return pcStamps[g.r.IntN(len(pcStamps))]
	}
	return g.keys[g.r.IntN(len(g.keys))]
}

func (g *pcGen) value(depth int) any {
	if depth <= 0 || g.r.IntN(3) == 0 {
		return g.scalar()
	}
	if g.r.IntN(2) == 0 {
		return g.object(depth - 1)
	}
	list := make([]any, g.r.IntN(4))
	for i := range list {
		list[i] = g.value(depth - 1)
	}
	return list
}

func (g *pcGen) object(depth int) map[string]any {
	m := map[string]any{}
	for i := g.r.IntN(4); i >= 0; i-- {
		m[g.keys[g.r.IntN(len(g.keys))]] = g.value(depth)
	}
	return m
}

// plant makes obj follow path: each field exists, each index is in range, and
// each filter has an element that satisfies it, ending in a random value.
func (g *pcGen) plant(obj map[string]any, path string) {
	p, err := jsonpath.Parse("plant", "{"+path+"}")
	if err != nil || len(p.Root.Nodes) != 1 {
		return
	}
	list, ok := p.Root.Nodes[0].(*jsonpath.ListNode)
	if !ok {
		return
	}
	var cur any = obj
	set := func(v any) {}
	for i, node := range list.Nodes {
		last := i == len(list.Nodes)-1
		switch n := node.(type) {
		case *jsonpath.FieldNode:
			m, ok := cur.(map[string]any)
			if !ok {
				m = map[string]any{}
				set(m)
			}
			next, ok := m[n.Value]
			if !ok || last || g.r.IntN(3) == 0 {
				next = g.value(2)
			}
			m[n.Value] = next
			key := n.Value
			set = func(v any) { m[key] = v }
			cur = next
		case *jsonpath.ArrayNode, *jsonpath.FilterNode:
			l, ok := cur.([]any)
			if !ok || len(l) == 0 {
				l = []any{g.value(1), g.value(1)}
				set(l)
			}
			idx := 0
			if f, ok := node.(*jsonpath.FilterNode); ok {
				idx = g.r.IntN(len(l))
				e, ok := l[idx].(map[string]any)
				if !ok {
					e = g.object(1)
					l[idx] = e
				}
				if len(f.Left.Nodes) == 1 && len(f.Right.Nodes) == 1 {
					lf, lok := f.Left.Nodes[0].(*jsonpath.FieldNode)
					rt, rok := f.Right.Nodes[0].(*jsonpath.TextNode)
					if lok && rok && g.r.IntN(4) > 0 {
						e[lf.Value] = rt.Text
					}
				}
			}
			lst, at := l, idx
			set = func(v any) { lst[at] = v }
			cur = l[idx]
		default:
			return
		}
	}
	set(g.value(1))
	if g.r.IntN(3) == 0 {
		set(g.scalar())
	}
}

// FuzzPrintColumnsTable compares crdkit's table with the server's for a
// random object and a random column path in every column type.
func FuzzPrintColumnsTable(f *testing.F) {
	seedObjs := []string{
		`{"metadata": {"name": "a", "creationTimestamp": "2015-01-01T00:00:00Z"}, "spec": {"a": 1, "list": [{"a": "x", "b": 2}, {"a": "y"}]}}`,
		`{"spec": {"list": [1, 2.5, "s", null, true, {"n": 2}]}, "status": {"conditions": [{"type": "Ready", "status": "True"}]}}`,
		`{"metadata": {"name": 5}, "spec": null}`,
	}
	seedPaths := []string{".spec.a", ".spec.list[1]", `.spec.list[?(@.a=="x")].b`, `.status.conditions[?(@.type=="Ready")].status`,
		".spec.list[-1:]", ".spec.list[*]", ".spec.list[0:0]", `.spec.list[?(@.n>=2)]`, ".metadata.creationTimestamp", ".spec"}
	for i, p := range seedPaths {
		f.Add(seedObjs[i%len(seedObjs)], p)
	}
	f.Fuzz(func(t *testing.T, src, path string) {
		// Wildcards and recursive descent over objects follow Go's random
		// map order on the server: not comparable run to run.
		if strings.Contains(path, "..") || strings.Contains(strings.ReplaceAll(path, "[*]", ""), "*") {
			return
		}
		var obj map[string]any
		if utiljson.Unmarshal([]byte(src), &obj) != nil || obj == nil {
			return
		}
		var cols []apiextensionsv1.CustomResourceColumnDefinition
		for _, typ := range []string{"string", "integer", "number", "boolean", "date"} {
			cols = append(cols, apiextensionsv1.CustomResourceColumnDefinition{Name: typ, Type: typ, JSONPath: path})
		}
		pcCompare(t, cols, []map[string]any{obj}, false)
	})
}

// TestPrintColumnsValidateCRD breaks the printer columns of corpus CRDs in
// every way the checks know, in one version or in all, and compares
// ValidateVersions with the column errors of the server's CRD validation
// (v1 defaults, conversion to the internal form, ValidateCustomResourceDefinition).
func TestPrintColumnsValidateCRD(t *testing.T) {
	breaks := []func(c *apiextensionsv1.CustomResourceColumnDefinition){
		func(c *apiextensionsv1.CustomResourceColumnDefinition) { c.Name = "" },
		func(c *apiextensionsv1.CustomResourceColumnDefinition) { c.Type = "" },
		func(c *apiextensionsv1.CustomResourceColumnDefinition) { c.Type = "object" },
		func(c *apiextensionsv1.CustomResourceColumnDefinition) { c.Format = "uuid" },
		func(c *apiextensionsv1.CustomResourceColumnDefinition) { c.Format = "int64" },
		func(c *apiextensionsv1.CustomResourceColumnDefinition) { c.JSONPath = "" },
		func(c *apiextensionsv1.CustomResourceColumnDefinition) { c.JSONPath = "spec.x" },
		func(c *apiextensionsv1.CustomResourceColumnDefinition) { c.JSONPath = "." },
		func(c *apiextensionsv1.CustomResourceColumnDefinition) { c.JSONPath = ".a[" },
		func(c *apiextensionsv1.CustomResourceColumnDefinition) {
			*c = apiextensionsv1.CustomResourceColumnDefinition{}
		},
	}
	compared := 0
	for _, c := range pcCorpus(t) {
		if len(c.crd.Spec.Versions) == 0 {
			continue
		}
		for bi, brk := range breaks {
			for _, scope := range []string{"all", "first", "add"} {
				crd := c.crd.DeepCopy()
				for vi := range crd.Spec.Versions {
					v := &crd.Spec.Versions[vi]
					// Columns are checked apart from the schema; a small one
					// keeps the server's validation quick.
					v.Schema = &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object", XPreserveUnknownFields: ptrTrue(),
					}}
					switch {
					case scope == "add":
						v.AdditionalPrinterColumns = append(v.AdditionalPrinterColumns, apiextensionsv1.CustomResourceColumnDefinition{Name: "X", Type: "string", JSONPath: ".x"})
						if vi == 0 {
							brk(&v.AdditionalPrinterColumns[len(v.AdditionalPrinterColumns)-1])
						}
					case len(v.AdditionalPrinterColumns) == 0:
					case scope == "all" || vi == 0:
						brk(&v.AdditionalPrinterColumns[len(v.AdditionalPrinterColumns)/2])
					}
				}
				want, err := pcUpstreamColumnErrors(crd)
				if err != nil {
					t.Fatalf("%s: %v", c.file, err)
				}
				got := printcolumns.ValidateVersions(crd.Spec.Versions, field.NewPath("spec"))
				if !reflect.DeepEqual(pcErrStrings(got), pcErrStrings(want)) {
					t.Errorf("%s break %d in %s versions:\n got %v\nwant %v", c.crd.Name, bi, scope,
						strings.Join(pcErrStrings(got), "\n     "), strings.Join(pcErrStrings(want), "\n     "))
				}
				compared++
			}
		}
	}
	t.Logf("%d broken CRDs compared", compared)
}

func ptrTrue() *bool { b := true; return &b }

func pcUpstreamColumnErrors(in *apiextensionsv1.CustomResourceDefinition) (field.ErrorList, error) {
	crd := in.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	internal := new(apiextensions.CustomResourceDefinition)
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		return nil, err
	}
	internal.Status = apiextensions.CustomResourceDefinitionStatus{}
	internal.Generation = 1
	for _, v := range internal.Spec.Versions {
		if v.Storage {
			internal.Status.StoredVersions = append(internal.Status.StoredVersions, v.Name)
			break
		}
	}
	var out field.ErrorList
	for _, e := range validation.ValidateCustomResourceDefinition(context.Background(), internal) {
		if strings.Contains(e.Field, "additionalPrinterColumns") {
			out = append(out, e)
		}
	}
	return out, nil
}

func pcErrStrings(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = fmt.Sprintf("%s | %s | %#v | %s", e.Field, e.Type, e.BadValue, e.Detail)
	}
	return out
}
